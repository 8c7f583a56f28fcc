package check

import (
	"fmt"
	"slices"
	"time"

	"github.com/rebalsim/rebalsim/scenarios"
	"github.com/rebalsim/rebalsim/sim"
)

// checkKind is what one key of an expect: entry checks.
type checkKind int

const (
	kindBound checkKind = iota
	kindConverged
	kindSafety
	kindZombie
)

// check is one key of an expect: entry.
type check struct {
	kind  checkKind
	bound scenarios.Bound
	// within is converged_within.
	within time.Duration
	// name is the key and value as the scenario writes them.
	name string
}

// checksOf splits an expectation into its checks: converged_within,
// no_double_ownership, no_zombie_processing, then the bounds in file order.
func checksOf(x scenarios.Expectation) []check {
	var out []check
	if x.ConvergedWithin != nil {
		out = append(out, check{kind: kindConverged, within: *x.ConvergedWithin, name: "converged_within: " + scenarios.FormatDuration(*x.ConvergedWithin)})
	}
	if x.NoDoubleOwnership {
		out = append(out, check{kind: kindSafety, name: "no_double_ownership: true"})
	}
	if x.NoZombieProcessing {
		out = append(out, check{kind: kindZombie, name: "no_zombie_processing: true"})
	}
	for _, b := range x.Bounds {
		out = append(out, check{kind: kindBound, bound: b, name: boundKey(b) + ": " + boundValue(b)})
	}
	return out
}

// outcome is a check's verdict on one seed.
type outcome struct {
	seed     uint64
	shuffled bool
	status   Status
	// badness orders outcomes of one status from best to worst, so that
	// a quantile can pick one: for a bound, how far past its limit the
	// value is (negative when inside).
	badness  float64
	measured string
	at       float64
	atLabel  string
	hasAt    bool
	detail   string
}

// judgeKind is what a judge checks on each seed.
type judgeKind int

const (
	// judgeExpectation checks one key of an expect: entry.
	judgeExpectation judgeKind = iota
	// judgeRunSafety checks every run for double ownership.
	judgeRunSafety
	// judgeTieOrder compares the verdicts of the two tie orders.
	judgeTieOrder
)

// judge is one case in the making: it judges each seed it covers as the
// seed finishes and folds the outcome into its tally.
type judge struct {
	kind  judgeKind
	chk   check
	proto string
	// line and name are the Case's Line and Check.
	line int
	name string
	// first are the corpus seeds judged before span consecutive seeds
	// from the scenario's seed; a seed's position in that list orders it.
	first []uint64
	span  int
	tally *tally
}

// newJudges lists the plan's cases in report order: the expectations in
// file order, each check of an entry, each protocol; then the implicit
// safety cases and the tie-order cases.
func (p *plan) newJudges(opts Options) []*judge {
	var out []*judge
	every := func(kind judgeKind, proto string) *judge {
		j := &judge{kind: kind, proto: proto, span: p.span, first: p.seeds[:len(p.seeds)-p.span]}
		j.tally = newTally(len(p.seeds), 1)
		return j
	}
	explicitSafety := map[string]bool{}
	for _, x := range p.sc.Expect {
		if x.DoubleOwnershipHazard {
			// A known hazard: the entry's min_double_ownership_seconds
			// shows it, in place of the safety case.
			for _, proto := range x.Protocols {
				explicitSafety[proto] = true
			}
		}
		for _, chk := range checksOf(x) {
			for _, proto := range p.protocols {
				if !appliesTo(x, proto) {
					continue
				}
				var j *judge
				if chk.kind == kindSafety {
					// Safety is judged on every run, whatever seeds: says.
					j = every(judgeRunSafety, proto)
					explicitSafety[proto] = true
				} else {
					j = &judge{kind: judgeExpectation, proto: proto, span: seedCount(x, opts)}
					if quantile(x) == 1 {
						// The corpus seeds come first when the check must
						// hold on every seed.
						for _, s := range p.corpus {
							if s-p.sc.Seed >= uint64(j.span) {
								j.first = append(j.first, s)
							}
						}
					}
					j.tally = newTally(len(j.first)+j.span, quantile(x))
				}
				j.chk, j.line, j.name = chk, x.Line, chk.name
				out = append(out, j)
			}
		}
	}
	for _, proto := range p.protocols {
		if !explicitSafety[proto] {
			j := every(judgeRunSafety, proto)
			j.name = "no_double_ownership (implicit)"
			out = append(out, j)
		}
	}
	if opts.ShuffleTies {
		for _, proto := range p.protocols {
			j := every(judgeTieOrder, proto)
			j.name = "tie order"
			out = append(out, j)
		}
	}
	return out
}

// position is where seed s stands in the judge's list of seeds; false
// when the judge does not cover s.
func (j *judge) position(s, scenarioSeed uint64) (int, bool) {
	if i := slices.Index(j.first, s); i >= 0 {
		return i, true
	}
	if s-scenarioSeed < uint64(j.span) {
		return len(j.first) + int(s-scenarioSeed), true
	}
	return 0, false
}

// judgeSeed judges one seed's results, by protocol, under every judge
// that covers it; shuffled holds the run with ties shuffled (nil without
// ShuffleTies). It is safe to call from several goroutines.
func (p *plan) judgeSeed(seed uint64, ordered, shuffled map[string]*sim.Result) {
	type verdict struct {
		j   *judge
		pos int
		o   outcome
	}
	var vs []verdict
	for _, j := range p.judges {
		pos, ok := j.position(seed, p.sc.Seed)
		if !ok {
			continue
		}
		o := p.judgeOne(j, ordered, shuffled)
		o.seed = seed
		vs = append(vs, verdict{j, pos, o})
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.runs += len(ordered) + len(shuffled)
	for _, v := range vs {
		v.j.tally.add(v.pos, v.o)
	}
}

// judgeOne is a judge's outcome on one seed.
func (p *plan) judgeOne(j *judge, ordered, shuffled map[string]*sim.Result) outcome {
	r := ordered[j.proto]
	switch j.kind {
	case judgeRunSafety:
		// Safety must hold always: on every seed, in both tie orders.
		o := judgeSafety(r)
		if s := shuffled[j.proto]; o.status == Pass && s != nil {
			if so := judgeSafety(s); so.status != Pass {
				o = so
				o.shuffled = true
			}
		}
		return o
	case judgeTieOrder:
		return p.tieOrderOutcome(j.proto, r, shuffled[j.proto])
	}
	switch j.chk.kind {
	case kindBound:
		return judgeBound(j.chk.bound, r, ordered[j.chk.bound.FractionOf])
	case kindConverged:
		return judgeConvergence(j.chk.within, r)
	}
	return judgeZombie(r)
}

// evaluate turns the judges' tallies into cases, once every seed is in.
func (p *plan) evaluate() ScenarioResult {
	sc := p.sc
	res := ScenarioResult{Name: sc.Name, Source: sc.Source, Description: sc.Description, Seed: sc.Seed,
		Seeds: p.seeds, Protocols: p.protocols, Skipped: p.skipped, Runs: p.runs}
	if p.skipped != "" {
		return res
	}
	for _, j := range p.judges {
		c := j.tally.result()
		c.Scenario, c.Source, c.Protocol, c.Line, c.Check = sc.Name, sc.Source, j.proto, j.line, j.name
		switch {
		case j.kind == judgeRunSafety:
			c.Bound = "no partition owned by two current members, in any run"
		case j.kind == judgeTieOrder:
			c.Bound = "the same safety and convergence verdicts with simultaneous events shuffled"
		case j.chk.kind == kindConverged:
			c.Bound = fmt.Sprintf("stable again within %s of each disturbance's end (of the last to end, when they overlap)", scenarios.FormatDuration(j.chk.within))
		case j.chk.kind == kindZombie:
			c.Bound = "no member processes after the coordinator fenced or removed it"
		default:
			c.Bound, c.reference = boundText(j.chk.bound), j.chk.bound.FractionOf
		}
		protos := []string{c.Protocol}
		if c.reference != "" {
			protos = append(protos, c.reference)
		}
		c.Trace = traceCommand(sc.Scenario, protos, c.Seed, c.Shuffled)
		res.Cases = append(res.Cases, c)
	}
	return res
}

func statusRank(s Status) int {
	switch s {
	case Pass:
		return 0
	case Undecided:
		return 1
	}
	return 2
}

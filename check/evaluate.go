package check

import (
	"cmp"
	"fmt"
	"math"
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

// evaluate turns the plan's runs into cases.
func (p *plan) evaluate(opts Options) ScenarioResult {
	sc := p.sc
	res := ScenarioResult{Name: sc.Name, Source: sc.Source, Description: sc.Description, Seed: sc.Seed,
		Seeds: p.seeds, Protocols: p.protocols, Skipped: p.skipped}
	if p.skipped != "" {
		return res
	}
	for _, m := range p.runs {
		res.Runs += len(m)
	}
	explicitSafety := map[string]bool{}
	for _, x := range sc.Expect {
		if x.DoubleOwnershipHazard {
			// A known hazard: the entry's min_double_ownership_seconds
			// shows it, in place of the safety case.
			for _, proto := range x.Protocols {
				explicitSafety[proto] = true
			}
		}
		seeds := p.expectationSeeds(x, opts)
		for _, chk := range checksOf(x) {
			for _, proto := range p.protocols {
				if !appliesTo(x, proto) {
					continue
				}
				var c Case
				if chk.kind == kindSafety {
					// Safety is judged on every run, whatever seeds: says.
					c = p.safetyCase(proto)
					explicitSafety[proto] = true
				} else {
					c = p.seedCase(chk, x, proto, seeds)
				}
				c.Line, c.Check = x.Line, chk.name
				res.Cases = append(res.Cases, c)
			}
		}
	}
	for _, proto := range p.protocols {
		if !explicitSafety[proto] {
			c := p.safetyCase(proto)
			c.Check = "no_double_ownership (implicit)"
			res.Cases = append(res.Cases, c)
		}
	}
	if opts.ShuffleTies {
		for _, proto := range p.protocols {
			res.Cases = append(res.Cases, p.tieOrderCase(proto))
		}
	}
	for i := range res.Cases {
		c := &res.Cases[i]
		c.Scenario, c.Source = sc.Name, sc.Source
		protos := []string{c.Protocol}
		if c.reference != "" {
			protos = append(protos, c.reference)
		}
		c.Trace = traceCommand(sc.Scenario, protos, c.Seed, c.Shuffled)
	}
	return res
}

// expectationSeeds lists the seeds an expectation is checked on: the
// corpus seeds first when it must hold on every seed, then the scenario's
// seed and those after it.
func (p *plan) expectationSeeds(x scenarios.Expectation, opts Options) []uint64 {
	n := seedCount(x, opts)
	var out []uint64
	if quantile(x) == 1 {
		for _, s := range p.corpus {
			if s-p.sc.Seed >= uint64(n) {
				out = append(out, s)
			}
		}
	}
	for i := range n {
		out = append(out, p.sc.Seed+uint64(i))
	}
	return out
}

func (p *plan) result(seed uint64, shuffled bool, proto string) *sim.Result {
	return p.runs[runKey{seed, shuffled}][proto]
}

// seedCase judges one check under one protocol on each seed and
// aggregates the verdicts by the expectation's quantile.
func (p *plan) seedCase(chk check, x scenarios.Expectation, proto string, seeds []uint64) Case {
	outs := make([]outcome, 0, len(seeds))
	for _, s := range seeds {
		r := p.result(s, false, proto)
		var o outcome
		switch chk.kind {
		case kindBound:
			var ref *sim.Result
			if chk.bound.FractionOf != "" {
				ref = p.result(s, false, chk.bound.FractionOf)
			}
			o = judgeBound(chk.bound, r, ref)
		case kindConverged:
			o = judgeConvergence(chk.within, r)
		case kindZombie:
			o = judgeZombie(r)
		}
		o.seed = s
		outs = append(outs, o)
	}
	c := aggregate(outs, quantile(x))
	c.Protocol, c.reference = proto, chk.bound.FractionOf
	c.Bound = boundText(chk.bound)
	switch chk.kind {
	case kindConverged:
		c.Bound = fmt.Sprintf("stable again within %s of each disturbance's end (of the last to end, when they overlap)", scenarios.FormatDuration(chk.within))
	case kindZombie:
		c.Bound = "no member processes after the coordinator fenced or removed it"
	}
	return c
}

// aggregate combines per-seed outcomes: the case passes when the check
// held on at least ⌈q × seeds⌉ of them, is undecided when it would with
// the undecided seeds counted in, and fails otherwise. It shows the seed
// at that rank from the best: the worst seed when q is 1.
func aggregate(outs []outcome, q float64) Case {
	n := len(outs)
	need := min(max(int(math.Ceil(q*float64(n)-1e-9)), 1), n)
	held, undecided := 0, 0
	var failing []uint64
	for _, o := range outs {
		switch o.status {
		case Pass:
			held++
		case Undecided:
			undecided++
		default:
			if !slices.Contains(failing, o.seed) {
				failing = append(failing, o.seed)
			}
		}
	}
	status := Fail
	switch {
	case held >= need:
		status = Pass
	case held+undecided >= need:
		status = Undecided
	}
	sorted := slices.Clone(outs)
	slices.SortStableFunc(sorted, func(a, b outcome) int {
		return cmp.Or(cmp.Compare(statusRank(a.status), statusRank(b.status)), cmp.Compare(a.badness, b.badness))
	})
	shown := sorted[need-1]
	c := Case{Status: status, Measured: shown.measured, Seed: shown.seed, Shuffled: shown.shuffled,
		Seeds: n, Held: held, Needed: need, Detail: shown.detail, FailingSeeds: failing, everySeed: q == 1}
	if status != Pass {
		c.At, c.AtLabel, c.HasAt = shown.at, shown.atLabel, shown.hasAt
	}
	return c
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

// safetyCase checks every run of the protocol, on every seed and in both
// tie orders, for double ownership: safety must hold always.
func (p *plan) safetyCase(proto string) Case {
	var outs []outcome
	for _, s := range p.seeds {
		o := judgeSafety(p.result(s, false, proto))
		if shuffled := p.result(s, true, proto); o.status == Pass && shuffled != nil {
			if so := judgeSafety(shuffled); so.status != Pass {
				o = so
				o.shuffled = true
			}
		}
		o.seed = s
		outs = append(outs, o)
	}
	c := aggregate(outs, 1)
	c.Protocol = proto
	c.Bound = "no partition owned by two current members, in any run"
	return c
}

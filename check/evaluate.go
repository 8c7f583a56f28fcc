package check

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"rebalsim/sim"
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
	bound sim.Bound
	// within is converged_within.
	within time.Duration
	// name is the key and value as the scenario writes them.
	name string
}

// checksOf splits an expectation into its checks: converged_within,
// no_double_ownership, no_zombie_processing, then the bounds in file order.
func checksOf(x sim.Expectation) []check {
	var out []check
	if x.ConvergedWithin != nil {
		out = append(out, check{kind: kindConverged, within: *x.ConvergedWithin, name: "converged_within: " + fmtDuration(*x.ConvergedWithin)})
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

func boundKey(b sim.Bound) string {
	if b.IsMax {
		return "max_" + b.Metric
	}
	return "min_" + b.Metric
}

func boundValue(b sim.Bound) string {
	if b.FractionOf != "" {
		return fmt.Sprintf("{fraction_of: %s, value: %s}", b.FractionOf, fmtNum(b.Value))
	}
	return fmtNum(b.Value)
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
		c.Trace = traceCommand(sc, c.Protocol, p.traceProtocols(c), c.Seed, c.Shuffled)
	}
	return res
}

// expectationSeeds lists the seeds an expectation is checked on: the
// corpus seeds first when it must hold on every seed, then the scenario's
// seed and those after it.
func (p *plan) expectationSeeds(x sim.Expectation, opts Options) []uint64 {
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

// traceProtocols are the protocols the trace command should run: the
// case's, and the reference of a comparison.
func (p *plan) traceProtocols(c *Case) []string {
	out := []string{c.Protocol}
	for _, x := range p.sc.Expect {
		if x.Line != c.Line || c.Line == 0 {
			continue
		}
		for _, b := range x.Bounds {
			if b.FractionOf != "" && c.Check == boundKey(b)+": "+boundValue(b) && !slices.Contains(out, b.FractionOf) {
				out = append(out, b.FractionOf)
			}
		}
	}
	return out
}

func (p *plan) result(seed uint64, shuffled bool, proto string) *sim.Result {
	return p.runs[runKey{seed, shuffled}][proto]
}

// seedCase judges one check under one protocol on each seed and
// aggregates the verdicts by the expectation's quantile.
func (p *plan) seedCase(chk check, x sim.Expectation, proto string, seeds []uint64) Case {
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
	c.Protocol = proto
	c.Bound = boundText(chk.bound)
	switch chk.kind {
	case kindConverged:
		c.Bound = fmt.Sprintf("stable again within %s of each disturbance's end (of the last to end, when they overlap)", fmtDuration(chk.within))
	case kindZombie:
		c.Bound = "no member processes after the coordinator fenced or removed it"
	}
	return c
}

// boundText says what a bound requires: "≤ 3", "≥ 40", "≤ 0.5 × eager's".
func boundText(b sim.Bound) string {
	op := "≥"
	if b.IsMax {
		op = "≤"
	}
	if b.FractionOf != "" {
		return fmt.Sprintf("%s %s × %s's", op, fmtNum(b.Value), b.FractionOf)
	}
	return op + " " + fmtNum(b.Value)
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

// judgeBound checks a metric bound on one run; ref is the run of the
// protocol a comparison refers to, on the same seed.
func judgeBound(b sim.Bound, r, ref *sim.Result) outcome {
	v, _ := r.Metrics.Value(b.Metric)
	limit := b.Value
	var o outcome
	if b.FractionOf != "" {
		rv, _ := ref.Metrics.Value(b.Metric)
		limit = b.Value * rv
		ratio := "∞ ×"
		switch {
		case rv != 0 && v != 0 && fmtNum(v/rv) == "0":
			ratio = "< 0.001 ×"
		case rv != 0:
			ratio = fmtNum(v/rv) + " ×"
		case v == 0:
			ratio = "0 ×"
		}
		o.measured = fmt.Sprintf("%s, %s %s's %s", fmtNum(v), ratio, b.FractionOf, fmtNum(rv))
	} else {
		o.measured = fmtNum(v)
		if fmtNum(v) == fmtNum(limit) && v != limit {
			o.measured = strconv.FormatFloat(v, 'g', -1, 64)
		}
	}
	holds := v >= limit
	o.badness = limit - v
	if b.IsMax {
		holds = v <= limit
		o.badness = v - limit
	}
	o.status = Pass
	if !holds {
		o.status = Fail
		o.at, o.atLabel, o.hasAt = whereBoundBroke(r, b.Metric, limit, b.IsMax)
	}
	return o
}

// whereBoundBroke finds where in virtual time a metric went past its
// bound: for the cumulative series (moved partitions, revocations, lag),
// the disturbance nearest before the first sample past the bound; for
// convergence, the disturbance that took longest; otherwise the first
// disturbance, since the metrics cover the window from it on.
func whereBoundBroke(r *sim.Result, metric string, limit float64, isMax bool) (float64, string, bool) {
	if isMax {
		var series []float64
		switch metric {
		case "moved_partitions":
			series = r.Series.Moved
		case "revocations":
			series = r.Series.Revocations
		case "peak_lag_records":
			series = r.Series.Lag
		case "convergence_seconds":
			worst := -1
			for i, c := range r.Convergence {
				if worst < 0 || c.Seconds > r.Convergence[worst].Seconds {
					worst = i
				}
			}
			if worst >= 0 {
				c := r.Convergence[worst]
				return c.At, c.Disturbance, true
			}
		}
		for i, v := range series {
			if v > limit && i < len(r.Series.Times) && r.Series.Times[i] >= r.WindowStart {
				return disturbanceBefore(r, r.Series.Times[i])
			}
		}
	}
	return firstDisturbance(r)
}

// disturbanceBefore returns the disturbance that started last at or
// before t (the first one when none did).
func disturbanceBefore(r *sim.Result, t float64) (float64, string, bool) {
	best := -1
	for i, d := range r.Disturbances {
		if d.Start <= t && (best < 0 || d.Start > r.Disturbances[best].Start) {
			best = i
		}
	}
	if best < 0 {
		return firstDisturbance(r)
	}
	return r.Disturbances[best].Start, r.Disturbances[best].Label, true
}

func firstDisturbance(r *sim.Result) (float64, string, bool) {
	best := -1
	for i, d := range r.Disturbances {
		if best < 0 || d.Start < r.Disturbances[best].Start {
			best = i
		}
	}
	if best < 0 {
		return 0, "", false
	}
	return r.Disturbances[best].Start, r.Disturbances[best].Label, true
}

// judgeConvergence checks converged_within on one run, in the manner of
// deterministic simulation testing: faults heal when their disturbance
// ends (a pause, stall or network partition is over, a restarted member
// is back), and from then on the group must be stable again within the
// bound. Disturbances that overlap in time form one episode, which heals
// when the last of them ends. A group still unstable at the horizon fails
// when the bound had elapsed by then, and is undecided when it had not.
func judgeConvergence(within time.Duration, r *sim.Result) outcome {
	bound := within.Seconds()
	o := outcome{status: Pass, measured: "stable throughout"}
	worst, worstAfter := -1, -1.0
	fail, undecided := -1, -1
	var failAfter float64
	for _, ep := range episodes(r) {
		d, c := disturbanceOf(r, ep.last), r.Convergence[ep.last]
		if !c.Converged {
			if r.WindowEnd-d.End >= bound {
				if fail < 0 || !math.IsInf(failAfter, 1) {
					fail, failAfter = ep.last, math.Inf(1)
				}
			} else if undecided < 0 {
				undecided = ep.last
			}
			continue
		}
		after := max(0, c.Seconds-(d.End-d.Start))
		if after > bound && fail < 0 {
			fail, failAfter = ep.last, after
		}
		if after > worstAfter {
			worst, worstAfter = ep.last, after
		}
	}
	pending := pendingDetail(r)
	switch {
	case fail >= 0:
		d := disturbanceOf(r, fail)
		o.status, o.at, o.atLabel, o.hasAt, o.badness = Fail, d.End, d.Label, true, failAfter
		if math.IsInf(failAfter, 1) {
			o.measured = fmt.Sprintf("never stable again after %s ended: still unstable at the horizon, %s later", d.Label, fmtSeconds(r.WindowEnd-d.End))
			o.detail = pending
		} else {
			o.measured = fmt.Sprintf("stable again %s after %s ended", fmtSeconds(failAfter), d.Label)
		}
	case undecided >= 0:
		d := disturbanceOf(r, undecided)
		o.status, o.at, o.atLabel, o.hasAt, o.badness = Undecided, d.End, d.Label, true, math.Inf(1)
		o.measured = fmt.Sprintf("not stable by the horizon, which comes only %s after %s ended: cannot decide; lengthen duration:", fmtSeconds(r.WindowEnd-d.End), d.Label)
		o.detail = pending
	case !r.Metrics.Converged:
		// Every episode settled, yet the group is unstable at the horizon:
		// it fell apart again without a disturbance of its own.
		last, label := 0.0, ""
		for i := range r.Convergence {
			if d := disturbanceOf(r, i); d.End >= last {
				last, label = d.End, d.Label
			}
		}
		o.at, o.atLabel, o.hasAt, o.badness = r.WindowEnd, "the horizon", true, math.Inf(1)
		o.detail = pending
		o.status = Fail
		if r.WindowEnd-last < bound {
			o.status = Undecided
		}
		o.measured = fmt.Sprintf("unstable at the horizon, %s after the last disturbance (%s) ended", fmtSeconds(r.WindowEnd-last), label)
	case worst >= 0:
		o.badness = worstAfter
		o.measured = fmt.Sprintf("stable again at most %s after a disturbance ended (%s)", fmtSeconds(worstAfter), disturbanceOf(r, worst).Label)
	}
	return o
}

// episode is a run of disturbances that overlap in time; last is the index
// of the one that ends last, when the episode's faults have all healed.
type episode struct{ last int }

// episodes groups a run's disturbances into episodes, in time order.
func episodes(r *sim.Result) []episode {
	idx := make([]int, len(r.Convergence))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		return cmp.Compare(disturbanceOf(r, a).Start, disturbanceOf(r, b).Start)
	})
	var out []episode
	end := math.Inf(-1)
	for _, i := range idx {
		d := disturbanceOf(r, i)
		if len(out) == 0 || d.Start > end {
			out = append(out, episode{last: i})
			end = d.End
			continue
		}
		if d.End >= end {
			out[len(out)-1].last, end = i, d.End
		}
	}
	return out
}

// disturbanceOf returns the disturbance that r.Convergence[i] is about.
func disturbanceOf(r *sim.Result, i int) sim.Disturbance {
	if i < len(r.Disturbances) && r.Disturbances[i].Label == r.Convergence[i].Disturbance {
		return r.Disturbances[i]
	}
	c := r.Convergence[i]
	return sim.Disturbance{Label: c.Disturbance, Start: c.At, End: c.At}
}

// pendingDetail names what was still pending at the horizon, from the
// run's not_converged finding.
func pendingDetail(r *sim.Result) string {
	for _, f := range r.Findings {
		if f.Kind != "not_converged" {
			continue
		}
		var parts []string
		if len(f.Members) > 0 {
			parts = append(parts, "members "+list(f.Members, 10))
		}
		if len(f.Partitions) > 0 {
			parts = append(parts, "partitions "+list(f.Partitions, 10))
		}
		text := "pending at the horizon: " + strings.Join(parts, "; ")
		if len(parts) == 0 {
			text = "not stable at the horizon"
		}
		return text + " (" + f.Detail + ")"
	}
	return ""
}

// judgeZombie checks no_zombie_processing on one run.
func judgeZombie(r *sim.Result) outcome {
	o := outcome{status: Pass, measured: "no zombie processing"}
	secs := r.Metrics.ZombieProcessingSeconds
	for _, f := range r.Findings {
		if f.Kind == "zombie_processing" {
			o.status, o.at, o.atLabel, o.hasAt = Fail, f.At, "", true
			o.detail = findingDetail(f)
			break
		}
	}
	if secs > 0 && o.status == Pass {
		o.status = Fail
		o.at, o.atLabel, o.hasAt = firstDisturbance(r)
	}
	if o.status == Fail {
		o.badness = secs
		o.measured = fmt.Sprintf("%s of zombie processing", fmtSeconds(secs))
		if o.atLabel == "" {
			_, o.atLabel, _ = disturbanceBefore(r, o.at)
		}
	}
	return o
}

// judgeSafety checks one run for double ownership.
func judgeSafety(r *sim.Result) outcome {
	o := outcome{status: Pass, measured: "no double ownership"}
	for _, f := range r.Findings {
		if f.Safety {
			o.status, o.at, o.hasAt = Fail, f.At, true
			_, o.atLabel, _ = disturbanceBefore(r, f.At)
			o.detail = findingDetail(f)
			break
		}
	}
	if secs := r.Metrics.DoubleOwnershipSeconds; secs > 0 || o.status == Fail {
		if o.status == Pass {
			o.status = Fail
			o.at, o.atLabel, o.hasAt = firstDisturbance(r)
		}
		o.badness = secs
		o.measured = fmt.Sprintf("%s of double ownership", fmtSeconds(secs))
	}
	return o
}

func findingDetail(f sim.Finding) string {
	text := fmt.Sprintf("%s at %s", f.Kind, fmtSeconds(f.At))
	if len(f.Members) > 0 {
		text += ": members " + list(f.Members, 10)
	}
	if len(f.Partitions) > 0 {
		text += "; partitions " + list(f.Partitions, 10)
	}
	if f.Detail != "" {
		text += " (" + f.Detail + ")"
	}
	return text
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

// verdicts are what a tie order must not change: safety, convergence at
// the horizon, and each converged_within check of the protocol.
type verdicts struct {
	safe      bool
	converged bool
	within    []Status
}

func (p *plan) verdictsOf(r *sim.Result, proto string) verdicts {
	v := verdicts{safe: judgeSafety(r).status == Pass, converged: r.Metrics.Converged}
	for _, x := range p.sc.Expect {
		if x.ConvergedWithin != nil && appliesTo(x, proto) {
			v.within = append(v.within, judgeConvergence(*x.ConvergedWithin, r).status)
		}
	}
	return v
}

// tieOrderCase compares, seed by seed, the verdicts of the run with ties
// in sequence order and the run with ties shuffled.
func (p *plan) tieOrderCase(proto string) Case {
	var outs []outcome
	for _, s := range p.seeds {
		ordered, shuffled := p.result(s, false, proto), p.result(s, true, proto)
		a, b := p.verdictsOf(ordered, proto), p.verdictsOf(shuffled, proto)
		o := outcome{seed: s, status: Pass, measured: "the same verdicts in both orders"}
		var changes []string
		if a.safe != b.safe {
			changes = append(changes, fmt.Sprintf("safety: %s ordered, %s shuffled", safeWord(a.safe), safeWord(b.safe)))
			bad := ordered
			if a.safe {
				bad = shuffled
			}
			so := judgeSafety(bad)
			o.at, o.atLabel, o.hasAt = so.at, so.atLabel, true
		}
		if a.converged != b.converged {
			changes = append(changes, fmt.Sprintf("convergence at the horizon: %s ordered, %s shuffled", convergedWord(a.converged), convergedWord(b.converged)))
		}
		within := 0
		for _, x := range p.sc.Expect {
			if x.ConvergedWithin == nil || !appliesTo(x, proto) {
				continue
			}
			if a.within[within] != b.within[within] {
				changes = append(changes, fmt.Sprintf("converged_within: %s (line %d): %s ordered, %s shuffled",
					fmtDuration(*x.ConvergedWithin), x.Line, a.within[within], b.within[within]))
			}
			within++
		}
		if len(changes) > 0 {
			o.status, o.shuffled, o.badness = Fail, true, float64(len(changes))
			o.measured = strings.Join(changes, "; ")
			o.detail = "rerun the trace command without --shuffle-ties and compare"
			if !o.hasAt {
				o.at, o.atLabel, o.hasAt = firstConvergenceDifference(ordered, shuffled)
			}
		}
		outs = append(outs, o)
	}
	c := aggregate(outs, 1)
	c.Protocol = proto
	c.Check = "tie order"
	c.Bound = "the same safety and convergence verdicts with simultaneous events shuffled"
	return c
}

// firstConvergenceDifference finds the earliest disturbance whose
// convergence differs between two runs of one scenario.
func firstConvergenceDifference(a, b *sim.Result) (float64, string, bool) {
	for i := range min(len(a.Convergence), len(b.Convergence)) {
		ca, cb := a.Convergence[i], b.Convergence[i]
		if ca.Converged != cb.Converged || ca.Seconds != cb.Seconds {
			return ca.At, ca.Disturbance, true
		}
	}
	return a.WindowEnd, "the horizon", true
}

func safeWord(safe bool) string {
	if safe {
		return "no double ownership"
	}
	return "double ownership"
}

func convergedWord(ok bool) string {
	if ok {
		return "converged"
	}
	return "not converged"
}

// traceCommand is the command that reruns a case's seed with a trace.
func traceCommand(sc *sim.Scenario, proto string, protos []string, seed uint64, shuffled bool) string {
	shuffle := ""
	if shuffled {
		shuffle = " --shuffle-ties"
	}
	out := fmt.Sprintf("rebalsim-trace/%s-%s-%d", fileSafe(sc.Name), proto, seed)
	return fmt.Sprintf("rebalsim run %s --protocol %s --seed %d%s --trace --out %s",
		shellQuote(sc.Source), strings.Join(protos, ","), seed, shuffle, shellQuote(out))
}

func fileSafe(s string) string {
	return strings.TrimSuffix(filepathBase(CorpusFile("", s)), ".seeds")
}

func filepathBase(p string) string {
	if i := strings.LastIndexAny(p, `/\`); i >= 0 {
		return p[i+1:]
	}
	return p
}

// shellQuote quotes s for a POSIX shell when it needs quoting.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:,=+@", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// fmtNum renders a metric with at most three decimals.
func fmtNum(v float64) string {
	if math.IsInf(v, 1) {
		return "∞"
	}
	return strconv.FormatFloat(math.Round(v*1000)/1000, 'f', -1, 64)
}

func fmtSeconds(v float64) string { return fmtNum(v) + "s" }

// fmtDuration renders a duration the way scenario files write them.
func fmtDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// list joins names, keeping the first limit and counting the rest.
func list(names []string, limit int) string {
	if len(names) <= limit {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s, … (%d in all)", strings.Join(names[:limit], ", "), len(names))
}

package check

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/rebalsim/rebalsim/scenarios"
	"github.com/rebalsim/rebalsim/sim"
)

// run builds a result by hand: a horizon, disturbances with the
// convergence the simulator measured for each (seconds from its start,
// negative for never), and findings.
func run(horizon float64, dist []sim.Disturbance, conv []float64, findings ...sim.Finding) *sim.Result {
	r := &sim.Result{WindowEnd: horizon, Disturbances: dist, Findings: findings}
	r.Metrics.Converged = true
	for i, d := range dist {
		c := sim.Convergence{Disturbance: d.Label, At: d.Start, Seconds: conv[i], Converged: conv[i] >= 0}
		if !c.Converged {
			c.Seconds = horizon - d.Start
			r.Metrics.Converged = false
		}
		r.Convergence = append(r.Convergence, c)
	}
	return r
}

func dist(label string, start, end float64) sim.Disturbance {
	return sim.Disturbance{Label: label, Start: start, End: end}
}

func TestJudgeConvergence(t *testing.T) {
	pending := sim.Finding{Kind: "not_converged", At: 100, Members: []string{"c3"}, Partitions: []string{"orders-1", "orders-2"}, Detail: "the group was not stable"}
	cases := []struct {
		name     string
		r        *sim.Result
		within   time.Duration
		status   Status
		at       float64
		label    string
		measured string
	}{
		{"settles after the pause ends", run(100, []sim.Disturbance{dist("pause c1", 10, 20)}, []float64{15}), 10 * time.Second,
			Pass, 0, "", "stable again at most 5s after a disturbance ended (pause c1)"},
		{"settles too late", run(100, []sim.Disturbance{dist("pause c1", 10, 20)}, []float64{15}), 3 * time.Second,
			Fail, 20, "pause c1", "stable again 5s after pause c1 ended"},
		{"never settles, bound elapsed", run(100, []sim.Disturbance{dist("crash c2", 20, 20)}, []float64{-1}, pending), 30 * time.Second,
			Fail, 20, "crash c2", "never stable again after crash c2 ended: still unstable at the horizon, 80s later"},
		{"horizon before the bound", run(40, []sim.Disturbance{dist("crash c2", 20, 20)}, []float64{-1}, pending), 30 * time.Second,
			Undecided, 20, "crash c2", "not stable by the horizon, which comes only 20s after crash c2 ended: cannot decide"},
		// A member that joins during a stall is one episode with it,
		// timed from the end of the stall.
		{"overlapping disturbances are one episode", run(300,
			[]sim.Disturbance{dist("start c5", 60, 60), dist("stall c2", 55, 175)}, []float64{116, 121}), 5 * time.Second,
			Pass, 0, "", "stable again at most 1s after a disturbance ended (stall c2)"},
		{"never unsettled", run(100, []sim.Disturbance{dist("pause c2", 30, 42)}, []float64{0}), time.Second,
			Pass, 0, "", "stable again at most 0s after a disturbance ended (pause c2)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := judgeConvergence(tc.within, tc.r)
			if o.status != tc.status || !strings.HasPrefix(o.measured, tc.measured) {
				t.Errorf("got %s %q; want %s %q", o.status, o.measured, tc.status, tc.measured)
			}
			if tc.status != Pass && (!o.hasAt || o.at != tc.at || o.atLabel != tc.label) {
				t.Errorf("at %v %q (%v); want %v %q", o.at, o.atLabel, o.hasAt, tc.at, tc.label)
			}
			if tc.r.Metrics.Converged == false && tc.status != Pass && !strings.Contains(o.detail, "members c3; partitions orders-1, orders-2") {
				t.Errorf("detail %q; want the members and partitions still pending", o.detail)
			}
		})
	}

	// Settled after every disturbance, then unstable at the horizon with
	// nothing to blame: a liveness failure once the bound has elapsed.
	r := run(200, []sim.Disturbance{dist("crash c2", 20, 20)}, []float64{45}, pending)
	r.Metrics.Converged = false
	if o := judgeConvergence(time.Minute, r); o.status != Fail || !strings.Contains(o.measured, "unstable at the horizon, 180s after the last disturbance (crash c2) ended") {
		t.Errorf("unstable at the horizon: %s %q", o.status, o.measured)
	}
	r.WindowEnd = 50
	if o := judgeConvergence(time.Minute, r); o.status != Undecided {
		t.Errorf("unstable at a horizon 30s after the last disturbance, bound 1m: %s; want undecided", o.status)
	}
}

func TestAggregateQuantile(t *testing.T) {
	outs := func(values ...float64) []outcome {
		var out []outcome
		for i, v := range values {
			o := outcome{seed: uint64(i + 1), status: Pass, badness: v - 10, measured: fmtNum(v)}
			if v > 10 {
				o.status = Fail
			}
			if math.IsNaN(v) {
				o.status, o.badness = Undecided, math.Inf(1)
			}
			out = append(out, o)
		}
		return out
	}
	// Ten seeds, two past the bound: fails for every seed, shows the worst.
	c := aggregate(outs(1, 2, 3, 4, 5, 6, 7, 8, 12, 11), 1)
	if c.Status != Fail || c.Seed != 9 || c.Measured != "12" || c.Held != 8 || c.Needed != 10 || !c.everySeed {
		t.Errorf("q=1: %+v", c)
	}
	if len(c.FailingSeeds) != 2 || c.FailingSeeds[0] != 9 || c.FailingSeeds[1] != 10 {
		t.Errorf("failing seeds %v; want [9 10]", c.FailingSeeds)
	}
	// q=0.8 needs 8 of 10: passes, showing the 8th best.
	c = aggregate(outs(1, 2, 3, 4, 5, 6, 7, 8, 12, 11), 0.8)
	if c.Status != Pass || c.Measured != "8" || c.Needed != 8 || c.everySeed {
		t.Errorf("q=0.8: %+v", c)
	}
	// Three past the bound: 7 < 8, fails at the 8th best, which is 11.
	c = aggregate(outs(1, 2, 3, 4, 5, 6, 7, 13, 12, 11), 0.8)
	if c.Status != Fail || c.Measured != "11" {
		t.Errorf("q=0.8 with three failing: %+v", c)
	}
	// An undecided seed could make up the difference: undecided.
	c = aggregate(outs(1, 2, 3, 4, 5, 6, 7, math.NaN(), 12, 11), 0.8)
	if c.Status != Undecided {
		t.Errorf("q=0.8 with an undecided seed: %+v", c)
	}
	// ⌈0.95 × 20⌉ = 19, not 20 after rounding error.
	many := make([]float64, 20)
	many[19] = 11
	if c := aggregate(outs(many...), 0.95); c.Needed != 19 || c.Status != Pass {
		t.Errorf("q=0.95 of 20: needed %d, %s", c.Needed, c.Status)
	}
}

func TestJudgeBound(t *testing.T) {
	withDowntime := func(v float64) *sim.Result {
		r := run(100, []sim.Disturbance{dist("start c4", 30, 30)}, []float64{2})
		r.Metrics.DowntimePartitionSeconds = v
		return r
	}
	half := scenarios.Bound{Metric: "downtime_partition_seconds", IsMax: true, Value: 0.5, FractionOf: "eager"}
	if o := judgeBound(half, withDowntime(10), withDowntime(40)); o.status != Pass || o.measured != "10, 0.25 × eager's 40" {
		t.Errorf("10 against half of 40: %s %q", o.status, o.measured)
	}
	o := judgeBound(half, withDowntime(30), withDowntime(40))
	if o.status != Fail || o.measured != "30, 0.75 × eager's 40" || o.at != 30 || o.atLabel != "start c4" {
		t.Errorf("30 against half of 40: %+v", o)
	}
	if o := judgeBound(half, withDowntime(0), withDowntime(0)); o.status != Pass || o.measured != "0, 0 × eager's 0" {
		t.Errorf("0 against half of 0: %s %q", o.status, o.measured)
	}
	atLeast := scenarios.Bound{Metric: "downtime_partition_seconds", Value: 2, FractionOf: "eager"}
	if o := judgeBound(atLeast, withDowntime(30), withDowntime(40)); o.status != Fail {
		t.Errorf("min 2 × eager's: %s", o.status)
	}
	if o := judgeBound(scenarios.Bound{Metric: "downtime_partition_seconds", Value: 25}, withDowntime(30), nil); o.status != Pass || o.measured != "30" {
		t.Errorf("min 25: %s %q", o.status, o.measured)
	}
	// A value that rounds to the bound is shown in full, so that a
	// failure never reads "3 > 3".
	if o := judgeBound(scenarios.Bound{Metric: "downtime_partition_seconds", IsMax: true, Value: 3}, withDowntime(3.0000001), nil); o.status != Fail || o.measured != "3.0000001" {
		t.Errorf("just past 3: %s %q", o.status, o.measured)
	}
}

// TestWhereBoundBroke places a crossing of a cumulative series at the
// disturbance just before it.
func TestWhereBoundBroke(t *testing.T) {
	r := run(100, []sim.Disturbance{dist("start c4", 30, 30), dist("leave c4", 60, 60)}, []float64{1, 1})
	r.WindowStart = 30
	r.Series = sim.Series{Step: 10, Times: []float64{0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100},
		Moved: []float64{0, 0, 0, 0, 3, 3, 3, 6, 6, 6, 6}}
	if at, label, ok := whereBoundBroke(r, "moved_partitions", 4, true); !ok || at != 60 || label != "leave c4" {
		t.Errorf("moved > 4 first at 70s: got %v %q", at, label)
	}
	if at, label, _ := whereBoundBroke(r, "moved_partitions", 2, true); at != 30 || label != "start c4" {
		t.Errorf("moved > 2 first at 40s: got %v %q", at, label)
	}
	if at, label, _ := whereBoundBroke(r, "rebalances", 0, true); at != 30 || label != "start c4" {
		t.Errorf("no series: got %v %q; want the first disturbance", at, label)
	}
}

func TestJudgeSafetyAndZombie(t *testing.T) {
	r := run(100, []sim.Disturbance{dist("pause c3", 60, 120)}, []float64{65})
	if judgeSafety(r).status != Pass || judgeZombie(r).status != Pass {
		t.Fatal("a clean run fails")
	}
	r.Findings = append(r.Findings,
		sim.Finding{Kind: "zombie_processing", At: 120, Members: []string{"c3"}, Partitions: []string{"orders-6"}},
		sim.Finding{Kind: "double_ownership", Safety: true, At: 121.5, Members: []string{"c1", "c3"}, Partitions: []string{"orders-6"}})
	r.Metrics.ZombieProcessingSeconds, r.Metrics.DoubleOwnershipSeconds = 0.25, 0.5
	if o := judgeZombie(r); o.status != Fail || o.at != 120 || o.measured != "0.25s of zombie processing" || !strings.Contains(o.detail, "members c3; partitions orders-6") {
		t.Errorf("zombie: %+v", o)
	}
	if o := judgeSafety(r); o.status != Fail || o.at != 121.5 || o.atLabel != "pause c3" || !strings.Contains(o.detail, "members c1, c3") {
		t.Errorf("safety: %+v", o)
	}
}

// synthetic judges given runs rather than simulated ones: ordered[i] and
// shuffled[i] are those of the scenario's seed + i (shuffled is nil
// without ShuffleTies).
func synthetic(sc *scenarios.File, opts Options, ordered, shuffled []map[string]*sim.Result) ScenarioResult {
	p := &plan{sc: sc, protocols: sc.Protocols, runProtocols: sc.Protocols, span: len(ordered)}
	for i := range ordered {
		p.seeds = append(p.seeds, sc.Seed+uint64(i))
	}
	p.judges = p.newJudges(opts)
	for i, s := range p.seeds {
		var sh map[string]*sim.Result
		if shuffled != nil {
			sh = shuffled[i]
		}
		p.judgeSeed(s, ordered[i], sh)
	}
	return p.evaluate()
}

// caseNamed is the case of res that checks name.
func caseNamed(t *testing.T, res ScenarioResult, name string) Case {
	t.Helper()
	for _, c := range res.Cases {
		if c.Check == name {
			return c
		}
	}
	t.Fatalf("no case %q in %+v", name, res.Cases)
	return Case{}
}

func TestTieOrderCase(t *testing.T) {
	within := time.Minute
	sc := &scenarios.File{Scenario: &sim.Scenario{Name: "ties", Source: "ties.yaml", Seed: 1, Protocols: []string{"nextgen"}},
		Expect: []scenarios.Expectation{{ConvergedWithin: &within, Line: 9}}}
	stable := func() *sim.Result { return run(100, []sim.Disturbance{dist("crash c2", 20, 20)}, []float64{46}) }
	stuck := run(100, []sim.Disturbance{dist("crash c2", 20, 20)}, []float64{-1})
	ties := Options{ShuffleTies: true}
	one := func(r *sim.Result) []map[string]*sim.Result { return []map[string]*sim.Result{{"nextgen": r}} }

	same := synthetic(sc, ties, one(stable()), one(stable()))
	if c := caseNamed(t, same, "tie order"); c.Status != Pass {
		t.Errorf("same verdicts: %+v", c)
	}
	changed := synthetic(sc, ties, one(stable()), one(stuck))
	c := caseNamed(t, changed, "tie order")
	if c.Status != Fail || !c.Shuffled || c.Seed != 1 || c.At != 20 || c.AtLabel != "crash c2" {
		t.Errorf("changed verdicts: %+v", c)
	}
	for _, want := range []string{"convergence at the horizon: converged ordered, not converged shuffled",
		"converged_within: 1m (line 9): pass ordered, fail shuffled"} {
		if !strings.Contains(c.Measured, want) {
			t.Errorf("measured %q; want it to say %q", c.Measured, want)
		}
	}
	// The safety case sees the shuffled runs too.
	bad := stable()
	bad.Findings = []sim.Finding{{Kind: "double_ownership", Safety: true, At: 21}}
	res := synthetic(sc, ties, one(stable()), one(bad))
	if c := caseNamed(t, res, "no_double_ownership (implicit)"); c.Status != Fail || !c.Shuffled || c.At != 21 {
		t.Errorf("safety in a shuffled run: %+v", c)
	}
	var checks []string
	for _, c := range res.Cases {
		checks = append(checks, c.Check+"="+string(c.Status))
	}
	if got := strings.Join(checks, " "); got != "converged_within: 1m=pass no_double_ownership (implicit)=fail tie order=fail" {
		t.Errorf("cases: %s", got)
	}
	if !strings.Contains(res.Cases[1].Trace, "--seed 1 --shuffle-ties --trace") {
		t.Errorf("trace %q; want --shuffle-ties", res.Cases[1].Trace)
	}
	if res.Runs != 2 {
		t.Errorf("runs %d; want 2: one seed in two tie orders", res.Runs)
	}
}

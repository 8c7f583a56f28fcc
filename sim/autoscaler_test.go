package sim

import (
	"testing"
	"time"
)

// TestResolveFenceposts checks Kubernetes' rounding of max_surge (up) and
// max_unavailable (down), and the rule that both at zero allow one
// unavailable pod.
func TestResolveFenceposts(t *testing.T) {
	pct := func(v int) IntOrPercent { return IntOrPercent{Value: v, Percent: true} }
	n := func(v int) IntOrPercent { return IntOrPercent{Value: v} }
	for _, c := range []struct {
		surge, unavailable IntOrPercent
		replicas           int
		wantS, wantU       int
		why                string
	}{
		{pct(25), pct(25), 20, 5, 5, "25% of 20 is 5 exactly, both ways"},
		{pct(25), pct(25), 10, 3, 2, "2.5 rounds up to 3 for surge, down to 2 for unavailable"},
		{pct(25), pct(25), 3, 1, 0, "0.75: surge 1, unavailable 0"},
		{pct(10), pct(10), 4, 1, 0, "0.4: surge 1, unavailable 0"},
		{n(0), pct(10), 5, 0, 1, "0 and floor(0.5) = 0 would stall: unavailable becomes 1"},
		{pct(0), pct(0), 8, 0, 1, "0% and 0% resolve to 0 and 0: unavailable becomes 1"},
		{n(1), n(0), 3, 1, 0, "counts are taken as they are"},
		{n(2), pct(50), 5, 2, 2, "a count and floor(2.5) = 2"},
		{pct(100), pct(100), 7, 7, 7, "100% is the replica count"},
	} {
		s, u := resolveFenceposts(c.surge, c.unavailable, c.replicas)
		if s != c.wantS || u != c.wantU {
			t.Errorf("surge %s, unavailable %s of %d: got %d, %d; want %d, %d (%s)",
				c.surge, c.unavailable, c.replicas, s, u, c.wantS, c.wantU, c.why)
		}
	}
}

// TestHPADesired checks the HPA's AverageValue formula and its 10%
// tolerance against hand-computed cases.
func TestHPADesired(t *testing.T) {
	for _, c := range []struct {
		current      int
		metric, want float64
		replicas     int
		why          string
	}{
		{4, 13000, 1000, 13, "ratio 13000/(1000×4) = 3.25: ceil(13000/1000) = 13"},
		{4, 4300, 1000, 4, "ratio 1.075 is within the tolerance: stay at 4"},
		// 4400/4000 is the double just above 1.1, and 1 - it is just below
		// -0.1: outside the tolerance, in the HPA's own float64 code too.
		{4, 4400, 1000, 5, "ratio 1.1 in float64: ceil(4.4) = 5"},
		{4, 4399, 1000, 4, "ratio 1.09975: within the tolerance"},
		{4, 4500, 1000, 5, "ratio 1.125: ceil(4.5) = 5"},
		{8, 7300, 1000, 8, "ratio 0.9125 is within the tolerance"},
		{8, 7000, 1000, 7, "ratio 0.875: ceil(7) = 7"},
		{8, 0, 1000, 0, "no lag: 0, which min_replicas clamps later"},
		{3, 24001, 1000, 25, "ceil(24.001) = 25"},
		{0, 5000, 1000, 0, "scaled to zero: the HPA does nothing"},
	} {
		if got := hpaDesired(c.current, c.metric, c.want, 0.1); got != c.replicas {
			t.Errorf("current %d, metric %v, target %v: got %d, want %d (%s)", c.current, c.metric, c.want, got, c.replicas, c.why)
		}
	}
}

// TestKEDALag checks KEDA's cap: without idle consumers, the lag never
// asks for more replicas than there are partitions.
func TestKEDALag(t *testing.T) {
	for _, c := range []struct {
		total      float64
		partitions int
		allowIdle  bool
		want       float64
		why        string
	}{
		{50000.7, 24, false, 24000, "50 replicas' worth is capped at 24 partitions × 1000"},
		{50000.7, 24, true, 50000, "allowed idle consumers: the lag, in whole records"},
		{20000.9, 24, false, 20000, "under the cap: the lag, in whole records"},
		{24000, 24, false, 24000, "exactly at the cap"},
	} {
		if got := kedaLag(c.total, c.partitions, 1000, c.allowIdle); got != c.want {
			t.Errorf("kedaLag(%v, %d, 1000, %v) = %v, want %v (%s)", c.total, c.partitions, c.allowIdle, got, c.want, c.why)
		}
	}
}

// TestHPADecide walks the HPA's behavior through a scale-up and a
// scale-down with the default policies, then checks the rounding of
// percent policies and the select policies.
func TestHPADecide(t *testing.T) {
	spec := &Autoscaler{MinReplicas: 8, MaxReplicas: 24, ScaleUp: DefaultScaleUp(), ScaleDown: DefaultScaleDown()}
	h := &hpa{spec: spec}
	step := func(at time.Duration, current, desired, want int, why string) {
		t.Helper()
		got := h.decide(at, current, desired)
		if got != want {
			t.Errorf("at %s, %d → desired %d: got %d, want %d (%s)", at, current, desired, got, want, why)
		}
		h.record(at, current, got)
	}
	const s = time.Second
	step(0, 8, 30, 16, "up by max(4 pods, 100%) per 15 s: max(12, 16) = 16")
	step(15*s, 16, 30, 24, "the first event is one period old, so 16 is the period's start: max(20, 32), clamped to 24")
	step(30*s, 24, 2, 24, "down is stabilized over 300 s: the window still holds 30")
	step(45*s, 24, 2, 24, "and again: max(30, 30, 2, 2) = 30 keeps 24")
	step(331*s, 24, 2, 8, "the 30s are out of the window (after 31 s): 2, floored at min_replicas 8")
	step(340*s, 8, 8, 8, "no change")

	// Percent policies: up rounds up, down truncates.
	up := ScalingRules{SelectPolicy: SelectMax, Policies: []ScalingPolicy{{Percent: true, Value: 10, Period: time.Minute}}}
	if got := scaleUpLimit(5, nil, nil, up, 0); got != 6 {
		t.Errorf("10%% up from 5: got %d, want ceil(5.5) = 6", got)
	}
	down := ScalingRules{SelectPolicy: SelectMax, Policies: []ScalingPolicy{{Percent: true, Value: 10, Period: time.Minute}}}
	if got := scaleDownLimit(5, nil, nil, down, 0); got != 4 {
		t.Errorf("10%% down from 5: got %d, want int(4.5) = 4", got)
	}
	// Select policies: min takes the smaller allowance, disabled none.
	both := DefaultScaleUp()
	both.SelectPolicy = SelectMin
	if got := scaleUpLimit(8, nil, nil, both, 0); got != 12 {
		t.Errorf("min of 8+4 and 8×2: got %d, want 12", got)
	}
	both.SelectPolicy = SelectDisabled
	if got := scaleUpLimit(8, nil, nil, both, 0); got != 8 {
		t.Errorf("disabled: got %d, want 8", got)
	}
	// Events inside a period count against it: 8 → 12 at 10 s leaves,
	// at 20 s, a period start of 8 for a 60 s pods policy of 4.
	pods := ScalingRules{SelectPolicy: SelectMax, Policies: []ScalingPolicy{{Value: 4, Period: time.Minute}}}
	ups := []scaleEvent{{at: 10 * s, change: 4}}
	if got := scaleUpLimit(12, ups, nil, pods, 20*s); got != 12 {
		t.Errorf("4 pods per minute, 4 added 10 s ago: got %d, want 8+4 = 12", got)
	}
	// Out of range: a count above max_replicas comes down at once.
	if got := (&hpa{spec: spec}).decide(0, 30, 30); got != 24 {
		t.Errorf("30 replicas with max 24: got %d, want 24", got)
	}
}

// TestCrashLoopBackOff checks the kubelet's back-off: 10 s doubling, at
// most 5 minutes.
func TestCrashLoopBackOff(t *testing.T) {
	want := []time.Duration{10 * time.Second, 20 * time.Second, 40 * time.Second, 80 * time.Second, 160 * time.Second, 300 * time.Second, 300 * time.Second}
	for i, w := range want {
		if got := crashLoopBackOff(i + 1); got != w {
			t.Errorf("restart %d: got %s, want %s", i+1, got, w)
		}
	}
}

// TestLeavesOnClose: who sends a leave on close() (KIP-1092).
func TestLeavesOnClose(t *testing.T) {
	for _, c := range []struct {
		op, instance string
		want         bool
	}{
		{CloseDefault, "", true},        // a dynamic member leaves
		{CloseDefault, "i1", false},     // a static one stays for its session
		{CloseLeaveGroup, "i1", true},   // unless it asks to leave
		{CloseRemainInGroup, "", false}, // a dynamic one can stay too
		{CloseRemainInGroup, "i1", false},
	} {
		cfg := ConsumerConfig{CloseMembership: c.op, GroupInstanceID: c.instance}
		if got := cfg.LeavesOnClose(); got != c.want {
			t.Errorf("%s with instance id %q: leaves %v, want %v", c.op, c.instance, got, c.want)
		}
	}
}

// TestCheckOperations: a Go-built scenario the pod models cannot run is
// an error, not a panic or a loop that never advances.
func TestCheckOperations(t *testing.T) {
	base := func() *Scenario {
		return &Scenario{Name: "s", Duration: time.Minute, Topics: []TopicSpec{{Name: "t", Partitions: 1}},
			Members: []MemberSpec{{ID: "c1"}}}
	}
	for _, c := range []struct {
		name string
		edit func(*Scenario)
	}{
		{"rollout without description", func(s *Scenario) { s.Events = []Event{{Kind: EventRollout, Members: []string{"c1"}}} }},
		{"no members", func(s *Scenario) {
			s.Autoscaler = &Autoscaler{PollingInterval: time.Second, MinReplicas: 1, MaxReplicas: 2}
		}},
		{"zero interval", func(s *Scenario) {
			s.Autoscaler = &Autoscaler{Members: []string{"c1"}, MinReplicas: 1, MaxReplicas: 2}
		}},
		{"max below min", func(s *Scenario) {
			s.Autoscaler = &Autoscaler{Members: []string{"c1"}, PollingInterval: time.Second, MinReplicas: 3, MaxReplicas: 2}
		}},
		{"unknown member", func(s *Scenario) {
			s.Autoscaler = &Autoscaler{Members: []string{"c9"}, PollingInterval: time.Second, MinReplicas: 1, MaxReplicas: 2}
		}},
	} {
		s := base()
		c.edit(s)
		if err := checkRunnable(s); err == nil {
			t.Errorf("%s: accepted", c.name)
		}
	}
	if err := checkRunnable(base()); err != nil {
		t.Errorf("a plain scenario: %v", err)
	}
}

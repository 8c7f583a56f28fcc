package protocols_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/rebalsim/rebalsim/protocols"
	"github.com/rebalsim/rebalsim/sim"
)

// classicGroup builds the 12-partition lab of DESIGN.md: one topic, members
// c1..cN at time zero, and the given events.
func classicGroup(members int, duration time.Duration, events ...sim.Event) *sim.Scenario {
	sc := &sim.Scenario{Name: "lab", Seed: 1, Duration: duration,
		Topics:  []sim.TopicSpec{{Name: "orders", Partitions: 12, Rate: 100}},
		Network: sim.NetworkSpec{Latency: sim.Distribution{Kind: sim.DistConstant, Value: 2 * time.Millisecond}},
		Group:   sim.DefaultGroupConfig(),
		Events:  events,
	}
	for i := 1; i <= members; i++ {
		sc.Members = append(sc.Members, sim.MemberSpec{ID: fmt.Sprintf("c%d", i)})
	}
	return sc
}

func runClassic(t *testing.T, sc *sim.Scenario, protocol string) *sim.Result {
	t.Helper()
	r, err := sim.Run(sc, protocols.Default(), sim.RunOptions{Protocol: protocol, Timeline: true})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// downtimeAfter sums each partition's unprocessed time after t from the timeline.
func downtimeAfter(r *sim.Result, t float64) map[string]float64 {
	out := map[string]float64{}
	for _, s := range r.Timeline {
		if s.State != "processing" && s.End > t {
			out[s.Partition] += s.End - max(s.Start, t)
		}
	}
	return out
}

func withStart(sc *sim.Scenario, id string, at time.Duration) *sim.Scenario {
	for i := range sc.Members {
		if sc.Members[i].ID == id {
			sc.Members[i].Start = at
		}
	}
	return sc
}

func TestEagerScaleOutStopsEveryPartition(t *testing.T) {
	sc := withStart(classicGroup(4, 2*time.Minute), "c4", 30*time.Second)
	r := runClassic(t, sc, sim.ProtocolEager)
	m := r.Metrics
	if m.MovedPartitions != 6 {
		t.Errorf("range moved %d partitions, want 6 (3 to c2; 6, 7 to c3; 9, 10, 11 to c4)", m.MovedPartitions)
	}
	if m.Revocations != 12 {
		t.Errorf("revocations = %d, want all 12", m.Revocations)
	}
	down := downtimeAfter(r, 30)
	for p := 0; p < 12; p++ {
		if name := fmt.Sprintf("orders-%d", p); down[name] <= 0 {
			t.Errorf("%s had no downtime under eager", name)
		}
	}
	if len(r.Findings) != 0 || !m.Converged || m.Rebalances != 1 {
		t.Errorf("findings=%v converged=%v rebalances=%d; want none, true, 1", r.Findings, m.Converged, m.Rebalances)
	}
}

func TestStickyScaleOutMovesThree(t *testing.T) {
	sc := withStart(classicGroup(4, 2*time.Minute), "c4", 30*time.Second)
	sticky := []string{"sticky"}
	sc.Defaults.Assignors = &sticky
	r := runClassic(t, sc, sim.ProtocolEager)
	if r.Metrics.MovedPartitions != 3 {
		t.Errorf("sticky moved %d partitions, want 3", r.Metrics.MovedPartitions)
	}
	if r.Metrics.Revocations != 12 {
		t.Errorf("eager sticky revoked %d, want 12 (revoke everything, get most back)", r.Metrics.Revocations)
	}
}

func TestCooperativeScaleOutMovesThreeAndNineKeepProcessing(t *testing.T) {
	sc := withStart(classicGroup(4, 2*time.Minute), "c4", 30*time.Second)
	r := runClassic(t, sc, sim.ProtocolCooperative)
	m := r.Metrics
	if m.MovedPartitions != 3 || m.Revocations != 3 || m.Rebalances != 2 {
		t.Errorf("moved=%d revocations=%d rebalances=%d; want 3, 3, 2", m.MovedPartitions, m.Revocations, m.Rebalances)
	}
	down := downtimeAfter(r, 30)
	if len(down) != 3 {
		t.Errorf("%d partitions had downtime, want exactly the 3 that moved: %v", len(down), down)
	}
	// Revoking members stop only the partitions they give up: no member
	// of c1-c3 is ever idle.
	if m.MemberIdleSeconds > 1 {
		t.Errorf("member_idle_seconds = %v; only c4 may wait", m.MemberIdleSeconds)
	}
	if len(r.Findings) != 0 || !m.Converged {
		t.Errorf("findings=%v converged=%v", r.Findings, m.Converged)
	}
}

func TestCooperativeScaleInMovesThreeBack(t *testing.T) {
	sc := withStart(classicGroup(4, 3*time.Minute, sim.Event{At: 90 * time.Second, Kind: sim.EventLeave, Members: []string{"c4"}}), "c4", 30*time.Second)
	r := runClassic(t, sc, sim.ProtocolCooperative)
	if r.Metrics.MovedPartitions != 6 {
		t.Errorf("moved = %d, want 3 out to c4 and 3 back", r.Metrics.MovedPartitions)
	}
}

func TestCrashIsFoundBySessionTimeout(t *testing.T) {
	crash := runClassic(t, classicGroup(3, 3*time.Minute, sim.Event{At: 60 * time.Second, Kind: sim.EventCrash, Members: []string{"c2"}}), sim.ProtocolEager)
	leave := runClassic(t, classicGroup(3, 3*time.Minute, sim.Event{At: 60 * time.Second, Kind: sim.EventLeave, Members: []string{"c2"}}), sim.ProtocolEager)
	// The crashed member's partitions wait for the 45s session timeout
	// (less the time since its last heartbeat), then a rebalance.
	if g := crash.Metrics.MaxPartitionGapSeconds; g < 42 || g > 47 {
		t.Errorf("crash: longest gap %.2fs, want about the 45s session timeout", g)
	}
	if g := leave.Metrics.MaxPartitionGapSeconds; g > 1 {
		t.Errorf("leave: longest gap %.2fs, want well under a second", g)
	}
	if crash.Metrics.DuplicateRecords <= 0 || leave.Metrics.DuplicateRecords != 0 {
		t.Errorf("duplicates: crash %.0f (want > 0: work since the last auto-commit), leave %.0f (want 0)", crash.Metrics.DuplicateRecords, leave.Metrics.DuplicateRecords)
	}
}

func TestSingleConsumerWaitsForInitialRebalanceDelay(t *testing.T) {
	r := runClassic(t, classicGroup(1, time.Minute), sim.ProtocolEager)
	first := -1.0
	for _, s := range r.Timeline {
		if s.State == "processing" && (first < 0 || s.Start < first) {
			first = s.Start
		}
	}
	if first < 3 || first > 3.5 {
		t.Errorf("first assignment at %.3fs, want just after the 3s initial rebalance delay", first)
	}
}

func TestStalledMemberHoldsEagerGroupUntilRebalanceTimeout(t *testing.T) {
	sc := withStart(classicGroup(4, 10*time.Minute,
		sim.Event{At: 59 * time.Second, Kind: sim.EventStall, Members: []string{"c2"}, For: 8 * time.Minute}),
		"c4", 60*time.Second)
	r := runClassic(t, sc, sim.ProtocolEager)
	// Everyone else revoked at the rebalance and waits for c2, which does
	// not poll: the join phase ends at the 5-minute rebalance timeout (or
	// when c2's own poll timer makes it leave, which is the same 5 minutes).
	down := downtimeAfter(r, 60)
	for p := 0; p < 12; p++ {
		name := fmt.Sprintf("orders-%d", p)
		if down[name] < 290 {
			t.Errorf("%s: %.1fs without processing, want about the 300s rebalance timeout", name, down[name])
		}
	}
	if !r.Metrics.Converged {
		t.Errorf("the group should converge after the stall: %v", r.Findings)
	}
}

func TestStaticRollingRestartWithinSessionTimeoutDoesNotRebalance(t *testing.T) {
	static := true
	sc := classicGroup(4, 5*time.Minute, sim.Event{At: 60 * time.Second, Kind: sim.EventRollingRestart,
		Members: []string{"c1", "c2", "c3", "c4"}, Interval: 20 * time.Second, For: 5 * time.Second, Graceful: true})
	sc.Defaults.Static = &static
	for _, p := range []string{sim.ProtocolEager, sim.ProtocolCooperative} {
		r := runClassic(t, sc, p)
		if r.Metrics.Rebalances != 0 || r.Metrics.MovedPartitions != 0 {
			t.Errorf("%s: rebalances=%d moved=%d, want 0 and 0 for static members back within the session timeout", p, r.Metrics.Rebalances, r.Metrics.MovedPartitions)
		}
	}
}

func TestRunIsDeterministic(t *testing.T) {
	sc := withStart(classicGroup(4, 3*time.Minute,
		sim.Event{At: 60 * time.Second, Kind: sim.EventCrash, Members: []string{"c2"}},
		sim.Event{At: 90 * time.Second, Kind: sim.EventPause, Members: []string{"c3"}, For: 50 * time.Second}), "c4", 30*time.Second)
	sc.Network.Latency = sim.Distribution{Kind: sim.DistLogNormal, Median: 2 * time.Millisecond, P99: 30 * time.Millisecond}
	for _, p := range []string{sim.ProtocolEager, sim.ProtocolCooperative} {
		once := func() ([]byte, []byte) {
			var trace bytes.Buffer
			r, err := sim.Run(sc, protocols.Default(), sim.RunOptions{Protocol: p, Timeline: true, Trace: &trace})
			if err != nil {
				t.Fatal(err)
			}
			b, err := json.Marshal(r)
			if err != nil {
				t.Fatal(err)
			}
			return b, trace.Bytes()
		}
		r1, t1 := once()
		r2, t2 := once()
		if !bytes.Equal(r1, r2) || !bytes.Equal(t1, t2) {
			t.Errorf("%s: two runs of one scenario and seed differ", p)
		}
		if len(t1) == 0 {
			t.Errorf("%s: empty trace", p)
		}
	}
}

// TestNaiveAssignorMovesMostPartitions is the lab's variation 2: a
// partition-modulo-members rule (roundrobin) before and after a join moves
// most partitions; a sticky strategy moves the minimum.
func TestNaiveAssignorMovesMostPartitions(t *testing.T) {
	sc := withStart(classicGroup(4, 2*time.Minute), "c4", 30*time.Second)
	roundrobin := []string{"roundrobin"}
	sc.Defaults.Assignors = &roundrobin
	naive := runClassic(t, sc, sim.ProtocolEager).Metrics.MovedPartitions
	sticky := runClassic(t, withStart(classicGroup(4, 2*time.Minute), "c4", 30*time.Second), sim.ProtocolCooperative).Metrics.MovedPartitions
	// 0..11 round-robin over 3 members, then over 4: only partitions 0, 1
	// and 2 keep their owner.
	if naive != 9 || sticky != 3 {
		t.Errorf("roundrobin moved %d (want 9 of 12), cooperative-sticky %d (want 3)", naive, sticky)
	}
}

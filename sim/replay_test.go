package sim

import (
	"math"
	"testing"
	"time"

	"github.com/rebalsim/rebalsim/kafka"
)

// TestReplayMeasuresARecordedHandoff replays a hand-written recording of
// one partition moving from c1 to a newly started c2 and checks each
// metric against its value worked out by hand.
func TestReplayMeasuresARecordedHandoff(t *testing.T) {
	sc := &Scenario{
		Name: "handoff", Seed: 1, Duration: 20 * time.Second,
		Topics:  []TopicSpec{{Name: "t", Partitions: 2, Rate: 10}},
		Members: []MemberSpec{{ID: "c1"}, {ID: "c2", Start: 10 * time.Second}},
	}
	tp := func(p int32) kafka.TopicPartition { return kafka.TopicPartition{Topic: "t", Partition: p} }
	s := func(sec float64) time.Duration { return time.Duration(sec * float64(time.Second)) }
	obs := []Observation{
		{At: 0, Kind: ObservedStart, Member: "c1"},
		{At: s(0.5), Kind: ObservedMembers, Member: "c1", Members: 1},
		{At: s(1), Kind: ObservedGeneration, Generation: 1},
		{At: s(1), Kind: ObservedAssigned, Member: "c1", Partitions: []kafka.TopicPartition{tp(0), tp(1)}},
		{At: s(1), Kind: ObservedCallbackDone, Member: "c1"},
		{At: s(1.1), Kind: ObservedCoordinator, Stable: true},
		{At: s(10), Kind: ObservedStart, Member: "c2"},
		// A description of the group gives its state before its members,
		// as fidelity.Observations emits them.
		{At: s(10.2), Kind: ObservedCoordinator, Stable: false},
		{At: s(10.2), Kind: ObservedMembers, Member: "c2", Members: 1},
		{At: s(10.5), Kind: ObservedRevoking, Member: "c1", Partitions: []kafka.TopicPartition{tp(1)}},
		{At: s(10.6), Kind: ObservedRevoked, Member: "c1", Partitions: []kafka.TopicPartition{tp(1)}},
		{At: s(11), Kind: ObservedGeneration, Generation: 2},
		{At: s(11), Kind: ObservedAssigned, Member: "c2", Partitions: []kafka.TopicPartition{tp(1)}},
		{At: s(11), Kind: ObservedCallbackDone, Member: "c2"},
		{At: s(11.5), Kind: ObservedCoordinator, Stable: true},
	}
	r, err := NewReplay(sc, ProtocolCooperative)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range obs {
		if err := r.Observe(o); err != nil {
			t.Fatal(err)
		}
	}
	m := r.Finish().Metrics
	approx := func(name string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-9 {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	// The window opens at 10s, when c2 starts.
	approx("rebalances", float64(m.Rebalances), 1)            // generation 1 → 2 after 10s
	approx("moved_partitions", float64(m.MovedPartitions), 1) // t-1 from c1 to c2
	approx("revocations", float64(m.Revocations), 1)          // c1's t-1
	approx("downtime", m.DowntimePartitionSeconds, 0.5)       // t-1 unprocessed from 10.5 (revoke entry) to 11
	approx("max gap", m.MaxPartitionGapSeconds, 0.5)          // the same stretch
	approx("idle", m.MemberIdleSeconds, 1)                    // c2 owns nothing from its start at 10 to 11
	approx("convergence", m.ConvergenceSeconds, 1.5)          // unstable from 10 (c2 not yet a member) to 11.5 (Stable)
	approx("duplicates", m.DuplicateRecords, 0)               // c1 revoked t-1 with a commit
	approx("double ownership", m.DoubleOwnershipSeconds, 0)   // never two owners
	if !m.Converged {
		t.Error("not converged, want converged by 11.5s")
	}
}

// TestReplayRejectsTimeGoingBack: observations must come in time order.
func TestReplayRejectsTimeGoingBack(t *testing.T) {
	sc := &Scenario{Name: "x", Seed: 1, Duration: 10 * time.Second,
		Topics: []TopicSpec{{Name: "t", Partitions: 1}}, Members: []MemberSpec{{ID: "c1"}}}
	r, err := NewReplay(sc, ProtocolEager)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Observe(Observation{At: 2 * time.Second, Kind: ObservedStart, Member: "c1"}); err != nil {
		t.Fatal(err)
	}
	if err := r.Observe(Observation{At: time.Second, Kind: ObservedPause, Member: "c1"}); err == nil {
		t.Error("an observation before the previous one was accepted")
	}
	if err := r.Observe(Observation{At: 3 * time.Second, Kind: ObservedStart, Member: "nobody"}); err == nil {
		t.Error("an observation of an unknown member was accepted")
	}
}

// TestReplayWaitsForRebalancingMembers: a member still rebalancing when
// the coordinator reports Stable (a cooperative member that revoked and
// rejoins) keeps the group from converging until it is done.
func TestReplayWaitsForRebalancingMembers(t *testing.T) {
	sc := &Scenario{Name: "x", Seed: 1, Duration: 20 * time.Second,
		Topics:  []TopicSpec{{Name: "t", Partitions: 1, Rate: 10}},
		Members: []MemberSpec{{ID: "c1"}, {ID: "c2", Start: 10 * time.Second}}}
	tp := []kafka.TopicPartition{{Topic: "t"}}
	r, err := NewReplay(sc, ProtocolCooperative)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range []Observation{
		{At: 0, Kind: ObservedStart, Member: "c1"},
		{At: 0, Kind: ObservedMembers, Member: "c1", Members: 1},
		{At: 0, Kind: ObservedAssigned, Member: "c1", Partitions: tp},
		{At: 0, Kind: ObservedCallbackDone, Member: "c1"},
		{At: 0, Kind: ObservedCoordinator, Stable: true},
		{At: 10 * time.Second, Kind: ObservedStart, Member: "c2"},
		{At: 10 * time.Second, Kind: ObservedMembers, Member: "c2", Members: 1},
		{At: 10 * time.Second, Kind: ObservedCoordinator, Stable: false},
		{At: 10 * time.Second, Kind: ObservedRebalancing, Member: "c1", Rebalancing: true},
		{At: 11 * time.Second, Kind: ObservedCoordinator, Stable: true},
		{At: 11 * time.Second, Kind: ObservedRevoking, Member: "c1", Partitions: tp},
		{At: 11 * time.Second, Kind: ObservedRevoked, Member: "c1", Partitions: tp},
		{At: 13 * time.Second, Kind: ObservedAssigned, Member: "c2", Partitions: tp},
		{At: 13 * time.Second, Kind: ObservedCallbackDone, Member: "c2"},
		{At: 14 * time.Second, Kind: ObservedRebalancing, Member: "c1", Rebalancing: false},
	} {
		if err := r.Observe(o); err != nil {
			t.Fatal(err)
		}
	}
	// Unconverged from c2's start at 10s until c1 is done at 14s, though
	// the coordinator said Stable at 11s and t-0 had its owner at 13s.
	if got := r.Finish().Metrics.ConvergenceSeconds; got != 4 {
		t.Errorf("convergence %vs, want 4s", got)
	}
}

package sim_test

import (
	"fmt"
	"time"

	"github.com/rebalsim/rebalsim/kafka"
	"github.com/rebalsim/rebalsim/protocols"
	"github.com/rebalsim/rebalsim/sim"
)

// Run the 12-partition lab's scale-out under the cooperative protocol: c4
// joins three members that own four partitions each, and takes one from
// each of them.
func ExampleRun() {
	sc := &sim.Scenario{Name: "lab", Seed: 1, Duration: 2 * time.Minute,
		Topics:  []sim.TopicSpec{{Name: "orders", Partitions: 12, Rate: 100}},
		Network: sim.NetworkSpec{Latency: sim.Distribution{Kind: sim.DistConstant, Value: 2 * time.Millisecond}},
		Group:   sim.DefaultGroupConfig(),
		Members: []sim.MemberSpec{{ID: "c1"}, {ID: "c2"}, {ID: "c3"}, {ID: "c4", Start: 30 * time.Second}},
	}
	res, err := sim.Run(sc, protocols.Default(), sim.RunOptions{Protocol: sim.ProtocolCooperative})
	if err != nil {
		panic(err)
	}
	m := res.Metrics
	fmt.Printf("moved=%d revocations=%d double_ownership=%v converged=%v\n",
		m.MovedPartitions, m.Revocations, m.DoubleOwnershipSeconds, m.Converged)
	// Output:
	// moved=3 revocations=3 double_ownership=0 converged=true
}

// Measure a handoff recorded from real consumers: c1 owns orders-0 from
// the start, c2 starts at 5s, and c1 revokes orders-0 at 10s (its
// callback takes 200ms) for c2 to be assigned it at 10.5s.
func ExampleReplay() {
	tp := []kafka.TopicPartition{{Topic: "orders", Partition: 0}}
	sc := &sim.Scenario{
		Name: "handoff", Seed: 1, Duration: time.Minute,
		Topics:  []sim.TopicSpec{{Name: "orders", Partitions: 1, Rate: 100}},
		Members: []sim.MemberSpec{{ID: "c1"}, {ID: "c2", Start: 5 * time.Second}},
	}
	r, err := sim.NewReplay(sc, sim.ProtocolCooperative)
	if err != nil {
		panic(err)
	}
	at := func(sec float64) time.Duration { return time.Duration(sec * float64(time.Second)) }
	for _, o := range []sim.Observation{
		{At: 0, Kind: sim.ObservedStart, Member: "c1"},
		{At: 0, Kind: sim.ObservedMembers, Member: "c1", Members: 1},
		{At: 0, Kind: sim.ObservedGeneration, Generation: 1},
		{At: 0, Kind: sim.ObservedAssigned, Member: "c1", Partitions: tp},
		{At: 0, Kind: sim.ObservedCallbackDone, Member: "c1"},
		{At: at(5), Kind: sim.ObservedStart, Member: "c2"},
		{At: at(5), Kind: sim.ObservedMembers, Member: "c2", Members: 1},
		{At: at(10), Kind: sim.ObservedGeneration, Generation: 2},
		{At: at(10), Kind: sim.ObservedRevoking, Member: "c1", Partitions: tp},
		{At: at(10.2), Kind: sim.ObservedRevoked, Member: "c1", Partitions: tp},
		{At: at(10.5), Kind: sim.ObservedAssigned, Member: "c2", Partitions: tp},
		{At: at(10.5), Kind: sim.ObservedCallbackDone, Member: "c2"},
		{At: at(10.6), Kind: sim.ObservedCoordinator, Stable: true},
	} {
		if err := r.Observe(o); err != nil {
			panic(err)
		}
	}
	m := r.Finish().Metrics
	// Nobody processed orders-0 from 10s to 10.5s: 50 records of lag.
	// The window opens at c2's start (5s); the coordinator said Stable
	// at 10.6s.
	fmt.Printf("rebalances=%d moved=%d downtime=%.1fs peak_lag=%.0f convergence=%.1fs\n",
		m.Rebalances, m.MovedPartitions, m.DowntimePartitionSeconds, m.PeakLagRecords, m.ConvergenceSeconds)
	// Output:
	// rebalances=1 moved=1 downtime=0.5s peak_lag=50 convergence=5.6s
}

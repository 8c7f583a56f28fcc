package sim_test

import (
	"errors"
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
// the start, revokes it at 10s (its callback takes 200ms) and c2 is
// assigned it at 10.5s.
func ExampleRecorder() {
	tp := []kafka.TopicPartition{{Topic: "orders", Partition: 0}}
	r := sim.NewRecorder([]sim.TopicSpec{{Name: "orders", Partitions: 1, Rate: 100}}, 0, 0)
	steps := []error{
		r.AddMember("c1", 1000), r.AddMember("c2", 1000),
		r.Started(0, "c1"), r.Joined(0, "c1"), r.Assigned(0, "c1", tp),
		r.Started(5*time.Second, "c2"), r.Joined(5*time.Second, "c2"),
		r.Rebalanced(10 * time.Second),
		r.Revoking(10*time.Second, "c1", tp), r.Revoked(10200*time.Millisecond, "c1", tp),
		r.Assigned(10500*time.Millisecond, "c2", tp),
	}
	if err := errors.Join(steps...); err != nil {
		panic(err)
	}
	m, findings, err := r.Finish(time.Minute)
	if err != nil {
		panic(err)
	}
	// Nobody processed orders-0 from 10s to 10.5s: 50 records of lag.
	fmt.Printf("moved=%d downtime=%.1fs peak_lag=%.0f findings=%d\n",
		m.MovedPartitions, m.DowntimePartitionSeconds, m.PeakLagRecords, len(findings))
	// Output:
	// moved=1 downtime=0.5s peak_lag=50 findings=0
}

package sim_test

import (
	"fmt"
	"time"

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

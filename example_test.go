package rebalsim_test

import (
	"fmt"
	"time"

	"github.com/rebalsim/rebalsim"
	"github.com/rebalsim/rebalsim/scenarios"
	"github.com/rebalsim/rebalsim/sim"
)

// Run an embedded example under every protocol and read its metrics.
func ExampleRun() {
	f, err := scenarios.Example("scale-out")
	if err != nil {
		panic(err)
	}
	res, err := rebalsim.Run(f.Scenario, rebalsim.Options{})
	if err != nil {
		panic(err)
	}
	for _, run := range res.Runs {
		fmt.Printf("%-11s moved=%d revocations=%d converged=%v\n",
			run.Protocol, run.Metrics.MovedPartitions, run.Metrics.Revocations, run.Metrics.Converged)
	}
	// Output:
	// eager       moved=6 revocations=12 converged=true
	// cooperative moved=3 revocations=3 converged=true
	// nextgen     moved=3 revocations=3 converged=true
}

// Build a scenario in Go rather than YAML: three static members, one of
// which is restarted within its session timeout.
func ExampleRun_scenarioInGo() {
	static := true
	sc := &sim.Scenario{
		Name:     "static-restart",
		Seed:     1,
		Duration: 2 * time.Minute,
		Topics:   []sim.TopicSpec{{Name: "orders", Partitions: 6, Rate: 100}},
		Network:  sim.NetworkSpec{Latency: sim.Distribution{Kind: sim.DistConstant, Value: time.Millisecond}},
		Group:    sim.DefaultGroupConfig(),
		Defaults: sim.ConsumerSettings{Static: &static},
		Members:  []sim.MemberSpec{{ID: "c1"}, {ID: "c2"}, {ID: "c3"}},
		Events: []sim.Event{{At: 30 * time.Second, Kind: sim.EventRestart, Members: []string{"c2"},
			For: 10 * time.Second, Graceful: true}},
	}
	if err := scenarios.Validate(sc); err != nil {
		panic(err)
	}
	res, err := rebalsim.Run(sc, rebalsim.Options{Protocols: []string{"eager", "nextgen"}})
	if err != nil {
		panic(err)
	}
	for _, run := range res.Runs {
		fmt.Printf("%s: rebalances=%d moved=%d\n", run.Protocol, run.Metrics.Rebalances, run.Metrics.MovedPartitions)
	}
	// Output:
	// eager: rebalances=0 moved=0
	// nextgen: rebalances=0 moved=0
}

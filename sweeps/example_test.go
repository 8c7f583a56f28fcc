package sweeps_test

import (
	"context"
	"fmt"

	"github.com/rebalsim/rebalsim/scenarios"
	"github.com/rebalsim/rebalsim/sweeps"
)

func Example() {
	scenario := []byte(`
name: crash
duration: 2m
topics: [{name: orders, partitions: 12}]
members: [{count: 4, id: "c{i}"}]
events: [{at: 30s, crash: c2}]
`)
	g, err := sweeps.Expand("crash.yaml", scenario, sweeps.Spec{
		Seeds:     3,
		Protocols: []string{"eager", "nextgen"},
		Vary:      []scenarios.Variation{{Path: "session_timeout", Values: []string{"10s", "45s"}}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := sweeps.Run(context.Background(), g, sweeps.Options{Parallel: 2})
	if err != nil {
		fmt.Println(err)
		return
	}
	s, err := sweeps.Summarize(res)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(res.Rows), "runs in", len(s.Points), "grid points")
	for _, p := range s.Points {
		for _, c := range p.Protocols {
			downtime := c.Metrics[3] // sim.MetricNames()[3]
			fmt.Printf("session_timeout=%s %-7s: %s over %d seeds\n", p.Values[0], c.Protocol, downtime.Metric, downtime.N)
		}
	}
	// Output:
	// 12 runs in 2 grid points
	// session_timeout=10s eager  : downtime_partition_seconds over 3 seeds
	// session_timeout=10s nextgen: downtime_partition_seconds over 3 seeds
	// session_timeout=45s eager  : downtime_partition_seconds over 3 seeds
	// session_timeout=45s nextgen: downtime_partition_seconds over 3 seeds
}

func ExampleParseShard() {
	shard, _ := sweeps.ParseShard("3/16")
	fmt.Println(shard, shard.Runs(40))
	// Output: 3/16 [2 18 34]
}

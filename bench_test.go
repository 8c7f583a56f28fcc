package rebalsim_test

import (
	"testing"

	"github.com/rebalsim/rebalsim/protocols"
	"github.com/rebalsim/rebalsim/scenarios"
	"github.com/rebalsim/rebalsim/sim"
)

// BenchmarkRollingRestart500 is the costliest grid point of the sweep in
// the README (the rolling-restart example with members=500): it dominates
// that sweep's time, so it is the run to profile.
func BenchmarkRollingRestart500(b *testing.B) {
	src, err := scenarios.ExampleSource("rolling-restart")
	if err != nil {
		b.Fatal(err)
	}
	sc, err := scenarios.ParseWith("rolling-restart", src, []scenarios.Override{{Path: "members", Value: "500"}})
	if err != nil {
		b.Fatal(err)
	}
	for _, p := range sim.Protocols() {
		b.Run(p, func(b *testing.B) {
			b.ReportAllocs()
			var events uint64
			for i := 0; i < b.N; i++ {
				r, err := sim.Run(sc.Scenario, protocols.Default(), sim.RunOptions{Protocol: p})
				if err != nil {
					b.Fatal(err)
				}
				events = r.Events
			}
			b.ReportMetric(float64(events), "events/run")
		})
	}
}

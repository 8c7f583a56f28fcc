package bench

import (
	"fmt"
	"testing"
	"time"

	"github.com/rebalsim/rebalsim/internal/cputime"
	"github.com/rebalsim/rebalsim/protocols"
	"github.com/rebalsim/rebalsim/scenarios"
	"github.com/rebalsim/rebalsim/sim"
)

// BenchmarkScaling runs the rolling restart of Source at every point of
// Grid, one sub-benchmark each (BenchmarkScaling/protocol=P/members=M/
// partitions=N). Besides ns/op it reports the process's CPU time per run
// (cpu-ns/op: on a shared machine wall time stretches with the load, CPU
// time much less), the kernel events and the rebalances of a run. A run
// that does not converge or has a finding fails its point: its cost would
// not be the cost of the rolling restart.
func BenchmarkScaling(b *testing.B) {
	for _, p := range Grid() {
		b.Run(p.Name(), func(b *testing.B) {
			f, err := scenarios.Parse(p.Name()+".yaml", Source(p.Members, p.Partitions))
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			// Only the last run's counts are kept, so that one result at
			// a time is alive (2 GB at 1M partitions).
			var events uint64
			var rebalances int
			var unhealthy error
			start, ok := cputime.Process()
			n := 0
			for b.Loop() {
				r, err := runPoint(f, p)
				if err != nil {
					b.Fatal(err)
				}
				events, rebalances, unhealthy = r.Events, r.Metrics.Rebalances, healthy(r)
				n++
			}
			if end, _ := cputime.Process(); ok && n > 0 {
				b.ReportMetric(float64((end-start)/time.Duration(n)), "cpu-ns/op")
			}
			if unhealthy != nil {
				b.Fatalf("%s: %v", p.Name(), unhealthy)
			}
			b.ReportMetric(float64(events), "events/run")
			b.ReportMetric(float64(rebalances), "rebalances/run")
		})
	}
}

func runPoint(f *scenarios.File, p Point) (*sim.Result, error) {
	return sim.Run(f.Scenario, protocols.Default(), sim.RunOptions{Protocol: p.Protocol})
}

// healthy says why a run is not the rolling restart the table measures.
func healthy(r *sim.Result) error {
	if len(r.Findings) > 0 {
		return fmt.Errorf("%d findings, the first %s at %gs: %s", len(r.Findings), r.Findings[0].Kind, r.Findings[0].At, r.Findings[0].Detail)
	}
	if !r.Metrics.Converged {
		return fmt.Errorf("the group did not converge within %gs of virtual time", r.WindowEnd)
	}
	return nil
}

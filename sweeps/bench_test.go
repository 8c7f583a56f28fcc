package sweeps

import (
	"context"
	"fmt"
	"os"
	"runtime/debug"
	"testing"

	"github.com/rebalsim/rebalsim/scenarios"
)

// BenchmarkSweep runs the rolling-restart example with 100 members on 200
// seeds under every protocol (600 runs an iteration) with 1 and 2
// workers, and reports runs/s; the ratio of the two is the speed-up of
// the worker pool. The collector is set as `rebalsim sweep` sets it.
//
//	go test -run '^$' -bench Sweep -benchtime 1x ./sweep
func BenchmarkSweep(b *testing.B) {
	data, err := os.ReadFile("../scenarios/examples/rolling-restart.yaml")
	if err != nil {
		b.Fatal(err)
	}
	g, err := Expand("rolling-restart.yaml", data, Spec{Seeds: 200, Vary: []scenarios.Variation{{Path: "members", Values: []string{"100"}}}})
	if err != nil {
		b.Fatal(err)
	}
	defer debug.SetGCPercent(debug.SetGCPercent(800))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(1 << 30))
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("members=100/seeds=200/parallel=%d", workers), func(b *testing.B) {
			for b.Loop() {
				if _, err := Run(context.Background(), g, Options{Parallel: workers}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(g.Runs()*b.N)/b.Elapsed().Seconds(), "runs/s")
		})
	}
}

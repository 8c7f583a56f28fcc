package check

import (
	"runtime"
	"testing"

	"github.com/rebalsim/rebalsim/scenarios"
)

// tiny is a scenario small enough to run on hundreds of seeds in a test:
// a crash and a bound on each kind of check the judges keep.
const tiny = `name: tiny
duration: 75s
topics:
  - {name: orders, partitions: 4, rate: 50}
members:
  - {count: 2, id: "c{i}"}
events:
  - {at: 5s, crash: c2}
expect:
  - {converged_within: 60s}
  - {max_moved_partitions: 4}
  - {max_rebalances: 3, quantile: 0.9}
  - {protocols: [nextgen], max_member_idle_seconds: {fraction_of: eager, value: 10}}
`

// retainedAfter is the live heap, in bytes, once a check of tiny over
// seeds has simulated and judged every seed and before its cases are
// built: what the check holds for the seeds it has done.
func retainedAfter(t testing.TB, seeds int) uint64 {
	sc, err := scenarios.Parse("tiny.yaml", []byte(tiny))
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{Seeds: seeds, ShuffleTies: true, Parallel: 1}
	p, err := newPlan(sc, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := simulate([]*plan{p}, opts); err != nil {
		t.Fatal(err)
	}
	var m runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m)
	runtime.KeepAlive(p)
	return m.HeapAlloc
}

// TestCheckMemoryFlatInSeeds: a seed's results are garbage once it is
// judged, so ten times the seeds keep about the same heap. Each seed
// runs three protocols in two tie orders, and a result is tens of
// kilobytes (its chart series alone); keeping each run's result, even cut
// down to what judging reads, grew the heap by 12.5 kB a seed (measured
// with this test before the judges folded seeds as they finished). The
// bound, 200 bytes a seed, leaves room for what a seed does keep (its
// number in the scenario's list of seeds, and for the quantile check a
// share of the worst outcomes, 1 in 10 seeds here) and for the runtime's
// own noise; measured 95.
func TestCheckMemoryFlatInSeeds(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates 110 seeds")
	}
	few, many := retainedAfter(t, 10), retainedAfter(t, 100)
	perSeed := (float64(many) - float64(few)) / 90
	t.Logf("live heap after 10 seeds %d B, after 100 seeds %d B: %.0f B a seed", few, many, perSeed)
	if perSeed > 200 {
		t.Errorf("the check keeps %.0f bytes a seed; want at most 200", perSeed)
	}
}

// BenchmarkCheckSeeds reports the heap a check keeps per seed beside its
// allocations: go test -bench CheckSeeds -benchmem ./check
func BenchmarkCheckSeeds(b *testing.B) {
	for range b.N {
		few, many := retainedAfter(b, 10), retainedAfter(b, 60)
		b.ReportMetric((float64(many)-float64(few))/50, "retained-B/seed")
	}
}

package sim

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestLatencyOverOracle compares the exact percentile sweep with a slow,
// obvious oracle: every piece cut into many equal records, each at the
// latency of its midpoint, sorted, and the quantile read off by rank. The
// two agree to within one record's share of a piece's latency range.
func TestLatencyOverOracle(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const cuts = 2000
	for trial := range 200 {
		pieces := randomPieces(rng, 6, func() (float64, float64) {
			t0 := rng.Float64() * 10
			return t0, t0 + rng.Float64()*5
		})
		got := latencyOver(logOf(pieces), 0, math.Inf(1))
		type rec struct{ w, m float64 }
		var recs []rec
		total, widest := 0.0, 0.0
		for _, q := range pieces {
			widest = max(widest, math.Abs(q.w1-q.w0))
			for i := range cuts {
				f := (float64(i) + 0.5) / cuts
				recs = append(recs, rec{q.w0 + (q.w1-q.w0)*f, q.mass / cuts})
				total += q.mass / cuts
			}
		}
		slices.SortFunc(recs, func(a, b rec) int { return cmp.Compare(a.w, b.w) })
		for k, q := range latencyQuantiles {
			want := rankQuantile(len(recs), func(i int) (float64, float64) { return recs[i].w, recs[i].m }, q*total)
			g := []float64{got.P50, got.P99, got.P999}[k]
			if math.Abs(g-want) > 2*widest/cuts+1e-9 {
				t.Fatalf("trial %d: q%v = %v, oracle %v (pieces %+v)", trial, q, g, want, pieces)
			}
		}
		if math.Abs(got.Records-total) > 1e-6*total {
			t.Fatalf("trial %d: %v records, oracle %v", trial, got.Records, total)
		}
	}
}

// randomPieces are 1 to most pieces of departures over the spans drawn,
// with random records and latencies: caught up (latency 0), moving or
// constant.
func randomPieces(rng *rand.Rand, most int, span func() (t0, t1 float64)) []latencyPiece {
	var out []latencyPiece
	for range 1 + rng.IntN(most) {
		t0, t1 := span()
		q := latencyPiece{t0: t0, t1: t1, w0: rng.Float64() * 3, mass: 1 + rng.Float64()*100}
		switch rng.IntN(3) {
		case 0: // caught up: latency 0
			q.w0 = 0
		case 1:
			q.w1 = rng.Float64() * 3
		default:
			q.w1 = q.w0
		}
		out = append(out, q)
	}
	return out
}

// rankQuantile reads a quantile off n records sorted by latency (record i
// has latency and mass at(i)): the latency of the first record at which
// the records so far reach target.
func rankQuantile(n int, at func(i int) (w, m float64), target float64) float64 {
	cum := 0.0
	for i := range n {
		w, m := at(i)
		cum += m
		if cum >= target*(1-1e-12) {
			return w
		}
	}
	return 0
}

// TestSearchAtLeast checks the hand-written search against
// slices.BinarySearch, on the histogram's bounds and around each of them.
func TestSearchAtLeast(t *testing.T) {
	var xs []float64
	for _, b := range latencyBounds {
		xs = append(xs, b, math.Nextafter(b, -1), math.Nextafter(b, 2*b+1), b/2, -1)
	}
	xs = append(xs, math.Inf(1), math.MaxFloat64, 0)
	for _, x := range xs {
		want, _ := slices.BinarySearch(latencyBounds, x)
		if got := searchAtLeast(latencyBounds, x); got != want {
			t.Errorf("searchAtLeast(%v) = %d, slices.BinarySearch %d", x, got, want)
		}
	}
}

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
		var pieces []latencyPiece
		for range 1 + rng.IntN(6) {
			t0 := rng.Float64() * 10
			q := latencyPiece{t0: t0, t1: t0 + rng.Float64()*5, w0: rng.Float64() * 3, mass: 1 + rng.Float64()*100}
			switch rng.IntN(3) {
			case 0: // caught up: latency 0
				q.w0 = 0
			case 1:
				q.w1 = rng.Float64() * 3
			default:
				q.w1 = q.w0
			}
			pieces = append(pieces, q)
		}
		got := latencyOver(pieceChunks{pieces}, 0, math.Inf(1))
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
			cum, want := 0.0, 0.0
			for _, r := range recs {
				cum += r.m
				if cum >= q*total {
					want = r.w
					break
				}
			}
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

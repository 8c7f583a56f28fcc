package sim

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// eachPieceClip calls fn with the part of every piece that leaves within
// each window of each set, one piece at a time in the order they were
// added, with the plain search for the windows: the obvious reading the
// passes must match bit for bit. An instant belongs to the window it
// starts (the last one if it lies on the last bound).
func eachPieceClip(pieces pieceChunks, sets []latencyWindowSet, fn func(set, window int, c latencyPiece)) {
	for _, chunk := range pieces {
		for _, q := range chunk {
			for k := range sets {
				bounds := sets[k].bounds
				n := len(bounds) - 1
				if n <= 0 {
					continue
				}
				first, _ := slices.BinarySearch(bounds, q.t0)
				if first == len(bounds) || bounds[first] > q.t0 {
					first--
				}
				if q.t1 == q.t0 && first == n {
					first = n - 1
				}
				for i := max(first, 0); i < n && bounds[i] <= q.t1; i++ {
					if c, ok := q.clip(bounds[i], bounds[i+1]); ok {
						fn(k, i, c)
					}
					if q.t1 == q.t0 {
						break
					}
				}
			}
		}
	}
}

// windowLatencyOneByOne is latencyWindows reading every piece, one at a
// time, in every pass.
func windowLatencyOneByOne(pieces pieceChunks, bounds [][]float64) ([]latencyWindowSet, [][]LatencyStats) {
	sets := make([]latencyWindowSet, len(bounds))
	for k, b := range bounds {
		sets[k].bounds = b
		sets[k].hists = make([]*latencyHist, max(len(b)-1, 0))
		for i := range sets[k].hists {
			sets[k].hists[i] = newLatencyHist()
		}
	}
	eachPieceClip(pieces, sets, func(k, i int, c latencyPiece) { sets[k].hists[i].add(c, 1) })
	return sets, searchQuantiles(sets, func(searches [][][]*quantileSearch, sweeping bool) {
		eachPieceClip(pieces, sets, func(k, i int, c latencyPiece) {
			for _, s := range searches[k][i] {
				switch {
				case s.records != nil:
					s.count(c, 1)
				case sweeping && s.sweep != nil:
					s.sweep.add(c, 1)
				}
			}
		})
	})
}

// TestLatencyPassesBitForBit checks that the passes (which read runs of
// alike pieces once, skip the pieces at latency 0 and the chunks with no
// window to feed, and find windows from the last one) give every window's
// histogram and percentiles to the bit as reading every piece one at a
// time does. The pieces come in runs of alike ones, as a group's
// partitions leave them, split into chunks of uneven lengths, sometimes
// in time order (so that chunks are skipped), with thousands of pieces
// in some windows (so that the ranges are narrowed before the sweep),
// pieces and instants on the windows' bounds, episodes of no length
// (two bounds alike), and pieces a rounding below latency 0.
func TestLatencyPassesBitForBit(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	same := func(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }
	for trial := range 60 {
		var all []latencyPiece
		for _, q := range randomPieces(rng, 1+rng.IntN(400), func() (float64, float64) {
			t0 := rng.Float64() * 20
			switch rng.IntN(6) {
			case 0:
				return t0, t0 // an instant: records waiting
			case 1:
				return 20, 20 // waiting at the horizon, the last bound
			case 2:
				t0 = float64(rng.IntN(20)) // on a bound
				return t0, t0
			case 3:
				t0 = float64(rng.IntN(20))
			}
			return t0, min(20, t0+rng.Float64()*8)
		}) {
			if rng.IntN(20) == 0 {
				// Latency a rounding below 0: an atom in bucket 0 that
				// is not a caught-up stretch.
				q.w0, q.w1 = -1e-13*rng.Float64(), 0
			}
			for range 1 + rng.IntN(30) {
				all = append(all, q)
			}
		}
		if trial%2 == 0 {
			slices.SortStableFunc(all, func(a, b latencyPiece) int { return cmp.Compare(a.t0, b.t0) })
		}
		var pieces pieceChunks
		for rest := all; len(rest) > 0; {
			n := min(len(rest), 1+rng.IntN(700))
			pieces, rest = append(pieces, rest[:n]), rest[n:]
		}
		steps := latencySeriesBounds(0, 20)
		episodes := []float64{0}
		for episodes[len(episodes)-1] < 20 {
			episodes = append(episodes, min(20, episodes[len(episodes)-1]+float64(rng.IntN(5))))
		}
		bounds := [][]float64{steps, episodes, {0, 20}}
		if trial%3 == 0 {
			bounds = bounds[1:2] // few windows, most of them done before the last passes
		}

		sets := make([]latencyWindowSet, len(bounds))
		for k, b := range bounds {
			sets[k].bounds = b
		}
		reach := countWindows(pieces, sets)
		got := windowLatency(pieces, sets, reach)
		wantSets, want := windowLatencyOneByOne(pieces, bounds)
		for k := range bounds {
			for i := range want[k] {
				g, w := sets[k].hists[i], wantSets[k].hists[i]
				if !slices.EqualFunc(g.mass, w.mass, same) || !slices.Equal(g.ends, w.ends) || !same(g.max, w.max) {
					t.Fatalf("trial %d set %d window %d: histogram %v %v max %v, one by one %v %v max %v", trial, k, i, g.mass, g.ends, g.max, w.mass, w.ends, w.max)
				}
				a, b := got[k][i], want[k][i]
				for _, v := range [][2]float64{{a.Records, b.Records}, {a.P50, b.P50}, {a.P99, b.P99}, {a.P999, b.P999}, {a.Max, b.Max}} {
					if !same(v[0], v[1]) {
						t.Fatalf("trial %d set %d window %d: %+v, one by one %+v", trial, k, i, a, b)
					}
				}
			}
		}
	}
}

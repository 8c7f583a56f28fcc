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
func eachPieceClip(pieces []latencyPiece, sets []latencyWindowSet, fn func(set, window int, c latencyPiece)) {
	{
		for _, q := range pieces {
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
func windowLatencyOneByOne(pieces []latencyPiece, bounds [][]float64) ([]latencyWindowSet, [][]LatencyStats) {
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
// stored one by one or as the ledger stores them (runs, some of them
// extended in place in part or whole),
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
		if trial%4 < 2 {
			// One piece a run, in chunks of uneven lengths.
			for rest := all; len(rest) > 0; {
				n := min(len(rest), 1+rng.IntN(700))
				chunk := make([]loggedRun, n)
				for i, q := range rest[:n] {
					chunk[i] = loggedRun{q: q, n: 1}
				}
				pieces.chunks, rest = append(pieces.chunks, chunk), rest[n:]
			}
		} else {
			pieces = extendedRuns(rng, all, trial%8 == 3)
		}
		if got := piecesOf(pieces); !slices.EqualFunc(got, all, samePiece) {
			t.Fatalf("trial %d: the log holds %d pieces unlike the %d added", trial, len(got), len(all))
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
		wantSets, want := windowLatencyOneByOne(all, bounds)
		for k := range bounds {
			for i := range want[k] {
				g, w := sets[k].hists[i], wantSets[k].hists[i]
				if !slices.EqualFunc(g.mass, w.mass, same) || !slices.Equal(g.ends, w.ends) || !same(g.max, w.max) {
					t.Fatalf("trial %d set %d window %d: histogram %v %v max %v, one by one %v %v max %v", trial, k, i, g.mass, g.ends, g.max, w.mass, w.ends, w.max)
				}
				if a, b := got[k][i], want[k][i]; !sameStats(a, b) {
					t.Fatalf("trial %d set %d window %d: %+v, one by one %+v", trial, k, i, a, b)
				}
			}
		}
		// The run's window measured in the same passes as the others,
		// as the result measures it, is the same as measured alone.
		run := latencyOver(pieces, 0, 20)
		h, windows := latencyWithin(pieces, 0, 20, bounds...)
		if !sameStats(*h.stats, run) || !sameStats(latencyFromHist(pieces, 0, 20, h), run) || !slices.EqualFunc(h.mass, histOver(pieces, 0, 20).mass, same) {
			t.Fatalf("trial %d: whole window with the others %+v, alone %+v", trial, *h.stats, run)
		}
		for k := range bounds {
			if !slices.EqualFunc(windows[k], got[k], sameStats) {
				t.Fatalf("trial %d set %d: with the whole window %+v, without %+v", trial, k, windows[k], got[k])
			}
		}
	}
}

// sameStats reports whether two windows' latencies are alike to the bit.
func sameStats(a, b LatencyStats) bool {
	same := func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) }
	return same(a.Records, b.Records) && same(a.P50, b.P50) && same(a.P99, b.P99) && same(a.P999, b.P999) && same(a.Max, b.Max)
}

// logOf is a pieceLog of the pieces, added one after another.
func logOf(pieces []latencyPiece) pieceChunks {
	var l pieceLog
	for _, q := range pieces {
		l.add(q)
	}
	return l.read()
}

// piecesOf are the pieces of the chunks one by one, in order.
func piecesOf(p pieceChunks) []latencyPiece {
	var out []latencyPiece
	p.all(func(q *latencyPiece) { out = append(out, *q) })
	return out
}

// extendedRuns stores the pieces in a pieceLog, as runs of alike ones,
// and extends some of them in place as the ledger does (and all[i] with
// them): every piece of a run alike in the run's order (which keeps it a
// run), the first few of a run, or one piece anywhere (which keeps the
// run's pieces one by one; a caught-up stretch stays at latency 0 unless
// strays, and then half the time leaves it).
func extendedRuns(rng *rand.Rand, all []latencyPiece, strays bool) pieceChunks {
	var l pieceLog
	type place struct{ run, at int }
	places := make([]place, len(all))
	members := map[int][]int{} // the pieces of each run, by their index in all
	for i, q := range all {
		r, at := l.add(q)
		places[i] = place{r, at}
		if at >= 0 {
			members[r] = append(members[r], i)
		}
	}
	extended := func(q latencyPiece) latencyPiece {
		q.t1, q.w1, q.mass = q.t1+1, q.w1+0.5, q.mass*2
		return q
	}
	for range rng.IntN(20) {
		i := rng.IntN(len(all))
		run := members[places[i].run]
		if places[i].at < 0 {
			run = nil // a caught-up stretch
		}
		switch rng.IntN(3) {
		case 0:
			if run != nil {
				run = run[:1+rng.IntN(len(run))] // the first few
			}
			fallthrough
		case 1:
			if run == nil {
				break
			}
			q := extended(all[run[0]])
			for _, j := range run {
				all[j] = q
				l.set(places[j].run, places[j].at, q)
			}
		default:
			if places[i].at < 0 && (!strays || rng.IntN(2) == 0) {
				// A caught-up stretch extended at latency 0, which
				// keeps its run of alike stretches one by one.
				all[i].t1, all[i].mass = all[i].t1+1, all[i].mass*2
				l.set(places[i].run, places[i].at, all[i])
				break
			}
			all[i] = extended(all[i])
			l.set(places[i].run, places[i].at, all[i])
		}
	}
	return l.read()
}

// TestPieceLogRuns checks how the log keeps alike pieces: as one run
// while they stay alike, with a caught-up stretch between them (kept
// apart), through extensions in the run's order, and piece by piece once
// one of them is changed out of that order.
func TestPieceLogRuns(t *testing.T) {
	a := latencyPiece{t0: 1, t1: 2, w0: 1, w1: 0.5, mass: 10}
	b := latencyPiece{t0: 1, t1: 3, w0: 1, w1: 0, mass: 20} // a extended
	z := latencyPiece{t0: 0, t1: 1, mass: 5}                // caught up
	c := latencyPiece{t0: 5, t1: 6, w0: 0.2, w1: 0.2, mass: 1}
	for _, tc := range []struct {
		name  string
		sets  []int // places in the first run set to b, in turn
		split bool  // whether the first run is split
		want  []latencyPiece
	}{
		// Three alike, a caught-up stretch after the first, one other
		// piece: two runs and the stretch.
		{"alike", nil, false, []latencyPiece{a, z, a, a, c}},
		// Extended alike in order: one run again, of b.
		{"extended in order", []int{0, 1, 2}, false, []latencyPiece{b, z, b, b, c}},
		// The first two extended: b, b then a.
		{"first two extended", []int{0, 1}, true, []latencyPiece{b, z, b, a, c}},
		// Out of order: the run's pieces one by one.
		{"out of order", []int{1}, true, []latencyPiece{a, z, b, a, c}},
		{"in order, then out", []int{0, 2}, true, []latencyPiece{b, z, a, b, c}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var l pieceLog
			for i, q := range []latencyPiece{a, z, a, a} {
				r, at := l.add(q)
				if want := 0; i == 1 {
					if r != 0 || at != -1 {
						t.Fatalf("caught-up stretch added at run %d place %d, want 0, -1", r, at)
					}
				} else if r != want {
					t.Fatalf("alike piece added to run %d, want 0", r)
				}
			}
			for _, k := range tc.sets {
				l.set(0, k, b)
			}
			if r, at := l.add(c); r != 1 || at != 0 {
				t.Fatalf("other piece added at run %d place %d, want 1, 0", r, at)
			}
			if l.n != 2 || l.nzero != 1 || (l.run(0).split != 0) != tc.split {
				t.Errorf("%d runs, %d caught-up stretches, first split %v; want 2, 1, %v", l.n, l.nzero, l.run(0).split != 0, tc.split)
			}
			if got := piecesOf(l.read()); !slices.EqualFunc(got, tc.want, samePiece) {
				t.Errorf("pieces %v, want %v", got, tc.want)
			}
			for k, w := range []latencyPiece{tc.want[0], tc.want[2], tc.want[3]} {
				if got := l.at(0, k); !samePiece(*got, w) {
					t.Errorf("at(0, %d) = %v, want %v", k, *got, w)
				}
			}
		})
	}
}

// TestPieceLogCaughtUpRuns checks how the log keeps caught-up stretches:
// alike ones side by side as one run (a piece of another kind between
// them does not cut it), each addressed by its run and place, and a run
// one of whose stretches changes as its stretches one by one, at latency
// 0 or off it.
func TestPieceLogCaughtUpRuns(t *testing.T) {
	z := latencyPiece{t0: 0, t1: 1, mass: 5}
	y := latencyPiece{t0: 0.5, t1: 1, mass: 2.5} // caught up later, ends with z
	a := latencyPiece{t0: 1, t1: 2, w0: 1, w1: 0.5, mass: 10}
	zx := latencyPiece{t0: 0, t1: 2, mass: 10}            // z extended, at latency 0
	zs := latencyPiece{t0: 0, t1: 2, w1: 1e-13, mass: 10} // z extended off latency 0
	type place struct{ run, at int }
	for _, tc := range []struct {
		name  string
		set   latencyPiece // the second stretch becomes set, if not zero
		split bool         // whether the first run of stretches is split
		want  []latencyPiece
	}{
		// z, z, a, z: one run of three z (a is kept with the other
		// pieces), then y.
		{"alike", latencyPiece{}, false, []latencyPiece{z, z, a, z, y}},
		{"extended at 0", zx, true, []latencyPiece{z, zx, a, z, y}},
		{"extended off 0", zs, false, []latencyPiece{z, zs, a, z, y}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var l pieceLog
			var places []place
			for _, q := range []latencyPiece{z, z, a, z, y} {
				r, at := l.add(q)
				places = append(places, place{r, at})
			}
			// Stretches: z at run 0 places 0, 1, 2 (at -1, -2, -3), y at
			// run 1; a at run 0 of the other pieces.
			want := []place{{0, -1}, {0, -2}, {0, 0}, {0, -3}, {1, -1}}
			if !slices.Equal(places, want) {
				t.Fatalf("added at %v, want %v", places, want)
			}
			if l.nzrun != 2 || l.nzero != 4 || l.n != 1 {
				t.Fatalf("%d runs of %d caught-up stretches, %d other runs; want 2 of 4, 1", l.nzrun, l.nzero, l.n)
			}
			if tc.set != (latencyPiece{}) {
				l.set(0, -2, tc.set)
			}
			if split := l.zeroRun(0).split != 0; split != tc.split {
				t.Errorf("first run of stretches split %v, want %v", split, tc.split)
			}
			if got := piecesOf(l.read()); !slices.EqualFunc(got, tc.want, samePiece) {
				t.Errorf("pieces %v, want %v", got, tc.want)
			}
			for i, p := range places {
				if got := l.at(p.run, p.at); !samePiece(*got, tc.want[i]) {
					t.Errorf("at(%d, %d) = %v, want %v", p.run, p.at, *got, tc.want[i])
				}
			}
		})
	}
}

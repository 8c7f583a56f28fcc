package sim

import (
	"math"
	"slices"
)

// End-to-end record latency, exact from the fluid model.
//
// Records of one partition leave in the order they were produced, so the
// record that leaves when the partition's processed count reaches x is the
// one produced when its produced count reached x: its latency is the
// difference of the two instants. Between two ledger changes a partition
// is processed at a constant rate and produced at a constant rate, so the
// latency of the records leaving moves linearly with their departure time.
// The ledger records each such stretch as one latencyPiece (records spread
// evenly over departure times [t0, t1], latency moving from w0 to w1), and
// every statistic is computed from the pieces: nothing is sampled and
// nothing is done per record.
//
// Records still waiting at the horizon are counted with their age at the
// horizon, the least latency they can have: a partition that never drains
// raises the percentiles rather than dropping out of them.

// latencyPiece is a stretch of departures of one partition.
type latencyPiece struct {
	t0, t1 float64 // departure times, seconds
	w0, w1 float64 // latency of the records leaving at t0 and at t1
	mass   float64 // records
}

// clip returns the part of the piece that leaves within [a, b].
func (q latencyPiece) clip(a, b float64) (latencyPiece, bool) {
	if q.t1 == q.t0 {
		return q, q.t0 >= a && q.t0 <= b && q.mass > 0
	}
	lo, hi := max(q.t0, a), min(q.t1, b)
	if hi <= lo {
		return latencyPiece{}, false
	}
	at := func(t float64) float64 { return q.w0 + (q.w1-q.w0)*(t-q.t0)/(q.t1-q.t0) }
	out := latencyPiece{t0: lo, t1: hi, w0: at(lo), w1: at(hi), mass: q.mass * (hi - lo) / (q.t1 - q.t0)}
	return out, out.mass > 0
}

// continuedBy reports whether q continues the piece: it starts where the
// piece ends, at the same latency, and goes on at the same rate of
// departures and the same change of latency.
func (q latencyPiece) continuedBy(n latencyPiece) bool {
	if n.t0 != q.t1 || q.t1 <= q.t0 || n.t1 <= n.t0 {
		return false
	}
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*max(1, math.Abs(a), math.Abs(b)) }
	d, nd := q.t1-q.t0, n.t1-n.t0
	return near(q.w1, n.w0) && near(q.mass/d, n.mass/nd) && near((q.w1-q.w0)/d, (n.w1-n.w0)/nd)
}

// LatencyStats are the latency percentiles of a set of records, weighted
// by records.
type LatencyStats struct {
	Records float64 `json:"records"`
	P50     float64 `json:"latency_p50_seconds"`
	P99     float64 `json:"latency_p99_seconds"`
	P999    float64 `json:"latency_p999_seconds"`
	Max     float64 `json:"latency_max_seconds"`
}

// latencyQuantiles are the quantiles LatencyStats reports, in order.
var latencyQuantiles = [...]float64{0.5, 0.99, 0.999}

// latencyEdge is a change of the latency density at x: an atom of mass
// (a piece whose latency does not move) or a step of density.
type latencyEdge struct {
	x, atom, density float64
}

// pieceChunks are latency pieces in the order they were added, as the
// runs of a pieceLog in its chunks: they are read where they lie, never
// copied.
type pieceChunks struct {
	chunks [][]loggedRun // the pieces but the caught-up stretches, as runs
	splits []runSplit    // of the runs no longer alike
	places []runPlaces   // of the runs that caught-up stretches come between
	// zeros are the caught-up stretches, as runs of alike ones: the
	// partitions of a member, or of a whole group, stop and catch up
	// together, and under eager every rebalance leaves a stretch for
	// every partition.
	zeros  [][]zeroRun
	nzrun  int          // runs of caught-up stretches
	nzero  int          // caught-up stretches
	zsplit [][]caughtUp // of the runs of caught-up stretches no longer alike
	// strays are the caught-up stretches extended off latency 0, by
	// place (rare: a continuation within a rounding of 0).
	strays map[zeroPlace]latencyPiece
}

// caughtUp is a caught-up stretch: a piece at latency 0 throughout.
type caughtUp struct{ t0, t1, mass float64 }

func (c caughtUp) piece() latencyPiece { return latencyPiece{t0: c.t0, t1: c.t1, mass: c.mass} }

// same reports whether two caught-up stretches are alike to the bit.
func (c caughtUp) same(d caughtUp) bool {
	return math.Float64bits(c.t0) == math.Float64bits(d.t0) && math.Float64bits(c.t1) == math.Float64bits(d.t1) && math.Float64bits(c.mass) == math.Float64bits(d.mass)
}

// zeroRun is n caught-up stretches alike, c, one after another; or, if
// split is not 0, the n stretches zsplit[split-1] lists.
type zeroRun struct {
	c     caughtUp
	n     int32
	split int32
}

// zeroPlace is the place of a caught-up stretch: stretch at of run run.
type zeroPlace struct{ run, at int }

func (p *pieceChunks) zeroRun(i int) *zeroRun { return &p.zeros[i/pieceChunk][i%pieceChunk] }

// zeroCursor reads the caught-up stretches in the order they were added,
// alike ones side by side together.
type zeroCursor struct {
	p    *pieceChunks
	at   zeroPlace // of the next stretch
	read int       // stretches read
}

// next returns the next stretches, up to most of them: n alike, c, from
// place at. A run no longer alike comes one stretch at a time.
func (z *zeroCursor) next(most int) (c caughtUp, at zeroPlace, n int) {
	r := z.p.zeroRun(z.at.run)
	at = z.at
	if r.split != 0 {
		c, n = z.p.zsplit[r.split-1][at.at], 1
	} else {
		c, n = r.c, min(int(r.n)-at.at, most)
	}
	z.read += n
	if z.at.at += n; z.at.at == int(r.n) {
		z.at = zeroPlace{run: z.at.run + 1}
	}
	return c, at, n
}

// latencyWindowSet is a set of windows [bounds[i], bounds[i+1]] (bounds
// ascending) and, once counted, the histogram of each window.
type latencyWindowSet struct {
	bounds []float64
	hists  []*latencyHist
}

// countWindows fills in the histogram of every window of the sets, in one
// pass over the pieces, and returns the pieces whose records leave above
// latency 0 in some window: the only ones a quantile's search may read.
func countWindows(pieces pieceChunks, sets []latencyWindowSet) *pieceReach {
	for k := range sets {
		sets[k].hists = make([]*latencyHist, max(len(sets[k].bounds)-1, 0))
		for i := range sets[k].hists {
			sets[k].hists[i] = newLatencyHist()
		}
	}
	cursors := windowCursors(sets)
	reach := newPieceReach(pieces)
	// A piece at latency 0 throughout (a caught-up stretch) adds records
	// to bucket 0 alone, and no other piece but one reaching exactly 0
	// adds any there: bucket 0's sum and the others' are apart, so the
	// pieces at latency 0 are added as they come (zero) and the others
	// make runs of their own, which a caught-up stretch between two alike
	// drains does not cut. A piece adding records to bucket 0 without
	// being at latency 0 throughout is added at once, after every piece
	// before it.
	zero := newZeroCounter(sets)
	var other pieceRun
	flush := func() {
		for j := range other.clips {
			w := &other.clips[j]
			h := sets[w.set].hists[w.window]
			if other.atZero {
				zero.into(w.set, w.window)
				h.add(w.c, other.n)
				zero.from(w.set, w.window)
			} else {
				h.add(w.c, other.n)
			}
		}
		other.n = 0
	}
	// piece reads n pieces like q, of run at of chunk.
	piece := func(chunk, at int, q *latencyPiece, n int) {
		if q.atZero() {
			zero.add(q.t0, q.t1, q.mass, n)
			return
		}
		if !other.extends(q, n) {
			flush()
			other.start(q, n, cursors, nil)
			if other.atZero {
				flush()
			}
		}
		if other.above {
			reach.add(chunk, at, q)
		}
	}
	// The caught-up stretches kept apart are read in their place among
	// the other pieces where it matters: before a piece that adds records
	// to bucket 0. Pieces like one that does not are read as one run, and
	// alike stretches side by side are cut into their windows once.
	zeros := zeroCursor{p: &pieces}
	zerosTo := func(upto int) {
		for zeros.read < upto {
			c, _, n := zeros.next(upto - zeros.read)
			zero.add(c.t0, c.t1, c.mass, n)
		}
	}
	pieces.eachPlaced(func(chunk, at int, q *latencyPiece, n int, place func(j int) int) {
		zerosTo(place(0))
		piece(chunk, at, q, 1)
		if q.atZero() || other.n == 0 {
			for j := 1; j < n; j++ {
				zerosTo(place(j))
				piece(chunk, at, q, 1)
			}
		} else if n > 1 {
			piece(chunk, at, q, n-1)
		}
	})
	zerosTo(pieces.nzero)
	flush()
	zero.done()
	return reach
}

// zeroCounter adds the records of pieces at latency 0 throughout to
// bucket 0 of the histograms of the windows they leave in. They are the
// most of a long run's pieces (every partition's caught-up stretch
// between two of its drains, over hundreds of windows), so each is cut
// into its windows here as latencyPiece.clip would cut it, and added as
// latencyHist.add would add it, without the clip's latencies or the
// histogram's search for the bucket. Bucket 0 of each window is kept
// here while the pass runs (a histogram adding to it takes it and gives
// it back, so the sum runs in the order of the pieces), and handed to
// the histograms at the end.
type zeroCounter struct {
	cursors []windowCursor
	sets    []latencyWindowSet
	mass    [][]float64 // bucket 0's records, by set and window
	ends    [][]int     // bucket 0's ends, by set and window
}

func newZeroCounter(sets []latencyWindowSet) *zeroCounter {
	z := &zeroCounter{cursors: windowCursors(sets), sets: sets, mass: make([][]float64, len(sets)), ends: make([][]int, len(sets))}
	for k := range sets {
		z.mass[k], z.ends[k] = make([]float64, len(sets[k].hists)), make([]int, len(sets[k].hists))
	}
	return z
}

// add adds n pieces over [t0, t1] at latency 0 holding mass records each,
// one piece after another.
func (z *zeroCounter) add(t0, t1, mass float64, n int) {
	q := latencyPiece{t0: t0, t1: t1}
	for k := range z.cursors {
		cur := &z.cursors[k]
		bounds, sums, ends := cur.bounds, z.mass[k], z.ends[k]
		from, to := cur.windows(&q)
		if to <= from {
			continue
		}
		_, _ = sums[to-1], ends[to-1]
		// The windows a stretch covers whole are most often as long as
		// each other (the episodes of a rolling restart): their records
		// are worked out once for each length in a row.
		var w, wm float64
		for i := from; i < to; i++ {
			m := mass
			if t1 != t0 {
				// As clip cuts it: the times are never NaN, and the
				// part's length is the same for either zero.
				lo, hi := bounds[i], bounds[i+1]
				if t0 > lo {
					lo = t0
				}
				if t1 < hi {
					hi = t1
				}
				if hi <= lo {
					continue
				}
				if hi-lo != w {
					w, wm = hi-lo, mass*(hi-lo)/(t1-t0)
				}
				m = wm
			} else if t0 < bounds[i] || t0 > bounds[i+1] {
				continue
			}
			if m <= 0 {
				continue
			}
			sum := sums[i]
			for range n {
				sum += m
			}
			sums[i], ends[i] = sum, ends[i]+n
		}
	}
}

// into hands window i of set k its bucket 0 so far, for a histogram's add.
func (z *zeroCounter) into(k, i int) { z.sets[k].hists[i].mass[0] = z.mass[k][i] }

// from takes back window i of set k's bucket 0 after a histogram's add.
func (z *zeroCounter) from(k, i int) { z.mass[k][i] = z.sets[k].hists[i].mass[0] }

// done hands every window its bucket 0.
func (z *zeroCounter) done() {
	for k := range z.sets {
		for i, h := range z.sets[k].hists {
			h.mass[0] = z.mass[k][i]
			h.ends[0] += z.ends[k][i]
		}
	}
}

// histOver spreads the records leaving within [a, b] over the histogram's
// buckets.
func histOver(pieces pieceChunks, a, b float64) *latencyHist {
	sets := []latencyWindowSet{{bounds: []float64{a, b}}}
	reach := countWindows(pieces, sets)
	h := sets[0].hists[0]
	h.reach = reach
	return h
}

// latencyOver computes the exact percentiles of the records leaving within
// [a, b].
func latencyOver(pieces pieceChunks, a, b float64) LatencyStats {
	return latencyFromHist(pieces, a, b, histOver(pieces, a, b))
}

// latencyFromHist is latencyOver given the histogram of [a, b].
func latencyFromHist(pieces pieceChunks, a, b float64, h *latencyHist) LatencyStats {
	if h.stats != nil {
		return *h.stats
	}
	return windowLatency(pieces, []latencyWindowSet{{bounds: []float64{a, b}, hists: []*latencyHist{h}}}, h.reach)[0][0]
}

// latencyWithin is latencyWindows with the whole of [a, b] measured in
// the same passes: it returns that window's histogram, its percentiles
// kept with it, beside the windows of the sets.
func latencyWithin(pieces pieceChunks, a, b float64, bounds ...[]float64) (*latencyHist, [][]LatencyStats) {
	sets := windowSets(append(bounds[:len(bounds):len(bounds)], []float64{a, b}))
	reach := countWindows(pieces, sets)
	windows := windowLatency(pieces, sets, reach)
	h := sets[len(bounds)].hists[0]
	h.reach, h.stats = reach, &windows[len(bounds)][0]
	return h, windows[:len(bounds)]
}

// latencyWindows computes the exact percentiles of the records leaving in
// each window of each set, with each pass over the pieces serving every
// window: one to count each window's histogram, a few to narrow its
// quantiles' ranges, one to collect their edges.
func latencyWindows(pieces pieceChunks, bounds ...[]float64) [][]LatencyStats {
	sets := windowSets(bounds)
	return windowLatency(pieces, sets, countWindows(pieces, sets))
}

// windowSets is a window set for each list of bounds.
func windowSets(bounds [][]float64) []latencyWindowSet {
	sets := make([]latencyWindowSet, len(bounds))
	for k, b := range bounds {
		sets[k].bounds = b
	}
	return sets
}

// windowLatency computes the exact percentiles of each window of the sets,
// given their histograms and the pieces a search may read (reach; nil for
// all of them). Within a window the latency distribution is a
// mixture of uniform distributions (one per piece) and atoms, so its
// distribution function is piecewise linear. The histogram finds the
// bucket each quantile falls in. While more than latencySweepPieces
// pieces start or end in a quantile's range, a pass over the pieces counts the
// records in equal parts of it and the range narrows to the part the
// quantile falls in; then a last pass collects the edges of the density
// within each range, which are sorted and swept to find the quantile. So
// only a few pieces per quantile are ever held and sorted, however many
// the run has: a long run has millions in one 1-2-5 bucket, often at one
// latency (a partition kept at a constant delay).
//
// The passes after the histogram's read only the pieces leaving above
// latency 0 (no quantile's range reaches down to 0), skip the chunks of
// pieces that leave in no window with a search still reading, and cut a
// run of alike pieces into its windows once (pieceRun). Within a window
// the pieces are still read in the order they were added, so every sum
// is the same as over all of them, one by one.
func windowLatency(pieces pieceChunks, sets []latencyWindowSet, reach *pieceReach) [][]LatencyStats {
	if reach == nil {
		reach = everyPiece(pieces)
	}
	return searchQuantiles(sets, func(searches [][][]*quantileSearch, sweeping bool) {
		searchPass(pieces, sets, searches, reach, sweeping)
	})
}

// searchQuantiles finds the quantiles of each window of the sets, given
// their histograms; pass reads the pieces into the searches of each
// window (those counting, or if sweeping those collecting edges).
func searchQuantiles(sets []latencyWindowSet, pass func(searches [][][]*quantileSearch, sweeping bool)) [][]LatencyStats {
	out := make([][]LatencyStats, len(sets))
	searches := make([][][]*quantileSearch, len(sets))
	var all []*quantileSearch
	for k, set := range sets {
		out[k] = make([]LatencyStats, len(set.hists))
		searches[k] = make([][]*quantileSearch, len(set.hists))
		for i, h := range set.hists {
			st := &out[k][i]
			st.Records, st.Max = h.total(), h.max
			if st.Records <= 0 {
				continue
			}
			for j, q := range latencyQuantiles {
				target := q * st.Records
				b, below := h.find(target)
				if b == 0 {
					continue // latency 0 exactly
				}
				s := &quantileSearch{out: []*float64{&st.P50, &st.P99, &st.P999}[j], lo: h.lower(b), hi: min(h.upper(b), h.max), below: below, target: target, max: h.max}
				s.narrow(h.ends[b])
				searches[k][i] = append(searches[k][i], s)
				all = append(all, s)
			}
		}
	}
	if !slices.ContainsFunc(all, func(s *quantileSearch) bool { return !s.settled }) {
		return out
	}
	for {
		counting := false
		for _, s := range all {
			if s.counting() {
				s.counts()
				counting = true
			}
		}
		if !counting {
			break
		}
		pass(searches, false)
		for _, s := range all {
			if s.records != nil {
				s.counted()
			}
		}
	}
	pass(searches, true)
	for _, s := range all {
		if e := s.sweep; e != nil {
			*s.out = min(e.sweep(s.below, s.target), s.max)
			s.sweep = nil
		}
	}
	return out
}

// searchPass reads the pieces in reach, clipped to each window they leave
// in, into the searches of that window that read this pass: those
// counting, or (if sweeping) those collecting edges. A chunk of pieces
// none of which leaves in such a window is skipped.
func searchPass(pieces pieceChunks, sets []latencyWindowSet, searches [][][]*quantileSearch, reach *pieceReach, sweeping bool) {
	reads := func(s *quantileSearch) bool {
		return s.records != nil || (sweeping && s.sweep != nil)
	}
	feeds := make([][][]*quantileSearch, len(sets))
	fed := make([][]int, len(sets)) // fed[k][i]: windows before i with searches to feed
	ranges := make([][]latencyRange, len(sets))
	for k := range searches {
		feeds[k] = make([][]*quantileSearch, len(searches[k]))
		fed[k] = make([]int, len(searches[k])+1)
		ranges[k] = make([]latencyRange, len(searches[k]))
		for i, ss := range searches[k] {
			ranges[k][i] = latencyRange{lo: math.Inf(1), hi: math.Inf(-1)}
			for _, s := range ss {
				if reads(s) {
					feeds[k][i] = append(feeds[k][i], s)
					ranges[k][i].cover(s)
				}
			}
			fed[k][i+1] = fed[k][i]
			if len(feeds[k][i]) > 0 {
				fed[k][i+1]++
			}
		}
	}
	cursors, spanCursors := windowCursors(sets), windowCursors(sets)
	for k := range cursors {
		// A set none of whose windows has a search reading this pass
		// is not cut into at all.
		cursors[k].idle = fed[k][len(feeds[k])] == 0
	}
	wanted := func(span timeSpan) bool {
		if span.t0 > span.t1 {
			return false
		}
		for k := range spanCursors {
			from, to := spanCursors[k].windows(&latencyPiece{t0: span.t0, t1: span.t1})
			if fed[k][to] > fed[k][from] {
				return true
			}
		}
		return false
	}
	var run pieceRun
	flush := func() {
		for j := range run.clips {
			w := &run.clips[j]
			for _, s := range feeds[w.set][w.window] {
				if s.records != nil {
					s.count(w.c, run.n)
				} else {
					s.sweep.add(w.c, run.n)
				}
			}
		}
	}
	// A piece is cut into a window only if its latencies reach into the
	// range of one of the window's searches: count and add would drop
	// the rest. A clip's latencies lie within the piece's but for the
	// rounding of the interpolation, which the piece's are widened by.
	var plo, phi float64
	fedWindow := func(k, i int) bool {
		r := &ranges[k][i]
		return len(feeds[k][i]) > 0 && phi > r.lo && plo <= r.hi
	}
	pieces.each(reach.set, func(chunk int) bool { return wanted(reach.spans[chunk]) }, func(_, _ int, q *latencyPiece, n int) {
		if !run.extends(q, n) {
			flush()
			m := 1e-12 * max(1, math.Abs(q.w0), math.Abs(q.w1))
			plo, phi = min(q.w0, q.w1)-m, max(q.w0, q.w1)+m
			run.start(q, n, cursors, fedWindow)
		}
	})
	flush()
}

// latencyRange is the span of latencies (lo, hi] the searches of a
// window read in a pass.
type latencyRange struct{ lo, hi float64 }

// cover widens the range to the search's.
func (r *latencyRange) cover(s *quantileSearch) {
	lo, hi := s.lo, s.hi
	if s.records == nil {
		lo, hi = s.sweep.lo, s.sweep.hi
	}
	r.lo, r.hi = min(r.lo, lo), max(r.hi, hi)
}

// latencyResolution is the width of a range within which a quantile is
// not looked for further: a nanosecond, the resolution of virtual time.
// Latencies closer than that differ by the rounding of the float
// accounting alone (a partition kept at a constant delay leaves millions
// of pieces within it).
const latencyResolution = 1e-9

// latencySweepPieces is how many pieces may start or end in a quantile's
// range for it to be found by sorting them (pieces covering it whole are
// summed, not held); past it the range is narrowed first.
const latencySweepPieces = 256

// latencyPiecesPerPart is how many of the pieces' ends in a quantile's
// range each of its parts gets at a narrowing, if they were spread
// evenly: the range is cut into that many times fewer parts than ends, so
// that one pass most often narrows it enough to sweep, and the
// counts take a small fraction of the pieces' memory, within bounds.
const (
	latencyPiecesPerPart = 16
	latencyPartsMin      = 32
	latencyPartsMax      = 1 << 14
)

// quantileSearch narrows down the latency at which a window's records
// reach target: the quantile lies in (lo, hi], below records at or under lo.
type quantileSearch struct {
	out           *float64
	lo, hi, below float64
	target, max   float64
	settled       bool                // the quantile is written without a sweep
	records       []float64           // per part, while counting
	parts         []float64           // the parts' bounds, partLo(0) to partLo(len(records)), while counting
	density       []float64           // where the density of pieces covering parts whole starts and ends, while counting
	low, high     []float64           // the lowest and highest latency reached in each part, while counting
	pieces        int                 // starting or ending in the range
	ends          []int               // latencies at which pieces start or end (or atoms lie) in each part, while counting
	sweep         *latencyBucketEdges // the edges to sort and sweep, once few enough
}

// counting reports whether the search needs another pass to narrow.
func (s *quantileSearch) counting() bool { return s.sweep == nil && !s.settled }

// narrow settles what to do with the range (lo, hi], in which n pieces
// start or end: sweep it if n is small, or take hi if the range is down to
// latencyResolution; else count again.
func (s *quantileSearch) narrow(n int) {
	s.pieces = n
	switch {
	case n <= latencySweepPieces:
		s.sweep = &latencyBucketEdges{lo: s.lo, hi: s.hi}
	case s.hi-s.lo <= latencyResolution:
		*s.out = min(s.hi, s.max)
		s.settled = true
	}
}

// partLo is the lower bound of part j, and partLo(parts) the
// range's upper.
func (s *quantileSearch) partLo(j int) float64 {
	return s.parts[min(j, len(s.records))]
}

// partOf is the part (partLo(j), partLo(j+1)] holding latency x, the
// first or last for a latency beyond the range.
func (s *quantileSearch) partOf(x float64) int {
	n := len(s.records)
	j := min(max(int((x-s.lo)/(s.hi-s.lo)*float64(n)), 0), n-1)
	for j > 0 && x <= s.partLo(j) {
		j--
	}
	for j < n-1 && x > s.partLo(j+1) {
		j++
	}
	return j
}

// count adds the records of n pieces like c to the parts they reach
// into, spread evenly over their latency range as the histogram spreads
// them, and the lowest and highest latency they reach in them. The parts
// a piece covers whole are marked by where its density starts and ends,
// so that a piece costs the same however many parts it spans; total adds
// them up. The n pieces' records are added one piece after another, as
// n calls would add them.
func (s *quantileSearch) count(c latencyPiece, n int) {
	plo, phi := min(c.w0, c.w1), max(c.w0, c.w1)
	if phi <= s.lo || plo > s.hi {
		return
	}
	reach := func(j int, lo, hi float64) {
		s.low[j], s.high[j] = min(s.low[j], lo), max(s.high[j], hi)
	}
	if latencyAtom(plo, phi) {
		j := s.partOf(phi)
		for range n {
			s.records[j] += c.mass
		}
		s.ends[j] += n
		reach(j, phi, phi)
		return
	}
	j0, j1 := s.partOf(max(plo, s.lo)), s.partOf(min(phi, s.hi))
	if plo > s.lo {
		s.ends[j0] += n
	}
	if phi <= s.hi {
		s.ends[j1] += n
	}
	d := c.mass / (phi - plo)
	lo, hi := max(plo, s.partLo(j0)), min(phi, s.partLo(j1+1))
	if j0 == j1 {
		for range n {
			s.records[j0] += d * (hi - lo)
		}
		reach(j0, lo, hi)
		return
	}
	for range n {
		s.records[j0] += d * (s.partLo(j0+1) - lo)
		s.records[j1] += d * (hi - s.partLo(j1))
		s.density[j0+1] += d
		s.density[j1] -= d
	}
	reach(j0, lo, s.partLo(j0+1))
	reach(j1, s.partLo(j1), hi)
}

// total adds to each part the records of the pieces covering it whole.
func (s *quantileSearch) total() {
	d := 0.0
	for j := range s.records {
		d += s.density[j]
		if d > 0 {
			s.records[j] += d * (s.partLo(j+1) - s.partLo(j))
			s.low[j], s.high[j] = s.partLo(j), s.partLo(j+1)
		}
	}
}

// counts makes the search count the records of its parts in the next pass.
func (s *quantileSearch) counts() {
	n := min(max(s.pieces/latencyPiecesPerPart, latencyPartsMin), latencyPartsMax)
	s.records, s.density = make([]float64, n), make([]float64, n+1)
	s.low, s.high = make([]float64, n), make([]float64, n)
	s.parts = make([]float64, n+1)
	for j := range n {
		s.low[j], s.high[j] = math.Inf(1), math.Inf(-1)
		s.parts[j] = s.lo + (s.hi-s.lo)*float64(j)/float64(n)
	}
	s.parts[n] = s.hi
	s.ends = make([]int, n)
}

// counted narrows the search to the part its quantile falls in, and to
// the latencies the records there reach: no record lies in the part below
// the lowest latency a piece reaches in it, so below is unchanged.
func (s *quantileSearch) counted() {
	s.total()
	j, below := findMass(s.records, s.target-s.below)
	lo, hi := s.partLo(j), s.partLo(j+1)
	s.lo, s.hi = max(lo, math.Nextafter(s.low[j], math.Inf(-1))), min(hi, s.high[j])
	s.below += below
	s.narrow(s.ends[j])
	s.records, s.density, s.low, s.high, s.ends, s.parts = nil, nil, nil, nil, nil, nil
}

// latencyBucketEdges are the edges of the latency density within (lo, hi],
// and the density at lo of the pieces reaching below it: a piece costs an
// edge only where it starts or ends within the range.
type latencyBucketEdges struct {
	lo, hi float64
	base   float64
	edges  []latencyEdge
}

// add adds the edges of the latency density of n pieces like c within
// (lo, hi], one piece after another.
func (e *latencyBucketEdges) add(c latencyPiece, n int) {
	plo, phi := min(c.w0, c.w1), max(c.w0, c.w1)
	if phi <= e.lo || plo > e.hi {
		return
	}
	if latencyAtom(plo, phi) {
		for range n {
			e.edges = append(e.edges, latencyEdge{x: phi, atom: c.mass})
		}
		return
	}
	d := c.mass / (phi - plo)
	for range n {
		if plo <= e.lo {
			e.base += d
		} else {
			e.edges = append(e.edges, latencyEdge{x: plo, density: d})
		}
		if phi <= e.hi {
			e.edges = append(e.edges, latencyEdge{x: phi, density: -d})
		}
	}
}

// sortEdges sorts a bucket's edges in a total order, so that the sums do
// not depend on the order events happened to produce the pieces in. (The
// numbers are never NaN, so plain comparisons order them as cmp.Compare
// would.)
func sortEdges(edges []latencyEdge) {
	slices.SortFunc(edges, func(p, q latencyEdge) int {
		a, b := p.x, q.x
		switch {
		case p.x != q.x:
		case p.atom != q.atom:
			a, b = p.atom, q.atom
		default:
			a, b = p.density, q.density
		}
		switch {
		case a < b:
			return -1
		case a > b:
			return 1
		}
		return 0
	})
}

// sweep sorts the edges and finds the latency x in (lo, hi] at which the
// records below x reach target, given that below records lie at or under
// lo.
func (e *latencyBucketEdges) sweep(below, target float64) float64 {
	sortEdges(e.edges)
	edges := e.edges
	cum, density, prev := below, e.base, e.lo
	for i := 0; i < len(edges); {
		x := edges[i].x
		if seg := density * (x - prev); seg > 0 {
			if cum+seg >= target {
				return prev + (target-cum)/density
			}
			cum += seg
		}
		for ; i < len(edges) && edges[i].x == x; i++ {
			cum += edges[i].atom
			density += edges[i].density
		}
		if cum >= target*(1-1e-12) {
			return x
		}
		prev = x
	}
	if density > 0 {
		return min(e.hi, prev+(target-cum)/density)
	}
	return prev
}

// latencyAtom reports whether a piece whose latency runs over [lo, hi]
// is taken as an atom at hi: its range is within the rounding of the
// float accounting.
func latencyAtom(lo, hi float64) bool { return hi-lo <= 1e-12*max(1, hi) }

// latencyHist spreads records over the fixed buckets of latencyBounds:
// mass[0] holds latency 0, mass[i] latencies in (bounds[i-1], bounds[i]],
// the last one beyond.
type latencyHist struct {
	mass []float64
	max  float64
	// ends counts the latencies at which pieces start or end (or atoms
	// lie) in each bucket: the edges a sweep of the bucket would hold.
	ends []int
	// reach are the pieces leaving above latency 0 in the window, once
	// counted by histOver: the only ones a quantile's search reads.
	reach *pieceReach
	// stats are the window's percentiles, if found with the histogram.
	stats *LatencyStats
}

func newLatencyHist() *latencyHist {
	return &latencyHist{mass: make([]float64, len(latencyBounds)+1), ends: make([]int, len(latencyBounds)+1)}
}

// add spreads the records of n pieces like c evenly over their latency
// range, as they are, one piece after another.
func (h *latencyHist) add(c latencyPiece, n int) {
	lo, hi := min(c.w0, c.w1), max(c.w0, c.w1)
	h.max = max(h.max, hi)
	if latencyAtom(lo, hi) {
		b := bucketOf(hi)
		for range n {
			h.mass[b] += c.mass
		}
		h.ends[b] += n
		return
	}
	b0, b1 := bucketOf(lo), bucketOf(hi)
	h.ends[b0] += n
	h.ends[b1] += n
	// Each bucket's sum is its own, so the pieces' shares of one bucket
	// may be added before those of the next.
	for i := b0; i <= b1; i++ {
		if w := min(hi, h.upper(i)) - max(lo, h.lower(i)); w > 0 {
			// Each piece's share is the same quotient, worked out
			// once; the sum still adds it piece by piece.
			share, sum := c.mass*w/(hi-lo), h.mass[i]
			for range n {
				sum += share
			}
			h.mass[i] = sum
		}
	}
}

func (h *latencyHist) lower(i int) float64 {
	if i == 0 {
		return 0
	}
	return latencyBounds[i-1]
}

func (h *latencyHist) upper(i int) float64 {
	if i >= len(latencyBounds) {
		return math.Inf(1)
	}
	return latencyBounds[i]
}

func (h *latencyHist) total() float64 {
	t := 0.0
	for _, m := range h.mass {
		t += m
	}
	return t
}

// find returns the bucket in which the records reach target, and the
// records in the buckets before it.
func (h *latencyHist) find(target float64) (int, float64) {
	return findMass(h.mass, target)
}

// findMass returns the first index at which the records of mass reach
// target (the last with records if they fall short of it by rounding), and
// the records before it.
func findMass(mass []float64, target float64) (int, float64) {
	cum := 0.0
	last := 0
	for i, m := range mass {
		if m <= 0 {
			continue
		}
		if cum+m >= target*(1-1e-12) {
			return i, cum
		}
		cum += m
		last = i
	}
	return last, cum - mass[last]
}

// LatencyBucket is one bucket of the latency histogram: the records whose
// latency lies in (Lower, Upper]; the first bucket holds latency 0 exactly.
type LatencyBucket struct {
	Lower   float64 `json:"lower_seconds"`
	Upper   float64 `json:"upper_seconds"`
	Records float64 `json:"records"`
}

// latencyBounds are the histogram's bucket bounds in seconds: 0, then 1,
// 2, 5 per decade from 1ms to 100000s. They are fixed, so histograms of
// two runs line up bucket by bucket.
var latencyBounds = func() []float64 {
	out := []float64{0}
	for e := -3; e <= 5; e++ {
		for _, m := range []float64{1, 2, 5} {
			out = append(out, m*math.Pow(10, float64(e)))
		}
	}
	return out
}()

// buckets lists the histogram's buckets that hold records: the latency
// histogram of a result.
func (h *latencyHist) buckets() []LatencyBucket {
	out := []LatencyBucket{}
	for i, m := range h.mass {
		if m <= 0 {
			continue
		}
		up := h.upper(i)
		if math.IsInf(up, 1) {
			up = math.MaxFloat64
		}
		out = append(out, LatencyBucket{Lower: h.lower(i), Upper: up, Records: m})
	}
	return out
}

// bucketOf returns the histogram bucket of latency w.
func bucketOf(w float64) int {
	if w <= 0 {
		return 0
	}
	return searchAtLeast(latencyBounds, w)
}

// searchAtLeast returns the first index of the ascending xs whose value is
// at least x (len(xs) if none), as slices.BinarySearch finds it for a
// number that is not NaN, without its generic comparison: it runs once or
// twice for every latency piece.
func searchAtLeast(xs []float64, x float64) int {
	lo, hi := 0, len(xs)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if xs[mid] < x {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}

// LatencySeries are latency percentiles over virtual time: each point
// covers the records that left in the step ending at Times[i].
type LatencySeries struct {
	Step  float64   `json:"step_seconds"`
	Times []float64 `json:"times"`
	P50   []float64 `json:"latency_p50_seconds"`
	P99   []float64 `json:"latency_p99_seconds"`
	Max   []float64 `json:"latency_max_seconds"`
}

// latencySeriesSteps is how many points a latency chart has.
const latencySeriesSteps = 120

// latencySeriesBounds are the bounds of the latency chart's steps over
// [a, b], none if the window is empty.
func latencySeriesBounds(a, b float64) []float64 {
	if b <= a {
		return nil
	}
	step := (b - a) / latencySeriesSteps
	bounds := make([]float64, latencySeriesSteps+1)
	for i := range bounds {
		bounds[i] = a + float64(i)*step
	}
	bounds[latencySeriesSteps] = b
	return bounds
}

// latencySeriesOf is the latency series of the steps with those bounds,
// given each step's latency.
func latencySeriesOf(bounds []float64, steps []LatencyStats) LatencySeries {
	s := LatencySeries{Times: []float64{}, P50: []float64{}, P99: []float64{}, Max: []float64{}}
	if len(bounds) < 2 {
		return s
	}
	s.Step = (bounds[len(bounds)-1] - bounds[0]) / float64(len(bounds)-1)
	for i, st := range steps {
		s.Times = append(s.Times, bounds[i+1])
		s.P50 = append(s.P50, st.P50)
		s.P99 = append(s.P99, st.P99)
		s.Max = append(s.Max, st.Max)
	}
	return s
}

// pieceLog holds the pieces of a run, in fixed-size chunks, so that a long
// run's millions of pieces are neither copied to grow the store nor kept
// one by one. A member's partitions, under eager the whole group's, stop
// and start together at the same rates and leave alike pieces, but each
// partition's caught-up stretch (at latency 0) comes between them and
// differs from the others': so the caught-up stretches are kept apart,
// in order, and the other pieces as runs of pieces alike to the bit (a
// piece and how many times it comes), each piece with its place among
// the caught-up stretches. A piece is addressed by its run and its place
// in the run, a caught-up stretch by its index and place -1.
type pieceLog struct {
	pieceChunks
	n       int          // runs
	free    []int32      // splits no longer in use, to reuse
	scratch latencyPiece // at's answer for a caught-up stretch
}

// loggedRun is n pieces alike, q, one after another; or, if split is not
// 0, the pieces splits[split-1] describes. The first comes after zeroAt
// caught-up stretches, and the others (if places is not 0) where
// places[places-1] says.
type loggedRun struct {
	q      latencyPiece
	n      int32
	split  int32
	zeroAt int32
	places int32
}

// runSplit is a run whose pieces are no longer all alike: the ledger
// extends a partition's last piece in place, and the partitions of a run
// are extended one by one. Either the first m pieces are ext and the rest
// the run's q (the partitions extended so far, in the run's order, alike),
// or, if pieces is not nil, the pieces one by one.
type runSplit struct {
	ext    latencyPiece
	m      int32
	pieces []latencyPiece
}

// runPlaces are how many caught-up stretches come before each piece of a
// run: list[j] for piece j, or if list is nil zeroAt + j*stride.
type runPlaces struct {
	stride int32
	list   []int32
}

const pieceChunk = 1 << 14

// firstChunk is the room a log's first chunk starts with.
const firstChunk = 64

// appendChunked appends v, the nth entry, to the last of chunks, or to a
// new chunk once that one holds pieceChunk entries. The first chunk
// starts small and grows by append: most logs (a small group's, a short
// run's) hold a few hundred entries, and a chunk made whole is cleared
// whole, which cost a small group's run more than all its events. The
// later chunks are made whole, as a log that filled one goes on.
func appendChunked[T any](chunks [][]T, n int, v T) [][]T {
	if n%pieceChunk == 0 {
		room := pieceChunk
		if n == 0 {
			room = firstChunk
		}
		chunks = append(chunks, make([]T, 0, room))
	}
	last := &chunks[len(chunks)-1]
	*last = append(*last, v)
	return chunks
}

// samePiece reports whether two pieces are alike to the bit.
func samePiece(a, b latencyPiece) bool {
	return math.Float64bits(a.t0) == math.Float64bits(b.t0) && math.Float64bits(a.t1) == math.Float64bits(b.t1) &&
		math.Float64bits(a.w0) == math.Float64bits(b.w0) && math.Float64bits(a.w1) == math.Float64bits(b.w1) &&
		math.Float64bits(a.mass) == math.Float64bits(b.mass)
}

// atZero reports whether the piece is a caught-up stretch: at latency 0
// throughout.
func (q latencyPiece) atZero() bool { return q.w0 == 0 && q.w1 == 0 }

// keptApart reports whether the log keeps the piece with the caught-up
// stretches, which store no latency: at +0 throughout, to the bit.
func (q latencyPiece) keptApart() bool { return math.Float64bits(q.w0)|math.Float64bits(q.w1) == 0 }

func (l *pieceLog) run(i int) *loggedRun { return &l.chunks[i/pieceChunk][i%pieceChunk] }

// add appends a piece and returns its run and its place in the run (the
// last run if the piece is like its pieces), or for a caught-up stretch
// its run of caught-up stretches and -1 less its place in it.
func (l *pieceLog) add(q latencyPiece) (run, at int) {
	if q.keptApart() {
		c := caughtUp{t0: q.t0, t1: q.t1, mass: q.mass}
		l.nzero++
		if l.nzrun > 0 {
			if r := l.zeroRun(l.nzrun - 1); r.split == 0 && r.n < math.MaxInt32 && r.c.same(c) {
				r.n++
				return l.nzrun - 1, -int(r.n)
			}
		}
		l.zeros = appendChunked(l.zeros, l.nzrun, zeroRun{c: c, n: 1})
		l.nzrun++
		return l.nzrun - 1, -1
	}
	z := int32(l.nzero)
	if l.n > 0 {
		r := l.run(l.n - 1)
		if (r.split == 0 || l.splits[r.split-1].pieces == nil) && r.n < math.MaxInt32 && samePiece(r.q, q) {
			l.placeNext(r, z)
			r.n++
			return l.n - 1, int(r.n) - 1
		}
	}
	l.chunks = appendChunked(l.chunks, l.n, loggedRun{q: q, n: 1, zeroAt: z})
	l.n++
	return l.n - 1, 0
}

// placeNext records that the next piece of run r comes after z caught-up
// stretches.
func (l *pieceLog) placeNext(r *loggedRun, z int32) {
	j := r.n
	if r.places == 0 {
		switch {
		case z == r.zeroAt:
			return
		case j == 1:
			l.places = append(l.places, runPlaces{stride: z - r.zeroAt})
			r.places = int32(len(l.places))
			return
		}
		list := make([]int32, j, j+1)
		for i := range list {
			list[i] = r.zeroAt
		}
		l.places = append(l.places, runPlaces{list: append(list, z)})
		r.places = int32(len(l.places))
		return
	}
	p := &l.places[r.places-1]
	if p.list == nil {
		if int64(z) == int64(r.zeroAt)+int64(j)*int64(p.stride) {
			return
		}
		p.list = make([]int32, j, j+1)
		for i := range p.list {
			p.list[i] = r.zeroAt + int32(i)*p.stride
		}
	}
	p.list = append(p.list, z)
}

// at returns piece k of run i (caught-up stretch -1-k of run i of them if
// k is negative), or nil if there is none. It is not to be written
// through: set changes a piece.
func (l *pieceLog) at(i, k int) *latencyPiece {
	if k < 0 {
		if i < 0 || i >= l.nzrun {
			return nil
		}
		if q, ok := l.strays[zeroPlace{i, -1 - k}]; ok {
			l.scratch = q
		} else {
			l.scratch = l.zeroStretch(i, -1-k).piece()
		}
		return &l.scratch
	}
	if i < 0 || i >= l.n {
		return nil
	}
	r := l.run(i)
	if r.split == 0 {
		return &r.q
	}
	s := &l.splits[r.split-1]
	switch {
	case s.pieces != nil:
		return &s.pieces[k]
	case k < int(s.m):
		return &s.ext
	}
	return &r.q
}

// set replaces piece k of run i (caught-up stretch -1-k of run i of them
// if k is negative) with q. The partitions of a run extended alike in the
// run's order keep it a run (its first pieces extended, then all of it);
// any other change keeps the run's pieces one by one. A run of caught-up
// stretches one of which changes keeps them one by one.
func (l *pieceLog) set(i, k int, q latencyPiece) {
	if k < 0 {
		at := zeroPlace{i, -1 - k}
		if !q.keptApart() {
			if l.strays == nil {
				l.strays = map[zeroPlace]latencyPiece{}
			}
			l.strays[at] = q
			return
		}
		delete(l.strays, at)
		c, r := caughtUp{t0: q.t0, t1: q.t1, mass: q.mass}, l.zeroRun(i)
		switch {
		case r.split != 0:
			l.zsplit[r.split-1][at.at] = c
		case r.n == 1:
			r.c = c
		case !r.c.same(c):
			list := make([]caughtUp, r.n)
			for j := range list {
				list[j] = r.c
			}
			list[at.at] = c
			l.zsplit = append(l.zsplit, list)
			r.split = int32(len(l.zsplit))
		}
		return
	}
	r := l.run(i)
	if r.split == 0 {
		if r.n == 1 {
			r.q = q
			return
		}
		if k == 0 {
			r.split = l.newSplit(runSplit{ext: q, m: 1})
			return
		}
		r.split = l.newSplit(runSplit{})
	}
	s := &l.splits[r.split-1]
	if s.pieces == nil && s.m > 0 && k == int(s.m) && samePiece(q, s.ext) {
		if s.m++; s.m == r.n {
			r.q = s.ext
			l.free = append(l.free, r.split)
			l.splits[r.split-1] = runSplit{}
			r.split = 0
		}
		return
	}
	if s.pieces == nil {
		s.pieces = make([]latencyPiece, r.n)
		for j := range s.pieces {
			s.pieces[j] = r.q
			if j < int(s.m) {
				s.pieces[j] = s.ext
			}
		}
	}
	s.pieces[k] = q
}

// zeroStretch is caught-up stretch at of run i of them.
func (p *pieceChunks) zeroStretch(i, at int) caughtUp {
	r := p.zeroRun(i)
	if r.split != 0 {
		return p.zsplit[r.split-1][at]
	}
	return r.c
}

func (l *pieceLog) newSplit(s runSplit) int32 {
	if n := len(l.free); n > 0 {
		at := l.free[n-1]
		l.free = l.free[:n-1]
		l.splits[at-1] = s
		return at
	}
	l.splits = append(l.splits, s)
	return int32(len(l.splits))
}

// read returns the pieces to read. A caught-up stretch extended off
// latency 0 (which the passes' searches would have to read among the
// other pieces) is rare: then the pieces are copied, in order, into runs
// with no caught-up stretches kept apart.
func (l *pieceLog) read() pieceChunks {
	if len(l.strays) == 0 {
		return l.pieceChunks
	}
	var flat pieceLog
	l.all(func(q *latencyPiece) {
		if flat.n > 0 {
			if r := flat.run(flat.n - 1); r.n < math.MaxInt32 && samePiece(r.q, *q) {
				r.n++
				return
			}
		}
		flat.chunks = appendChunked(flat.chunks, flat.n, loggedRun{q: *q, n: 1})
		flat.n++
	})
	return flat.pieceChunks
}

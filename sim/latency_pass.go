package sim

import (
	"math"
	"math/bits"
)

// How the latency passes read the pieces: in the order they were added,
// every piece for the histograms and only those a search still needs
// after that, each cut into the windows it leaves in.

// pieceSet is a set of pieces by their index in pieceChunks, one bit a
// piece: the millions of pieces of a long run cost an eighth of a byte
// each.
type pieceSet []uint64

// timeSpan is a span of departure times, [t0, t1].
type timeSpan struct{ t0, t1 float64 }

// pieceReach are the pieces a quantile's search may read, and for each
// chunk the span of departure times its pieces among them cover (t0 > t1
// if none): a pass that needs no window within a chunk's span skips it.
type pieceReach struct {
	set   pieceSet
	spans []timeSpan
}

func newPieceReach(p pieceChunks) *pieceReach {
	r := &pieceReach{set: make(pieceSet, (p.len()+63)/64), spans: make([]timeSpan, len(p.chunks))}
	for c := range r.spans {
		r.spans[c] = timeSpan{t0: math.Inf(1), t1: math.Inf(-1)}
	}
	return r
}

// everyPiece is the reach of every piece.
func everyPiece(p pieceChunks) *pieceReach {
	r := newPieceReach(p)
	p.each(nil, nil, func(c, i int, q *latencyPiece, _ int) { r.add(c, i, q) })
	return r
}

// add adds run i, of pieces like q, of chunk c.
func (r *pieceReach) add(c, i int, q *latencyPiece) {
	r.set[i>>6] |= 1 << (i & 63)
	sp := &r.spans[c]
	sp.t0, sp.t1 = min(sp.t0, q.t0), max(sp.t1, q.t1)
}

// len is the number of runs.
func (p pieceChunks) len() int {
	n := 0
	for _, c := range p.chunks {
		n += len(c)
	}
	return n
}

// each calls fn with the chunk, index and pieces of every run in set
// (every run if set is nil): n pieces alike, q, in the order they were
// added, skipping the chunks that chunks (if not nil) does not want. A
// run no longer alike comes as its pieces. The caught-up stretches kept
// apart are not among them: they leave at latency 0 and no search reads
// them.
func (p pieceChunks) each(set pieceSet, chunks func(c int) bool, fn func(c, i int, q *latencyPiece, n int)) {
	p.runs(set, chunks, func(c, i int, r *loggedRun) {
		p.parts(r, func(q *latencyPiece, _, n int) { fn(c, i, q, n) })
	})
}

// eachPlaced is each over every run, with place(j), the number of
// caught-up stretches kept apart that come before piece j of the n.
func (p pieceChunks) eachPlaced(fn func(c, i int, q *latencyPiece, n int, place func(j int) int)) {
	p.runs(nil, nil, func(c, i int, r *loggedRun) {
		p.parts(r, func(q *latencyPiece, j0, n int) {
			fn(c, i, q, n, func(j int) int { return p.place(r, j0+j) })
		})
	})
}

// all calls fn with every piece, caught-up stretches among them, one by
// one in the order they were added.
func (p pieceChunks) all(fn func(q *latencyPiece)) {
	zeros := zeroCursor{p: &p}
	var zq latencyPiece
	zerosTo := func(upto int) {
		for zeros.read < upto {
			c, at, n := zeros.next(upto - zeros.read)
			for j := range n {
				zq = c.piece()
				if len(p.strays) > 0 {
					if q, ok := p.strays[zeroPlace{at.run, at.at + j}]; ok {
						zq = q
					}
				}
				fn(&zq)
			}
		}
	}
	p.eachPlaced(func(_, _ int, q *latencyPiece, n int, place func(j int) int) {
		for j := range n {
			zerosTo(place(j))
			fn(q)
		}
	})
	zerosTo(p.nzero)
}

// place is the number of caught-up stretches before piece j of run r.
func (p pieceChunks) place(r *loggedRun, j int) int {
	if r.places == 0 {
		return int(r.zeroAt)
	}
	pl := &p.places[r.places-1]
	if pl.list != nil {
		return int(pl.list[j])
	}
	return int(r.zeroAt) + j*int(pl.stride)
}

// parts calls fn with the pieces of run r: n alike, q, from its piece j0.
func (p pieceChunks) parts(r *loggedRun, fn func(q *latencyPiece, j0, n int)) {
	if r.split == 0 {
		fn(&r.q, 0, int(r.n))
		return
	}
	s := &p.splits[r.split-1]
	if s.pieces == nil {
		fn(&s.ext, 0, int(s.m))
		fn(&r.q, int(s.m), int(r.n-s.m))
		return
	}
	for j := range s.pieces {
		fn(&s.pieces[j], j, 1)
	}
}

// runs calls fn with the chunk, index and address of every run in set
// (every run if set is nil), in order, skipping the chunks that chunks
// (if not nil) does not want.
func (p pieceChunks) runs(set pieceSet, chunks func(c int) bool, fn func(c, i int, r *loggedRun)) {
	base := 0
	for c, chunk := range p.chunks {
		switch {
		case chunks != nil && !chunks(c):
		case set == nil:
			for j := range chunk {
				fn(c, base+j, &chunk[j])
			}
		default:
			for j := 0; j < len(chunk); {
				i := base + j
				w := set[i>>6] >> (i & 63)
				if w == 0 {
					j += 64 - i&63
					continue
				}
				j += bits.TrailingZeros64(w)
				if j >= len(chunk) {
					break
				}
				fn(c, base+j, &chunk[j])
				j++
			}
		}
		base += len(chunk)
	}
}

// windowCursor finds the windows of a set a piece leaves in. Pieces are
// added roughly in time order, so it looks first at the window the last
// piece started in, before searching the bounds.
type windowCursor struct {
	bounds []float64
	last   int
	idle   bool // no window of the set is wanted: pieceRun.start passes it by
}

func windowCursors(sets []latencyWindowSet) []windowCursor {
	out := make([]windowCursor, len(sets))
	for k := range sets {
		out[k].bounds = sets[k].bounds
	}
	return out
}

// windows returns the windows [from, to) the piece overlaps: from the
// last one whose start is at or before the piece's start, while they
// start at or before its end. An instant belongs to one window, the one
// it starts (the last one if it lies on the last bound: the records still
// waiting at the horizon).
func (w *windowCursor) windows(q *latencyPiece) (from, to int) {
	bounds := w.bounds
	n := len(bounds) - 1
	if n <= 0 {
		return 0, 0
	}
	first := w.last
	// The hint holds if the piece starts within its window, and the
	// window's start is the first bound at that value.
	if !(bounds[first] <= q.t0 && q.t0 < bounds[first+1] && (first == 0 || bounds[first-1] < bounds[first])) {
		first = searchAtLeast(bounds, q.t0)
		if first == len(bounds) || bounds[first] > q.t0 {
			first--
		}
		if q.t1 == q.t0 && first == n {
			first = n - 1
		}
		if first >= 0 && first < n {
			w.last = first
		}
	}
	from = max(first, 0)
	to = from
	for to < n && bounds[to] <= q.t1 {
		to++
		if q.t1 == q.t0 {
			break
		}
	}
	return from, to
}

// pieceRun is a run of pieces equal to the bit, one after another in the
// order they were added: the partitions of a member, or of a whole group,
// stop and start together and at the same rates, so their pieces come
// out alike and side by side. A run is cut into its windows once and its
// records are added as many times as it is long, in the order one piece
// at a time would add them, so every sum is the same.
type pieceRun struct {
	q      latencyPiece
	n      int
	clips  []windowClip // the run's piece cut into the windows wanted
	above  bool         // some of the clips leave above latency 0
	atZero bool         // some of the clips add records to the histogram's bucket 0
}

// windowClip is the part of a piece leaving in window window of set set.
type windowClip struct {
	set, window int
	c           latencyPiece
}

// extends reports whether q is like the run's pieces, and if so counts n
// of them in.
func (r *pieceRun) extends(q *latencyPiece, n int) bool {
	if r.n == 0 || !samePiece(r.q, *q) {
		return false
	}
	r.n += n
	return true
}

// start starts a run at n pieces like q, cut into the windows of each cursor's set
// that want (if not nil) picks.
func (r *pieceRun) start(q *latencyPiece, n int, cursors []windowCursor, want func(set, window int) bool) {
	r.q, r.n, r.clips, r.above, r.atZero = *q, n, r.clips[:0], false, false
	for k := range cursors {
		cur := &cursors[k]
		if cur.idle {
			continue
		}
		from, to := cur.windows(q)
		for i := from; i < to; i++ {
			if want != nil && !want(k, i) {
				continue
			}
			if c, ok := q.clip(cur.bounds[i], cur.bounds[i+1]); ok {
				r.clips = append(r.clips, windowClip{set: k, window: i, c: c})
				lo, hi := min(c.w0, c.w1), max(c.w0, c.w1)
				r.above = r.above || hi > 0
				// An atom at latency 0 or below: latencyHist.add
				// puts it in bucket 0.
				r.atZero = r.atZero || (hi <= 0 && latencyAtom(lo, hi))
			}
		}
	}
}

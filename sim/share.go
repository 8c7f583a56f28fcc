package sim

import (
	"cmp"
	"math"
	"slices"
	"time"
)

// A member's processing capacity is shared over the partitions it
// processes by demand, max-min fair: a partition with no lag needs only
// its production rate and leaves the rest to the others, and partitions
// with lag (which would take any amount) share what is left equally. So a
// hot partition saturates its owner while the owner's cold partitions
// take only what they produce, and a member's backlog drains with all of
// its spare capacity.
//
// Demands change only when a partition runs out of lag (its demand falls
// to its rate) or when something changes the process, its partitions or
// their rates; the last are ledger changes already. The first happens
// between changes, at the instants in the zeros heap, and catchUp applies
// them in time order before the ledger moves past them.

// allocate shares proc's capacity over the partitions it processes now.
func (l *ledger) allocate(proc int) { l.allocateAt(proc, l.now()) }

// shareChange is a partition whose share allocateAt changed, with the
// share it had.
type shareChange struct {
	idx int
	o   *ownership
	was float64
}

// demand is what a partition asks of its owner's capacity.
type demand struct {
	o    *ownership
	need float64 // +Inf while the partition has lag
	idx  int
	was  float64 // the share it had
}

// allocateAt shares proc's capacity as the partitions' lags are at t,
// counts the partitions it processes (processingCount), and returns the
// partitions whose share changed, ascending. The shares are handed out
// in the order of the demands, then of the partitions: those with lag
// (which take any amount) come last, in the order of proc's list.
func (l *ledger) allocateAt(proc int, t time.Duration) []shareChange {
	pr := l.procs[proc]
	running := pr.running()
	finite, lagging := l.finiteDemands[:0], l.laggingDemands[:0]
	changes := l.shareChanges[:0]
	for _, idx := range pr.owned {
		p := l.parts[idx]
		i := ownerIndex(p, proc)
		if i < 0 {
			continue
		}
		o := &p.owners[i]
		if !running || o.revoking {
			if o.alloc != 0 {
				changes = append(changes, shareChange{idx, o, o.alloc})
			}
			o.alloc = 0
			continue
		}
		// A partition with lag takes any amount; so does one this
		// process holds as a zombie beside the owner that drives the
		// lag, while its own position is behind the end (ownership.behind).
		dm := demand{o, math.Inf(1), idx, o.alloc}
		o.alloc = 0
		if l.lagAt(p, t) > 0 {
			lagging = append(lagging, dm)
			continue
		} else if d := l.processingOwner(p, idx); d < 0 || p.owners[d].proc != proc {
			if _, behind := l.claimAt(p, i, t); behind > 0 {
				lagging = append(lagging, dm)
				continue
			}
		}
		dm.need = p.rate
		finite = append(finite, dm)
	}
	byNeed := func(a, b demand) int { return cmp.Or(cmp.Compare(a.need, b.need), cmp.Compare(a.idx, b.idx)) }
	if !slices.IsSortedFunc(finite, byNeed) {
		slices.SortFunc(finite, byNeed)
	}
	n := len(finite) + len(lagging)
	pr.processingCount = n
	left := pr.rate
	for i, d := range finite {
		fair := left / float64(n-i)
		d.o.alloc = min(d.need, fair)
		left -= d.o.alloc
		if d.o.alloc != d.was {
			changes = append(changes, shareChange{d.idx, d.o, d.was})
		}
	}
	for i, d := range lagging {
		fair := left / float64(n-len(finite)-i)
		d.o.alloc = fair
		left -= d.o.alloc
		if d.o.alloc != d.was {
			changes = append(changes, shareChange{d.idx, d.o, d.was})
		}
	}
	if !slices.IsSortedFunc(changes, byIdx) {
		slices.SortFunc(changes, byIdx)
	}
	l.finiteDemands, l.laggingDemands, l.shareChanges = finite, lagging, changes
	return changes
}

func byIdx(a, b shareChange) int { return cmp.Compare(a.idx, b.idx) }

// catchUp applies, in time order, every instant up to t at which a
// partition ran out of lag: the partition is pinned at zero and its
// owners' capacity is shared again from that instant. Partitions that run
// out at one instant are handled together, so that an owner whose
// partitions drain at once is shared again once.
func (l *ledger) catchUp(t time.Duration) {
	if l.catching {
		return
	}
	l.catching = true
	defer func() { l.catching = false }()
	for l.zeros.Len() > 0 && l.zeros.items[0].at <= t {
		at := l.zeros.items[0].at
		l.startLagPath(at)
		if l.lagPath.started && at >= l.windowStart {
			l.lagPath.record(at, l.sumLag(at))
		}
		var procs []int
		for l.zeros.Len() > 0 && l.zeros.items[0].at == at {
			z := l.zeros.pop()
			p := l.parts[z.part]
			if z.ver != p.zeroVer || !p.active {
				continue
			}
			// The line reaches zero at an instant rounded down to the
			// nanosecond: what lag is left then is rounding, which the
			// driver processes by then, so that its stretch ends at zero
			// lag and the next one leaves at zero latency.
			l.advanceTo(p.idx, at)
			if i := ownerIndex(p, p.viewDriver); i >= 0 {
				p.owners[i].processed += p.viewLag
				p.owners[i].behind = 0
			}
			p.viewLag = 0
			l.settle(p.idx, at)
			l.lineOut(p)
			l.sumA -= p.lag - p.slope*sec(p.lagT)
			l.sumS -= p.slope
			p.active = false
			p.lag, p.lagT, p.slope = 0, at, 0
			p.zeroVer++
			l.mark(p, l.processingOwner(p, p.idx))
			for _, o := range p.owners {
				procs = append(procs, o.proc)
			}
		}
		slices.Sort(procs)
		for _, proc := range slices.Compact(procs) {
			l.reshare(proc, at)
		}
	}
}

// reshare shares proc's capacity again at t, when one of its partitions
// ran out of lag. Only partitions that still have lag can take the spare
// capacity: with none, the shares stay as they are.
func (l *ledger) reshare(proc int, t time.Duration) {
	pr := l.procs[proc]
	if !pr.running() || pr.processingCount < 2 {
		return
	}
	lagging := false
	for _, idx := range pr.owned {
		if p := l.parts[idx]; p.active && l.lagAt(p, t) > 0 {
			lagging = true
			break
		}
	}
	if !lagging {
		return
	}
	// Only partitions whose share changes end their stretch at t, each
	// booked under the share it had until then.
	for _, c := range l.allocateAt(proc, t) {
		p := l.parts[c.idx]
		now := c.o.alloc
		c.o.alloc = c.was
		l.settle(c.idx, t)
		c.o.alloc = now
		owner := l.processingOwner(p, c.idx)
		l.refreshSlope(p, owner, t)
		l.mark(p, owner)
	}
}

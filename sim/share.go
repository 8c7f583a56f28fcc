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
// between changes, at the instants in the zeros queue, and catchUp applies
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

// shareMemo is the demands of the partitions a running process
// processes, as its last sharing found them, with the share each got:
// a change to some of its claims (touchParts) works out the demands of
// those alone and shares again from the memo, without reading its other
// partitions. A demand changes only when its partition's lag line
// reaches zero (catchUp moves it in the memo: redemand) or rises from
// it, when the process starts or stops driving the lag, or when the
// claim, the process or the rates change: the claim's own change is
// worked out again, a change to the process or the rates shares in
// full, and the others drop the memo (forget). Only a line rising from
// zero at this very instant, or a zombie claim working through what its
// own position is behind, asks more of time: a memo holding one (timed)
// serves only the instant it was made.
type shareMemo struct {
	valid, timed bool
	at           time.Duration
	rate         float64
	// finite are the demands of partitions without lag, by need and then
	// partition; lagging those that take any amount, by partition.
	finite, lagging []memoDemand
}

// memoDemand is one partition's demand and the share it got.
type memoDemand struct {
	idx         int
	need, alloc float64
}

func byNeed(a, b memoDemand) int {
	return cmp.Or(cmp.Compare(a.need, b.need), cmp.Compare(a.idx, b.idx))
}

func byIdx(a, b shareChange) int { return cmp.Compare(a.idx, b.idx) }

func byDemandIdx(a, b memoDemand) int { return cmp.Compare(a.idx, b.idx) }

// forget drops the share memos of p's owners.
func (l *ledger) forget(p *partLedger) {
	for i := range p.owners {
		l.procs[p.owners[i].proc].memo.valid = false
	}
}

// redemand works out again, in proc's share memo, the demands of the
// partitions of its claims whose lag ran out at t (pr.drained, each
// once); the shares stay as they are until the process shares again. A
// demand depends on its partition alone and the memo's lists are in a
// total order, so the memo is updated in one pass for all of them, not
// once per partition.
func (l *ledger) redemand(proc int, t time.Duration) {
	pr := l.procs[proc]
	drained := pr.drained
	pr.drained = pr.drained[:0]
	m := &pr.memo
	switch {
	case !m.valid:
		return
	case len(pr.owned) < l.memoMin:
		// Sharing a few partitions again from scratch costs less than
		// keeping their memo up to date at every drain.
		m.valid = false
		return
	case m.timed && m.at != t:
		m.valid = false
		return
	}
	// The lagging demands are by partition, as drained is once sorted:
	// one merge takes out those of drained, and leaves those the memo
	// does not know lagged (not processing it, or the memo is out of
	// date).
	slices.Sort(drained)
	var unknown []int
	finite, lagging := l.redemands[:0], l.relagging[:0]
	k, j := 0, 0
	for _, e := range m.lagging {
		for j < len(drained) && drained[j] < e.idx {
			unknown = append(unknown, drained[j])
			j++
		}
		if j < len(drained) && drained[j] == e.idx {
			p := l.part(e.idx)
			j++
			need, timed := l.demandOf(p, ownerIndex(p, proc), t)
			if timed {
				m.timed, m.at = true, t
			}
			if d := (memoDemand{e.idx, need, e.alloc}); math.IsInf(need, 1) {
				lagging = append(lagging, d)
			} else {
				finite = append(finite, d)
			}
			continue
		}
		m.lagging[k] = e
		k++
	}
	unknown = append(unknown, drained[j:]...)
	m.lagging = m.lagging[:k]
	if len(unknown) > 0 && slices.ContainsFunc(m.finite, func(e memoDemand) bool {
		_, found := slices.BinarySearch(unknown, e.idx)
		return found
	}) {
		m.valid = false
		return
	}
	slices.SortFunc(finite, byNeed)
	m.finite = mergeDemands(m.finite, finite, byNeed)
	m.lagging = mergeDemands(m.lagging, lagging, byDemandIdx)
	l.redemands, l.relagging = finite[:0], lagging[:0]
}

// mergeDemands merges add into dst, both ascending by cmp, in place.
func mergeDemands(dst, add []memoDemand, cmp func(a, b memoDemand) int) []memoDemand {
	if len(add) == 0 {
		return dst
	}
	n := len(dst)
	dst = slices.Grow(dst, len(add))[:n+len(add)]
	// From the back, so that no entry is overwritten before it moves.
	i, j := n-1, len(add)-1
	for k := len(dst) - 1; j >= 0; k-- {
		if i >= 0 && cmp(dst[i], add[j]) > 0 {
			dst[k] = dst[i]
			i--
		} else {
			dst[k] = add[j]
			j--
		}
	}
	return dst
}

// remember adds a demand found at t to memo m, in its place.
func (l *ledger) remember(m *shareMemo, e memoDemand, timed bool, t time.Duration) {
	if timed {
		m.timed, m.at = true, t
	}
	if math.IsInf(e.need, 1) {
		j, _ := slices.BinarySearchFunc(m.lagging, e, byDemandIdx)
		m.lagging = slices.Insert(m.lagging, j, e)
	} else {
		j, _ := slices.BinarySearchFunc(m.finite, e, byNeed)
		m.finite = slices.Insert(m.finite, j, e)
	}
}

// forgetOthers drops the share memos of p's owners other than proc.
func (l *ledger) forgetOthers(p *partLedger, proc int) {
	for i := range p.owners {
		if q := p.owners[i].proc; q != proc {
			l.procs[q].memo.valid = false
		}
	}
}

// demandOf is what owner i of p, processing it, asks of its process's
// capacity at t: a partition with lag takes any amount; so does one the
// process holds as a zombie beside the owner that drives the lag, while
// its own position is behind the end (ownership.behind); otherwise its
// production rate. timed tells that the demand may change with time
// alone (see shareMemo).
func (l *ledger) demandOf(p *partLedger, i int, t time.Duration) (need float64, timed bool) {
	if l.lagAt(p, t) > 0 {
		return math.Inf(1), false
	}
	timed = p.slope > 0
	if d := l.processingOwner(p, p.idx); d < 0 || p.owners[d].proc != p.owners[i].proc {
		if _, behind := l.claimAt(p, i, t); behind > 0 {
			return math.Inf(1), true
		}
		timed = true
	}
	return p.rate, timed
}

// allocateAt shares proc's capacity as the partitions' lags are at t,
// counts the partitions it processes (processingCount), keeps the memo,
// and returns the partitions whose share changed, ascending.
func (l *ledger) allocateAt(proc int, t time.Duration) []shareChange {
	pr := l.procs[proc]
	running := pr.running()
	m := &pr.memo
	m.finite, m.lagging, m.timed = m.finite[:0], m.lagging[:0], false
	changes := l.shareChanges[:0]
	for _, idx := range pr.owned {
		p := l.part(idx)
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
		need, timed := l.demandOf(p, i, t)
		m.timed = m.timed || timed
		if math.IsInf(need, 1) {
			m.lagging = append(m.lagging, memoDemand{idx, need, o.alloc})
		} else {
			m.finite = append(m.finite, memoDemand{idx, need, o.alloc})
		}
	}
	if !slices.IsSortedFunc(m.finite, byNeed) {
		slices.SortFunc(m.finite, byNeed)
	}
	m.valid, m.at, m.rate = running, t, pr.rate
	changes = l.share(proc, changes)
	if !slices.IsSortedFunc(changes, byIdx) {
		slices.SortFunc(changes, byIdx)
	}
	l.shareChanges = changes
	return changes
}

// allocateParts is allocateAt after a change to proc's claims on idxs
// alone (ascending; none for reshare, whose demands catchUp moved in the
// memo, see redemand): from the memo, when it still holds, with the
// demands of idxs worked out again; otherwise in full.
func (l *ledger) allocateParts(proc int, idxs []int, t time.Duration) []shareChange {
	pr := l.procs[proc]
	m := &pr.memo
	if l.walkAll || !m.valid || !pr.running() || m.rate != pr.rate || (m.timed && t != m.at) {
		return l.allocateAt(proc, t)
	}
	l.withoutDemands(m, idxs)
	for _, idx := range idxs {
		p := l.part(idx)
		i := ownerIndex(p, proc)
		if i < 0 {
			continue
		}
		o := &p.owners[i]
		if o.revoking {
			o.alloc = 0
			continue
		}
		need, timed := l.demandOf(p, i, t)
		l.remember(m, memoDemand{idx, need, o.alloc}, timed, t)
	}
	m.at = t
	changes := l.share(proc, l.shareChanges[:0])
	slices.SortFunc(changes, byIdx)
	l.shareChanges = changes
	return changes
}

// withoutDemands removes the demands of idxs (ascending) from a memo. A
// member of a big group has a thousand demands and a change reaches one
// or two, so each is found by a search: a lagging demand by its
// partition, a finite one by its need and partition. A finite need is
// its partition's rate (demandOf), and a memo never holds an older rate:
// a change of rates shares every owner's capacity again in full
// (ledger.SetLoad). A partition the change adds is in neither list.
func (l *ledger) withoutDemands(m *shareMemo, idxs []int) {
	if len(idxs) > fewDemands {
		// Many at once: one pass over both lists.
		drop := func(e memoDemand) bool {
			_, found := slices.BinarySearch(idxs, e.idx)
			return found
		}
		m.finite, m.lagging = slices.DeleteFunc(m.finite, drop), slices.DeleteFunc(m.lagging, drop)
		return
	}
	for _, idx := range idxs {
		if k, found := slices.BinarySearchFunc(m.lagging, memoDemand{idx: idx}, byDemandIdx); found {
			m.lagging = slices.Delete(m.lagging, k, k+1)
			continue
		}
		if k, found := slices.BinarySearchFunc(m.finite, memoDemand{idx: idx, need: l.part(idx).rate}, byNeed); found {
			m.finite = slices.Delete(m.finite, k, k+1)
		}
	}
}

// fewDemands is how many demands withoutDemands finds one by one.
const fewDemands = 8

// sureFit is a factor just below one: a demand whose need times the
// demands left is at most sureFit times what is left is below an equal
// part of it by far more than the rounding of need·rest, of left·sureFit
// and of the quotient left/rest together (each within 2^-53 of the exact
// value), so min(need, left/rest) is need without the division.
const sureFit = 1 - 0x1p-40

// share hands out proc's capacity over the memo's demands, max-min
// fair: in the order of the demands, then of the partitions, each gets
// what it needs or an equal part of what is left, whichever is less. It
// sets the shares that changed and adds them to changes.
func (l *ledger) share(proc int, changes []shareChange) []shareChange {
	pr := l.procs[proc]
	m := &pr.memo
	n := len(m.finite) + len(m.lagging)
	pr.processingCount = n
	left := pr.rate
	give := func(e *memoDemand, a float64) {
		left -= a
		if a != e.alloc {
			p := l.part(e.idx)
			o := &p.owners[ownerIndex(p, proc)]
			changes = append(changes, shareChange{e.idx, o, e.alloc})
			o.alloc, e.alloc = a, a
		}
	}
	for i := range m.finite {
		// Most finite demands are met in full: telling so by a product
		// (fairPart) keeps the division, whose result the next demand
		// waits for, off the walk.
		give(&m.finite[i], fairPart(m.finite[i].need, left, n-i))
	}
	for i := range m.lagging {
		give(&m.lagging[i], min(m.lagging[i].need, left/float64(len(m.lagging)-i)))
	}
	return changes
}

// fairPart is min(need, left/rest): what a demand gets of what is left
// when rest demands share it. A need below an equal part by far more
// than rounding (sureFit) is the answer without the division.
func fairPart(need, left float64, rest int) float64 {
	r := float64(rest)
	if need*r <= left*sureFit {
		return need
	}
	return min(need, left/r)
}

// catchUp applies, in time order, every instant up to t at which a
// partition ran out of lag: the partition is pinned at zero and its
// owners' capacity is shared again from that instant. Partitions that run
// out at one instant are handled together, so that an owner whose
// partitions drain at once is shared again once.
func (l *ledger) catchUp(t time.Duration) {
	// Most calls find nothing due: they return before setting up the
	// loop.
	if at, ok := l.zeros.next(); l.catching || !ok || at > t {
		return
	}
	l.catching = true
	defer func() { l.catching = false }()
	for {
		at, ok := l.zeros.next()
		if !ok || at > t {
			break
		}
		l.startLagPath(at)
		if l.lagPath.started && at >= l.windowStart {
			l.lagPath.record(at, l.sumLag(at))
		}
		// The owners of the instant's partitions, each once: a crowd
		// comes from few members, one after another, so most repeats
		// are the last one added. The list is the ledger's, as catchUp
		// does not run within itself.
		procs := l.catchProcs[:0]
		for _, z := range l.zeros.take() {
			p := l.part(z.part)
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
			l.sumA -= p.lag - p.slope*l.secs(p.lagT)
			l.sumS -= p.slope
			p.active = false
			p.lag, p.lagT, p.slope = 0, at, 0
			p.zeroVer++
			l.mark(p, l.processingOwner(p, p.idx))
			l.noteLine(p)
			for i := range p.owners {
				proc := p.owners[i].proc
				l.procs[proc].drained = append(l.procs[proc].drained, p.idx)
				if n := len(procs); n == 0 || procs[n-1] != proc {
					procs = append(procs, proc)
				}
			}
		}
		slices.Sort(procs)
		procs = slices.Compact(procs)
		l.catchProcs = procs
		for _, proc := range procs {
			l.redemand(proc, at)
		}
		for _, proc := range procs {
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
	// A process that drives every partition it owns and has no lag line
	// left has nothing lagging (lineIn keeps a line in its driver's sum
	// while it is not pinned at zero); only during a change to its claims
	// (touchParts), which catchUp can interrupt, do the counts trail the
	// claims.
	if !l.changing && pr.lines == 0 && pr.driving == len(pr.owned) {
		return
	}
	lagging := false
	for _, idx := range pr.owned {
		if p := l.part(idx); p.active && l.lagAt(p, t) > 0 {
			lagging = true
			break
		}
	}
	if !lagging {
		return
	}
	// Only partitions whose share changes end their stretch at t, each
	// booked under the share it had until then.
	for _, c := range l.allocateParts(proc, nil, t) {
		p := l.part(c.idx)
		now := c.o.alloc
		c.o.alloc = c.was
		l.settle(c.idx, t)
		c.o.alloc = now
		owner := l.processingOwner(p, c.idx)
		l.refreshSlope(p, owner, t)
		l.mark(p, owner)
	}
}

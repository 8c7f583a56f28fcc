package sim

import (
	"cmp"
	"math/bits"
	"slices"
	"time"
)

// zeroAt is the instant a draining partition's lag line reaches zero, for
// the lag line of version ver.
type zeroAt struct {
	at   time.Duration
	part int // ledger index
	ver  int
}

// zeroQueue orders the instants partitions run out of lag, earliest
// first; partitions that run out at one instant come in the order of
// their names (rank), so that catchUp applies them in an order that does
// not depend on how events happened to push them.
//
// Partitions drain in crowds: a member shares its capacity equally over
// its lagging partitions, so those handed to it together reach zero at
// one instant, and a rebalance of a large group leaves thousands of
// partitions to one instant. The queue therefore keeps one entry per
// instant, with its partitions in the order they were pushed, and puts an
// instant's partitions in name order once, when it is taken: a push is
// an append, and the heap holds instants, not partitions.
type zeroQueue struct {
	// instants is a min-heap of the instants that have partitions, and
	// lists their partitions (lists[slot[at]]).
	instants []time.Duration
	slot     map[time.Duration]int
	lists    [][]zeroAt
	// free are the slots of lists no instant holds, their slices kept
	// for reuse; taken is the slot take last handed out, freed at the
	// next take, when its caller is done with it.
	free  []int
	taken int
	// last and lastSlot remember the instant pushed last: the partitions
	// of one crowd are pushed one after another.
	last     time.Duration
	lastSlot int
	// rank is each partition's place among all partitions ordered by
	// name, indexed by ledger index; ranks are renumbered when partitions
	// are added, which keeps the relative order of those in the queue.
	rank []int32
	// entry, mark and ordered are byRank's scratch space.
	entry   []int32
	mark    []uint64
	ordered []zeroAt
	// entries counts the entries in lists of instants still queued,
	// stale ones included (see compact).
	entries int
}

// push adds an instant a partition runs out of lag.
func (q *zeroQueue) push(z zeroAt) {
	if q.slot == nil {
		q.slot, q.taken, q.lastSlot = map[time.Duration]int{}, -1, -1
	}
	s := q.lastSlot
	if s < 0 || q.last != z.at {
		var ok bool
		if s, ok = q.slot[z.at]; !ok {
			s = q.open(z.at)
		}
		q.last, q.lastSlot = z.at, s
	}
	q.lists[s] = append(q.lists[s], z)
	q.entries++
}

// open gives instant at a list and puts it in the heap.
func (q *zeroQueue) open(at time.Duration) int {
	var s int
	if n := len(q.free); n > 0 {
		s, q.free = q.free[n-1], q.free[:n-1]
	} else {
		s = len(q.lists)
		q.lists = append(q.lists, nil)
	}
	q.slot[at] = s
	q.instants = append(q.instants, at)
	for i := len(q.instants) - 1; i > 0; {
		up := (i - 1) / 2
		if q.instants[up] <= q.instants[i] {
			break
		}
		q.instants[i], q.instants[up] = q.instants[up], q.instants[i]
		i = up
	}
	return s
}

// next is the earliest instant in the queue; ok is false when it is empty.
func (q *zeroQueue) next() (at time.Duration, ok bool) {
	if len(q.instants) == 0 {
		return 0, false
	}
	return q.instants[0], true
}

// take removes the earliest instant and returns its partitions by name,
// each once, with the last version pushed for it: an earlier one is
// stale, as its partition's line has been set again since. The slice is
// the queue's: it is good until the next take.
func (q *zeroQueue) take() []zeroAt {
	if q.taken >= 0 {
		q.lists[q.taken] = q.lists[q.taken][:0]
		q.free = append(q.free, q.taken)
		q.taken = -1
	}
	at := q.instants[0]
	n := len(q.instants) - 1
	q.instants[0] = q.instants[n]
	q.instants = q.instants[:n]
	for i := 0; ; {
		c := 2*i + 1
		if c >= n {
			break
		}
		if r := c + 1; r < n && q.instants[r] < q.instants[c] {
			c = r
		}
		if q.instants[i] <= q.instants[c] {
			break
		}
		q.instants[i], q.instants[c] = q.instants[c], q.instants[i]
		i = c
	}
	s := q.slot[at]
	delete(q.slot, at)
	if q.lastSlot == s {
		q.lastSlot = -1
	}
	q.taken = s
	q.entries -= len(q.lists[s])
	if len(q.lists[s])*crowdShare >= len(q.rank) {
		q.lists[s] = q.byRank(q.lists[s])
		return q.lists[s]
	}
	items := q.lists[s]
	slices.SortFunc(items, func(a, b zeroAt) int {
		return cmp.Or(cmp.Compare(q.rank[a.part], q.rank[b.part]), cmp.Compare(a.ver, b.ver))
	})
	// Of a partition pushed twice the later version is last.
	k := 0
	for i, z := range items {
		if i+1 < len(items) && items[i+1].part == z.part {
			continue
		}
		items[k] = z
		k++
	}
	q.lists[s] = items[:k]
	return q.lists[s]
}

// compact drops the entries whose partition's lag line has been set
// again since they were pushed (version below current(part)): take would
// pass them over, and a line set again and again (a member whose share
// changes with every heartbeat of a reconciliation) would otherwise keep
// one entry per setting until its instant came, and for ever if that is
// past the horizon. Each partition has one line, so at most one entry
// per partition survives. Every instant stays queued, even one left with
// none, so that catchUp stops where it did. Lists left much longer than
// their entries are cut down, and the spare ones are let go.
func (q *zeroQueue) compact(current func(part int) int) {
	q.entries = 0
	for _, at := range q.instants {
		s := q.slot[at]
		list := slices.DeleteFunc(q.lists[s], func(z zeroAt) bool { return z.ver < current(z.part) })
		if cap(list) > 2*len(list)+minZeroList {
			list = append([]zeroAt(nil), list...)
		}
		q.lists[s] = list
		q.entries += len(list)
	}
	for _, s := range q.free {
		q.lists[s] = nil
	}
}

// minZeroList is the room a list keeps without being cut down.
const minZeroList = 16

// crowdShare is the share of all partitions (1/crowdShare) above which
// take orders an instant's partitions by marking their ranks, in time
// linear in the partitions, rather than by sorting them.
const crowdShare = 32

// byRank is items in rank order, each partition once with its last
// version, found by marking each partition's rank in a bitmap (mark) and
// the entry it came with (entry, one more than its place in items).
func (q *zeroQueue) byRank(items []zeroAt) []zeroAt {
	if len(q.entry) != len(q.rank) {
		q.entry = make([]int32, len(q.rank))
		q.mark = make([]uint64, (len(q.rank)+63)/64)
	}
	for i, z := range items {
		r := q.rank[z.part]
		if e := q.entry[r]; e == 0 || items[e-1].ver <= z.ver {
			q.entry[r] = int32(i + 1)
		}
		q.mark[r/64] |= 1 << (r % 64)
	}
	out := q.ordered[:0]
	for w, word := range q.mark {
		for word != 0 {
			r := w*64 + bits.TrailingZeros64(word)
			out = append(out, items[q.entry[r]-1])
			q.entry[r] = 0
			word &= word - 1
		}
		q.mark[w] = 0
	}
	// The instant's list takes the ordered slice, and the list's slice
	// serves the next instant ordered this way.
	q.ordered = items[:0]
	return out
}

package assignor

import (
	"cmp"
	"slices"
)

// generalBuilder is AbstractStickyAssignor.GeneralAssignmentBuilder, the
// path taken when members subscribe to different topics. Balance cannot be
// "everyone within one" there, so the goal is weaker: no partition could
// move to a member with at least two fewer partitions. The builder:
//
//  1. keeps every validly owned partition whose topic its owner still
//     subscribes to (a dropped topic means some revocation is required);
//  2. gives each unassigned partition, topics with fewer potential
//     consumers first, to the least-loaded member that subscribes to it;
//  3. moves partitions, one at a time, from a member to a less loaded
//     subscriber of their topic until the assignment is balanced in the
//     above sense, preferring to hand a partition back to its owner from an
//     older generation, and undoes the moves if they did not lower the
//     balance score (unless the group is being assigned for the first time).
//
// Members are kept in int32 form; loads are plain counters.
type generalBuilder struct {
	u     *universe
	prev  *ownership
	order []int32 // Kafka's iteration order of members
	rank  []int32 // rank by member id: the TreeSet tie-break

	topicOf     []int32
	subscribers [][]int32 // topic2AllPotentialConsumers, in iteration order
	maxSize     []int32   // partitions a member could hold at most

	owner []int32 // currentPartitionConsumer
	size  []int32 // per member

	// prevOwner and prevGeneration are prevAssignment: for partitions
	// reported by members of an older generation than the newest, the
	// newest of those older owners.
	prevOwner      []int32
	prevGeneration []int32

	participating      []bool
	revocationRequired bool
	movements          partitionMovements

	// balanced caches isBalanced until the next move.
	balanced, balancedKnown bool
}

func buildGeneral(u *universe, prev *ownership, order, rank []int32) []int32 {
	b := &generalBuilder{
		u: u, prev: prev, order: order, rank: rank,
		topicOf:     u.topicOf(),
		subscribers: make([][]int32, len(u.names)),
		maxSize:     make([]int32, len(u.members)),
		owner:       noOwner(u.partitions()),
		size:        make([]int32, len(u.members)),
	}
	for _, m := range order {
		for _, t := range u.subs[m] {
			b.subscribers[t] = append(b.subscribers[t], m)
			b.maxSize[m] += u.count(t)
		}
	}
	b.prepopulatePrevious()
	b.keepOwned()
	b.balance()
	return b.owner
}

// prepopulatePrevious fills prevAssignment (prepopulateCurrentAssignments):
// what members of older generations say they owned, so that the balancing
// step can prefer giving a partition back to its former owner. Among
// several older claimants the highest generation wins, and the first in
// iteration order on a tie.
func (b *generalBuilder) prepopulatePrevious() {
	n := b.u.partitions()
	b.prevOwner = noOwner(n)
	b.prevGeneration = make([]int32, n)
	maxGen := b.prev.maxGeneration
	for _, m := range b.order {
		s := &b.u.members[m]
		var g int32
		switch {
		case s.HasGeneration && s.Generation < maxGen:
			g = s.Generation
		case !s.HasGeneration && maxGen > -1:
			g = -1
		default:
			continue
		}
		b.u.forEachOwned(int(m), func(gp int32) {
			if b.prevOwner[gp] < 0 || g > b.prevGeneration[gp] {
				b.prevOwner[gp], b.prevGeneration[gp] = m, g
			}
		})
	}
}

// keepOwned is the general builder's assignOwnedPartitions.
func (b *generalBuilder) keepOwned() {
	for m := range b.u.members {
		for _, gp := range b.prev.owned(int32(m)) {
			if !b.u.subscribes(m, b.topicOf[gp]) {
				b.revocationRequired = true
				continue
			}
			b.owner[gp] = int32(m)
			b.size[m]++
		}
	}
}

func (b *generalBuilder) balance() {
	initializing := !slices.ContainsFunc(b.size, func(s int32) bool { return s > 0 })

	// sortedAllPartitions: topics with fewer potential consumers first,
	// then by name; partitions ascending.
	topics := make([]int32, len(b.u.names))
	for t := range topics {
		topics[t] = int32(t)
	}
	slices.SortStableFunc(topics, func(x, y int32) int {
		return cmp.Compare(len(b.subscribers[x]), len(b.subscribers[y]))
	})
	var all, unassigned []int32
	for _, t := range topics {
		for gp := b.u.offset[t]; gp < b.u.offset[t+1]; gp++ {
			all = append(all, gp)
			if b.owner[gp] < 0 {
				unassigned = append(unassigned, gp)
			}
		}
	}
	b.assignUnassigned(unassigned)

	// Only partitions of topics with two or more potential consumers, and
	// only members that could gain or give up a partition, take part in
	// the balancing; the rest is fixed.
	movable := func(gp int32) bool { return len(b.subscribers[b.topicOf[gp]]) >= 2 }
	all = slices.DeleteFunc(all, func(gp int32) bool { return !movable(gp) })
	unassigned = slices.DeleteFunc(unassigned, func(gp int32) bool { return !movable(gp) })
	b.participating = make([]bool, len(b.u.members))
	for m := range b.u.members {
		b.participating[m] = b.size[m] < b.maxSize[m]
	}
	for gp, m := range b.owner {
		if m >= 0 && movable(int32(gp)) {
			b.participating[m] = true
		}
	}

	preOwner, preSize := slices.Clone(b.owner), slices.Clone(b.size)
	preScore := b.balanceScore()
	// If no subscription change forces a revocation, first try to balance
	// by moving only the partitions that were just handed out.
	if !b.revocationRequired {
		b.reassign(unassigned)
	}
	// Kafka only looks at whether this second pass moved anything.
	performed := b.reassign(all)
	if !initializing && performed && b.balanceScore() >= preScore {
		b.owner, b.size = preOwner, preSize
	}
}

// assignUnassigned gives each partition to the least-loaded member that
// subscribes to its topic, ties going to the lower member id (the order of
// Kafka's sortedCurrentSubscriptions TreeSet). Partitions arrive grouped by
// topic, so a heap over the topic's subscribers finds that member without
// scanning the whole group.
func (b *generalBuilder) assignUnassigned(unassigned []int32) {
	var h loadHeap
	current := int32(-1)
	for _, gp := range unassigned {
		t := b.topicOf[gp]
		if t != current {
			current = t
			h.reset(b.subscribers[t], b.size, b.rank)
		}
		m := h.top()
		b.owner[gp] = m
		b.size[m]++
		h.fix()
	}
}

// reassign is performReassignments: sweep the partitions, moving any whose
// owner has at least two more partitions than some other subscriber of its
// topic, until the assignment is balanced or a whole sweep moves nothing.
//
// A move normally shrinks the spread of the loads, but the movement log can
// redirect it to a partition of another owner, so Kafka's loop has no
// obvious bound. rebalsim stops after as many sweeps as there are
// partitions — far more than any assignment has needed — rather than risk
// spinning forever; the assignment is valid either way.
func (b *generalBuilder) reassign(partitions []int32) (performed bool) {
	for range len(partitions) + 1 {
		modified := false
		for _, gp := range partitions {
			if b.isBalanced() {
				break
			}
			t, m := b.topicOf[gp], b.owner[gp]
			if p := b.prevOwner[gp]; p >= 0 && b.canHold(p, t) && b.size[m] > b.size[p]+1 {
				b.move(gp, p)
				performed, modified = true, true
				continue
			}
			if least := b.leastLoaded(t); b.size[m] > b.size[least]+1 {
				b.move(gp, least)
				performed, modified = true, true
			}
		}
		if !modified {
			return performed
		}
	}
	return performed
}

// canHold reports whether a former owner may take a partition of topic t
// back. Kafka does not check: it would hand the partition to a member that
// no longer subscribes to the topic (an invalid assignment) or fail on a
// member outside the balancing set; rebalsim skips the preference instead.
func (b *generalBuilder) canHold(m, t int32) bool {
	return b.participating[m] && b.u.subscribes(int(m), t)
}

// leastLoaded is the first member of sortedCurrentSubscriptions (load, then
// member id) that subscribes to topic t.
func (b *generalBuilder) leastLoaded(t int32) int32 {
	best := int32(-1)
	for _, m := range b.subscribers[t] {
		if !b.participating[m] {
			continue
		}
		if best < 0 || b.size[m] < b.size[best] || (b.size[m] == b.size[best] && b.rank[m] < b.rank[best]) {
			best = m
		}
	}
	return best
}

// move is reassignPartition(partition, newConsumer): it consults the
// movement log so that, rather than sending a second partition of the same
// topic back along a path one already travelled the other way, it undoes
// that earlier move.
func (b *generalBuilder) move(gp, to int32) {
	gp = b.movements.partitionToMove(b.topicOf[gp], gp, b.owner[gp], to)
	from := b.owner[gp]
	b.movements.record(b.topicOf[gp], gp, from, to)
	b.owner[gp] = to
	b.size[from]--
	b.size[to]++
	b.balancedKnown = false
}

// isBalanced is the general builder's isBalanced: true if the loads of the
// participating members differ by at most one, or if no member could take
// a partition of one of its topics from a member with at least two more.
// It depends only on the assignment, so it is cached between moves.
func (b *generalBuilder) isBalanced() bool {
	if !b.balancedKnown {
		b.balanced, b.balancedKnown = b.computeBalanced(), true
	}
	return b.balanced
}

func (b *generalBuilder) computeBalanced() bool {
	lo, hi := int32(-1), int32(-1)
	for m, ok := range b.participating {
		if !ok {
			continue
		}
		if lo < 0 || b.size[m] < lo {
			lo = b.size[m]
		}
		hi = max(hi, b.size[m])
	}
	if lo >= hi-1 {
		return true
	}
	// For each topic, the load of its most loaded owner. A member short of
	// its maximum could take a partition of topic t iff that load exceeds
	// its own by two or more.
	topLoad := make([]int32, len(b.u.names))
	for gp, m := range b.owner {
		if m >= 0 && b.participating[m] {
			t := b.topicOf[gp]
			topLoad[t] = max(topLoad[t], b.size[m])
		}
	}
	for m, ok := range b.participating {
		if !ok || b.size[m] >= b.maxSize[m] {
			continue
		}
		for _, t := range b.u.subs[m] {
			if topLoad[t] > b.size[m]+1 {
				return false
			}
		}
	}
	return true
}

// balanceScore is getBalanceScore over the participating members: the sum
// over all pairs of the difference of their loads, computed from the sorted
// loads in O(n log n) instead of over every pair.
func (b *generalBuilder) balanceScore() int64 {
	var loads []int32
	for m, ok := range b.participating {
		if ok {
			loads = append(loads, b.size[m])
		}
	}
	slices.Sort(loads)
	var score int64
	n := int64(len(loads))
	for i, l := range loads {
		score += int64(l) * (2*int64(i) - n + 1)
	}
	return score
}

// partitionMovements is AbstractStickyAssignor.PartitionMovements: for each
// partition moved during this assignment, where it came from and where it
// is now, indexed by topic and (from, to) pair.
type partitionMovements struct {
	byPartition map[int32]movement
	byPath      map[movePath][]int32
}

type movement struct{ from, to int32 }

type movePath struct{ topic, from, to int32 }

// partitionToMove is getTheActualPartitionToBeMoved. If some partition of
// the same topic already moved from `to` to the member gp originally came
// from, that partition goes back instead of gp going forward. Kafka takes
// whichever its HashSet yields first; rebalsim takes the lowest partition.
func (pm *partitionMovements) partitionToMove(topic, gp, from, to int32) int32 {
	if mv, ok := pm.byPartition[gp]; ok {
		from = mv.from
	}
	back := pm.byPath[movePath{topic, to, from}]
	if len(back) == 0 {
		return gp
	}
	return slices.Min(back)
}

// record is movePartition: a partition that moves again keeps its original
// source, and one that returns to its original owner has not moved at all.
func (pm *partitionMovements) record(topic, gp, from, to int32) {
	if pm.byPartition == nil {
		pm.byPartition = map[int32]movement{}
		pm.byPath = map[movePath][]int32{}
	}
	if mv, ok := pm.byPartition[gp]; ok {
		delete(pm.byPartition, gp)
		path := movePath{topic, mv.from, mv.to}
		list := pm.byPath[path]
		i := slices.Index(list, gp)
		list[i] = list[len(list)-1]
		if list = list[:len(list)-1]; len(list) == 0 {
			delete(pm.byPath, path)
		} else {
			pm.byPath[path] = list
		}
		if mv.from == to {
			return
		}
		from = mv.from
	}
	pm.byPartition[gp] = movement{from, to}
	path := movePath{topic, from, to}
	pm.byPath[path] = append(pm.byPath[path], gp)
}

// loadHeap is a binary min-heap of members ordered by (load, member id).
type loadHeap struct {
	members []int32
	size    []int32
	rank    []int32
}

func (h *loadHeap) reset(members []int32, size, rank []int32) {
	h.members = append(h.members[:0], members...)
	h.size, h.rank = size, rank
	for i := len(h.members)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

func (h *loadHeap) top() int32 { return h.members[0] }

// fix restores the heap after the top member's load grew.
func (h *loadHeap) fix() { h.down(0) }

func (h *loadHeap) less(i, j int) bool {
	a, b := h.members[i], h.members[j]
	if h.size[a] != h.size[b] {
		return h.size[a] < h.size[b]
	}
	return h.rank[a] < h.rank[b]
}

func (h *loadHeap) down(i int) {
	n := len(h.members)
	for {
		smallest := i
		if l := 2*i + 1; l < n && h.less(l, smallest) {
			smallest = l
		}
		if r := 2*i + 2; r < n && h.less(r, smallest) {
			smallest = r
		}
		if smallest == i {
			return
		}
		h.members[i], h.members[smallest] = h.members[smallest], h.members[i]
		i = smallest
	}
}

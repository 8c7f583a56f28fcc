package assignor

import (
	"cmp"
	"math/bits"
	"slices"

	"github.com/rebalsim/rebalsim/kafka"
)

// disjoint is the previous assignment of a group that behaves: no
// partition claimed twice, and every member's Owned in a Result's own form
// (topics of the universe, lists non-empty and ascending, without repeats
// or partitions the topic does not have). Then nothing needs resolving,
// whatever the generations: ownership is a bitmap of the claimed
// partitions, and a member's owned partitions are read from its Owned.
// At 100,000 partitions the bitmap is 12.5 KB where an owner array is
// 400 KB, and assignDisjoint never walks the partitions one by one: the
// rolling restart of a large group assigns this way on every rebalance.
type disjoint struct {
	u       *universe
	claimed []uint64
	// count is how many partitions each member owns.
	count []int32
}

// readDisjoint reads the members' claims, and reports false if the input
// is not disjoint (then resolveOwnership applies).
func readDisjoint(u *universe) (*disjoint, bool) {
	o := &disjoint{u: u, claimed: make([]uint64, (u.partitions()+63)/64), count: make([]int32, len(u.members))}
	for m := range u.members {
		for name, ps := range u.members[m].Owned {
			t := u.topicIndex(name)
			if t < 0 || len(ps) == 0 {
				return nil, false
			}
			first, count := u.offset[t], u.count(t)
			for i, p := range ps {
				if p < 0 || p >= count || (i > 0 && p <= ps[i-1]) {
					return nil, false
				}
				gp := first + p
				word, bit := gp>>6, uint64(1)<<(gp&63)
				if o.claimed[word]&bit != 0 {
					return nil, false
				}
				o.claimed[word] |= bit
			}
			o.count[m] += int32(len(ps))
		}
	}
	return o, true
}

// owned appends member m's owned partitions to buf, as ascending global
// indices. A member of one topic, as in most groups, has them in its
// Owned list already in order (readDisjoint checked it): they are copied,
// not sorted.
func (o *disjoint) owned(m int32, buf []int32) []int32 {
	owned := o.u.members[m].Owned
	for name, ps := range owned {
		first := o.u.offset[o.u.topicIndex(name)]
		if first == 0 {
			buf = append(buf, ps...)
			continue
		}
		for _, p := range ps {
			buf = append(buf, first+p)
		}
	}
	if len(owned) > 1 {
		slices.Sort(buf)
	}
	return buf
}

// ownedAsIs is member m's Owned list itself when that list is its owned
// partitions as global indices, ascending, as for a member of the
// universe's first topic alone (every member of a one-topic group), and
// nil otherwise. It is for reading only: the list is the member's.
func (o *disjoint) ownedAsIs(m int32) []int32 {
	if owned := o.u.members[m].Owned; len(owned) == 1 {
		for name, ps := range owned {
			if o.u.offset[o.u.topicIndex(name)] == 0 {
				return ps
			}
		}
	}
	return nil
}

// release frees partition gp for the deal.
func (o *disjoint) release(gp int32) { o.claimed[gp>>6] &^= uint64(1) << (gp & 63) }

// eachFree calls fn for every partition nobody keeps, ascending.
func (o *disjoint) eachFree(fn func(gp int32)) {
	n := int32(o.u.partitions())
	for w, word := range o.claimed {
		free := ^word
		if tail := n - int32(w)*64; tail < 64 {
			free &= uint64(1)<<tail - 1
		}
		for free != 0 {
			fn(int32(w)*64 + int32(bits.TrailingZeros64(free)))
			free &= free - 1
		}
	}
}

// assignDisjoint is the constrained path (buildConstrained and the
// Result) for a disjoint input; it reports false, having done nothing,
// for any other. It takes the same steps with the same constrainedDeal;
// only the bookkeeping of who owned what differs.
func (a stickyAssignor) assignDisjoint(u *universe, order, rank []int32) (Result, bool) {
	o, ok := readDisjoint(u)
	if !ok {
		return Result{}, false
	}
	d := newConstrainedDeal(u)
	// kept holds the lists of the members that keep only part of what
	// they owned (in a one-topic group a prefix of the member's own
	// list, read and never written); released the partitions they gave
	// up, with who did.
	kept := make([][]int32, len(u.members))
	var released []transfer
	var scratch []uint64
	for _, m := range order {
		quota := d.keepQuota(m, o.count[m])
		if o.count[m] <= quota {
			continue
		}
		owned := o.ownedAsIs(m)
		if owned == nil {
			owned = o.owned(m, make([]int32, 0, o.count[m]))
		}
		var gaveUp []int32
		if len(u.names) == 1 {
			// One topic: Kafka's order (partition number, then topic)
			// is the ascending order owned is in, so m keeps a prefix.
			kept[m], gaveUp = owned[:quota:quota], owned[quota:]
		} else {
			kept[m], scratch = lowestPartitionNumbers(u, owned, quota, scratch)
			slices.Sort(kept[m])
			gaveUp = sortedMinus(owned, kept[m])
		}
		for _, gp := range gaveUp {
			o.release(gp)
			released = append(released, transfer{partition: gp, member: m})
		}
	}
	slices.SortFunc(released, func(x, y transfer) int { return cmp.Compare(x.partition, y.partition) })
	d.startDeal(rank)
	var dealt []transfer
	o.eachFree(func(gp int32) {
		releasedBy := int32(-1)
		if len(released) > 0 && released[0].partition == gp {
			releasedBy, released = released[0].member, released[1:]
		}
		dealt = append(dealt, transfer{partition: gp, member: d.give(gp, releasedBy, false)})
	})
	d.finish()
	if a.cooperative {
		// Withhold every move (adjustAssignment); moves and dealt are
		// both ascending.
		dealt = slices.DeleteFunc(dealt, func(x transfer) bool {
			_, moved := slices.BinarySearchFunc(d.moves, x.partition, func(mv transfer, gp int32) int { return cmp.Compare(mv.partition, gp) })
			return moved
		})
		for _, mv := range d.moves {
			d.size[mv.member]--
		}
	}
	return Result{Assignment: o.result(d, kept, dealt), Transferring: u.transferring(d.moves)}, true
}

// result builds Result.Assignment: a member the deal did not touch gets its
// Owned map back (assignments are values nobody changes in place), any
// other the partitions it kept merged with those dealt to it, in a list
// of its own.
func (o *disjoint) result(d *constrainedDeal, kept [][]int32, dealt []transfer) map[string]kafka.Assignment {
	u, n := o.u, len(o.u.members)
	// The dealt partitions by member, each member's ascending.
	start := make([]int32, n+1)
	for _, x := range dealt {
		start[x.member+1]++
	}
	for m := range n {
		start[m+1] += start[m]
	}
	byMember := make([]int32, len(dealt))
	next := slices.Clone(start[:n])
	for _, x := range dealt {
		byMember[next[x.member]] = x.partition
		next[x.member]++
	}
	out := make(map[string]kafka.Assignment, n)
	var buf []int32
	for m := range n {
		s := &u.members[m]
		if !d.touched[m] && s.Owned != nil {
			out[s.MemberID] = s.Owned
			continue
		}
		mine := kept[m]
		if mine == nil {
			mine = o.ownedAsIs(int32(m))
		}
		if mine == nil {
			buf = o.owned(int32(m), buf[:0])
			mine = buf
		}
		// Each member's list has memory of its own: the members left as
		// they were keep their lists from earlier rebalances, and a list
		// cut from an array shared with others would keep all of that
		// array alive for as long.
		list := mergeSorted(make([]int32, 0, d.size[m]), mine, byMember[start[m]:start[m+1]])
		out[s.MemberID] = u.assignmentOf(list, len(u.subs[m]))
	}
	return out
}

// assignmentOf turns a member's ascending global partition indices into
// its Assignment, in place: each topic's run becomes that topic's list.
func (u *universe) assignmentOf(list []int32, topics int) kafka.Assignment {
	a := make(kafka.Assignment, min(len(list), topics))
	for len(list) > 0 {
		t := u.topicOfPartition(list[0])
		// The run ends at the next topic's first partition; a member of
		// one topic has one run, found without a walk, and in the first
		// topic its global indices are already its partition numbers.
		end, _ := slices.BinarySearch(list, u.offset[t+1])
		run := list[:end:end]
		if first := u.offset[t]; first != 0 {
			for i := range run {
				run[i] -= first
			}
		}
		a[u.names[t]] = run
		list = list[end:]
	}
	return a
}

// sortedMinus returns the elements of a not in b, both ascending.
func sortedMinus(a, b []int32) []int32 {
	var out []int32
	for _, x := range a {
		for len(b) > 0 && b[0] < x {
			b = b[1:]
		}
		if len(b) == 0 || b[0] != x {
			out = append(out, x)
		}
	}
	return out
}

// mergeSorted appends the merge of a and b, both ascending and disjoint,
// to dst. A member mostly keeps many partitions (a) and is dealt a few
// (b): each of b finds its place in a by binary search, and the runs of
// a between are copied whole.
func mergeSorted(dst, a, b []int32) []int32 {
	for _, x := range b {
		i, _ := slices.BinarySearch(a, x)
		dst = append(append(dst, a[:i]...), x)
		a = a[i:]
	}
	return append(dst, a...)
}

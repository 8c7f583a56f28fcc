package assignor

import (
	"cmp"
	"fmt"
	"slices"
)

// buildConstrained is AbstractStickyAssignor.ConstrainedAssignmentBuilder,
// the path taken when every member subscribes to the same topics. With P
// partitions and C members a balanced assignment gives everyone
// minQuota = P/C or maxQuota = ceil(P/C) partitions, and exactly P%C members
// get maxQuota. The builder:
//
//  1. walks the members in Kafka's iteration order and lets each keep its
//     validly owned partitions up to its quota: all of them if it owned
//     fewer than minQuota (it is then "under min quota"); maxQuota if it
//     owned at least that many and fewer than P%C members have claimed
//     maxQuota so far; minQuota otherwise (it may still receive one more
//     while the maxQuota places are not all taken). A member keeping only
//     part of what it owned keeps the lowest partition numbers, topic names
//     breaking ties, and releases the rest;
//  2. deals the unassigned partitions, in (topic, partition) order, round
//     robin over the members under min quota (sorted by member id) until
//     they reach minQuota, then one each to the members waiting at minQuota
//     until the P%C maxQuota places are filled.
//
// A partition handed to anyone other than the member that released it, or
// that several members claimed in the same generation, is reported as
// transferring (partitionsTransferringOwnership). The builder returns the
// new owners, how many partitions each member gets, which members it
// touched (released or dealt partitions to) and those transfers, in its
// constrainedDeal. Every step is linear in partitions and members except the sort of a member's
// owned partitions when it must release some.
func buildConstrained(u *universe, prev *ownership, order, rank []int32) (owner []int32, d *constrainedDeal) {
	d = newConstrainedDeal(u)
	// The builder works in prev's owner array, which already gives every
	// validly owned partition to its owner: a member that keeps all it
	// owned costs nothing, and one that keeps part of it releases the rest
	// by marking each released partition -2-m, so that the deal below
	// still sees who released it. Only members that may have to release
	// something need their owned partitions listed.
	owner = prev.owner
	prev.listOwned(func(m int32) bool { return prev.count[m] > d.minQuota })
	var scratch []uint64
	for _, m := range order {
		if quota := d.keepQuota(m, prev.count[m]); prev.count[m] > quota {
			var kept []int32
			kept, scratch = lowestPartitionNumbers(u, prev.owned(m), quota, scratch)
			for _, gp := range prev.owned(m) {
				owner[gp] = -2 - m
			}
			for _, gp := range kept {
				owner[gp] = m
			}
		}
	}
	d.startDeal(rank)
	for gp := range d.partitions {
		// A partition is unassigned here because its owner released it
		// (-2-owner), because it was contested, or because nobody owned it.
		released := owner[gp]
		if released >= 0 {
			continue
		}
		releasedBy := int32(-1)
		if released < -1 {
			releasedBy = -2 - released
		}
		owner[gp] = d.give(gp, releasedBy, prev.isContested(gp))
	}
	d.finish()
	return owner, d
}

// constrainedDeal is the constrained builder's bookkeeping of quotas and
// turns, whichever way the previous ownership is held (an owner array in
// buildConstrained, a bitmap in assignDisjoint). Its results are size,
// touched and moves.
type constrainedDeal struct {
	u                                        *universe
	partitions, members                      int32
	minQuota, maxQuota, expectedAtMax, atMax int32
	// size is each member's partition count so far; touched marks the
	// members that released partitions or were dealt some.
	size    []int32
	touched []bool
	// underMin and atMin are the members under minQuota and those that
	// may still take one more (unfilledMembersWithUnderMinQuotaPartitions,
	// unfilledMembersWithExactlyMinQuotaPartitions); next and kept are
	// the walk of underMin (see give).
	underMin, atMin []int32
	next, kept      int
	// moves are the partitions dealt to another member than their valid
	// previous owner, ascending.
	moves []transfer
}

func newConstrainedDeal(u *universe) *constrainedDeal {
	partitions, members := int32(u.partitions()), int32(len(u.members))
	return &constrainedDeal{
		u: u, partitions: partitions, members: members,
		minQuota:      partitions / members,
		maxQuota:      (partitions + members - 1) / members,
		expectedAtMax: partitions % members,
		size:          make([]int32, members),
		touched:       make([]bool, members),
	}
}

// keepQuota is step 1 for member m, which validly owned n partitions:
// it returns how many of them m keeps, and notes m as under minQuota or
// as waiting at minQuota for one more. Members come in Kafka's iteration
// order.
func (d *constrainedDeal) keepQuota(m, n int32) int32 {
	quota := d.minQuota
	switch {
	case n < d.minQuota:
		quota = n
		d.underMin = append(d.underMin, m)
	case n >= d.maxQuota && d.atMax < d.expectedAtMax:
		quota = d.maxQuota
		d.atMax++
		if d.atMax == d.expectedAtMax {
			// No one else may go above minQuota now.
			d.atMin = d.atMin[:0]
		}
	default:
		if d.atMax < d.expectedAtMax {
			d.atMin = append(d.atMin, m)
		}
	}
	d.size[m] = min(n, quota)
	if n > quota {
		d.touched[m] = true
	}
	return quota
}

// startDeal sorts the waiting members by member id, between the steps.
func (d *constrainedDeal) startDeal(rank []int32) {
	byID := func(a, b int32) int { return int(rank[a] - rank[b]) }
	slices.SortFunc(d.underMin, byID)
	slices.SortFunc(d.atMin, byID)
}

// give is step 2 for unassigned partition gp, called in ascending order:
// it returns the member gp goes to. releasedBy is gp's valid previous
// owner (which released it), -1 for none, and contested tells whether
// several members claimed it.
//
// Kafka walks the under-min list with an iterator that drops members as
// they reach minQuota and restarts when it runs out; here each pass
// copies the members still under minQuota to the front of the slice
// (underMin[:kept]) and the next pass walks those.
func (d *constrainedDeal) give(gp, releasedBy int32, contested bool) int32 {
	var m int32
	fromUnderMin := true
	switch {
	case d.next < len(d.underMin):
		m = d.underMin[d.next]
		d.next++
	case d.kept > 0:
		d.underMin, d.next, d.kept = d.underMin[:d.kept], 1, 0
		m = d.underMin[0]
	case len(d.atMin) > 0:
		d.underMin, d.next = d.underMin[:0], 0
		m, d.atMin, fromUnderMin = d.atMin[0], d.atMin[1:], false
	default:
		panic(fmt.Sprintf("assignor: constrained sticky ran out of members with partitions left "+
			"(partitions=%d members=%d minQuota=%d maxQuota=%d atMax=%d/%d)",
			d.partitions, d.members, d.minQuota, d.maxQuota, d.atMax, d.expectedAtMax))
	}
	d.size[m]++
	d.touched[m] = true
	if (releasedBy >= 0 && releasedBy != m) || contested {
		d.moves = append(d.moves, transfer{partition: gp, member: m})
	}
	switch {
	case d.size[m] == d.minQuota:
		d.atMin = append(d.atMin, m)
	case fromUnderMin:
		d.underMin[d.kept] = m
		d.kept++
	case d.size[m] == d.maxQuota:
		d.atMax++
	}
	return m
}

// finish is verifyUnfilledMembers: every member must have reached its
// quota.
func (d *constrainedDeal) finish() {
	for m, size := range d.size {
		if size < d.minQuota || size > d.maxQuota {
			panic(fmt.Sprintf("assignor: constrained sticky left member %q with %d partitions, want %d..%d",
				d.u.members[m].MemberID, size, d.minQuota, d.maxQuota))
		}
	}
}

// lowestPartitionNumbers returns the quota partitions of owned that Kafka
// keeps: it sorts a member's owned partitions by partition number, then
// topic name, and keeps a prefix. scratch is reused between calls. The
// kept partitions come in no particular order.
//
// Kafka sorts the whole list (ConstrainedAssignmentBuilder, in
// AbstractStickyAssignor); a member giving up at most fewDropped of its
// partitions has the same prefix found in one pass (keptBelow).
func lowestPartitionNumbers(u *universe, owned []int32, quota int32, scratch []uint64) ([]int32, []uint64) {
	drop := len(owned) - int(quota)
	few := drop > 0 && drop <= fewDropped
	if len(u.offset) == 2 {
		// One topic: the order is the partitions' own.
		if !few {
			kept := slices.Clone(owned)
			slices.Sort(kept)
			return kept[:quota], scratch
		}
		return keptBelow(owned, highestKeys(owned, drop), int(quota)), scratch
	}
	scratch = scratch[:0]
	for _, gp := range owned {
		t := u.topicOfPartition(gp)
		scratch = append(scratch, uint64(gp-u.offset[t])<<32|uint64(t))
	}
	if few {
		scratch = keptBelow(scratch, highestKeys(scratch, drop), int(quota))
	} else {
		slices.Sort(scratch)
		scratch = scratch[:quota]
	}
	kept := make([]int32, len(scratch))
	for i, key := range scratch {
		kept[i] = u.offset[int32(key&lowHalf)] + int32(key>>32)
	}
	return kept, scratch
}

// keptBelow returns the n keys below floor, in their order. When a member
// gives up a partition or two of many (one more member in a group of
// hundreds), the prefix the sort would keep is every key below the
// highest few, which one pass finds; keys are distinct, so it is exactly
// that prefix.
func keptBelow[K cmp.Ordered](keys []K, floor K, n int) []K {
	kept := make([]K, 0, n)
	for _, key := range keys {
		if key < floor {
			kept = append(kept, key)
		}
	}
	return kept
}

// fewDropped is how many partitions a member may give up for
// lowestPartitionNumbers to find them in one pass rather than sort.
const fewDropped = 8

// highestKeys returns the lowest of the n highest keys (n at most
// fewDropped and at most len(keys)).
func highestKeys[K cmp.Ordered](keys []K, n int) K {
	var top [fewDropped]K // ascending, the n highest so far
	for i, key := range keys {
		if i < n {
			j := i
			for ; j > 0 && top[j-1] > key; j-- {
				top[j] = top[j-1]
			}
			top[j] = key
			continue
		}
		if key <= top[0] {
			continue
		}
		j := 0
		for ; j+1 < n && top[j+1] < key; j++ {
			top[j] = top[j+1]
		}
		top[j] = key
	}
	return top[0]
}

// lowHalf masks the topic index out of a (partition, topic) sort key.
const lowHalf = 1<<32 - 1

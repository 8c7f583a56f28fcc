package assignor

import (
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
// touched (released or dealt partitions to) and those transfers. Every
// step is linear in partitions and members except the sort of a member's
// owned partitions when it must release some.
func buildConstrained(u *universe, prev *ownership, order, rank []int32) (owner, size []int32, touched []bool, moves []transfer) {
	partitions, members := int32(u.partitions()), int32(len(u.members))
	minQuota := partitions / members
	maxQuota := (partitions + members - 1) / members
	expectedAtMax := partitions % members
	atMax := int32(0)

	// The builder works in prev's owner array, which already gives every
	// validly owned partition to its owner: a member that keeps all it
	// owned costs nothing, and one that keeps part of it releases the rest
	// by marking each released partition -2-m, so that the deal below
	// still sees who released it. Only members that may have to release
	// something need their owned partitions listed.
	owner = prev.owner
	prev.listOwned(func(m int32) bool { return prev.count[m] > minQuota })
	size, touched = make([]int32, members), make([]bool, members)
	var underMin, atMin []int32
	var scratch []uint64
	keep := func(m int32, quota int32) {
		if prev.count[m] > quota {
			var kept []int32
			kept, scratch = lowestPartitionNumbers(u, prev.owned(m), quota, scratch)
			for _, gp := range prev.owned(m) {
				owner[gp] = -2 - m
			}
			for _, gp := range kept {
				owner[gp] = m
			}
			touched[m] = true
		}
		size[m] = min(prev.count[m], quota)
	}
	for _, m := range order {
		switch n := prev.count[m]; {
		case n < minQuota:
			keep(m, n)
			underMin = append(underMin, m)
		case n >= maxQuota && atMax < expectedAtMax:
			keep(m, maxQuota)
			atMax++
			if atMax == expectedAtMax {
				// No one else may go above minQuota now.
				atMin = atMin[:0]
			}
		default:
			keep(m, minQuota)
			if atMax < expectedAtMax {
				atMin = append(atMin, m)
			}
		}
	}
	byID := func(a, b int32) int { return int(rank[a] - rank[b]) }
	slices.SortFunc(underMin, byID)
	slices.SortFunc(atMin, byID)

	// Deal the rest. Kafka walks the under-min list with an iterator that
	// drops members as they reach minQuota and restarts when it runs out;
	// here each pass copies the members still under minQuota to the front
	// of the slice (underMin[:kept]) and the next pass walks those.
	next, kept := 0, 0
	for gp := range partitions {
		released := owner[gp]
		if released >= 0 {
			continue
		}
		var m int32
		fromUnderMin := true
		switch {
		case next < len(underMin):
			m = underMin[next]
			next++
		case kept > 0:
			underMin, next, kept = underMin[:kept], 1, 0
			m = underMin[0]
		case len(atMin) > 0:
			underMin, next = underMin[:0], 0
			m, atMin, fromUnderMin = atMin[0], atMin[1:], false
		default:
			panic(fmt.Sprintf("assignor: constrained sticky ran out of members with partitions left "+
				"(partitions=%d members=%d minQuota=%d maxQuota=%d atMax=%d/%d)",
				partitions, members, minQuota, maxQuota, atMax, expectedAtMax))
		}
		owner[gp] = m
		size[m]++
		touched[m] = true
		// A partition is unassigned here because its owner released it
		// (-2-owner), because it was contested, or because nobody owned it.
		if (released < -1 && -2-released != m) || prev.isContested(gp) {
			moves = append(moves, transfer{partition: gp, member: m})
		}
		switch {
		case size[m] == minQuota:
			atMin = append(atMin, m)
		case fromUnderMin:
			underMin[kept] = m
			kept++
		case size[m] == maxQuota:
			atMax++
		}
	}
	// verifyUnfilledMembers: every member must have reached its quota.
	for m := range members {
		if size[m] < minQuota || size[m] > maxQuota {
			panic(fmt.Sprintf("assignor: constrained sticky left member %q with %d partitions, want %d..%d",
				u.members[m].MemberID, size[m], minQuota, maxQuota))
		}
	}
	return owner, size, touched, moves
}

// lowestPartitionNumbers returns the quota partitions of owned that Kafka
// keeps: it sorts a member's owned partitions by partition number, then
// topic name, and keeps a prefix. scratch is reused between calls.
func lowestPartitionNumbers(u *universe, owned []int32, quota int32, scratch []uint64) ([]int32, []uint64) {
	scratch = scratch[:0]
	for _, gp := range owned {
		t := u.topicOfPartition(gp)
		scratch = append(scratch, uint64(gp-u.offset[t])<<32|uint64(t))
	}
	slices.Sort(scratch)
	kept := make([]int32, quota)
	for i, key := range scratch[:quota] {
		t := int32(key & lowHalf)
		kept[i] = u.offset[t] + int32(key>>32)
	}
	return kept, scratch
}

// lowHalf masks the topic index out of a (partition, topic) sort key.
const lowHalf = 1<<32 - 1

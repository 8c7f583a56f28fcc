package assignor

import (
	"fmt"

	"github.com/rebalsim/rebalsim/kafka"
)

// Owner markers used while the homogeneous builder runs, besides member
// indices (which are >= 0).
const (
	// unowned: no member's current target holds the partition, or it was
	// released and waits in the unassigned list.
	unowned int32 = -1
	// heldByCurrent: some member's current target holds the partition and
	// the member has not been visited yet.
	heldByCurrent int32 = -2
)

// assignHomogeneous is UniformHomogeneousAssignmentBuilder: every member
// subscribes to the same topics, so balance is a pure count — P/M partitions
// each, with the first P%M members (in GroupSpec order) taking one more — and
// stickiness means each member keeps as much of its current target as its
// quota allows.
//
// The steps, each in Kafka's order:
//
//  1. The subscribed topics are the first member's (Kafka reads them from
//     the first member too; in a homogeneous group they are everyone's).
//  2. The unassigned list starts with every partition of a subscribed topic
//     that no member's current target holds, topic by topic in caller order,
//     partitions ascending.
//  3. Members are visited in GroupSpec order. Each gets its quota, keeps its
//     current partitions of subscribed topics (topics in caller order,
//     partitions in the order of Kafka's HashSet, see javaSetOrder:
//     ascending below 16 and more) while the quota lasts and appends the rest to
//     the unassigned list; partitions of other topics are dropped. A member
//     left under quota is queued as unfilled with its remaining quota.
//  4. The unassigned list is dealt in order: each unfilled member, in the
//     order queued, takes the next partitions until its quota is met.
//
// Under 4.0 (extraToAnyMember false) which members get the extra partition
// depends only on iteration order, not on who held more before, so a member
// can lose a partition to make room for another's +1: this is Kafka 4.0's
// behaviour and the vectors assert it. Kafka 4.1 (KAFKA-18688) changed
// steps 3 and 4 so that a balanced assignment stays as it is
// (UniformHomogeneousAssignmentBuilder.maybeRevokePartitions and
// assignRemainingPartitions):
//
//   - while extras are left, a member may keep up to the minimum plus one;
//     if it keeps that many it claims one of the extras, otherwise it keeps
//     at most the minimum and claims none;
//   - a member is queued as unfilled if it is under the minimum, or if it
//     has not claimed an extra while extras are still left then;
//   - before dealing, the extras still unclaimed go to the last unfilled
//     members, one each, walking the queue backwards.
func assignHomogeneous(members []Member, ti *topicIndex, extraToAnyMember bool) ([]kafka.Assignment, error) {
	subscribed := make([]bool, len(ti.names))
	anySubscribed := false
	for _, name := range members[0].Topics {
		if t := ti.lookup(name); t >= 0 {
			subscribed[t] = true
			anySubscribed = true
		}
	}
	if !anySubscribed {
		return emptyAssignments(members), nil
	}

	owner := make([]int32, ti.total())
	for i := range owner {
		owner[i] = unowned
	}
	// Mark what the current targets hold (GroupSpec.isPartitionAssigned).
	// Only membership is recorded here, so map iteration order is harmless.
	// In a large group most members hold nothing: they are skipped
	// without starting a map iteration.
	for m := range members {
		if len(members[m].Current) == 0 {
			continue
		}
		for name, ps := range members[m].Current {
			t := ti.lookup(name)
			if t < 0 || !subscribed[t] {
				continue
			}
			base, n := ti.offset[t], ti.counts[t]
			for _, p := range ps {
				if p >= 0 && p < n {
					owner[base+int(p)] = heldByCurrent
				}
			}
		}
	}

	total := 0
	unassigned := make([]int32, 0, 64)
	for t := range ti.names {
		if !subscribed[t] {
			continue
		}
		total += int(ti.counts[t])
		base := ti.offset[t]
		for p := 0; p < int(ti.counts[t]); p++ {
			if owner[base+p] == unowned {
				unassigned = append(unassigned, int32(base+p))
			}
		}
	}

	numMembers := len(members)
	minQuota := total / numMembers
	extra := total % numMembers

	type unfilledMember struct {
		member, remaining int
	}
	// Only a member with a quota can be left under it: with more members
	// than partitions, a few.
	unfilled := make([]unfilledMember, 0, min(numMembers, total))
	var topicsBuf, orderBuf []int32
	for m := range members {
		quota := minQuota
		// claimsExtra is Kafka's quotaHasExtraPartition: under 4.1 the
		// extra is only claimed once the member keeps minQuota+1.
		claimsExtra := false
		if extra > 0 {
			quota++
			if extraToAnyMember {
				claimsExtra = true
			} else {
				extra--
			}
		}
		topicsBuf = topicsBuf[:0]
		if len(members[m].Current) > 0 {
			topicsBuf = currentTopics(topicsBuf, members[m].Current, ti)
		}
		for _, t := range topicsBuf {
			if !subscribed[t] {
				// Partitions of a topic the group no longer subscribes to
				// are dropped, not released: nobody may receive them.
				continue
			}
			base, n := ti.offset[t], ti.counts[t]
			ps := members[m].Current[ti.names[t]]
			if len(ps) > quota {
				// Some are given up: which, Kafka's HashSet order decides.
				ps = javaSetOrder(ps, &orderBuf)
			}
			for _, p := range ps {
				if p < 0 || p >= n {
					// Kafka never shrinks a topic; a partition number
					// beyond the metadata cannot be assigned.
					continue
				}
				g := base + int(p)
				if owner[g] != heldByCurrent {
					// Already kept by an earlier member (an inconsistent
					// current target) or listed twice: the first claim
					// wins so that every partition has one owner.
					continue
				}
				if quota > 0 {
					owner[g] = int32(m)
					quota--
				} else {
					owner[g] = unowned
					unassigned = append(unassigned, int32(g))
				}
			}
		}
		if !extraToAnyMember {
			if quota > 0 {
				unfilled = append(unfilled, unfilledMember{m, quota})
			}
			continue
		}
		if quota > 0 && claimsExtra {
			// Short of minQuota+1: give the extra up for another member.
			quota--
			claimsExtra = false
		}
		if quota == 0 && claimsExtra {
			extra--
		}
		if quota > 0 || (extra > 0 && !claimsExtra) {
			unfilled = append(unfilled, unfilledMember{m, quota})
		}
	}
	if extraToAnyMember {
		// The extras nobody kept go to the last unfilled members.
		for i := len(unfilled) - 1; i >= 0 && extra > 0; i-- {
			unfilled[i].remaining++
			extra--
		}
	}

	next := 0
	for _, u := range unfilled {
		for i := 0; i < u.remaining && next < len(unassigned); i++ {
			owner[unassigned[next]] = int32(u.member)
			next++
		}
	}
	if next < len(unassigned) {
		// The quotas sum to the partition count, so this is a bug here,
		// not bad input.
		panic(fmt.Sprintf("assignor: homogeneous builder left %d of %d partitions unassigned", len(unassigned)-next, total))
	}
	return buildAssignments(members, ti, owner), nil
}

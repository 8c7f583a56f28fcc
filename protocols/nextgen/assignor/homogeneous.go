package assignor

import (
	"fmt"
	"slices"

	"github.com/rebalsim/rebalsim/kafka"
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
//     partitions ascending) while the quota lasts and appends the rest to
//     the unassigned list; partitions of other topics are dropped. A member
//     left under quota is queued as unfilled with its remaining quota.
//  4. The unassigned list is dealt in order: each unfilled member, in the
//     order queued, takes the next partitions until its quota is met.
//
// Which members get the extra partition depends only on iteration order,
// not on who held more before, so a member can lose a partition to make room
// for another's +1: this is Kafka's behaviour and the vectors assert it.
func assignHomogeneous(members []Member, ti *topicIndex) ([]kafka.Assignment, error) {
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

	b := homogeneousBuilder{members: members, ti: ti, subscribed: subscribed}
	b.resolveCurrent()
	b.markHeld()
	b.listUnowned()
	b.keepWithinQuota()
	b.deal()
	return b.assignments(), nil
}

// Owner markers of homogeneousBuilder.owner, besides member m's m+1. The
// zero value is "nobody", so a fresh slice needs no filling.
const (
	// unowned: no member's current target holds the partition, or it was
	// released and waits in the unassigned list.
	unowned int32 = 0
	// heldByCurrent: some member's current target holds the partition and
	// the member has not been visited yet.
	heldByCurrent int32 = -1
)

// homogeneousBuilder holds the flat state of one assignHomogeneous call.
//
// Each member's current target is read from its map once, into cur (topic
// index and partition list, in caller topic order); every later pass walks
// that instead of the map. A member that keeps exactly its current target
// and receives nothing is noted as such and handed its map back without
// looking at its partitions again, as Kafka's builder hands back the
// member's immutable assignment when maybeRevokePartitions leaves it alone
// (UniformHomogeneousAssignmentBuilder.maybeRevokePartitions). So an
// incremental assignment costs a pass over the partitions' owners plus one
// map iteration per member, and a full one a map per member; neither sorts
// every partition by owner.
type homogeneousBuilder struct {
	members    []Member
	ti         *topicIndex
	subscribed []bool

	// cur[curStart[m]:curStart[m+1]] is member m's current target: its
	// existing topics in caller order, with their partition lists as given.
	cur      []currentTopic
	curStart []int32
	// changed[m] is set once member m's new target is known to differ from
	// its current one, or might: a dropped, skipped, released or received
	// partition, a list out of order, a topic that is not subscribed or
	// does not exist.
	changed []bool

	// owner maps a global partition index to unowned, heldByCurrent or
	// m+1 for member m.
	owner      []int32
	total      int
	unassigned []int32
	// dealt[m] is member m's share of the unassigned list, [from, to).
	dealt []span
}

type currentTopic struct {
	topic int32
	parts []int32
}

type span struct{ from, to int32 }

// resolveCurrent reads every member's current target into b.cur. Topic
// names in a target are usually the very strings of the topic metadata
// (an earlier result keyed them so), and neighbouring members usually hold
// the same or the next topic, so the previous topic is tried before the
// name lookup.
func (b *homogeneousBuilder) resolveCurrent() {
	nm := len(b.members)
	b.curStart = make([]int32, nm+1)
	b.changed = make([]bool, nm)
	guess := int32(0)
	for m := range b.members {
		from := len(b.cur)
		for name, ps := range b.members[m].Current {
			t := b.ti.lookupNear(name, guess)
			if t < 0 {
				if len(ps) > 0 {
					b.changed[m] = true
				}
				continue
			}
			guess = t
			b.cur = append(b.cur, currentTopic{t, ps})
		}
		own := b.cur[from:]
		for i := 1; i < len(own); i++ {
			for j := i; j > 0 && own[j].topic < own[j-1].topic; j-- {
				own[j], own[j-1] = own[j-1], own[j]
			}
		}
		b.curStart[m+1] = int32(len(b.cur))
	}
}

func (b *homogeneousBuilder) currentOf(m int) []currentTopic {
	return b.cur[b.curStart[m]:b.curStart[m+1]]
}

// markHeld marks what the current targets hold (GroupSpec.isPartitionAssigned).
func (b *homogeneousBuilder) markHeld() {
	b.owner = make([]int32, b.ti.total())
	for _, c := range b.cur {
		if !b.subscribed[c.topic] {
			continue
		}
		base, n := b.ti.offset[c.topic], b.ti.counts[c.topic]
		for _, p := range c.parts {
			if p >= 0 && p < n {
				b.owner[base+int(p)] = heldByCurrent
			}
		}
	}
}

// listUnowned starts the unassigned list with every partition of a
// subscribed topic that no current target holds, topic by topic in caller
// order, partitions ascending, and sums the partitions to share.
func (b *homogeneousBuilder) listUnowned() {
	b.unassigned = make([]int32, 0, 64)
	for t := range b.ti.names {
		if !b.subscribed[t] {
			continue
		}
		b.total += int(b.ti.counts[t])
		base := b.ti.offset[t]
		for p, o := range b.owner[base : base+int(b.ti.counts[t])] {
			if o == unowned {
				b.unassigned = append(b.unassigned, int32(base+p))
			}
		}
	}
}

// keepWithinQuota visits the members in GroupSpec order: each gets its
// quota, keeps its current partitions of subscribed topics while the quota
// lasts and appends the rest to the unassigned list.
func (b *homogeneousBuilder) keepWithinQuota() {
	numMembers := len(b.members)
	minQuota := b.total / numMembers
	extra := b.total % numMembers
	b.dealt = make([]span, numMembers)
	for m := range b.members {
		quota := minQuota
		if extra > 0 {
			quota++
			extra--
		}
		mine := int32(m + 1)
		for _, c := range b.currentOf(m) {
			if !b.subscribed[c.topic] {
				// Partitions of a topic the group no longer subscribes to
				// are dropped, not released: nobody may receive them.
				if len(c.parts) > 0 {
					b.changed[m] = true
				}
				continue
			}
			base, n := b.ti.offset[c.topic], b.ti.counts[c.topic]
			prev := int32(-1)
			for _, p := range c.parts {
				if p <= prev {
					// Out of order or listed twice: the new list, sorted,
					// cannot be this one.
					b.changed[m] = true
				}
				prev = p
				if p < 0 || p >= n {
					// Kafka never shrinks a topic; a partition number
					// beyond the metadata cannot be assigned.
					b.changed[m] = true
					continue
				}
				g := base + int(p)
				if b.owner[g] != heldByCurrent {
					// Already kept by an earlier member (an inconsistent
					// current target) or listed twice: the first claim
					// wins so that every partition has one owner.
					b.changed[m] = true
					continue
				}
				if quota > 0 {
					b.owner[g] = mine
					quota--
				} else {
					b.owner[g] = unowned
					b.unassigned = append(b.unassigned, int32(g))
					b.changed[m] = true
				}
			}
		}
		// A member left under quota waits for the rest in the unfilled
		// queue; its remaining quota is parked in dealt until deal.
		b.dealt[m] = span{0, int32(quota)}
	}
}

// deal hands the unassigned list out in order: each member left under its
// quota, in GroupSpec order, takes the next partitions until its quota is
// met (UniformHomogeneousAssignmentBuilder.assignRemainingPartitions).
func (b *homogeneousBuilder) deal() {
	next := int32(0)
	left := int32(len(b.unassigned))
	for m := range b.dealt {
		remaining := b.dealt[m].to
		if remaining <= 0 {
			b.dealt[m] = span{}
			continue
		}
		take := min(remaining, left-next)
		b.dealt[m] = span{next, next + take}
		for _, g := range b.unassigned[next : next+take] {
			b.owner[g] = int32(m + 1)
		}
		if take > 0 {
			b.changed[m] = true
		}
		next += take
	}
	if next < left {
		// The quotas sum to the partition count, so this is a bug here,
		// not bad input.
		panic(fmt.Sprintf("assignor: homogeneous builder left %d of %d partitions unassigned", left-next, b.total))
	}
}

// assignments gives each member its new target. A member marked changed
// gets its kept and received partitions in one array of its own (see
// buildAssignments for why), unless they turn out to be its current target
// after all (a partition it skipped as claimed twice can come back to it in
// the deal), in which case it keeps its map, as buildAssignments decides.
func (b *homogeneousBuilder) assignments() []kafka.Assignment {
	out := make([]kafka.Assignment, len(b.members))
	var gs, parts, topicOf []int32
	for m := range b.members {
		cur := b.members[m].Current
		if cur != nil && !b.changed[m] {
			out[m] = cur
			continue
		}
		// Kept partitions: those of the member's current lists that it
		// claimed (a list naming one twice yields it twice: sorted and
		// deduplicated below), then the ones it was dealt.
		gs = gs[:0]
		mine := int32(m + 1)
		for _, c := range b.currentOf(m) {
			if !b.subscribed[c.topic] {
				continue
			}
			base, n := b.ti.offset[c.topic], b.ti.counts[c.topic]
			for _, p := range c.parts {
				if p >= 0 && p < n && b.owner[base+int(p)] == mine {
					gs = append(gs, int32(base+int(p)))
				}
			}
		}
		d := b.dealt[m]
		gs = append(gs, b.unassigned[d.from:d.to]...)
		if !slices.IsSorted(gs) {
			slices.Sort(gs)
		}
		gs = slices.Compact(gs)

		// Global indices ascend with (topic, partition): walk the topics
		// along with them.
		parts, topicOf = parts[:0], topicOf[:0]
		runs := 0
		t := 0
		for i, g := range gs {
			for int(g) >= b.ti.offset[t+1] {
				t++
			}
			if i == 0 || topicOf[i-1] != int32(t) {
				runs++
			}
			parts = append(parts, g-int32(b.ti.offset[t]))
			topicOf = append(topicOf, int32(t))
		}
		if cur != nil && sameRuns(cur, runs, b.ti, parts, topicOf) {
			out[m] = cur
			continue
		}
		out[m] = newAssignment(b.ti, runs, parts, topicOf)
	}
	return out
}

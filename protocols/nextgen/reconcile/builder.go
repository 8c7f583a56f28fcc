package reconcile

import (
	"fmt"
	"slices"

	"github.com/rebalsim/rebalsim/kafka"
)

// Reconcile computes the member's next state from one heartbeat, as
// CurrentAssignmentBuilder.build does. It returns ErrFencedMemberEpoch when a
// member in state Unknown still claims partitions (or did not say what it
// owns). The returned Member never shares maps or slices with in.Member;
// where Kafka hands back the member unchanged, the result is a deep copy
// equal to in.Member.
//
// A State outside the four defined ones is a bug in the caller and panics.
func Reconcile(in Input) (Member, error) {
	r := reconciliation{in: in, member: in.Member}
	switch in.Member.State {
	case Stable:
		// A stable member only moves when a newer target exists. Trunk
		// also drops topics the member no longer subscribes to right away,
		// without waiting for a new target.
		if in.Member.Epoch != in.TargetEpoch {
			return r.computeNextAssignment(in.Member.Epoch), nil
		}
		if r.enforcesSubscription() {
			return r.updateCurrentAssignment(), nil
		}
		return r.unchanged(), nil

	case UnrevokedPartitions:
		// The member must first stop listing every partition pending
		// revocation. Until it does nothing else happens (trunk still
		// strips newly unsubscribed topics meanwhile).
		if r.ownsAnyOf(in.Member.PendingRevocation) {
			if r.enforcesSubscription() {
				return r.updateCurrentAssignment(), nil
			}
			return r.unchanged(), nil
		}
		// Revocation acknowledged, so the member may move on. 4.0 takes
		// the revocation as the step to the next epoch and recomputes with
		// epoch+1: if the target moved on meanwhile and asks for another
		// revocation, the member waits for that one at epoch+1 (10 → 11
		// with target 12 in 4.0's CurrentAssignmentBuilderTest). The trunk
		// of the vectors recomputes with the unchanged epoch, so a second
		// revocation keeps epoch 10 (vector cab_unrevoked_to_unrevoked_trunk).
		// Newer Kafka has since settled on min(epoch+1, target epoch);
		// rebalsim models the two behaviours the vectors pin down.
		epoch := in.Member.Epoch + 1
		if in.Version == Trunk {
			epoch = in.Member.Epoch
		}
		return r.computeNextAssignment(epoch), nil

	case UnreleasedPartitions:
		// Partitions held back because another member still owned them
		// are re-checked on every heartbeat and handed over as soon as
		// their previous owner has let go.
		return r.computeNextAssignment(in.Member.Epoch), nil

	case Unknown:
		// Kafka only reaches this state after a coordinator downgrade; it
		// makes the member drop everything and rejoin. Only a heartbeat that
		// explicitly reports owning nothing may go on.
		if !in.OwnedKnown || in.Owned.Size() > 0 {
			return Member{}, ErrFencedMemberEpoch
		}
		return r.computeNextAssignment(in.TargetEpoch), nil
	}
	panic(fmt.Sprintf("reconcile: member in undefined state %v (target epoch %d)", in.Member.State, in.TargetEpoch))
}

// reconciliation is one run of the builder over one heartbeat.
type reconciliation struct {
	in     Input
	member Member
}

// enforcesSubscription reports whether this run applies trunk's
// enforceSubscriptionConsistency. 4.0 relies on the next target alone to
// take unsubscribed topics away; trunk does it at once.
func (r *reconciliation) enforcesSubscription() bool {
	return r.in.Version == Trunk && r.in.Member.Subscription != nil
}

// subscribed reports whether the member subscribes to topic, for trunk's
// subscription enforcement.
func (r *reconciliation) subscribed(topic string) bool {
	return slices.Contains(r.in.Member.Subscription, topic)
}

// ownsAnyOf is ownsRevokedPartitions: whether the heartbeat still lists any
// partition of pending. A heartbeat that did not report its owned partitions
// counts as still owning all of them: the coordinator never assumes a
// revocation it was not told about.
func (r *reconciliation) ownsAnyOf(pending kafka.Assignment) bool {
	if !r.in.OwnedKnown {
		return true
	}
	for _, t := range r.in.Owned.Topics() {
		revoking := sortedSet(pending[t])
		for _, p := range r.in.Owned[t] {
			if contains(revoking, p) {
				return true
			}
		}
	}
	return false
}

// computeNextAssignment is the heart of the builder. Per topic it splits the
// member's assigned partitions into keep (still in the target) and revoke
// (no longer in it), and the target's other partitions into those it can be
// given now (free: partition epoch −1) and the unreleased rest. Then, in this
// order:
//
//  1. Something to revoke that the member still lists → UnrevokedPartitions
//     at epoch; nothing new is given until the revocation is acknowledged.
//  2. Something to give → the target epoch, keep ∪ given, and
//     UnreleasedPartitions if something is still held elsewhere, else Stable.
//  3. Only unreleased partitions missing → UnreleasedPartitions at the target
//     epoch with keep.
//  4. Otherwise Stable at the target epoch with keep.
func (r *reconciliation) computeNextAssignment(epoch int32) Member {
	in := r.in
	if len(in.Target) == 0 && len(r.member.Assigned) == 0 {
		// Nothing held and nothing targeted: case 4 with nothing to
		// keep, built without the working sets of the general case. In a
		// group with more members than partitions most members come here
		// on every epoch bump.
		return r.emptyAtTarget()
	}
	if held, ok := r.heldIsTarget(); ok {
		// Case 4 with everything kept: after an epoch bump that did not
		// change its target, which in a large group is most members on
		// every bump, the member only moves to the target epoch.
		return Member{
			Subscription: slices.Clone(r.member.Subscription),
			State:        Stable,
			Epoch:        in.TargetEpoch, PreviousEpoch: r.member.Epoch,
			Assigned: held, PendingRevocation: kafka.Assignment{},
		}
	}
	topics := unionTopics(in.Target, r.member.Assigned)
	keep := kafka.Assignment{}
	revoke := kafka.Assignment{}
	give := kafka.Assignment{}
	unreleased := false
	for _, t := range topics {
		target := sortedSet(in.Target[t])
		if r.enforcesSubscription() && !r.subscribed(t) {
			// Trunk: the member no longer subscribes to this topic, so
			// whatever the target says, it must not hold any of it.
			target = nil
		}
		current := sortedSet(r.member.Assigned[t])
		// The topic's lists are built here and put in the maps once
		// (topics are distinct), not looked up for every partition.
		// Both lists are sorted sets, so each is walked once beside the
		// other: a member of a large topic holds a thousand partitions,
		// and this runs on each of its heartbeats while it reconciles.
		var kept, revoked, given []int32
		j := 0
		for _, p := range current {
			for j < len(target) && target[j] < p {
				j++
			}
			if j < len(target) && target[j] == p {
				kept = append(kept, p)
			} else {
				revoked = append(revoked, p)
			}
		}
		j = 0
		for _, p := range target {
			for j < len(current) && current[j] < p {
				j++
			}
			if j < len(current) && current[j] == p {
				continue
			}
			tp := kafka.TopicPartition{Topic: t, Partition: p}
			if r.partitionEpoch(tp) != -1 && !r.ownRevocation(tp) {
				// Someone else still owns it: the member must wait until
				// that owner's heartbeat no longer lists it.
				unreleased = true
				continue
			}
			given = append(given, p)
		}
		putNonEmpty(keep, t, kept)
		putNonEmpty(revoke, t, revoked)
		putNonEmpty(give, t, given)
	}

	next := Member{Subscription: slices.Clone(r.member.Subscription)}
	switch {
	case len(revoke) > 0 && r.ownsAnyOf(revoke):
		next.State = UnrevokedPartitions
		next.PreviousEpoch, next.Epoch = r.member.Epoch, epoch
		next.Assigned = keep.Normalize()
		next.PendingRevocation = revoke.Normalize()
	case len(give) > 0:
		next.State = Stable
		if unreleased {
			next.State = UnreleasedPartitions
		}
		next.PreviousEpoch, next.Epoch = r.member.Epoch, in.TargetEpoch
		next.Assigned = keep.Union(give)
		next.PendingRevocation = kafka.Assignment{}
	case unreleased:
		next.State = UnreleasedPartitions
		next.PreviousEpoch, next.Epoch = r.member.Epoch, in.TargetEpoch
		next.Assigned = keep.Normalize()
		next.PendingRevocation = kafka.Assignment{}
	default:
		next.State = Stable
		next.PreviousEpoch, next.Epoch = r.member.Epoch, in.TargetEpoch
		next.Assigned = keep.Normalize()
		next.PendingRevocation = kafka.Assignment{}
	}
	return next
}

// heldIsTarget reports whether the member's assigned partitions are exactly
// its target (as the general case reads the target, subscription
// enforcement included), and if so returns them as the general case would
// keep them: sorted, without empty topics, in a map and lists of their own.
// Then there is nothing to revoke, give or wait for.
func (r *reconciliation) heldIsTarget() (kafka.Assignment, bool) {
	target := func(t string) []int32 {
		if r.enforcesSubscription() && !r.subscribed(t) {
			return nil
		}
		return sortedSet(r.in.Target[t])
	}
	held := make(kafka.Assignment, len(r.member.Assigned))
	for t, ps := range r.member.Assigned {
		current := sortedSet(ps)
		if !slices.Equal(current, target(t)) {
			return nil, false
		}
		if len(current) > 0 {
			held[t] = slices.Clone(current)
		}
	}
	for t := range r.in.Target {
		if _, seen := r.member.Assigned[t]; !seen && len(target(t)) > 0 {
			return nil, false
		}
	}
	return held, true
}

// emptyAtTarget is a member that holds nothing moving to the target epoch
// with nothing to revoke: Stable, as in computeNextAssignment's case 4.
func (r *reconciliation) emptyAtTarget() Member {
	return Member{
		Subscription: slices.Clone(r.member.Subscription),
		State:        Stable,
		Epoch:        r.in.TargetEpoch, PreviousEpoch: r.member.Epoch,
		Assigned: kafka.Assignment{}, PendingRevocation: kafka.Assignment{},
	}
}

// ownRevocation reports whether tp is one the member itself is revoking. On
// trunk such a partition, back in the target, is not "unreleased": its
// partition epoch is the member's own, and only one member can hold a
// partition at a time, so nobody else is in the way.
func (r *reconciliation) ownRevocation(tp kafka.TopicPartition) bool {
	return r.in.Version == Trunk && contains(sortedSet(r.member.PendingRevocation[tp.Topic]), tp.Partition)
}

// partitionEpoch is the epoch of tp's current owner, −1 when it is free. A
// nil PartitionEpoch means nobody owns anything.
func (r *reconciliation) partitionEpoch(tp kafka.TopicPartition) int32 {
	if r.in.PartitionEpoch == nil {
		return -1
	}
	return r.in.PartitionEpoch(tp)
}

// sortedSet returns ps sorted and without duplicates, copying it only when
// it is not already so (kafka.Assignment lists normally are).
func sortedSet(ps []int32) []int32 {
	for i := 1; i < len(ps); i++ {
		if ps[i] <= ps[i-1] {
			c := slices.Clone(ps)
			slices.Sort(c)
			return slices.Compact(c)
		}
	}
	return ps
}

// contains reports whether the sorted list ps holds p.
func contains(ps []int32, p int32) bool {
	_, ok := slices.BinarySearch(ps, p)
	return ok
}

// updateCurrentAssignment is trunk's shortcut for a subscription change when
// no new target is due: partitions of topics the member no longer subscribes
// to leave Assigned at once and join PendingRevocation; the epoch stays. If
// the member still lists any pending partition it must revoke them first
// (UnrevokedPartitions); if it already let go of them, only Assigned shrinks.
func (r *reconciliation) updateCurrentAssignment() Member {
	assigned := kafka.Assignment{}
	pending := cloneAssignment(r.member.PendingRevocation)
	if pending == nil {
		pending = kafka.Assignment{}
	}
	removed := false
	for _, t := range r.member.Assigned.Topics() {
		ps := r.member.Assigned[t]
		if r.subscribed(t) {
			assigned[t] = slices.Clone(ps)
			continue
		}
		removed = true
		pending[t] = append(pending[t], ps...)
	}
	if !removed {
		return r.unchanged()
	}
	pending.Normalize()

	next := r.unchanged()
	next.Assigned = assigned
	if len(pending) > 0 && r.ownsAnyOf(pending) {
		next.State = UnrevokedPartitions
		next.PendingRevocation = pending
	}
	return next
}

// unchanged is Kafka returning the very member it was given: a deep copy,
// so that the caller may keep mutating what it passed in.
func (r *reconciliation) unchanged() Member {
	m := r.member
	m.Assigned = cloneAssignment(m.Assigned)
	m.PendingRevocation = cloneAssignment(m.PendingRevocation)
	m.Subscription = slices.Clone(m.Subscription)
	return m
}

// cloneAssignment copies a exactly, keeping nil as nil and empty lists as
// empty lists, so that the copy is value-equal to the original
// (kafka.Assignment.Clone drops empty topics).
func cloneAssignment(a kafka.Assignment) kafka.Assignment {
	if a == nil {
		return nil
	}
	c := make(kafka.Assignment, len(a))
	for t, ps := range a {
		c[t] = slices.Clone(ps)
	}
	return c
}

// putNonEmpty sets a[t] to ps unless ps is empty.
func putNonEmpty(a kafka.Assignment, t string, ps []int32) {
	if len(ps) > 0 {
		a[t] = ps
	}
}

// unionTopics lists the topics of a and b, sorted, so that the builder never
// walks a Go map (PartitionEpoch is the caller's function and may observe the
// order of calls).
func unionTopics(a, b kafka.Assignment) []string {
	ts := make([]string, 0, len(a)+len(b))
	for t := range a {
		ts = append(ts, t)
	}
	for t := range b {
		ts = append(ts, t)
	}
	slices.Sort(ts)
	return slices.Compact(ts)
}

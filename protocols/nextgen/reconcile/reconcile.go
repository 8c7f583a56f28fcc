// Package reconcile is the KIP-848 coordinator's per-member reconciliation
// (CurrentAssignmentBuilder, reference §4.4): given a member's current
// assignment, the group's target for it and who still owns what, it decides
// what the member may hold next, what it must revoke first, and its new epoch.
//
// # The key rule
//
// A partition reaches its new owner only after the previous owner no longer
// lists it. The coordinator never hands a partition to two members at once:
// the member losing it is asked to revoke it and keeps its epoch until its
// heartbeat stops listing it; the member gaining it sees it as "unreleased"
// (its partition epoch is not −1) and receives it on its first heartbeat after
// the release. Revoking and receiving are decoupled per member, so nobody
// waits for anything but the partitions it is about to receive.
//
// # States
//
//   - Stable: the member holds its target. It moves again when a target with
//     a newer epoch appears.
//   - UnrevokedPartitions: the member was told to give partitions up
//     (PendingRevocation) and has not yet reported that it did. Its epoch
//     does not advance and it gets nothing new meanwhile. The coordinator's
//     rebalance timeout runs while a member is here.
//   - UnreleasedPartitions: the member is at the target epoch but some of
//     its target partitions are still owned by others; every heartbeat checks
//     again and hands over whatever has been released.
//   - Unknown: a state the coordinator does not know (after a downgrade); the
//     member is fenced unless it reports owning nothing.
//
// # Use
//
// The coordinator calls Reconcile on every heartbeat of a member, after
// bringing the target up to date:
//
//	next, err := reconcile.Reconcile(reconcile.Input{
//		Member:         current,
//		TargetEpoch:    targetEpoch,
//		Target:         target[memberID],
//		PartitionEpoch: ownerEpochOf, // −1 when nobody holds the partition
//		Owned:          heartbeat.Owned,
//		OwnedKnown:     heartbeat.Owned != nil,
//		Version:        reconcile.Kafka40,
//	})
//
// Its duties, in order: treat ErrFencedMemberEpoch as Kafka does (fence the
// member); store next; clear the partition epochs of partitions that left
// next.Assigned ∪ next.PendingRevocation and set those of partitions that
// entered it to next.Epoch; arm the rebalance timeout when next.State is
// UnrevokedPartitions; send next.Assigned to the member. Reconcile itself is
// a pure function: it reads no clock and keeps no state.
//
// Where 4.0 and later Kafka differ (Version), both behaviours are kept so
// that simulations can show the difference.
package reconcile

import "github.com/rebalsim/rebalsim/kafka"

// State is a member's reconciliation state (MemberState on the coordinator).
type State int

const (
	Stable               State = 0
	UnrevokedPartitions  State = 1
	UnreleasedPartitions State = 2
	Unknown              State = 127
)

// Member is the coordinator's record of a member's assignment.
type Member struct {
	State             State
	Epoch             int32
	PreviousEpoch     int32
	Assigned          kafka.Assignment
	PendingRevocation kafka.Assignment
	// Subscription is the member's subscribed topics; only the trunk
	// behaviour consults it.
	Subscription []string
}

// Version picks the Kafka behaviour to reproduce where 4.0 and trunk differ.
type Version int

const (
	// Kafka40 is CurrentAssignmentBuilder in the 4.0 snapshot
	// (1eb7644349cb): after a revocation the member recomputes at epoch+1.
	Kafka40 Version = iota
	// Trunk is CurrentAssignmentBuilder after 4.0, as the reference
	// (011745392bff) and the vectors' trunk test (02e1643e985d) describe
	// it: after a revocation it recomputes at the unchanged epoch, it does
	// not count a partition the member itself is revoking as unreleased,
	// and it strips topics that left Member.Subscription at once (when
	// Subscription is non-nil).
	Trunk
)

// Input is one reconciliation step.
type Input struct {
	Member      Member
	TargetEpoch int32
	Target      kafka.Assignment
	// PartitionEpoch returns the epoch of a partition's current owner, or
	// -1 if no member holds it. Nil means no member holds any partition.
	PartitionEpoch func(kafka.TopicPartition) int32
	// Owned is what the member reported owning in this heartbeat; OwnedKnown
	// is false when the heartbeat did not carry the field (null).
	Owned      kafka.Assignment
	OwnedKnown bool
	Version    Version
}

// ErrFencedMemberEpoch is returned when a member in state Unknown still
// claims partitions (FENCED_MEMBER_EPOCH).
var ErrFencedMemberEpoch = fencedError{}

type fencedError struct{}

func (fencedError) Error() string { return "FENCED_MEMBER_EPOCH" }

// Package reconcile is the KIP-848 coordinator's per-member reconciliation
// (CurrentAssignmentBuilder): given a member's current assignment, the
// group's target for it and who still owns what, it decides what the member
// may hold next, what it must revoke first, and its new epoch.
package reconcile

import "rebalsim/kafka"

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
	Kafka40 Version = iota
	Trunk
)

// Input is one reconciliation step.
type Input struct {
	Member      Member
	TargetEpoch int32
	Target      kafka.Assignment
	// PartitionEpoch returns the epoch of a partition's current owner, or
	// -1 if no member holds it.
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

// Package assignor implements the classic protocol's client-side partition
// assignors (range, roundrobin, sticky, cooperative-sticky) as pure functions
// of the group's subscriptions, as the group leader runs them.
package assignor

import "rebalsim/kafka"

// Subscription is one member's entry in the leader's JoinGroup response:
// its subscription and, for the sticky family, the partitions it owns.
type Subscription struct {
	MemberID string
	// InstanceID is group.instance.id; "" for dynamic members. Kafka sorts
	// static members (by instance id) before dynamic ones (by member id).
	InstanceID string
	Topics     []string
	// Owned is ownedPartitions from the subscription; nil means none.
	Owned kafka.Assignment
	// Generation is the generation Owned was held in; -1 means unknown
	// (DEFAULT_GENERATION). HasGeneration is false for an initial
	// subscription that carries no generation at all.
	Generation    int32
	HasGeneration bool
}

// Input is what an assignor sees.
type Input struct {
	// Topics are the existing topics with their partition counts, in
	// metadata order. Subscribed topics missing here are ignored.
	Topics  []kafka.Topic
	Members []Subscription
}

// Result is an assignor's answer.
type Result struct {
	// Assignment holds every member of the input by member id (empty if it
	// gets nothing).
	Assignment map[string]kafka.Assignment
	// Transferring is the sticky family's partitionsTransferringOwnership:
	// partitions given to a member other than their valid previous owner.
	// It is nil for assignors (and sticky paths) that do not compute it.
	Transferring map[kafka.TopicPartition]string
}

// Assignor is a classic client-side assignor.
type Assignor interface {
	// Name is the assignor's protocol name (partition.assignment.strategy).
	Name() string
	// Protocols lists the rebalance protocols it supports.
	Protocols() []kafka.RebalanceProtocol
	// Assign computes the group's assignment. It must not modify in.
	Assign(in Input) Result
}

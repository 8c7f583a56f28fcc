// Package assignor implements the classic protocol's client-side partition
// assignors (range, roundrobin, sticky, cooperative-sticky) as pure functions
// of the group's subscriptions, as the group leader runs them.
//
// In the classic protocol the coordinator only collects JoinGroup requests;
// the member it elects leader receives everyone's subscription, runs the
// assignor the group voted for and sends the result back in its SyncGroup
// (reference §2.3–2.4, ConsumerCoordinator.onLeaderElected). An Assignor here
// is that computation and nothing else: it reads an Input, returns a Result,
// keeps no state between calls and never modifies its input.
//
// # The assignors
//
//   - range (Range): per topic, contiguous blocks in member order. Not sticky.
//   - roundrobin (RoundRobin): all partitions dealt in turn. Not sticky.
//   - sticky (Sticky): AbstractStickyAssignor — balanced first, then keep as
//     much of the previous assignment as balance allows. EAGER only.
//   - cooperative-sticky (CooperativeSticky): the same assignment with every
//     partition that changes hands withheld for one rebalance, so that under
//     the COOPERATIVE protocol no partition ever has two owners.
//
// ByName and Names look them up by their partition.assignment.strategy name.
//
// # Use
//
//	a, _ := assignor.ByName("cooperative-sticky")
//	res := a.Assign(assignor.Input{
//		Topics: []kafka.Topic{{Name: "orders", Partitions: 12}},
//		Members: []assignor.Subscription{
//			{MemberID: "c1", Topics: []string{"orders"}, Owned: owned["c1"], Generation: 7, HasGeneration: true},
//			{MemberID: "c4", Topics: []string{"orders"}},
//		},
//	})
//
// The caller's duties, in order:
//
//  1. List Members in JoinGroup order. The sticky assignors visit members in
//     the order Kafka's leader iterates its HashMap of member ids, which
//     this package reproduces from the ids and, for ids that share a hash
//     bucket, from this order.
//  2. For the sticky family, fill Owned and Generation from what each
//     member reported; a member that missed rebalances reports an older
//     generation and loses any partition claimed by a newer one.
//  3. For cooperative-sticky, feed the result back: every member whose
//     assignment lacks a partition it owned revokes it and rejoins, and the
//     follow-up rebalance (everyone owning its new assignment, one
//     generation later) hands the withheld partitions over. Equal
//     subscriptions converge in one follow-up; unequal ones needed at most
//     two in rebalsim's randomised tests.
//
// # Determinism and fidelity
//
// Results depend only on the Input. Where Kafka's own result depends on
// Java iteration order, rebalsim computes that order (order.go) rather than
// substituting its own, so the exact assertions of Kafka's assignor tests
// hold; no Go map order reaches a result. The deliberate departures, each
// explained where it is made: owned partitions that do not exist are
// ignored; a member with an empty subscription does not count as
// subscribing like everyone else; a three-way ownership conflict is
// resolved independently of iteration order; the general path never hands
// a partition back to a former owner that no longer subscribes to its
// topic; and where several partitions are equally good to move, the
// general path takes the lowest where Kafka takes its HashSet's first.
// Racks are not modelled.
//
// # Cost
//
// The assignors number topics and partitions and work on int32 slices, so
// a 2,000-member group with 1,000,000 partitions costs a few flat arrays
// plus one map per member for the Result; bench_test.go reproduces Kafka's
// ClientSideAssignorBenchmark sizes.
package assignor

import "github.com/rebalsim/rebalsim/kafka"

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
	// Scratch, when not nil, is working memory the built-in assignors
	// reuse instead of allocating their own (see Scratch). It is the one
	// part of the input an assignor writes to.
	Scratch *Scratch
}

// Result is an assignor's answer.
type Result struct {
	// Assignment holds every member of the input by member id (empty if it
	// gets nothing). A member whose assignment is exactly its Owned may be
	// given that very map: assignments are values nobody changes in place.
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
	// Assign computes the group's assignment. It must not modify in,
	// apart from the memory of in.Scratch.
	Assign(in Input) Result
}

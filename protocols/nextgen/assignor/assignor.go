// Package assignor implements the KIP-848 server-side assignors (uniform,
// with its homogeneous and heterogeneous builders, and range) as pure
// functions of a GroupSpec, as the group coordinator runs them
// (org.apache.kafka.coordinator.group.assignor, reference §4.8).
//
// Under KIP-848 the coordinator, not a group leader, computes the target
// assignment: whenever the group epoch moves past the target epoch it hands
// the chosen assignor every member's subscription and current target, and
// stores the result as the new target. Members then converge to it one
// heartbeat at a time (package reconcile). An assignor therefore only ever
// sees targets, never what members actually hold.
//
// # The assignors
//
//   - uniform (Uniform, the default): balance first, then stickiness. A
//     Homogeneous group (everyone subscribes to the same topics) runs
//     UniformHomogeneousAssignmentBuilder — equal quotas, keep what fits, deal
//     out the rest. A Heterogeneous group runs
//     UniformHeterogeneousAssignmentBuilder — keep what is still subscribed,
//     give the rest to the least-loaded subscriber, then move partitions
//     from the most to the least loaded subscribers of each topic in up to
//     16 sweeps. Overlapping subscriptions can end "almost balanced".
//   - range (Range): stateless contiguous blocks per topic, members ordered
//     static (by instance id) before dynamic (by member id); topics of equal
//     size end up co-partitioned.
//
// # Determinism
//
// Where Kafka's result depends on Java hash-set iteration order (topic ids,
// a member's assignment map), rebalsim uses the order of the topics slice
// passed to Assign, and a member's partitions in list order (ascending, as
// kafka.Assignment keeps them); member order is GroupSpec order. Kafka
// breaks the heterogeneous builder's last topic tie by topic id, rebalsim by
// topic name. With the vectors' reproduce_with.topic_order the results match
// Kafka's tests exactly. No Go map order reaches a result.
//
// Current targets that no coordinator would produce are tolerated rather
// than rejected: a partition claimed by two members stays with the first
// (in GroupSpec order), and partition numbers beyond a topic's size are
// ignored, so every result gives each partition exactly one owner.
//
// # Use
//
//	a, _ := assignor.ByName("uniform")
//	target, err := a.Assign(assignor.GroupSpec{
//		Members: []assignor.Member{
//			{ID: "A", Topics: []string{"orders"}, Current: previousTarget["A"]},
//			{ID: "B", Topics: []string{"orders"}},
//		},
//		Type: assignor.Homogeneous,
//	}, []kafka.Topic{{Name: "orders", Partitions: 6}})
//
// The caller decides the subscription type (Homogeneous iff every member
// subscribes to exactly the same topics, ModernGroup.subscriptionType) and
// passes existing topics only; subscriptions to topics that do not exist are
// ignored, as Kafka resolves names to ids before assigning. Every member of
// the spec appears in the result, with an empty assignment if it gets
// nothing. The builders work on flat int32 slices indexed by member and
// partition, so a 10,000-member, 500,000-partition group costs a handful of
// allocations. AssignGroup returns that result as it is (GroupAssignment:
// who keeps their target, and the others' new partitions); Assign and
// AssignEach build a map for every member whose target changed.
package assignor

import "github.com/rebalsim/rebalsim/kafka"

// SubscriptionType tells whether every member subscribes to the same topics.
type SubscriptionType int

const (
	Homogeneous SubscriptionType = iota
	Heterogeneous
)

// Member is one member of the GroupSpec.
type Member struct {
	ID string
	// InstanceID is group.instance.id; "" for dynamic members.
	InstanceID string
	Topics     []string
	// Current is the member's current *target* assignment.
	Current kafka.Assignment
}

// GroupSpec is the assignor's view of the group. Member order is the
// iteration order the builders use (Kafka iterates its member map).
type GroupSpec struct {
	Members []Member
	Type    SubscriptionType
	// ExtraToAnyMember selects the homogeneous builder of Kafka 4.1 and
	// later (KAFKA-18688): when the partitions do not divide evenly, any
	// member already holding one more than the minimum keeps it, and the
	// extras left over go to the last members that still need partitions.
	// False is 4.0's builder, where the first members in iteration order
	// get the extras, and what Kafka's 4.0 tests (the vectors) assert.
	ExtraToAnyMember bool
}

// Assignor is a server-side assignor.
type Assignor interface {
	// Name is the assignor's name (group.remote.assignor): uniform | range.
	Name() string
	// Assign computes the target assignment of every member of spec, by
	// member id. Topics are the existing topics in iteration order; the
	// order matters where Kafka's result depends on it.
	//
	// The result belongs to the caller. Results and Current assignments
	// are read-only on both sides, so a member whose assignment does not
	// change may be given its Current map itself (the built-in assignors
	// do: in a large group most members keep what they had). The spec is
	// only valid during the call: the coordinator reuses its Members slice.
	Assign(spec GroupSpec, topics []kafka.Topic) (map[string]kafka.Assignment, error)
}

// groupAssignor is an assignor that can give its result in spec order
// without a map per member, as the built-in ones do: building those maps,
// and keying them by member id, is the costliest part of a recomputation
// in a large group where few members change.
type groupAssignor interface {
	assignGroup(spec GroupSpec, topics []kafka.Topic) (*GroupAssignment, error)
}

// AssignGroup is a.Assign with the result in spec order (see
// GroupAssignment): every member of spec.Members, an empty target for a
// member the assignor left out. The built-in assignors compute it
// directly, without a map per member or keying the result by member id,
// so they trust the caller that the ids are distinct (a coordinator's
// are); Assign checks it.
func AssignGroup(a Assignor, spec GroupSpec, topics []kafka.Topic) (*GroupAssignment, error) {
	if g, ok := a.(groupAssignor); ok {
		return g.assignGroup(spec, topics)
	}
	byID, err := a.Assign(spec, topics)
	if err != nil {
		return nil, err
	}
	r := &GroupAssignment{n: len(spec.Members), given: make([]kafka.Assignment, len(spec.Members))}
	for i := range spec.Members {
		if t := byID[spec.Members[i].ID]; t != nil {
			r.given[i] = t
		} else {
			r.given[i] = kafka.Assignment{}
		}
	}
	return r, nil
}

// AssignEach is AssignGroup with every target as a map (GroupAssignment.Each):
// the target of each member of spec.Members, never nil, for a caller that
// wants every target as a map (the coordinator calls AssignGroup, and
// turns only the changed members' targets into maps); a member whose
// target does not change gets its Current map itself.
func AssignEach(a Assignor, spec GroupSpec, topics []kafka.Topic) ([]kafka.Assignment, error) {
	r, err := AssignGroup(a, spec, topics)
	if err != nil {
		return nil, err
	}
	return r.Each(spec.Members), nil
}

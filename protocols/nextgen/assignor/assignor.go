// Package assignor implements the KIP-848 server-side assignors (uniform,
// with its homogeneous and heterogeneous builders, and range) as pure
// functions of a GroupSpec, as the group coordinator runs them.
package assignor

import "rebalsim/kafka"

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
}

// Assignor is a server-side assignor.
type Assignor interface {
	// Name is the assignor's name (group.remote.assignor): uniform | range.
	Name() string
	// Assign computes the target assignment of every member of spec, by
	// member id. Topics are the existing topics in iteration order; the
	// order matters where Kafka's result depends on it.
	Assign(spec GroupSpec, topics []kafka.Topic) (map[string]kafka.Assignment, error)
}

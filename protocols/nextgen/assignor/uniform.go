package assignor

import (
	"fmt"

	"github.com/rebalsim/rebalsim/kafka"
)

// uniformAssignor is Kafka's UniformAssignor (group.remote.assignor =
// uniform, the default): balance first, then stickiness. It only chooses
// between the two builders; the subscription type, not the actual
// subscriptions, decides which one runs, exactly as in Kafka.
type uniformAssignor struct{}

// Uniform returns the uniform assignor.
func Uniform() Assignor { return uniformAssignor{} }

func (uniformAssignor) Name() string { return "uniform" }

// Assign runs the homogeneous builder for a Homogeneous spec and the
// heterogeneous builder otherwise. An empty group gets an empty result.
func (u uniformAssignor) Assign(spec GroupSpec, topics []kafka.Topic) (map[string]kafka.Assignment, error) {
	return assignByID(u, spec, topics)
}

func (uniformAssignor) assignGroup(spec GroupSpec, topics []kafka.Topic) (*GroupAssignment, error) {
	return assignWith(spec, topics, func(spec GroupSpec, ti *topicIndex) (*GroupAssignment, error) {
		if spec.Type == Homogeneous {
			return assignHomogeneous(spec.Members, ti, spec.ExtraToAnyMember)
		}
		return assignHeterogeneous(spec.Members, ti)
	})
}

// assignWith is the frame every built-in server assignor shares: it checks
// spec, answers an empty group with an empty result, indexes the topics
// and runs build on the rest.
func assignWith(spec GroupSpec, topics []kafka.Topic, build func(GroupSpec, *topicIndex) (*GroupAssignment, error)) (*GroupAssignment, error) {
	if err := checkSpec(spec); err != nil {
		return nil, err
	}
	if len(spec.Members) == 0 {
		return &GroupAssignment{}, nil
	}
	ti, err := newTopicIndex(topics)
	if err != nil {
		return nil, err
	}
	return build(spec, ti)
}

// assignByID is Assign for a built-in assignor: its result in spec order,
// keyed by member id.
func assignByID(a groupAssignor, spec GroupSpec, topics []kafka.Topic) (map[string]kafka.Assignment, error) {
	r, err := a.assignGroup(spec, topics)
	if err != nil {
		return nil, err
	}
	return byID(spec.Members, r.Each(spec.Members))
}

// checkSpec rejects an unknown subscription type. A member listed twice,
// the other spec no coordinator could produce, is caught by checkMembers
// on the result.
func checkSpec(spec GroupSpec) error {
	if spec.Type != Homogeneous && spec.Type != Heterogeneous {
		return fmt.Errorf("subscription type %d is neither Homogeneous (%d) nor Heterogeneous (%d)", spec.Type, Homogeneous, Heterogeneous)
	}
	return nil
}

// builtins are Kafka's server-side assignors in the order of its default
// group.consumer.assignors list: the first is the default.
func builtins() []Assignor { return []Assignor{Uniform(), Range()} }

// Names lists the built-in server-side assignors by their
// group.remote.assignor names, the default first: uniform, range.
func Names() []string { return NewSet().Names() }

// ByName returns the built-in assignor called name ("uniform" or "range")
// and whether there is one.
func ByName(name string) (Assignor, bool) { return NewSet().ByName(name) }

package assignor

import (
	"testing"

	"github.com/rebalsim/rebalsim/kafka"
)

// vectorCase is one server_assignor vector of
// conformance/testdata/kafka-vectors.yaml, transcribed by hand. Topics are in
// the vector's reproduce_with.topic_order where it has one (the order that
// reproduces Kafka's hash-set iteration), else in the order the vector lists
// them.
type vectorCase struct {
	name     string
	assignor string
	topics   []kafka.Topic
	typ      SubscriptionType
	members  []Member
	want     map[string]kafka.Assignment
}

func topics(kv ...any) []kafka.Topic {
	var ts []kafka.Topic
	for i := 0; i < len(kv); i += 2 {
		ts = append(ts, kafka.Topic{Name: kv[i].(string), Partitions: int32(kv[i+1].(int))})
	}
	return ts
}

func member(id string, subs []string, current kafka.Assignment) Member {
	return Member{ID: id, Topics: subs, Current: current}
}

func sub(ts ...string) []string { return ts }

var vectorCases = []vectorCase{
	{
		name:     "uniform_homo_first_assignment_two_members_two_topics",
		assignor: "uniform",
		topics:   topics("topic3", 2, "topic1", 3), // reproduce_with.topic_order
		typ:      Homogeneous,
		members: []Member{
			member("A", sub("topic1", "topic3"), nil),
			member("B", sub("topic1", "topic3"), nil),
		},
		want: map[string]kafka.Assignment{
			"A": {"topic1": {0}, "topic3": {0, 1}},
			"B": {"topic1": {1, 2}},
		},
	},
	{
		name:     "uniform_homo_rebalance_unbalanced_previous",
		assignor: "uniform",
		topics:   topics("topic1", 3, "topic2", 3),
		typ:      Homogeneous,
		members: []Member{
			member("A", sub("topic1", "topic2"), kafka.Assignment{"topic1": {0, 1}, "topic2": {0, 1}}),
			member("B", sub("topic1", "topic2"), kafka.Assignment{"topic1": {2}, "topic2": {2}}),
		},
		want: map[string]kafka.Assignment{
			"A": {"topic1": {0, 1}, "topic2": {0}},
			"B": {"topic1": {2}, "topic2": {1, 2}},
		},
	},
	{
		name:     "uniform_homo_partitions_added",
		assignor: "uniform",
		topics:   topics("topic2", 5, "topic1", 6), // reproduce_with.topic_order
		typ:      Homogeneous,
		members: []Member{
			member("A", sub("topic1", "topic2"), kafka.Assignment{"topic1": {0, 2}, "topic2": {0}}),
			member("B", sub("topic1", "topic2"), kafka.Assignment{"topic1": {1}, "topic2": {1, 2}}),
		},
		want: map[string]kafka.Assignment{
			"A": {"topic1": {0, 2, 3}, "topic2": {0, 3, 4}},
			"B": {"topic1": {1, 4, 5}, "topic2": {1, 2}},
		},
	},
	{
		name:     "uniform_homo_member_removed",
		assignor: "uniform",
		topics:   topics("topic2", 3, "topic1", 3), // reproduce_with.topic_order
		typ:      Homogeneous,
		members: []Member{
			member("A", sub("topic1", "topic2"), kafka.Assignment{"topic1": {0}, "topic2": {0}}),
			member("B", sub("topic1", "topic2"), kafka.Assignment{"topic1": {1}, "topic2": {1}}),
		},
		want: map[string]kafka.Assignment{
			"A": {"topic1": {0}, "topic2": {0, 2}},
			"B": {"topic1": {1, 2}, "topic2": {1}},
		},
	},
	{
		name:     "uniform_homo_subscription_removed",
		assignor: "uniform",
		topics:   topics("topic1", 2, "topic2", 2),
		typ:      Homogeneous,
		members: []Member{
			member("A", sub("topic2"), kafka.Assignment{"topic1": {0}, "topic2": {0}}),
			member("B", sub("topic2"), kafka.Assignment{"topic1": {1}, "topic2": {1}}),
		},
		want: map[string]kafka.Assignment{
			"A": {"topic2": {0}},
			"B": {"topic2": {1}},
		},
	},
	{
		name:     "uniform_het_more_members_than_partitions",
		assignor: "uniform",
		topics:   topics("topic3", 1, "topic1", 2),
		typ:      Heterogeneous,
		members: []Member{
			member("A", sub("topic3"), nil),
			member("B", sub("topic3"), nil),
			member("C", sub("topic1"), nil),
		},
		want: map[string]kafka.Assignment{
			"A": {"topic3": {0}},
			"B": {},
			"C": {"topic1": {0, 1}},
		},
	},
	{
		name:     "uniform_het_rebalance_unbalanced_previous_three_topics",
		assignor: "uniform",
		topics:   topics("topic1", 6, "topic2", 4, "topic3", 4),
		typ:      Heterogeneous,
		members: []Member{
			member("A", sub("topic1"), kafka.Assignment{"topic1": {0, 1, 2}}),
			member("B", sub("topic1", "topic2"), kafka.Assignment{"topic1": {3}, "topic2": {0}}),
			member("C", sub("topic1", "topic2", "topic3"), kafka.Assignment{"topic1": {4, 5}, "topic2": {1, 2, 3}, "topic3": {0, 1, 2, 3}}),
		},
		want: map[string]kafka.Assignment{
			"A": {"topic1": {0, 1, 2, 5}},
			"B": {"topic1": {3}, "topic2": {0, 1, 2, 3}},
			"C": {"topic1": {4}, "topic3": {0, 1, 2, 3}},
		},
	},
	{
		name:     "uniform_het_member_removed",
		assignor: "uniform",
		topics:   topics("topic1", 3, "topic2", 8, "topic3", 3),
		typ:      Heterogeneous,
		members: []Member{
			member("A", sub("topic1", "topic3"), kafka.Assignment{"topic1": {0, 1, 2}, "topic3": {0, 1}}),
			member("B", sub("topic2"), kafka.Assignment{"topic2": {3, 4, 5, 6}}),
		},
		want: map[string]kafka.Assignment{
			"A": {"topic1": {0, 1, 2}, "topic3": {0, 1, 2}},
			"B": {"topic2": {0, 1, 2, 3, 4, 5, 6, 7}},
		},
	},
	{
		name:     "uniform_het_new_member_takes_from_member_with_everything",
		assignor: "uniform",
		topics:   topics("topic1", 2, "topic2", 2, "topic3", 2),
		typ:      Heterogeneous,
		members: []Member{
			member("A", sub("topic1", "topic2", "topic3"), kafka.Assignment{"topic1": {0, 1}, "topic2": {0, 1}, "topic3": {0, 1}}),
			member("B", sub("topic1", "topic2", "topic3"), nil),
		},
		want: map[string]kafka.Assignment{
			"A": {"topic2": {0}, "topic3": {0, 1}},
			"B": {"topic1": {0, 1}, "topic2": {1}},
		},
	},
	{
		name:     "server_range_first_two_members_same_subscriptions",
		assignor: "range",
		topics:   topics("topic1", 3, "topic3", 2),
		typ:      Homogeneous,
		members: []Member{
			member("A", sub("topic1", "topic3"), nil),
			member("B", sub("topic1", "topic3"), nil),
		},
		want: map[string]kafka.Assignment{
			"A": {"topic1": {0, 1}, "topic3": {0}},
			"B": {"topic1": {2}, "topic3": {1}},
		},
	},
	{
		name:     "server_range_three_members_different_subscriptions",
		assignor: "range",
		topics:   topics("topic1", 3, "topic2", 3, "topic3", 2),
		typ:      Heterogeneous,
		members: []Member{
			member("A", sub("topic1", "topic2"), nil),
			member("B", sub("topic3"), nil),
			member("C", sub("topic2", "topic3"), nil),
		},
		want: map[string]kafka.Assignment{
			"A": {"topic1": {0, 1, 2}, "topic2": {0, 1}},
			"B": {"topic3": {0}},
			"C": {"topic2": {2}, "topic3": {1}},
		},
	},
	{
		name:     "server_range_member_added_is_not_sticky",
		assignor: "range",
		topics:   topics("topic1", 3, "topic2", 3),
		typ:      Homogeneous,
		members: []Member{
			member("A", sub("topic1", "topic2"), kafka.Assignment{"topic1": {0, 1}, "topic2": {0, 1}}),
			member("B", sub("topic1", "topic2"), kafka.Assignment{"topic1": {2}, "topic2": {2}}),
			member("C", sub("topic1", "topic2"), nil),
		},
		want: map[string]kafka.Assignment{
			"A": {"topic1": {0}, "topic2": {0}},
			"B": {"topic1": {1}, "topic2": {1}},
			"C": {"topic1": {2}, "topic2": {2}},
		},
	},
	{
		name:     "server_range_multiple_subscriptions_removed",
		assignor: "range",
		topics:   topics("topic1", 3, "topic2", 3, "topic3", 2),
		typ:      Heterogeneous,
		members: []Member{
			member("A", sub("topic1"), kafka.Assignment{"topic1": {0, 1, 2}, "topic2": {0}}),
			member("B", sub("topic1", "topic2", "topic3"), kafka.Assignment{"topic2": {1}}),
			member("C", sub("topic2"), kafka.Assignment{"topic2": {2}, "topic3": {0, 1}}),
		},
		want: map[string]kafka.Assignment{
			"A": {"topic1": {0, 1}},
			"B": {"topic1": {2}, "topic2": {0, 1}, "topic3": {0, 1}},
			"C": {"topic2": {2}},
		},
	},
	{
		name:     "server_range_mixed_static_dynamic",
		assignor: "range",
		topics:   topics("topic1", 5),
		typ:      Homogeneous,
		members: []Member{
			{ID: "A", InstanceID: "instanceA", Topics: sub("topic1")},
			{ID: "C", InstanceID: "instanceC", Topics: sub("topic1")},
			{ID: "B", Topics: sub("topic1")},
		},
		want: map[string]kafka.Assignment{
			"A": {"topic1": {0, 1}},
			"C": {"topic1": {2, 3}},
			"B": {"topic1": {4}},
		},
	},
	{
		// The vector's "then": A leaves and memberA1 rejoins with A's
		// instance id; range is stateless and sorts by instance id, so the
		// new member id lands on A's block.
		name:     "server_range_mixed_static_dynamic/after_then",
		assignor: "range",
		topics:   topics("topic1", 5),
		typ:      Homogeneous,
		members: []Member{
			{ID: "C", InstanceID: "instanceC", Topics: sub("topic1")},
			{ID: "B", Topics: sub("topic1")},
			{ID: "memberA1", InstanceID: "instanceA", Topics: sub("topic1")},
		},
		want: map[string]kafka.Assignment{
			"memberA1": {"topic1": {0, 1}},
			"C":        {"topic1": {2, 3}},
			"B":        {"topic1": {4}},
		},
	},
}

func TestVectors(t *testing.T) {
	for _, tc := range vectorCases {
		t.Run(tc.name, func(t *testing.T) {
			a, ok := ByName(tc.assignor)
			if !ok {
				t.Fatalf("no assignor %q", tc.assignor)
			}
			got, err := a.Assign(GroupSpec{Members: tc.members, Type: tc.typ}, tc.topics)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.want) {
				t.Errorf("got %d members, want %d: %v", len(got), len(tc.want), got)
			}
			for id, want := range tc.want {
				if !got[id].Equal(want) {
					t.Errorf("member %s: got %v, want %v", id, got[id], want)
				}
			}
		})
	}
}

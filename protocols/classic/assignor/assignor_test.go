package assignor

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/rebalsim/rebalsim/kafka"
)

// topics builds Input.Topics from "name:count" pairs, in the given order.
func topics(specs ...string) []kafka.Topic {
	var out []kafka.Topic
	for _, s := range specs {
		var name string
		var n int32
		i := strings.LastIndexByte(s, ':')
		name = s[:i]
		fmt.Sscan(s[i+1:], &n)
		out = append(out, kafka.Topic{Name: name, Partitions: n})
	}
	return out
}

// dynamic is a member without owned partitions or generation.
func dynamic(id string, topics ...string) Subscription {
	return Subscription{MemberID: id, Topics: topics}
}

// owning is a member that owned partitions in generation gen.
func owning(id string, topics []string, owned kafka.Assignment, gen int32) Subscription {
	return Subscription{MemberID: id, Topics: topics, Owned: owned, Generation: gen, HasGeneration: true}
}

func static(id, instance string, topics ...string) Subscription {
	return Subscription{MemberID: id, InstanceID: instance, Topics: topics}
}

// render prints a result member by member, sorted, for readable failures.
func render(a map[string]kafka.Assignment) string {
	var b strings.Builder
	for _, m := range slices.Sorted(maps.Keys(a)) {
		fmt.Fprintf(&b, "%s: {%s}\n", m, a[m])
	}
	return b.String()
}

func assertAssignment(t *testing.T, got, want map[string]kafka.Assignment) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("members: got\n%swant\n%s", render(got), render(want))
	}
	for m, w := range want {
		g, ok := got[m]
		if !ok || !g.Equal(w) {
			t.Fatalf("assignment differs at %s: got\n%swant\n%s", m, render(got), render(want))
		}
	}
}

func TestRange(t *testing.T) {
	tests := []struct {
		name string
		in   Input
		want map[string]kafka.Assignment
	}{{
		// RangeAssignorTest.testOneConsumerMultipleTopics
		name: "one consumer, two topics",
		in:   Input{Topics: topics("topic1:1", "topic2:2"), Members: []Subscription{dynamic("consumer1", "topic1", "topic2")}},
		want: map[string]kafka.Assignment{"consumer1": {"topic1": {0}, "topic2": {0, 1}}},
	}, {
		// RangeAssignorTest.testMultipleConsumersMixedTopics
		name: "mixed subscriptions",
		in: Input{Topics: topics("topic1:3", "topic2:2"), Members: []Subscription{
			dynamic("consumer1", "topic1"), dynamic("consumer2", "topic1", "topic2"), dynamic("consumer3", "topic1"),
		}},
		want: map[string]kafka.Assignment{
			"consumer1": {"topic1": {0}},
			"consumer2": {"topic1": {1}, "topic2": {0, 1}},
			"consumer3": {"topic1": {2}},
		},
	}, {
		// RangeAssignorTest.testOneStaticConsumerAndOneDynamicConsumerTwoTopicsSixPartitions
		name: "static members sort before dynamic ones",
		in: Input{Topics: topics("topic1:3", "topic2:3"), Members: []Subscription{
			dynamic("consumer-a", "topic1", "topic2"), static("consumer-b", "instance1", "topic1", "topic2"),
		}},
		want: map[string]kafka.Assignment{
			"consumer-b": {"topic1": {0, 1}, "topic2": {0, 1}},
			"consumer-a": {"topic1": {2}, "topic2": {2}},
		},
	}, {
		name: "missing topics and empty subscriptions are ignored",
		in: Input{Topics: topics("t1:4", "unsubscribed:9"), Members: []Subscription{
			dynamic("a", "t1", "missing"), dynamic("b", "t1"), dynamic("idle"),
		}},
		want: map[string]kafka.Assignment{"a": {"t1": {0, 1}}, "b": {"t1": {2, 3}}, "idle": {}},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assertAssignment(t, Range().Assign(tt.in).Assignment, tt.want)
		})
	}
}

func TestRoundRobin(t *testing.T) {
	tests := []struct {
		name string
		in   Input
		want map[string]kafka.Assignment
	}{{
		// RoundRobinAssignorTest.testTwoDynamicConsumersTwoTopicsSixPartitions
		name: "two consumers, two topics",
		in: Input{Topics: topics("topic1:3", "topic2:3"), Members: []Subscription{
			dynamic("consumer1", "topic1", "topic2"), dynamic("consumer2", "topic1", "topic2"),
		}},
		want: map[string]kafka.Assignment{
			"consumer1": {"topic1": {0, 2}, "topic2": {1}},
			"consumer2": {"topic1": {1}, "topic2": {0, 2}},
		},
	}, {
		// RoundRobinAssignorTest.testMultipleConsumersMixedTopics
		name: "members not subscribing are skipped",
		in: Input{Topics: topics("topic1:3", "topic2:2"), Members: []Subscription{
			dynamic("consumer1", "topic1"), dynamic("consumer2", "topic1", "topic2"), dynamic("consumer3", "topic1"),
		}},
		want: map[string]kafka.Assignment{
			"consumer1": {"topic1": {0}},
			"consumer2": {"topic1": {1}, "topic2": {0, 1}},
			"consumer3": {"topic1": {2}},
		},
	}, {
		// RoundRobinAssignorTest.testStaticMemberRoundRobinAssignmentPersistent
		name: "static members keep their places",
		in: Input{Topics: topics("topic1:3", "topic2:3"), Members: []Subscription{
			dynamic("consumer5", "topic1", "topic2"),
			static("consumer1", "instance1", "topic1", "topic2"),
			static("consumer2", "instance2", "topic1", "topic2"),
			static("consumer3", "instance3", "topic1", "topic2"),
		}},
		want: map[string]kafka.Assignment{
			"consumer1": {"topic1": {0}, "topic2": {1}},
			"consumer2": {"topic1": {1}, "topic2": {2}},
			"consumer3": {"topic1": {2}},
			"consumer5": {"topic2": {0}},
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assertAssignment(t, RoundRobin().Assign(tt.in).Assignment, tt.want)
		})
	}
}

func TestSticky(t *testing.T) {
	both := []string{"topic1", "topic2"}
	tests := []struct {
		name string
		in   Input
		// want is the sticky (EAGER) assignment; cooperative-sticky returns
		// it minus the transferring partitions.
		want         map[string]kafka.Assignment
		transferring map[kafka.TopicPartition]string // nil: general path
	}{{
		// AbstractStickyAssignorTest.testTwoConsumersTwoTopicsSixPartitions
		name: "initial assignment deals round robin",
		in:   Input{Topics: topics("topic1:3", "topic2:3"), Members: []Subscription{dynamic("consumer1", both...), dynamic("consumer2", both...)}},
		want: map[string]kafka.Assignment{
			"consumer1": {"topic1": {0, 2}, "topic2": {1}},
			"consumer2": {"topic1": {1}, "topic2": {0, 2}},
		},
		transferring: map[kafka.TopicPartition]string{},
	}, {
		// AbstractStickyAssignorTest.testMaxQuotaConsumerMoreThanNumExpectedMaxCapacityMembers:
		// Kafka's HashMap visits consumer2 before consumer1, so consumer2
		// keeps maxQuota and consumer1 gives up topic2-0.
		name: "joining member takes from the member iterated last",
		in: Input{Topics: topics("topic1:2", "topic2:2"), Members: []Subscription{
			owning("consumer1", both, kafka.Assignment{"topic1": {0}, "topic2": {0}}, 1),
			owning("consumer2", both, kafka.Assignment{"topic1": {1}, "topic2": {1}}, 1),
			owning("consumer3", both, nil, 1),
		}},
		want: map[string]kafka.Assignment{
			"consumer1": {"topic1": {0}},
			"consumer2": {"topic1": {1}, "topic2": {1}},
			"consumer3": {"topic2": {0}},
		},
		transferring: map[kafka.TopicPartition]string{{Topic: "topic2", Partition: 0}: "consumer3"},
	}, {
		// AbstractStickyAssignorTest.testPartitionsTransferringOwnershipIncludeThePartitionClaimedByMultipleConsumersInSameGeneration
		name: "double claim in one generation is nobody's",
		in: Input{Topics: topics("topic:3"), Members: []Subscription{
			owning("consumer1", []string{"topic"}, kafka.Assignment{"topic": {0, 1}}, 1),
			owning("consumer2", []string{"topic"}, kafka.Assignment{"topic": {0, 2}}, 1),
			owning("consumer3", []string{"topic"}, nil, 1),
		}},
		want: map[string]kafka.Assignment{
			"consumer1": {"topic": {1}}, "consumer2": {"topic": {2}}, "consumer3": {"topic": {0}},
		},
		transferring: map[kafka.TopicPartition]string{{Topic: "topic", Partition: 0}: "consumer3"},
	}, {
		// AbstractStickyAssignorTest.testOwnedPartitionsAreInvalidatedForConsumerWithStaleGeneration
		name: "stale generation loses its claims",
		in: Input{Topics: topics("topic:3", "topic2:3"), Members: []Subscription{
			owning("consumer1", []string{"topic", "topic2"}, kafka.Assignment{"topic": {0, 2}, "topic2": {1}}, 10),
			owning("consumer2", []string{"topic", "topic2"}, kafka.Assignment{"topic": {0, 2}, "topic2": {1}}, 9),
		}},
		want: map[string]kafka.Assignment{
			"consumer1": {"topic": {0, 2}, "topic2": {1}},
			"consumer2": {"topic": {1}, "topic2": {0, 2}},
		},
		transferring: map[kafka.TopicPartition]string{},
	}, {
		// AbstractStickyAssignorTest.testMultipleConsumersMixedTopicSubscriptions
		name: "unequal subscriptions take the general path",
		in: Input{Topics: topics("topic1:3", "topic2:2"), Members: []Subscription{
			dynamic("consumer1", "topic1"), dynamic("consumer2", "topic1", "topic2"), dynamic("consumer3", "topic1"),
		}},
		want: map[string]kafka.Assignment{
			"consumer1": {"topic1": {0, 2}},
			"consumer2": {"topic2": {0, 1}},
			"consumer3": {"topic1": {1}},
		},
	}, {
		name: "general path keeps owned partitions and fills the newcomer",
		in: Input{Topics: topics("a:4", "b:2"), Members: []Subscription{
			owning("c1", []string{"a", "b"}, kafka.Assignment{"a": {0, 1, 2, 3}, "b": {0, 1}}, 3),
			owning("c2", []string{"a"}, nil, 3),
		}},
		// The sweep walks partitions in order, so the lowest ones move.
		want: map[string]kafka.Assignment{
			"c1": {"a": {3}, "b": {0, 1}},
			"c2": {"a": {0, 1, 2}},
		},
	}, {
		// c1 must give up b, which only c2 can take; balancing then moves
		// a-1 the other way.
		name: "general path drops topics the owner no longer subscribes to",
		in: Input{Topics: topics("a:2", "b:2"), Members: []Subscription{
			owning("c1", []string{"a"}, kafka.Assignment{"a": {0}, "b": {0, 1}}, 3),
			owning("c2", []string{"a", "b"}, kafka.Assignment{"a": {1}}, 3),
		}},
		want: map[string]kafka.Assignment{
			"c1": {"a": {0, 1}},
			"c2": {"b": {0, 1}},
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := Sticky().Assign(tt.in)
			assertAssignment(t, res.Assignment, tt.want)
			if (res.Transferring == nil) != (tt.transferring == nil) || !maps.Equal(res.Transferring, tt.transferring) {
				t.Fatalf("transferring: got %v, want %v", res.Transferring, tt.transferring)
			}

			coop := CooperativeSticky().Assign(tt.in)
			want := map[string]kafka.Assignment{}
			for m, a := range tt.want {
				want[m] = a.Clone()
			}
			withheld := tt.transferring
			if withheld == nil {
				withheld = map[kafka.TopicPartition]string{}
				for m, a := range tt.want {
					for _, tp := range a.Partitions() {
						if claimedByOther(tt.in, m, tp) {
							withheld[tp] = m
						}
					}
				}
			}
			for tp, m := range withheld {
				want[m] = want[m].Minus(kafka.Assignment{tp.Topic: {tp.Partition}})
			}
			assertAssignment(t, coop.Assignment, want)
		})
	}
}

// claimedByOther reports whether tp is in the Owned of some member other
// than m while m does not own it.
func claimedByOther(in Input, m string, tp kafka.TopicPartition) bool {
	other := false
	for _, s := range in.Members {
		if s.Owned.Contains(tp) {
			if s.MemberID == m {
				return false
			}
			other = true
		}
	}
	return other
}

func TestAssignDoesNotModifyInput(t *testing.T) {
	in := Input{Topics: topics("t:6", "u:3"), Members: []Subscription{
		owning("c1", []string{"t", "u"}, kafka.Assignment{"t": {5, 0, 1, 2}, "u": {2}}, 4),
		owning("c2", []string{"t"}, kafka.Assignment{"t": {3}}, 4),
		owning("c3", []string{"u", "t"}, nil, 4),
	}}
	before := fmt.Sprint(in)
	for _, name := range Names() {
		a, _ := ByName(name)
		a.Assign(in)
		if after := fmt.Sprint(in); after != before {
			t.Fatalf("%s modified its input:\nbefore %s\nafter  %s", name, before, after)
		}
	}
}

func TestKafkaIterationOrder(t *testing.T) {
	// A HashMap<String, _> of these four keys iterates them in reverse.
	members := []Subscription{{MemberID: "consumer1"}, {MemberID: "consumer2"}, {MemberID: "consumer3"}, {MemberID: "consumer4"}}
	if got := kafkaIterationOrder(members); !slices.Equal(got, []int32{3, 2, 1, 0}) {
		t.Fatalf("order = %v, want [3 2 1 0]", got)
	}
	// "Aa" and "BB" have the same Java hash code (2112), hence the same
	// bucket; "consumer1" hashes elsewhere. Within a bucket a HashMap
	// iterates in insertion order.
	for _, tc := range []struct {
		ids  []string
		want []int32
	}{
		{[]string{"BB", "consumer1", "Aa"}, []int32{0, 2, 1}},
		{[]string{"Aa", "consumer1", "BB"}, []int32{0, 2, 1}},
		{[]string{"consumer1", "Aa", "BB"}, []int32{1, 2, 0}},
	} {
		var members []Subscription
		for _, id := range tc.ids {
			members = append(members, Subscription{MemberID: id})
		}
		if got := kafkaIterationOrder(members); !slices.Equal(got, tc.want) {
			t.Errorf("order of %v = %v, want %v", tc.ids, got, tc.want)
		}
	}
}

func TestByName(t *testing.T) {
	// Kafka's four, in the order the documentation of
	// partition.assignment.strategy lists them.
	want := []string{"range", "roundrobin", "sticky", "cooperative-sticky"}
	if got := Names(); !slices.Equal(got, want) {
		t.Fatalf("Names() = %v, want %v", got, want)
	}
	for _, name := range want {
		a, ok := ByName(name)
		if !ok || a.Name() != name {
			t.Fatalf("ByName(%q) = %v, %v", name, a, ok)
		}
	}
	if _, ok := ByName("uniform"); ok {
		t.Fatal(`ByName("uniform") found a classic assignor`)
	}
	if p := CooperativeSticky().Protocols(); !slices.Contains(p, kafka.Cooperative) || !slices.Contains(p, kafka.Eager) {
		t.Fatalf("cooperative-sticky protocols = %v", p)
	}
	for _, name := range []string{"range", "roundrobin", "sticky"} {
		a, _ := ByName(name)
		if p := a.Protocols(); !slices.Equal(p, []kafka.RebalanceProtocol{kafka.Eager}) {
			t.Fatalf("%s protocols = %v, want [EAGER]", name, p)
		}
	}
}

func TestPartitionMovements(t *testing.T) {
	const topic, a, b, c = 0, 1, 2, 3
	var pm partitionMovements
	pm.record(topic, 10, a, b)
	// Sending another partition from b back to a undoes the first move.
	if got := pm.partitionToMove(topic, 11, b, a); got != 10 {
		t.Fatalf("partitionToMove = %d, want 10 (the partition that came from a)", got)
	}
	// A partition moving on keeps its origin.
	pm.record(topic, 10, b, c)
	if mv := pm.byPartition[10]; mv != (movement{from: a, to: c}) {
		t.Fatalf("movement of 10 = %+v, want a→c", mv)
	}
	if _, ok := pm.byPath[movePath{topic, a, b}]; ok {
		t.Fatal("a→b path still recorded")
	}
	// Returning to its origin erases the record.
	pm.record(topic, 10, c, a)
	if len(pm.byPartition) != 0 || len(pm.byPath) != 0 {
		t.Fatalf("records left after a round trip: %v %v", pm.byPartition, pm.byPath)
	}
}

func TestOwnershipConflicts(t *testing.T) {
	t1 := []string{"t"}
	in := Input{Topics: topics("t:4"), Members: []Subscription{
		// t-0: two claims in generation 1 are overruled by one in 2.
		owning("a", t1, kafka.Assignment{"t": {0, 1}}, 1),
		owning("b", t1, kafka.Assignment{"t": {0}}, 1),
		owning("c", t1, kafka.Assignment{"t": {0, 9}, "gone": {0}}, 2),
		// t-1: a's claim stands; t-9 and gone-0 do not exist.
		{MemberID: "d", Topics: t1},
	}}
	u := newUniverse(in)
	o := resolveOwnership(u)
	if got, want := o.owner, []int32{2, 0, -1, -1}; !slices.Equal(got, want) {
		t.Fatalf("owners = %v, want %v", got, want)
	}
	if slices.Contains(o.contested, true) {
		t.Fatalf("contested = %v, want none", o.contested)
	}
	// The same claims without c leave t-0 contested.
	in.Members = slices.Delete(in.Members, 2, 3)
	o = resolveOwnership(newUniverse(in))
	if o.owner[0] != -1 || !o.contested[0] {
		t.Fatalf("t-0: owner %d contested %v, want nobody and contested", o.owner[0], o.contested[0])
	}
}

package assignor

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/rebalsim/rebalsim/kafka"
)

// randomGroup is a small random group: a few topics of a few partitions in a
// shuffled order, members with random (or, for Homogeneous, shared)
// subscriptions, and a consistent previous target in which each partition of
// each topic — including a topic that no longer exists — has at most one
// holder, who may or may not still subscribe to it.
// groupSize bounds a random group: up to this many topics, partitions per
// topic and members.
type groupSize struct{ topics, partitions, members int }

var (
	smallGroups = groupSize{topics: 6, partitions: 12, members: 8}
	largeGroups = groupSize{topics: 30, partitions: 60, members: 50}
)

func randomGroupOf(r *rand.Rand, typ SubscriptionType, size groupSize) (GroupSpec, []kafka.Topic) {
	nt := 1 + r.IntN(size.topics)
	topics := make([]kafka.Topic, nt)
	for i := range topics {
		topics[i] = kafka.Topic{Name: fmt.Sprintf("t%d", i), Partitions: int32(r.IntN(size.partitions + 1))}
	}
	r.Shuffle(len(topics), func(i, j int) { topics[i], topics[j] = topics[j], topics[i] })
	names := []string{"gone"} // a topic that was deleted: never in the metadata
	for _, t := range topics {
		names = append(names, t.Name)
	}

	randomSubset := func() []string {
		var s []string
		for _, n := range names {
			if r.IntN(2) == 0 {
				s = append(s, n)
			}
		}
		return s
	}

	nm := 1 + r.IntN(size.members)
	members := make([]Member, nm)
	shared := randomSubset()
	for m := range members {
		members[m] = Member{ID: fmt.Sprintf("m%d", m), Current: kafka.Assignment{}}
		if typ == Homogeneous {
			members[m].Topics = slices.Clone(shared)
		} else {
			members[m].Topics = randomSubset()
		}
		if r.IntN(4) == 0 {
			members[m].InstanceID = fmt.Sprintf("i%d", r.IntN(20))
		}
	}
	// Instance ids must be unique among members.
	seen := map[string]bool{}
	for m := range members {
		if id := members[m].InstanceID; id != "" {
			if seen[id] {
				members[m].InstanceID = ""
			}
			seen[id] = true
		}
	}
	holdFrom := append([]kafka.Topic{{Name: "gone", Partitions: 3}}, topics...)
	for _, t := range holdFrom {
		for p := int32(0); p < t.Partitions; p++ {
			if r.IntN(3) == 0 {
				continue // nobody held it
			}
			m := r.IntN(nm)
			members[m].Current[t.Name] = append(members[m].Current[t.Name], p)
		}
	}
	return GroupSpec{Members: members, Type: typ}, topics
}

// checkValid checks what every assignor promises: every member is in the
// result; every partition of a topic with at least one subscriber is assigned
// exactly once, to a subscriber; nothing else is assigned; lists are sorted.
// subscribed says which topics a member subscribes to for this purpose.
func checkValid(t *testing.T, spec GroupSpec, topics []kafka.Topic, got map[string]kafka.Assignment, subscribed func(m int, topic string) bool) {
	t.Helper()
	if len(got) != len(spec.Members) {
		t.Fatalf("result has %d members, spec %d", len(got), len(spec.Members))
	}
	count := map[kafka.TopicPartition]int{}
	for m, mem := range spec.Members {
		a, ok := got[mem.ID]
		if !ok {
			t.Fatalf("member %s missing from the result", mem.ID)
		}
		for topic, ps := range a {
			if !slices.IsSorted(ps) || len(ps) == 0 {
				t.Fatalf("member %s topic %s: partitions %v not sorted or empty", mem.ID, topic, ps)
			}
			if !subscribed(m, topic) {
				t.Fatalf("member %s got %s%v but does not subscribe to it", mem.ID, topic, ps)
			}
			for _, p := range ps {
				count[kafka.TopicPartition{Topic: topic, Partition: p}]++
			}
		}
	}
	assigned := make([]kafka.TopicPartition, 0, len(count))
	for tp := range count {
		assigned = append(assigned, tp)
	}
	kafka.SortPartitions(assigned)
	for _, tp := range assigned {
		if count[tp] != 1 {
			t.Fatalf("%v assigned %d times", tp, count[tp])
		}
	}
	for _, topic := range topics {
		anySub := false
		for m := range spec.Members {
			anySub = anySub || subscribed(m, topic.Name)
		}
		for p := int32(0); p < topic.Partitions; p++ {
			tp := kafka.TopicPartition{Topic: topic.Name, Partition: p}
			if anySub && count[tp] != 1 {
				t.Fatalf("%v assigned %d times, want once", tp, count[tp])
			}
		}
	}
}

func subscribesTo(spec GroupSpec, topics []kafka.Topic) func(m int, topic string) bool {
	exists := map[string]bool{}
	for _, t := range topics {
		exists[t.Name] = true
	}
	return func(m int, topic string) bool {
		return exists[topic] && slices.Contains(spec.Members[m].Topics, topic)
	}
}

// propertyRuns lists how many random groups of each size the property tests
// draw: many small ones, where corner cases (empty topics, one member, more
// members than partitions) are frequent, and some larger ones.
var propertyRuns = []struct {
	size groupSize
	runs int
}{{smallGroups, 3000}, {largeGroups, 300}}

// forRandomGroups calls check on each random group of the given type.
func forRandomGroups(t *testing.T, seed uint64, typ func(*rand.Rand) SubscriptionType, check func(t *testing.T, spec GroupSpec, topics []kafka.Topic)) {
	r := rand.New(rand.NewPCG(848, seed))
	for _, pr := range propertyRuns {
		for run := range pr.runs {
			spec, topics := randomGroupOf(r, typ(r), pr.size)
			t.Run(fmt.Sprintf("%dx%dx%d/%d", pr.size.members, pr.size.topics, pr.size.partitions, run), func(t *testing.T) {
				check(t, spec, topics)
			})
		}
	}
}

func always(typ SubscriptionType) func(*rand.Rand) SubscriptionType {
	return func(*rand.Rand) SubscriptionType { return typ }
}

func TestUniformHomogeneousProperties(t *testing.T) {
	forRandomGroups(t, 1, always(Homogeneous), func(t *testing.T, spec GroupSpec, topics []kafka.Topic) {
		got, err := Uniform().Assign(spec, topics)
		if err != nil {
			t.Fatal(err)
		}
		sub := subscribesTo(spec, topics)
		checkValid(t, spec, topics, got, sub)

		total := 0
		for _, tp := range topics {
			if sub(0, tp.Name) {
				total += int(tp.Partitions)
			}
		}
		n := len(spec.Members)
		lo, hi := total, 0
		for m, mem := range spec.Members {
			size := got[mem.ID].Size()
			lo, hi = min(lo, size), max(hi, size)

			// Sticky: a member loses a subscribed partition only if it
			// held more than its quota, and then keeps exactly its quota.
			quota := total / n
			if m < total%n {
				quota++
			}
			held, kept, lost := 0, 0, 0
			for _, topic := range mem.Current.Topics() {
				if !sub(m, topic) {
					continue
				}
				for _, p := range mem.Current[topic] {
					held++
					if got[mem.ID].Contains(kafka.TopicPartition{Topic: topic, Partition: p}) {
						kept++
					} else {
						lost++
					}
				}
			}
			if lost > 0 && (held <= quota || kept != quota) {
				t.Errorf("member %s lost %d of %d held partitions, kept %d, quota %d", mem.ID, lost, held, kept, quota)
			}
			if size != quota {
				t.Errorf("member %s has %d partitions, quota %d", mem.ID, size, quota)
			}
		}
		if total > 0 && hi-lo > 1 {
			t.Errorf("unbalanced: sizes from %d to %d", lo, hi)
		}
	})
}

func TestUniformHeterogeneousProperties(t *testing.T) {
	capped, runs := 0, 0
	forRandomGroups(t, 2, always(Heterogeneous), func(t *testing.T, spec GroupSpec, topics []kafka.Topic) {
		got, err := Uniform().Assign(spec, topics)
		if err != nil {
			t.Fatal(err)
		}
		ti, _ := newTopicIndex(topics)
		b := &heterogeneousBuilder{members: spec.Members, ti: ti}
		runs++
		if b.build() && !b.converged {
			capped++
		}
		sub := subscribesTo(spec, topics)
		checkValid(t, spec, topics, got, sub)

		// Once the sweeps have converged no single move inside a topic can
		// improve balance: nobody holding a partition of a topic has two
		// or more partitions more than another subscriber of that topic.
		// (Across overlapping subscriptions the loads may still spread
		// wider, e.g. 9/10/11: that is Kafka's documented limit.)
		if !b.converged {
			return
		}
		for a, ma := range spec.Members {
			for _, topic := range got[ma.ID].Topics() {
				for bIdx, mb := range spec.Members {
					if bIdx == a || !sub(bIdx, topic) {
						continue
					}
					if got[ma.ID].Size()-got[mb.ID].Size() >= 2 {
						t.Errorf("member %s (%d partitions) could give %s to subscriber %s (%d partitions)",
							ma.ID, got[ma.ID].Size(), topic, mb.ID, got[mb.ID].Size())
					}
				}
			}
		}
	})
	t.Logf("%d of %d random groups hit the %d-sweep cap", capped, runs, maxBalancingSweeps)
}

func TestRangeProperties(t *testing.T) {
	anyType := func(r *rand.Rand) SubscriptionType { return SubscriptionType(r.IntN(2)) }
	forRandomGroups(t, 3, anyType, func(t *testing.T, spec GroupSpec, topics []kafka.Topic) {
		got, err := Range().Assign(spec, topics)
		if err != nil {
			t.Fatal(err)
		}
		sub := subscribesTo(spec, topics)
		checkValid(t, spec, topics, got, sub)
		// Each topic is split into contiguous blocks whose sizes differ
		// by at most one.
		for _, topic := range topics {
			lo, hi, n := int(topic.Partitions), 0, 0
			for m, mem := range spec.Members {
				if !sub(m, topic.Name) {
					continue
				}
				n++
				ps := got[mem.ID][topic.Name]
				lo, hi = min(lo, len(ps)), max(hi, len(ps))
				if len(ps) > 0 && int(ps[len(ps)-1]-ps[0]) != len(ps)-1 {
					t.Errorf("member %s: %s%v is not contiguous", mem.ID, topic.Name, ps)
				}
			}
			if n > 0 && hi-lo > 1 {
				t.Errorf("topic %s: block sizes from %d to %d", topic.Name, lo, hi)
			}
		}
	})
}

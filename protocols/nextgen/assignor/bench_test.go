package assignor

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/rebalsim/rebalsim/internal/cputime"
	"github.com/rebalsim/rebalsim/kafka"
)

// The benchmarks follow Kafka's JMH assignor benchmarks (reference §7,
// jmh-benchmarks/.../assignor/): memberCount × partitionsToMemberRatio
// partitions spread evenly over topicCount topics; heterogeneous groups are
// cut into min(5, members) buckets of members, each subscribing to its own
// slice of the topics; an incremental run assigns memberCount−1 members
// first and then times the assignment after one new member joins.

// benchGroup is one benchmark configuration.
type benchGroup struct {
	members, ratio, topics int
	typ                    SubscriptionType
}

func (g benchGroup) String() string {
	t := "homogeneous"
	if g.typ == Heterogeneous {
		t = "heterogeneous"
	}
	return fmt.Sprintf("members=%d/ratio=%d/topics=%d/%s", g.members, g.ratio, g.topics, t)
}

const maxBucketCount = 5 // AssignorBenchmarkUtils MAX_BUCKET_COUNT

// loopCPU runs op in a b.Loop and reports, besides ns/op, the process's CPU
// time per op ("cpu-ns/op"): on a machine shared with other work the wall
// time of an op stretches with the load, its CPU time much less so.
func loopCPU(b *testing.B, op func() error) {
	b.ReportAllocs()
	start, ok := cputime.Process()
	n := 0
	for b.Loop() {
		if err := op(); err != nil {
			b.Fatal(err)
		}
		n++
	}
	if end, _ := cputime.Process(); ok && n > 0 {
		b.ReportMetric(float64((end-start)/time.Duration(n)), "cpu-ns/op")
	}
}

// benchTopics creates topicCount topics "topic-i" of members×ratio/topics
// partitions each (integer division, as in createSubscriptionMetadata).
func benchTopics(members, ratio, topicCount int) ([]kafka.Topic, []string) {
	perTopic := int32(members * ratio / topicCount)
	topics := make([]kafka.Topic, topicCount)
	names := make([]string, topicCount)
	for i := range topics {
		names[i] = fmt.Sprintf("topic-%d", i)
		topics[i] = kafka.Topic{Name: names[i], Partitions: perTopic}
	}
	return topics, names
}

// benchMembers creates n members "member-i" subscribed like
// createHomogeneousMembers or createHeterogeneousBucketedMembers.
func benchMembers(n int, typ SubscriptionType, names []string) []Member {
	members := make([]Member, n)
	if typ == Homogeneous {
		for i := range members {
			members[i] = Member{ID: fmt.Sprintf("member-%d", i), Topics: names}
		}
		return members
	}
	buckets := min(maxBucketCount, n)
	topicsPerBucket := int(math.Ceil(float64(len(names)) / float64(buckets)))
	membersPerBucket := int(math.Ceil(float64(n) / float64(buckets)))
	for b := range buckets {
		lo, hi := b*topicsPerBucket, min((b+1)*topicsPerBucket, len(names))
		for i := b * membersPerBucket; i < min((b+1)*membersPerBucket, n); i++ {
			members[i] = Member{ID: fmt.Sprintf("member-%d", i), Topics: names[lo:hi]}
		}
	}
	return members
}

// incrementalSpec assigns g.members−1 members from scratch, then returns the
// spec with those targets as Current and one new, empty member appended. The
// new member subscribes to everything (homogeneous) or like member
// g.members−2 (heterogeneous), as ServerSideAssignorBenchmark does.
func incrementalSpec(tb testing.TB, a Assignor, g benchGroup) (GroupSpec, []kafka.Topic) {
	topics, names := benchTopics(g.members, g.ratio, g.topics)
	members := benchMembers(g.members-1, g.typ, names)
	first, err := a.Assign(GroupSpec{Members: members, Type: g.typ}, topics)
	if err != nil {
		tb.Fatal(err)
	}
	for i := range members {
		members[i].Current = first[members[i].ID]
	}
	newTopics := names
	if g.typ == Heterogeneous {
		newTopics = members[len(members)-1].Topics
	}
	members = append(members, Member{ID: "newMember", Topics: newTopics})
	return GroupSpec{Members: members, Type: g.typ}, topics
}

// benchGroups are points of ServerSideAssignorBenchmark's grid (memberCount
// × partitionsToMemberRatio × topicCount × subscriptionType): ratio 10 at
// 100, 1,000 and 10,000 members over 10 and 100 topics, where Kafka's
// published results are, and its largest shape, 10,000 members at ratio 50
// (500,000 partitions), besides the shapes of bench/.
var benchGroups = func() []benchGroup {
	var gs []benchGroup
	for _, typ := range []SubscriptionType{Homogeneous, Heterogeneous} {
		for _, members := range []int{100, 1000, 10000} {
			for _, topics := range []int{10, 100} {
				gs = append(gs, benchGroup{members: members, ratio: 10, topics: topics, typ: typ})
			}
		}
		gs = append(gs, benchGroup{members: 10000, ratio: 50, topics: 100, typ: typ})
	}
	// The groups of bench/: 1,000 and 10,000 members sharing one topic of
	// 100,000 partitions, whose target is recomputed on every epoch bump.
	for _, members := range []int{1000, 10000} {
		gs = append(gs, benchGroup{members: members, ratio: 100000 / members, topics: 1, typ: Homogeneous})
	}
	return gs
}()

// BenchmarkAssign times a full assignment (nobody holds anything) and an
// incremental one (one member joins a settled group) for both assignors,
// through Assign: every member's target as a map, keyed by member id.
func BenchmarkAssign(b *testing.B) {
	benchAssign(b, func(a Assignor, spec GroupSpec, topics []kafka.Topic) error {
		_, err := a.Assign(spec, topics)
		return err
	})
}

// BenchmarkAssignGroup is BenchmarkAssign through AssignGroup, the result
// in spec order without a map per member: what Kafka's
// ServerSideAssignorBenchmark.doAssignment times, PartitionAssignor.assign
// returning a GroupAssignment, in this package's representation.
func BenchmarkAssignGroup(b *testing.B) {
	benchAssign(b, func(a Assignor, spec GroupSpec, topics []kafka.Topic) error {
		_, err := AssignGroup(a, spec, topics)
		return err
	})
}

func benchAssign(b *testing.B, assign func(Assignor, GroupSpec, []kafka.Topic) error) {
	for _, a := range []Assignor{Uniform(), Range()} {
		for _, g := range benchGroups {
			b.Run(fmt.Sprintf("%s/%v/full", a.Name(), g), func(b *testing.B) {
				topics, names := benchTopics(g.members, g.ratio, g.topics)
				spec := GroupSpec{Members: benchMembers(g.members, g.typ, names), Type: g.typ}
				loopCPU(b, func() error { return assign(a, spec, topics) })
			})
			b.Run(fmt.Sprintf("%s/%v/incremental", a.Name(), g), func(b *testing.B) {
				spec, topics := incrementalSpec(b, a, g)
				loopCPU(b, func() error { return assign(a, spec, topics) })
			})
		}
	}
}

// BenchmarkAssignMillionPartitions is one member joining a settled group of
// 2,000 members that share 1,000,000 partitions (500 topics × 2,000).
func BenchmarkAssignMillionPartitions(b *testing.B) {
	g := benchGroup{members: 2000, ratio: 500, topics: 500, typ: Homogeneous}
	spec, topics := incrementalSpec(b, Uniform(), g)
	if n := topics[0].Partitions * int32(len(topics)); n != 1_000_000 {
		b.Fatalf("%d partitions, want 1,000,000", n)
	}
	loopCPU(b, func() error {
		_, err := Uniform().Assign(spec, topics)
		return err
	})
}

// targetGroup is the coordinator's view that TargetAssignmentBuilder starts
// from: members with their subscriptions, and the current target by member.
type targetGroup struct {
	members []Member // Current unset: the target lives in target
	target  map[string]kafka.Assignment
	typ     SubscriptionType
	topics  []kafka.Topic
}

// buildTarget does what TargetAssignmentBuilder.build does around the
// assignor: pair each member with its current target, run the assignor, and
// find the members whose target changed (those get a new target record). It
// returns the new target and the number of changed members.
func buildTarget(a Assignor, g *targetGroup) (map[string]kafka.Assignment, int, error) {
	members := make([]Member, len(g.members))
	for i, m := range g.members {
		m.Current = g.target[m.ID]
		members[i] = m
	}
	next, err := a.Assign(GroupSpec{Members: members, Type: g.typ}, g.topics)
	if err != nil {
		return nil, 0, err
	}
	changed := 0
	for _, m := range members {
		if !next[m.ID].Equal(m.Current) {
			changed++
		}
	}
	return next, changed, nil
}

// BenchmarkTargetAssignment follows TargetAssignmentBuilderBenchmark: an
// existing group of memberCount−1 members with a target, plus "newMember"
// subscribed to every topic, and the uniform assignor recomputing the target.
func BenchmarkTargetAssignment(b *testing.B) {
	for _, g := range benchGroups {
		b.Run(g.String(), func(b *testing.B) {
			topics, names := benchTopics(g.members, g.ratio, g.topics)
			members := benchMembers(g.members-1, g.typ, names)
			target, err := Uniform().Assign(GroupSpec{Members: members, Type: g.typ}, topics)
			if err != nil {
				b.Fatal(err)
			}
			members = append(members, Member{ID: "newMember", Topics: names})
			group := &targetGroup{members: members, target: target, typ: g.typ, topics: topics}
			loopCPU(b, func() error {
				_, _, err := buildTarget(Uniform(), group)
				return err
			})
		})
	}
}

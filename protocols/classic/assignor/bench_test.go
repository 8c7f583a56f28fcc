package assignor

import (
	"fmt"
	"testing"

	"github.com/rebalsim/rebalsim/kafka"
)

// The benchmarks follow Kafka's ClientSideAssignorBenchmark (reference §7):
// topicCount topics of memberCount×ratio/topicCount partitions each; FULL
// assigns a group that owns nothing, INCREMENTAL first assigns
// memberCount−1 members, feeds the result back as their owned partitions
// and times the assignment after one new member joins. Setup stays outside
// the timed loop.

type benchSize struct{ members, ratio, topics int }

func (s benchSize) String() string {
	return fmt.Sprintf("members=%d/ratio=%d/topics=%d", s.members, s.ratio, s.topics)
}

// benchGroup builds the input of one benchmark. With heterogeneous set,
// members and topics are split into min(5, members) buckets and each
// member subscribes to its bucket's topics, as in the JMH benchmark.
func benchGroup(a Assignor, s benchSize, incremental, heterogeneous bool) Input {
	perTopic := int32(s.members * s.ratio / s.topics)
	in := Input{}
	names := make([]string, s.topics)
	for t := range names {
		names[t] = fmt.Sprintf("topic%d", t)
		in.Topics = append(in.Topics, kafka.Topic{Name: names[t], Partitions: perTopic})
	}
	buckets := min(5, s.members)
	topicsPerBucket := (s.topics + buckets - 1) / buckets
	membersPerBucket := (s.members + buckets - 1) / buckets
	subscription := func(i int) []string {
		if !heterogeneous {
			return names
		}
		b := min(i/membersPerBucket, buckets-1)
		return names[b*topicsPerBucket : min((b+1)*topicsPerBucket, s.topics)]
	}
	for i := range s.members {
		in.Members = append(in.Members, Subscription{
			MemberID: fmt.Sprintf("member%d", i), Topics: subscription(i),
			Generation: -1, HasGeneration: true,
		})
	}
	if !incremental {
		return in
	}
	existing := Input{Topics: in.Topics, Members: in.Members[:s.members-1]}
	first := a.Assign(existing).Assignment
	for i := range s.members - 1 {
		in.Members[i].Owned = first[in.Members[i].MemberID]
	}
	return in
}

func runAssignorBench(b *testing.B, a Assignor, sizes []benchSize, heterogeneous bool) {
	for _, mode := range []string{"full", "incremental"} {
		for _, s := range sizes {
			b.Run(mode+"/"+s.String(), func(b *testing.B) {
				in := benchGroup(a, s, mode == "incremental", heterogeneous)
				b.ReportAllocs()
				for b.Loop() {
					a.Assign(in)
				}
			})
		}
	}
}

var jmhSizes = []benchSize{
	{100, 10, 10}, {100, 10, 100},
	{1000, 10, 10}, {1000, 10, 100},
	{10000, 10, 10}, {10000, 10, 100},
	{10000, 50, 100},
}

func BenchmarkCooperativeSticky(b *testing.B) {
	runAssignorBench(b, CooperativeSticky(), jmhSizes, false)
}

// BenchmarkCooperativeStickyMillionPartitions is 2,000 members subscribing
// to 500 topics of 2,000 partitions each, one member joining.
func BenchmarkCooperativeStickyMillionPartitions(b *testing.B) {
	benchOneJoining(b, benchSize{members: 2000, ratio: 500, topics: 500})
}

// benchOneJoining times cooperative-sticky on a group of size s that one
// member joins.
func benchOneJoining(b *testing.B, s benchSize) {
	a := CooperativeSticky()
	in := benchGroup(a, s, true, false)
	b.ReportAllocs()
	for b.Loop() {
		a.Assign(in)
	}
}

// BenchmarkCooperativeStickyHeterogeneous times the general path, which
// Kafka itself keeps for groups far smaller than the constrained path's.
func BenchmarkCooperativeStickyHeterogeneous(b *testing.B) {
	runAssignorBench(b, CooperativeSticky(), []benchSize{{100, 10, 10}, {1000, 10, 100}}, true)
}

func BenchmarkRange(b *testing.B) {
	runAssignorBench(b, Range(), []benchSize{{1000, 10, 100}, {10000, 10, 100}}, false)
}

// BenchmarkCooperativeStickyOneTopic is the leader's assignment in
// bench/rolling-restart-1000x100000.yaml: 1,000 members on one topic of
// 100,000 partitions, one of them rejoining with nothing.
func BenchmarkCooperativeStickyOneTopic(b *testing.B) {
	benchOneJoining(b, benchSize{members: 1000, ratio: 100, topics: 1})
}

package assignor

import (
	"slices"
	"strings"
)

// maxBalancingSweeps caps the final balancing phase, as MAX_ITERATION_COUNT
// does in UniformHeterogeneousAssignmentBuilder. When every subscriber of a
// topic has the same subscription one sweep balances it and a second one
// notices there is nothing left to do; overlapping subscriptions can need
// more, and Kafka accepts an almost-balanced result rather than run long.
const maxBalancingSweeps = 16

// heterogeneousBuilder is UniformHeterogeneousAssignmentBuilder: members
// subscribe to different topics, so a global quota makes no sense. Instead
// the builder keeps what it can, gives each unassigned partition to the
// least-loaded subscriber of its topic, then moves partitions from the most
// to the least loaded subscribers of each topic until every topic is
// balanced among its own subscribers (or the sweep cap is hit).
//
// Like Kafka's builder it works on member indices (GroupSpec order), an
// owner per partition and a partition count per member.
type heterogeneousBuilder struct {
	members []Member
	ti      *topicIndex
	subs    *subscriptions

	// subscriberStart/subscriberList hold each topic's subscribers in
	// ascending member index: topic t's are
	// subscriberList[subscriberStart[t]:subscriberStart[t+1]].
	subscriberStart []int
	subscriberList  []int32

	owner []int32 // global partition index → member index, -1 = unassigned
	sizes []int32 // member index → partitions in the new target

	balancer memberBalancer

	// converged records whether the balancing phase ended because a whole
	// sweep moved nothing (true) or because it hit maxBalancingSweeps.
	converged bool

	// Scratch space for balanceTopic, reused across topics and sweeps.
	slot       []int32 // member index → position among the topic's subscribers
	rangeStart []int32 // by slot: first index of the member's partitions in parts
	rangeEnd   []int32 // by slot: exclusive end, shrinks as partitions move away
	parts      []int32 // the topic's partitions grouped by owner
}

func assignHeterogeneous(members []Member, ti *topicIndex) (*GroupAssignment, error) {
	b := &heterogeneousBuilder{members: members, ti: ti}
	if !b.build() {
		return newGroupAssignment(ti, len(members)), nil
	}
	return buildAssignments(members, ti, b.owner), nil
}

// build runs the three phases and leaves the result in b.owner. It reports
// false when no member subscribes to an existing topic.
func (b *heterogeneousBuilder) build() bool {
	b.subs = resolveSubscriptions(b.members, b.ti)
	if b.subs.count == 0 {
		return false
	}
	b.indexSubscribers()
	b.owner = make([]int32, b.ti.total())
	for i := range b.owner {
		b.owner[i] = -1
	}
	b.sizes = make([]int32, len(b.members))
	b.balancer.sizes = b.sizes

	b.keepSubscribedPartitions()
	b.assignRemainingPartitions()
	b.converged = b.balance()
	return true
}

// indexSubscribers builds each topic's subscriber list. Members are visited
// in index order, so every list comes out ascending, as Kafka's
// topicSubscribers lists do.
func (b *heterogeneousBuilder) indexSubscribers() {
	nt := len(b.ti.names)
	b.subscriberStart = make([]int, nt+1)
	for m := range b.members {
		for _, t := range b.subs.of(m) {
			b.subscriberStart[t+1]++
		}
	}
	for t := 1; t <= nt; t++ {
		b.subscriberStart[t] += b.subscriberStart[t-1]
	}
	fill := make([]int, nt)
	copy(fill, b.subscriberStart[:nt])
	b.subscriberList = make([]int32, b.subs.count)
	for m := range b.members {
		for _, t := range b.subs.of(m) {
			b.subscriberList[fill[t]] = int32(m)
			fill[t]++
		}
	}
}

func (b *heterogeneousBuilder) subscribers(t int32) []int32 {
	return b.subscriberList[b.subscriberStart[t]:b.subscriberStart[t+1]]
}

// keepSubscribedPartitions is maybeRevokePartitions: each member keeps the
// partitions of its current target whose topic it still subscribes to and
// loses the rest. Nothing is taken away for balance yet.
func (b *heterogeneousBuilder) keepSubscribedPartitions() {
	// stamp[t] == m+1 marks topic t as subscribed by member m.
	stamp := make([]int32, len(b.ti.names))
	var topicsBuf []int32
	for m := range b.members {
		for _, t := range b.subs.of(m) {
			stamp[t] = int32(m + 1)
		}
		topicsBuf = currentTopics(topicsBuf, b.members[m].Current, b.ti)
		for _, t := range topicsBuf {
			if stamp[t] != int32(m+1) {
				continue
			}
			base, n := b.ti.offset[t], b.ti.counts[t]
			for _, p := range b.members[m].Current[b.ti.names[t]] {
				if p < 0 || p >= n {
					// Kafka never shrinks a topic; a partition number
					// beyond the metadata cannot be assigned.
					continue
				}
				g := base + int(p)
				if b.owner[g] >= 0 {
					// Claimed by an earlier member (inconsistent input) or
					// listed twice: the first claim wins.
					continue
				}
				b.owner[g] = int32(m)
				b.sizes[m]++
			}
		}
	}
}

// sortTopics orders topics as Kafka's topicComparator does: partitions per
// subscriber descending, then subscriber count ascending, then topic. Kafka
// breaks the last tie by topic id (a random UUID); rebalsim has no ids and
// uses the topic name, which is just as arbitrary and deterministic.
func (b *heterogeneousBuilder) sortTopics(topics []int32) {
	slices.SortFunc(topics, func(x, y int32) int {
		px, py := b.ti.counts[x], b.ti.counts[y]
		sx, sy := len(b.subscribers(x)), len(b.subscribers(y))
		// Kafka compares the ratios as doubles; so does this.
		rx, ry := float64(px)/float64(sx), float64(py)/float64(sy)
		switch {
		case rx > ry:
			return -1
		case rx < ry:
			return 1
		}
		if sx != sy {
			return sx - sy
		}
		return strings.Compare(b.ti.names[x], b.ti.names[y])
	})
}

// assignRemainingPartitions gives every partition nobody kept to the
// least-loaded subscriber of its topic, topics in sortTopics order and
// partitions ascending. Topics with many partitions per subscriber go first
// because they are the hardest to spread evenly later.
func (b *heterogeneousBuilder) assignRemainingPartitions() {
	var topics []int32
	for t := range b.ti.names {
		if len(b.subscribers(int32(t))) == 0 {
			continue
		}
		base := b.ti.offset[t]
		for p := 0; p < int(b.ti.counts[t]); p++ {
			if b.owner[base+p] < 0 {
				topics = append(topics, int32(t))
				break
			}
		}
	}
	b.sortTopics(topics)
	for _, t := range topics {
		b.balancer.initialize(b.subscribers(t))
		base := b.ti.offset[t]
		for p := 0; p < int(b.ti.counts[t]); p++ {
			if b.owner[base+p] >= 0 {
				continue
			}
			m := b.balancer.nextLeastLoaded()
			b.owner[base+p] = m
			b.sizes[m]++
		}
	}
}

// balance sweeps the topics that have two or more subscribers (the only ones
// whose partitions can move), in sortTopics order, and stops after a full
// sweep moves nothing or after maxBalancingSweeps sweeps (balanceTopics). It
// reports whether it stopped because nothing moved any more.
func (b *heterogeneousBuilder) balance() bool {
	var topics []int32
	maxSubs, maxParts := 0, 0
	for t := range b.ti.names {
		n := len(b.subscribers(int32(t)))
		if n < 2 {
			continue
		}
		topics = append(topics, int32(t))
		maxSubs = max(maxSubs, n)
		maxParts = max(maxParts, int(b.ti.counts[t]))
	}
	if len(topics) == 0 {
		return true
	}
	b.sortTopics(topics)
	b.slot = make([]int32, len(b.members))
	b.rangeStart = make([]int32, maxSubs)
	b.rangeEnd = make([]int32, maxSubs)
	b.parts = make([]int32, maxParts)

	// lastMoved is the index of the last topic that moved a partition (or
	// the first topic, before anything has). Coming back round to it means
	// a whole sweep moved nothing.
	lastMoved := -1
	for sweep := 0; sweep < maxBalancingSweeps; sweep++ {
		for i, t := range topics {
			if i == lastMoved {
				return true
			}
			if b.balanceTopic(t) > 0 || lastMoved == -1 {
				lastMoved = i
			}
		}
	}
	return false
}

// balanceTopic moves partitions of topic t from its most to its least loaded
// subscribers until their levels differ by one or less, and returns how many
// moved. Each donor gives up its highest-numbered partition of the topic
// first, which Kafka gets by sorting the topic's partitions by (owner,
// partition) and taking from the end of each owner's run.
func (b *heterogeneousBuilder) balanceTopic(t int32) int {
	subs := b.subscribers(t)
	if b.balancer.initialize(subs) <= 1 {
		return 0
	}

	// Group the topic's partitions by owner with a counting sort: owners are
	// subscribers, whose slots follow member index, so this is the same
	// order as Kafka's comparator gives.
	for i, m := range subs {
		b.slot[m] = int32(i)
		b.rangeEnd[i] = 0
	}
	base, n := b.ti.offset[t], int(b.ti.counts[t])
	owners := b.owner[base : base+n]
	for _, m := range owners {
		b.rangeEnd[b.slot[m]]++
	}
	var at int32
	for i := range subs {
		c := b.rangeEnd[i]
		b.rangeStart[i] = at
		b.rangeEnd[i] = at
		at += c
	}
	for p, m := range owners {
		s := b.slot[m]
		b.parts[b.rangeEnd[s]] = int32(p)
		b.rangeEnd[s]++
	}

	moved := 0
	for !b.balancer.balanced() {
		// Find a most-loaded member that still has a partition of this
		// topic to give up.
		donor := int32(-1)
		for {
			donor = b.balancer.nextMostLoaded()
			if donor < 0 {
				break
			}
			s := b.slot[donor]
			if b.rangeEnd[s]-b.rangeStart[s] <= 0 {
				b.balancer.excludeMostLoaded()
				continue
			}
			break
		}
		if donor < 0 {
			break
		}
		s := b.slot[donor]
		b.rangeEnd[s]--
		p := b.parts[b.rangeEnd[s]]

		receiver := b.balancer.nextLeastLoaded()
		if b.balancer.balanced() {
			break
		}
		b.owner[base+int(p)] = receiver
		b.sizes[donor]--
		b.sizes[receiver]++
		moved++
	}
	return moved
}

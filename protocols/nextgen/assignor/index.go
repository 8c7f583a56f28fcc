package assignor

import (
	"fmt"
	"hash/maphash"
	"slices"

	"github.com/rebalsim/rebalsim/kafka"
)

// topicIndex numbers the group's topics 0..T-1 in the order the caller gave
// them and every partition of every topic 0..P-1 ("global index"), so that the
// builders can keep owners and counts in flat int32 slices instead of maps.
// Kafka's builders do the same with member indices and int[] owner arrays
// (UniformHeterogeneousAssignmentBuilder.targetAssignmentPartitionOwners);
// here it is extended to topics so that a 500,000-partition group costs a few
// slices, not a few hundred thousand small allocations.
type topicIndex struct {
	names  []string
	counts []int32
	// offset[t] is the global index of partition 0 of topic t; offset[T] is
	// the total number of partitions.
	offset []int
	// byName is built on the first lookup that lookupNear cannot answer:
	// a homogeneous group whose subscription lists the topics in
	// metadata order needs none.
	byName map[string]int32
}

func newTopicIndex(topics []kafka.Topic) (*topicIndex, error) {
	ti := &topicIndex{
		names:  make([]string, len(topics)),
		counts: make([]int32, len(topics)),
		offset: make([]int, len(topics)+1),
	}
	for i, t := range topics {
		if t.Partitions < 0 {
			return nil, fmt.Errorf("topic %q has %d partitions; a partition count must be zero or more", t.Name, t.Partitions)
		}
		ti.names[i] = t.Name
		ti.counts[i] = t.Partitions
		ti.offset[i+1] = ti.offset[i] + int(t.Partitions)
	}
	if dup, ok := duplicate(ti.names); ok {
		return nil, fmt.Errorf("topic %q is listed twice in the topic metadata", dup)
	}
	return ti, nil
}

// duplicate returns the first name of names that an earlier one repeats,
// if any: at once when names ascend, as a coordinator's usually do, else
// through a small hash table of indices (not a Go map, nor a sorted copy
// of the strings: this runs on every assignment). The table's seed only
// places the entries; which name is reported does not depend on it.
func duplicate(names []string) (string, bool) {
	ascending := true
	for i := 1; i < len(names) && ascending; i++ {
		ascending = names[i-1] < names[i]
	}
	if ascending {
		return "", false
	}
	size := 1
	for size < 2*len(names) {
		size <<= 1
	}
	slots := make([]int32, size) // index+1 of the name there, 0 = empty
	seed := maphash.MakeSeed()
	for i, name := range names {
		for h := maphash.String(seed, name); ; h++ {
			slot := &slots[h&uint64(size-1)]
			if *slot == 0 {
				*slot = int32(i + 1)
				break
			}
			if names[*slot-1] == name {
				return name, true
			}
		}
	}
	return "", false
}

// topicOf returns the topic of global partition index g, the last topic
// whose partitions start at or before g (g < total).
func (ti *topicIndex) topicOf(g int32) int {
	t, found := slices.BinarySearch(ti.offset, int(g))
	if !found {
		t--
	}
	// Empty topics share their offset with the next one: skip them.
	for int(g) >= ti.offset[t+1] {
		t++
	}
	return t
}

// total is the number of partitions over all topics.
func (ti *topicIndex) total() int { return ti.offset[len(ti.names)] }

// lookup returns the index of the named topic, or -1 when the topic does not
// exist. A subscription to a missing topic is not an error: Kafka resolves
// subscribed names against the metadata image before it calls an assignor
// (TopicIds), so a topic that does not exist yet is simply not subscribed.
func (ti *topicIndex) lookup(name string) int32 {
	if ti.byName == nil {
		ti.byName = make(map[string]int32, len(ti.names))
		for i, name := range ti.names {
			ti.byName[name] = int32(i)
		}
	}
	if t, ok := ti.byName[name]; ok {
		return t
	}
	return -1
}

// lookupNear is lookup that tries topic guess first: comparing a name
// with the metadata's own string (the same pointer) is cheaper than
// hashing it.
func (ti *topicIndex) lookupNear(name string, guess int32) int32 {
	if guess >= 0 && int(guess) < len(ti.names) && ti.names[guess] == name {
		return guess
	}
	if next := guess + 1; next >= 0 && int(next) < len(ti.names) && ti.names[next] == name {
		return next
	}
	return ti.lookup(name)
}

// subscriptions holds every member's subscribed, existing topics as topic
// indices in ascending (caller) order. The lists share one backing array.
type subscriptions struct {
	byMember [][]int32
	// count is the total number of (member, topic) subscriptions.
	count int
}

func (s *subscriptions) of(m int) []int32 { return s.byMember[m] }

// resolveSubscriptions maps each member's topic names to topic indices,
// dropping topics that do not exist and duplicates, and sorting them in
// caller order so that no Go map order reaches the builders.
func resolveSubscriptions(members []Member, ti *topicIndex) *subscriptions {
	n := 0
	for i := range members {
		n += len(members[i].Topics)
	}
	all := make([]int32, 0, n)
	s := &subscriptions{byMember: make([][]int32, len(members))}
	// stamp[t] == m+1 marks topic t as already seen for member m; it avoids
	// clearing a set between members.
	stamp := make([]int32, len(ti.names))
	for m := range members {
		from := len(all)
		for _, name := range members[m].Topics {
			t := ti.lookup(name)
			if t < 0 || stamp[t] == int32(m+1) {
				continue
			}
			stamp[t] = int32(m + 1)
			all = append(all, t)
		}
		sortInt32(all[from:])
		s.byMember[m] = all[from:len(all):len(all)]
	}
	s.count = len(all)
	return s
}

// sameSubscriptions gives every one of n members the topics of member
// "leader" in s. Kafka's homogeneous code paths read one member's
// subscription and assume it is everyone's.
func sameSubscriptions(s *subscriptions, leader, n int) *subscriptions {
	topics := s.byMember[leader]
	out := &subscriptions{byMember: make([][]int32, n), count: n * len(topics)}
	for m := range out.byMember {
		out.byMember[m] = topics
	}
	return out
}

// currentTopics appends to buf the indices of the existing topics in the
// member's current assignment, in caller order. Kafka walks the member's
// assignment map in its own iteration order; rebalsim fixes that order to the
// topic order the caller passed (the vectors' reproduce_with.topic_order).
func currentTopics(buf []int32, current kafka.Assignment, ti *topicIndex) []int32 {
	buf = buf[:0]
	for name := range current {
		if t := ti.lookup(name); t >= 0 {
			buf = append(buf, t)
		}
	}
	sortInt32(buf)
	return buf
}

// sortInt32 is an insertion sort: the slices it sees (one member's topics)
// are short, and it does not allocate.
func sortInt32(a []int32) {
	for i := 1; i < len(a); i++ {
		for j := i; j > 0 && a[j] < a[j-1]; j-- {
			a[j], a[j-1] = a[j-1], a[j]
		}
	}
}

// byID keys each member's assignment by member id, and rejects a GroupSpec
// that names a member twice: the second would silently overwrite the first.
// The map has one key per distinct id, so a valid spec costs nothing more;
// only a short map pays for finding the culprit.
func byID(members []Member, each []kafka.Assignment) (map[string]kafka.Assignment, error) {
	out := make(map[string]kafka.Assignment, len(members))
	for i := range members {
		out[members[i].ID] = each[i]
	}
	if len(out) == len(members) {
		return out, nil
	}
	seen := make(map[string]struct{}, len(members))
	for i := range members {
		id := members[i].ID
		if _, dup := seen[id]; dup {
			return nil, fmt.Errorf("member %q appears twice in the group spec", id)
		}
		seen[id] = struct{}{}
	}
	return out, nil
}

// buildAssignments turns a flat owner slice (global partition index → member
// index, or a negative value for "nobody") into the result, in member
// order. A counting sort lays the partitions out member by member, each
// member's ascending.
//
// A member whose new assignment equals its current one keeps the current
// map itself: in a large group most members keep what they had (often
// nothing), and the coordinator treats targets as read-only.
func buildAssignments(members []Member, ti *topicIndex, owner []int32) *GroupAssignment {
	nm := len(members)
	// next[m] starts as the count of member m's partitions and becomes the
	// write position of member m in the sorted array; start[m] keeps
	// where member m's partitions begin. One allocation holds both: a
	// large group recomputes its target on every join.
	positions := make([]int32, 2*(nm+1))
	next, start := positions[:nm+1], positions[nm+1:]
	for _, m := range owner {
		if m >= 0 {
			next[m+1]++
		}
	}
	for m := 1; m <= nm; m++ {
		next[m] += next[m-1]
	}
	copy(start, next)
	parts := make([]int32, start[nm])
	for g, m := range owner {
		if m < 0 {
			continue
		}
		parts[next[m]] = int32(g)
		next[m]++
	}
	out := newGroupAssignment(ti, nm)
	out.parts = parts
	out.spans = make([]memberSpan, 0, nm)
	for m := 0; m < nm; m++ {
		lo, hi := int(start[m]), int(start[m+1])
		if cur := members[m].Current; cur != nil && ti.sameAsGlobal(cur, parts[lo:hi]) {
			out.keep(m)
			continue
		}
		out.set(m, lo, hi)
	}
	return out
}

// Package kafka holds the vocabulary every layer of rebalsim shares: topics,
// partitions, assignments and the names Kafka gives to rebalance protocols.
//
// It is a leaf package with no behaviour beyond small set operations on
// assignments, so that assignors, protocol models, the simulator and the
// reports speak about partitions in the same types. Every function that
// returns a collection returns it in a deterministic order (topics by name,
// partitions ascending): nothing here leaks Go map iteration order.
package kafka

import (
	"cmp"
	"fmt"
	"slices"
	"sort"
	"strings"
	"unsafe"
)

// TopicPartition names one partition of one topic.
type TopicPartition struct {
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
}

func (tp TopicPartition) String() string { return fmt.Sprintf("%s-%d", tp.Topic, tp.Partition) }

// Less orders partitions by topic name, then partition number.
func (tp TopicPartition) Less(o TopicPartition) bool {
	if tp.Topic != o.Topic {
		return tp.Topic < o.Topic
	}
	return tp.Partition < o.Partition
}

// Compare orders partitions by topic name, then partition number.
func (tp TopicPartition) Compare(o TopicPartition) int {
	if c := strings.Compare(tp.Topic, o.Topic); c != 0 {
		return c
	}
	return cmp.Compare(tp.Partition, o.Partition)
}

// SortPartitions sorts tps in (topic, partition) order.
func SortPartitions(tps []TopicPartition) {
	slices.SortFunc(tps, TopicPartition.Compare)
}

// Topic is a topic's metadata as the group sees it.
type Topic struct {
	Name       string `json:"name"`
	Partitions int32  `json:"partitions"`
}

// Assignment maps a topic name to a set of its partitions. Partition lists
// are kept sorted ascending and free of duplicates by the functions in this
// package; code that builds one by hand should call Normalize.
type Assignment map[string][]int32

// Topics returns the assignment's topics that hold at least one partition,
// sorted by name.
func (a Assignment) Topics() []string {
	ts := make([]string, 0, len(a))
	for t, ps := range a {
		if len(ps) > 0 {
			ts = append(ts, t)
		}
	}
	sort.Strings(ts)
	return ts
}

// Size is the number of partitions in the assignment.
func (a Assignment) Size() int {
	n := 0
	for _, ps := range a {
		n += len(ps)
	}
	return n
}

// Partitions lists the assignment as sorted topic-partitions.
func (a Assignment) Partitions() []TopicPartition {
	out := make([]TopicPartition, 0, a.Size())
	for _, t := range a.Topics() {
		for _, p := range a[t] {
			out = append(out, TopicPartition{t, p})
		}
	}
	return out
}

// Contains reports whether the assignment holds tp.
func (a Assignment) Contains(tp TopicPartition) bool {
	_, ok := slices.BinarySearch(a[tp.Topic], tp.Partition)
	return ok
}

// Clone returns a deep copy.
func (a Assignment) Clone() Assignment {
	c := make(Assignment, len(a))
	for t, ps := range a {
		if len(ps) > 0 {
			c[t] = slices.Clone(ps)
		}
	}
	return c
}

// Normalize sorts and de-duplicates every partition list in place and drops
// empty topics.
func (a Assignment) Normalize() Assignment {
	for t, ps := range a {
		if len(ps) == 0 {
			delete(a, t)
			continue
		}
		slices.Sort(ps)
		a[t] = slices.Compact(ps)
	}
	return a
}

// sameMap tells whether a and b are the same map: a map value is a
// pointer to the map, which Go compares only with nil.
func sameMap(a, b Assignment) bool {
	return *(*unsafe.Pointer)(unsafe.Pointer(&a)) == *(*unsafe.Pointer)(unsafe.Pointer(&b))
}

// Equal reports whether two assignments hold the same partitions.
func (a Assignment) Equal(b Assignment) bool {
	if len(a) == len(b) {
		// The models replace an assignment rather than change it, so they
		// often compare one with itself (a member's before and after a
		// heartbeat that changed nothing): the same map needs no walk.
		if sameMap(a, b) {
			return true
		}
		// The usual case, where no topic is listed empty: as many topics,
		// each of a's in b with the same partitions, is the same topics
		// and partitions, found in one walk of a. Any difference (which
		// may be only an empty list) is left to the full comparison.
		same := true
		for t, ps := range a {
			if qs, ok := b[t]; !ok || !slices.Equal(ps, qs) {
				same = false
				break
			}
		}
		if same {
			return true
		}
	}
	if a.Size() != b.Size() {
		return false
	}
	for t, ps := range a {
		if !slices.Equal(ps, b[t]) {
			return false
		}
	}
	return true
}

// Minus returns the partitions of a that are not in b; nil if there are
// none (a nil Assignment reads as empty, and most differences a consumer
// computes during a rebalance are empty).
func (a Assignment) Minus(b Assignment) Assignment {
	return a.merge(b, false)
}

// Intersect returns the partitions in both a and b; nil if there are none.
func (a Assignment) Intersect(b Assignment) Assignment {
	return a.merge(b, true)
}

// merge walks each topic's two sorted lists side by side and keeps a's
// partitions that are in b (both) or not in b (!both): one pass, and one
// map lookup per topic, not per partition (a consumer of a large group
// computes these differences on every rebalance).
func (a Assignment) merge(b Assignment, both bool) Assignment {
	var out Assignment
	for t, ps := range a {
		other := b[t]
		if !both && (sameList(ps, other) || slices.Equal(ps, other)) {
			// Nothing of this topic is left, as in most of a member's
			// differences after a rebalance that left it as it was: one
			// comparison of memory, not a walk, and none at all when the
			// assignor handed the member its own list back.
			continue
		}
		var kept []int32
		j, try := 0, 0
		for i := 0; i < len(ps); i++ {
			if i >= try {
				// The lists agree on a run from here, as a member's old
				// and new lists mostly do: blocks compared, not one
				// partition at a time. The last of the run is handled
				// below, which leaves j on it as the walk would. Past a
				// block that differs the walk goes a block one by one
				// before it tries again.
				if n := commonRun(ps[i:], other[j:]); n > 0 {
					if both {
						kept = append(kept, ps[i:i+n-1]...)
					}
					i, j = i+n-1, j+n-1
				}
				try = i + runBlock
			}
			p := ps[i]
			for j < len(other) && other[j] < p {
				j++
			}
			if (j < len(other) && other[j] == p) == both {
				kept = append(kept, p)
			}
		}
		if len(kept) > 0 {
			if out == nil {
				out = Assignment{}
			}
			out[t] = kept
		}
	}
	return out
}

// runBlock is how many partitions commonRun compares at once.
const runBlock = 64

// commonRun is the length, a multiple of runBlock, of a run of equal
// partitions at the start of both a and b.
func commonRun(a, b []int32) int {
	n := 0
	for n+runBlock <= len(a) && n+runBlock <= len(b) && [runBlock]int32(a[n:n+runBlock]) == [runBlock]int32(b[n:n+runBlock]) {
		n += runBlock
	}
	return n
}

// sameList reports whether a and b are one list: the same length over
// the same memory.
func sameList(a, b []int32) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// Union returns the partitions in a or b.
func (a Assignment) Union(b Assignment) Assignment {
	out := a.Clone()
	for t, ps := range b {
		out[t] = append(out[t], ps...)
	}
	return out.Normalize()
}

// FromPartitions builds an assignment from a list of topic-partitions.
func FromPartitions(tps []TopicPartition) Assignment {
	a := Assignment{}
	for _, tp := range tps {
		a[tp.Topic] = append(a[tp.Topic], tp.Partition)
	}
	return a.Normalize()
}

// String renders the assignment compactly and deterministically, e.g.
// "orders[0 1 2] payments[3]".
func (a Assignment) String() string {
	var b strings.Builder
	for i, t := range a.Topics() {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%s%v", t, a[t])
	}
	return b.String()
}

// RebalanceProtocol is a classic-protocol client's rebalance protocol
// (ConsumerPartitionAssignor.RebalanceProtocol). Higher is newer.
type RebalanceProtocol int

const (
	Eager RebalanceProtocol = iota
	Cooperative
)

func (p RebalanceProtocol) String() string {
	if p == Cooperative {
		return "COOPERATIVE"
	}
	return "EAGER"
}

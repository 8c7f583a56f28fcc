package assignor

import (
	"slices"

	"github.com/rebalsim/rebalsim/internal/javaorder"
)

// javaSetOrder returns ps in the order Kafka's group coordinator iterates a
// member's partitions of one topic, which decides which of them the member
// keeps when it must give some up (UniformHomogeneousAssignmentBuilder
// .maybeRevokePartitions keeps the first ones). The coordinator holds a
// target as a java.util.HashSet<Integer> rebuilt from the target record's
// list (Assignment.fromRecord), and a HashSet iterates bucket by bucket:
//
//   - the bucket of partition p is (p ^ p>>>16) & (capacity-1), Integer's
//     hash spread as HashMap.hash spreads it;
//   - the capacity of new HashSet<>(list) is the power of two that
//     HashMap.newHashMap(max(n, 12)) sizes for n elements, at least
//     ceil(n/0.75) (Java 21, the JVM of Kafka's own images);
//   - within a bucket, in list order.
//
// So partitions below the capacity (always at least 16) come in ascending
// order, and a member holding higher ones sees them wrap: a member holding
// 20-39 of a topic (capacity 32) iterates 32-39 before 20-31, keeps those
// and gives up the highest of 20-31. Kafka's list order is the order in
// which the previous target set iterated, which rebalsim does not keep;
// ps is ascending, so two partitions of one bucket come in ascending order
// here, and the result is exact whenever no two of the member's partitions
// share a bucket. A bucket of eight that makes Java grow or treeify the
// table is not modelled either.
//
// ps is returned as it is when its order is already the iteration order;
// otherwise the order is built in *buf.
func javaSetOrder(ps []int32, buf *[]int32) []int32 {
	capacity := javaSetCapacity(len(ps))
	mask := uint32(capacity - 1)
	bucket := func(p int32) int { return javaorder.HashMapBucket(uint32(p), capacity) }
	inOrder := true
	for i, p := range ps {
		if p < 0 || uint32(p) > mask || (i > 0 && p <= ps[i-1]) {
			inOrder = false
			break
		}
	}
	if inOrder {
		return ps
	}
	// Sort (bucket, position in ps) pairs packed in one word each: a
	// plain sort of integers, stable by construction, with no comparison
	// function to call (a member giving partitions up runs this on every
	// epoch bump that shrinks its quota).
	var stack [256]uint64
	keys := stack[:0]
	if len(ps) > len(stack) {
		keys = make([]uint64, 0, len(ps))
	}
	for i, p := range ps {
		keys = append(keys, uint64(bucket(p))<<32|uint64(i))
	}
	slices.Sort(keys)
	*buf = (*buf)[:0]
	for _, k := range keys {
		*buf = append(*buf, ps[uint32(k)])
	}
	return *buf
}

// javaSetCapacity is the table size of new HashSet<>(c) for a collection of
// n elements on Java 21: HashMap.newHashMap(max(n, 12)), whose initial
// capacity ceil(n/0.75) HashMap rounds up to a power of two.
func javaSetCapacity(n int) int {
	need := (4*max(n, 12) + 2) / 3 // ceil(n / 0.75)
	capacity := 1
	for capacity < need {
		capacity <<= 1
	}
	return capacity
}

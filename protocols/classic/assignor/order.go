package assignor

import (
	"cmp"
	"slices"
	"unicode/utf8"
)

// memberInfoOrder returns member indices sorted the way
// AbstractPartitionAssignor.MemberInfo.compareTo sorts them: static members
// (with a group.instance.id) first, by instance id, then dynamic members by
// member id. Range and roundrobin hand out partitions in this order, which
// is what keeps their output stable across restarts of static members
// (reference §2.9). Equal instance ids fall back to the member id so that
// the order stays total.
func memberInfoOrder(members []Subscription) []int32 {
	order := make([]int32, len(members))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int {
		x, y := &members[a], &members[b]
		switch {
		case x.InstanceID != "" && y.InstanceID != "":
			if c := cmp.Compare(x.InstanceID, y.InstanceID); c != 0 {
				return c
			}
		case x.InstanceID != "":
			return -1
		case y.InstanceID != "":
			return 1
		}
		return cmp.Compare(x.MemberID, y.MemberID)
	})
	return order
}

// kafkaIterationOrder returns member indices in the order in which Kafka's
// group leader iterates its subscriptions.
//
// ConsumerCoordinator.onLeaderElected collects the JoinGroup members into a
// java.util.HashMap<String, Subscription>, and AbstractStickyAssignor walks
// that map (and maps built from it) whenever its outcome depends on who
// comes first: which members keep maxQuota partitions in the constrained
// path, the order of each topic's potential consumers in the general path,
// and which previous owner wins a tie. A HashMap iterates bucket by bucket,
// and within a bucket in insertion order. rebalsim reproduces that order
// exactly instead of inventing one, so that its sticky results match
// Kafka's, including the exact assertions of AbstractStickyAssignorTest:
//
//   - the bucket of a key is (h ^ h>>>16) & (capacity-1), h being Java's
//     String.hashCode over UTF-16 code units;
//   - the capacity is the table size a default HashMap (16 buckets, load
//     factor 0.75) grows to while n keys are inserted;
//   - insertion order is the order of Input.Members, i.e. of the JoinGroup
//     response.
//
// The one thing not modelled is treeification, which only starts when eight
// keys share one bucket of a table of at least 64; with real member ids
// that does not happen.
func kafkaIterationOrder(members []Subscription) []int32 {
	capacity := uint32(16)
	for uint64(len(members))*4 > uint64(capacity)*3 {
		capacity *= 2
	}
	// A counting sort by bucket keeps insertion order within a bucket.
	bucket := make([]uint32, len(members))
	start := make([]int32, capacity+1)
	for i, m := range members {
		h := javaStringHash(m.MemberID)
		bucket[i] = (h ^ h>>16) & (capacity - 1)
		start[bucket[i]+1]++
	}
	for b := range capacity {
		start[b+1] += start[b]
	}
	order := make([]int32, len(members))
	for i, b := range bucket {
		order[start[b]] = int32(i)
		start[b]++
	}
	return order
}

// javaStringHash is java.lang.String.hashCode: s[0]*31^(n-1) + ... + s[n-1]
// over the string's UTF-16 code units, in 32-bit wrapping arithmetic.
func javaStringHash(s string) uint32 {
	var h uint32
	for _, r := range s {
		if r >= 0x10000 && r <= utf8.MaxRune {
			// A supplementary character is two UTF-16 code units.
			r -= 0x10000
			h = 31*h + uint32(0xD800+(r>>10))
			h = 31*h + uint32(0xDC00+(r&0x3FF))
			continue
		}
		h = 31*h + uint32(r)
	}
	return h
}

// idRanks returns each member's rank when members are sorted by member id,
// the tie-break of the sticky assignors' TreeSet and of the sorted
// unfilled-member lists.
func idRanks(members []Subscription) []int32 {
	byID := make([]int32, len(members))
	for i := range byID {
		byID[i] = int32(i)
	}
	slices.SortFunc(byID, func(a, b int32) int { return cmp.Compare(members[a].MemberID, members[b].MemberID) })
	rank := make([]int32, len(members))
	for r, m := range byID {
		rank[m] = int32(r)
	}
	return rank
}

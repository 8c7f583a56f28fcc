package assignor

import (
	"cmp"
	"slices"
	"strings"

	"github.com/rebalsim/rebalsim/internal/javaorder"
)

// memberInfoOrder returns member indices sorted the way
// AbstractPartitionAssignor.MemberInfo.compareTo sorts them: static members
// (with a group.instance.id) first, by instance id, then dynamic members by
// member id. Range and roundrobin hand out partitions in this order, which
// is what keeps their output stable across restarts of static members
// (reference §2.9). Equal instance ids fall back to the member id so that
// the order stays total.
func memberInfoOrder(members []Subscription) []int32 {
	// The static members come first, so the order is two sorts, each by
	// one key: cheaper than one sort whose comparison tells the kinds
	// apart first. Member ids are unique within a group, so either way
	// the order is the one total order.
	byKey := make([]keyed, 0, len(members))
	for i := range members {
		if id := members[i].InstanceID; id != "" {
			byKey = append(byKey, keyed{prefix: prefixOf(id), key: id, m: int32(i)})
		}
	}
	static := len(byKey)
	for i := range members {
		if members[i].InstanceID == "" {
			id := members[i].MemberID
			byKey = append(byKey, keyed{prefix: prefixOf(id), key: id, m: int32(i)})
		}
	}
	slices.SortFunc(byKey[:static], func(a, b keyed) int {
		if c := a.compare(b); c != 0 {
			return c
		}
		return strings.Compare(members[a.m].MemberID, members[b.m].MemberID)
	})
	slices.SortFunc(byKey[static:], keyed.compare)
	order := make([]int32, len(byKey))
	for i, e := range byKey {
		order[i] = e.m
	}
	return order
}

// keyed is a member index beside the string it sorts by and that
// string's prefix (prefixOf): the comparisons of a sort then read one
// array rather than every Subscription, and most are settled by the
// prefixes alone.
type keyed struct {
	prefix uint64
	key    string
	m      int32
}

// compare orders by key, as strings.Compare does.
func (a keyed) compare(b keyed) int {
	if a.prefix != b.prefix {
		return cmp.Compare(a.prefix, b.prefix)
	}
	return strings.Compare(a.key, b.key)
}

// prefixOf is s's first eight bytes as a big-endian number, a shorter s
// padded with zero bytes. Two strings whose prefixes differ compare as
// their prefixes do (the first differing byte is within the eight, or the
// shorter string ends there), so only equal prefixes need the strings.
func prefixOf(s string) uint64 {
	var p uint64
	for i := range 8 {
		p <<= 8
		if i < len(s) {
			p |= uint64(s[i])
		}
	}
	return p
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
//   - the keys are the member ids, hashed by String.hashCode;
//   - the capacity is the table size a default HashMap grows to while n
//     keys are inserted;
//   - insertion order is the order of Input.Members, i.e. of the JoinGroup
//     response.
//
// (javaorder has the table's rules.)
func kafkaIterationOrder(members []Subscription) []int32 {
	capacity := javaorder.HashMapCapacity(len(members))
	return javaorder.HashMapOrder(len(members), capacity, func(i int) uint32 { return javaorder.StringHash(members[i].MemberID) })
}

// idRanks returns each member's rank when members are sorted by member id,
// the tie-break of the sticky assignors' TreeSet and of the sorted
// unfilled-member lists.
func idRanks(members []Subscription) []int32 {
	byID := make([]keyed, len(members))
	for i := range byID {
		id := members[i].MemberID
		byID[i] = keyed{prefix: prefixOf(id), key: id, m: int32(i)}
	}
	slices.SortFunc(byID, func(a, b keyed) int {
		if c := a.compare(b); c != 0 {
			return c
		}
		return cmp.Compare(a.m, b.m)
	})
	rank := make([]int32, len(members))
	for r, e := range byID {
		rank[e.m] = int32(r)
	}
	return rank
}

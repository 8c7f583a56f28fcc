package assignor

import (
	"maps"
	"slices"

	"github.com/rebalsim/rebalsim/kafka"
)

// universe is an assignor's integer view of one Input. It holds the topics
// that at least one member subscribes to and that exist with at least one
// partition (AbstractPartitionAssignor.assign builds partitionsPerTopic the
// same way), numbered in name order, and gives every partition a global
// index: ascending global index is (topic name, partition) order, which is
// the order Kafka sorts partitions in before handing them out.
//
// Working on int32 indices keeps the hot loops free of string hashing and
// of per-partition allocations; names come back only when the result is
// built.
type universe struct {
	members []Subscription
	scratch *Scratch // the caller's, or nil
	names   []string // subscribed existing topics, sorted by name
	index   map[string]int32
	// offset[t] is the global index of partition 0 of topic t;
	// offset[len(names)] is the number of partitions.
	offset []int32
	// subs[m] lists member m's subscribed existing topics, ascending and
	// without duplicates. Members whose Topics slices are element-wise equal
	// share one backing slice, which is why it must never be modified.
	subs [][]int32
	// equalSubscriptions reports whether every member's raw subscription
	// (including topics that do not exist) is the same set; see
	// allSubscriptionsEqual.
	equalSubscriptions bool
}

func newUniverse(in Input) *universe {
	u := &universe{members: in.Members, scratch: in.Scratch}
	counts := make(map[string]int32, len(in.Topics))
	for _, t := range in.Topics {
		if _, dup := counts[t.Name]; !dup {
			counts[t.Name] = t.Partitions
		}
	}

	// Collect the subscribed existing topics; their indices are set once
	// the names are sorted. Large groups usually share one subscription, so
	// a member whose topic list equals its predecessor's is skipped here
	// and shares its resolved list below. This is only a fast path: the
	// same topics in another order still compare equal as sets.
	index := make(map[string]int32)
	for m, s := range in.Members {
		if m > 0 && slices.Equal(s.Topics, in.Members[m-1].Topics) {
			continue
		}
		for _, name := range s.Topics {
			if n := counts[name]; n > 0 {
				index[name] = 0
			}
		}
	}
	u.names = make([]string, 0, len(index))
	for name := range index {
		u.names = append(u.names, name)
	}
	slices.Sort(u.names)
	u.offset = make([]int32, len(u.names)+1)
	for t, name := range u.names {
		index[name] = int32(t)
		u.offset[t+1] = u.offset[t] + counts[name]
	}

	u.index = index
	u.subs = make([][]int32, len(in.Members))
	u.equalSubscriptions = true
	var first map[string]bool
	for m, s := range in.Members {
		if m > 0 && slices.Equal(s.Topics, in.Members[m-1].Topics) {
			u.subs[m] = u.subs[m-1]
			continue
		}
		var ts []int32
		for _, name := range s.Topics {
			if t, ok := index[name]; ok {
				ts = append(ts, t)
			}
		}
		slices.Sort(ts)
		u.subs[m] = slices.Compact(ts)
		if m == 0 {
			first = topicSet(s.Topics)
		} else if u.equalSubscriptions && !maps.Equal(first, topicSet(s.Topics)) {
			u.equalSubscriptions = false
		}
	}
	return u
}

func topicSet(topics []string) map[string]bool {
	set := make(map[string]bool, len(topics))
	for _, t := range topics {
		set[t] = true
	}
	return set
}

// partitions is the number of partitions in the universe.
func (u *universe) partitions() int { return int(u.offset[len(u.names)]) }

// topicIndex finds a topic by name, or -1.
func (u *universe) topicIndex(name string) int32 {
	if t, ok := u.index[name]; ok {
		return t
	}
	return -1
}

// count is the number of partitions of topic t.
func (u *universe) count(t int32) int32 { return u.offset[t+1] - u.offset[t] }

// topicOf lists, for every global partition index, its topic.
func (u *universe) topicOf() []int32 {
	out := make([]int32, u.partitions())
	for t := range u.names {
		for gp := u.offset[t]; gp < u.offset[t+1]; gp++ {
			out[gp] = int32(t)
		}
	}
	return out
}

// topicOfPartition finds the topic of global partition gp.
func (u *universe) topicOfPartition(gp int32) int32 {
	// Offsets strictly increase (every topic in the universe has a
	// partition), so the topic is the last offset not above gp.
	t, found := slices.BinarySearch(u.offset, gp)
	if !found {
		t--
	}
	return int32(t)
}

// subscribes reports whether member m subscribes to topic t.
func (u *universe) subscribes(m int, t int32) bool {
	_, ok := slices.BinarySearch(u.subs[m], t)
	return ok
}

// forEachOwned calls fn for every partition member m claims in Owned that
// lies in the universe, skipping topics nobody subscribes to and partition
// numbers the topic does not have. Kafka keeps the latter; rebalsim drops
// them so that no assignment ever names a partition that does not exist.
//
// Go map order decides the order of the calls, so callers must combine
// them order-independently (per-partition arrays, sets).
func (u *universe) forEachOwned(m int, fn func(gp int32)) {
	for name, ps := range u.members[m].Owned {
		t := u.topicIndex(name)
		if t < 0 {
			continue
		}
		n := u.count(t)
		for _, p := range ps {
			if p >= 0 && p < n {
				fn(u.offset[t] + p)
			}
		}
	}
}

// result turns an owner array (member index per global partition, -1 for
// none) into Result.Assignment. Every member gets an entry. All partition
// lists share one backing array, cut with full slice expressions so that a
// caller appending to one list cannot overwrite its neighbour; this keeps
// the allocations at one per member however many partitions there are.
func (u *universe) result(owner []int32) map[string]kafka.Assignment {
	sizes := make([]int32, len(u.members))
	for _, m := range owner {
		if m >= 0 {
			sizes[m]++
		}
	}
	return u.resultSized(owner, sizes, nil)
}

// resultSized is result for a caller that knows how many partitions owner
// gives each member, which saves a walk of the partitions, and which
// members get exactly their Owned map (same, nil for none): those get
// that map itself, as assignments are values nobody changes in place. In
// a large group most members are left as they were by a rebalance, and
// building their maps again was most of the assignor's allocation. With
// same, the other members' lists are copied out of the shared array.
func (u *universe) resultSized(owner, sizes []int32, same []bool) map[string]kafka.Assignment {
	n := len(u.members)
	start := make([]int32, n+1)
	for m, size := range sizes {
		if same != nil && same[m] {
			size = 0
		}
		start[m+1] = start[m] + size
	}
	parts := make([]int32, start[n])
	next := slices.Clone(start[:n])
	out := make(map[string]kafka.Assignment, n)
	assignments := make([]kafka.Assignment, n)
	// The members given nothing share one empty map: in a big group over
	// few partitions that is most of them, each a map made for nothing.
	var empty kafka.Assignment
	for m := range n {
		if same != nil && same[m] {
			out[u.members[m].MemberID] = u.members[m].Owned
			continue
		}
		if sizes[m] == 0 {
			if empty == nil {
				empty = kafka.Assignment{}
			}
			assignments[m] = empty
			out[u.members[m].MemberID] = empty
			continue
		}
		// A member's partitions lie in the topics it subscribes to, so
		// that is as many entries as its map can need.
		assignments[m] = make(kafka.Assignment, min(int(sizes[m]), len(u.subs[m])))
		out[u.members[m].MemberID] = assignments[m]
	}
	// Partitions are visited in global order, so each member's segment of
	// parts fills topic by topic; a run ends when the member's next
	// partition belongs to another topic.
	runTopic := make([]int32, n)
	for m := range runTopic {
		runTopic[m] = -1
	}
	runStart := make([]int32, n)
	closeRun := func(m int32) {
		t := runTopic[m]
		if t < 0 {
			return
		}
		run := parts[runStart[m]:next[m]:next[m]]
		if same != nil {
			// The members given their Owned back keep lists from
			// earlier rebalances; a list cut from the array all the
			// others share would keep that array alive for as long.
			run = slices.Clone(run)
		}
		assignments[m][u.names[t]] = run
	}
	for t := range u.names {
		first := u.offset[t]
		for gp, m := range owner[first:u.offset[t+1]] {
			if m < 0 || assignments[m] == nil {
				continue
			}
			if runTopic[m] != int32(t) {
				closeRun(m)
				runTopic[m] = int32(t)
				runStart[m] = next[m]
			}
			parts[next[m]] = int32(gp)
			next[m]++
		}
	}
	for m := range n {
		if assignments[m] != nil {
			closeRun(int32(m))
		}
	}
	return out
}

// transferring converts a list of (partition, new owner) pairs into
// Result.Transferring. It returns a non-nil map even when the list is
// empty, because an empty map and nil mean different things there.
func (u *universe) transferring(moves []transfer) map[kafka.TopicPartition]string {
	out := make(map[kafka.TopicPartition]string, len(moves))
	for _, mv := range moves {
		t := u.topicOfPartition(mv.partition)
		tp := kafka.TopicPartition{Topic: u.names[t], Partition: mv.partition - u.offset[t]}
		out[tp] = u.members[mv.member].MemberID
	}
	return out
}

// transfer records that a partition goes to a member other than its valid
// previous owner.
type transfer struct {
	partition int32
	member    int32
}

// Scratch is working memory an assignor may reuse from one call to the
// next, so that a caller that assigns again and again (a group leader, on
// every rebalance) does not allocate a partition-sized array each time.
// Results never point into it. The zero value is ready to use; a Scratch
// serves one call at a time.
type Scratch struct {
	owner []int32
}

// noOwner returns an owner array for the universe's partitions, each -1:
// the scratch's memory when the caller gave one, else a fresh array.
func (u *universe) noOwner() []int32 {
	s := u.scratch
	if s == nil {
		return noOwner(u.partitions())
	}
	n := u.partitions()
	if cap(s.owner) < n {
		s.owner = make([]int32, n)
	}
	owner := s.owner[:n]
	for i := range owner {
		owner[i] = -1
	}
	return owner
}

// noOwner fills a fresh owner array with -1.
func noOwner(n int) []int32 {
	owner := make([]int32, n)
	for i := range owner {
		owner[i] = -1
	}
	return owner
}

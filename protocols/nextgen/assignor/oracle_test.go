package assignor

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"github.com/rebalsim/rebalsim/kafka"
)

// The fast builders number topics, partitions and members and keep owners in
// flat slices, lay subscriber lists out in one array and group a topic's
// partitions by owner with a counting sort. The references below do the same
// steps the slow, obvious way — maps keyed by topic-partition, sort.Slice —
// so that any slip in that bookkeeping shows up as a difference on random
// groups. Only memberBalancer is shared: it is a line-by-line transcription
// of Kafka's MemberAssignmentBalancer and has no bookkeeping of its own.

type tp = kafka.TopicPartition

// referenceHomogeneous is UniformHomogeneousAssignmentBuilder with maps.
func referenceHomogeneous(spec GroupSpec, topics []kafka.Topic) map[string]kafka.Assignment {
	count := map[string]int32{}
	for _, t := range topics {
		count[t.Name] = t.Partitions
	}
	var subscribed []string // caller order
	for _, t := range topics {
		if slices.Contains(spec.Members[0].Topics, t.Name) {
			subscribed = append(subscribed, t.Name)
		}
	}
	out := map[string]kafka.Assignment{}
	for _, m := range spec.Members {
		out[m.ID] = kafka.Assignment{}
	}
	if len(subscribed) == 0 {
		return out
	}
	valid := func(t string, p int32) bool {
		return slices.Contains(subscribed, t) && p >= 0 && p < count[t]
	}
	held := map[tp]bool{}
	for _, m := range spec.Members {
		for t, ps := range m.Current {
			for _, p := range ps {
				if valid(t, p) {
					held[tp{Topic: t, Partition: p}] = true
				}
			}
		}
	}
	total := 0
	var unassigned []tp
	for _, t := range subscribed {
		total += int(count[t])
		for p := int32(0); p < count[t]; p++ {
			if !held[tp{Topic: t, Partition: p}] {
				unassigned = append(unassigned, tp{Topic: t, Partition: p})
			}
		}
	}
	n := len(spec.Members)
	claimed := map[tp]bool{}
	// keep hands a member its current partitions while quota lasts and
	// releases the rest; it returns the quota left.
	keep := func(m Member, quota int) int {
		for _, t := range subscribed { // the member's topics in caller order
			for _, p := range referenceHashSet(m.Current[t]) {
				x := tp{Topic: t, Partition: p}
				if !valid(t, p) || claimed[x] {
					continue
				}
				claimed[x] = true
				if quota > 0 {
					out[m.ID][t] = append(out[m.ID][t], p)
					quota--
				} else {
					unassigned = append(unassigned, x)
				}
			}
		}
		return quota
	}
	// queue lists the members still to be dealt partitions, in order, with
	// how many each takes.
	type want struct {
		id string
		n  int
	}
	var queue []want
	if !spec.ExtraToAnyMember {
		// 4.0: the first total%n members get one more.
		for i, m := range spec.Members {
			quota := total / n
			if i < total%n {
				quota++
			}
			if left := keep(m, quota); left > 0 {
				queue = append(queue, want{m.ID, left})
			}
		}
	} else {
		// 4.1 (KAFKA-18688): a member that keeps minimum+1 claims an extra;
		// the unclaimed extras go to the last members queued.
		extras := total % n
		for _, m := range spec.Members {
			offered := extras > 0
			quota := total / n
			if offered {
				quota++
			}
			left := keep(m, quota)
			claims := offered && left == 0
			if offered && left > 0 {
				left--
			}
			if claims {
				extras--
			}
			if left > 0 || (extras > 0 && !claims) {
				queue = append(queue, want{m.ID, left})
			}
		}
		for i := len(queue) - 1; i >= 0 && extras > 0; i-- {
			queue[i].n++
			extras--
		}
	}
	for _, w := range queue {
		for ; w.n > 0 && len(unassigned) > 0; w.n-- {
			x := unassigned[0]
			unassigned = unassigned[1:]
			out[w.id][x.Topic] = append(out[w.id][x.Topic], x.Partition)
		}
	}
	for _, a := range out {
		a.Normalize()
	}
	return out
}

// referenceHashSet is the iteration order of Java 21's
// new HashSet<Integer>(list): a table of buckets sized for the list, each
// partition appended to its bucket unless already there, read bucket by
// bucket.
func referenceHashSet(list []int32) []int32 {
	capacity := 1
	for float64(capacity) < float64(max(len(list), 12))/0.75 {
		capacity *= 2
	}
	table := make([][]int32, capacity)
	for _, p := range list {
		h := uint32(p)
		b := (h ^ h>>16) % uint32(capacity)
		if !slices.Contains(table[b], p) {
			table[b] = append(table[b], p)
		}
	}
	var order []int32
	for _, bucket := range table {
		order = append(order, bucket...)
	}
	return order
}

// referenceHeterogeneous is UniformHeterogeneousAssignmentBuilder with maps.
func referenceHeterogeneous(spec GroupSpec, topics []kafka.Topic) map[string]kafka.Assignment {
	count := map[string]int32{}
	for _, t := range topics {
		count[t.Name] = t.Partitions
	}
	n := len(spec.Members)
	subscribers := map[string][]int32{}
	for i, m := range spec.Members {
		for _, t := range topics { // dedupe, existing only
			if slices.Contains(m.Topics, t.Name) {
				subscribers[t.Name] = append(subscribers[t.Name], int32(i))
			}
		}
	}
	out := map[string]kafka.Assignment{}
	for _, m := range spec.Members {
		out[m.ID] = kafka.Assignment{}
	}
	if len(subscribers) == 0 {
		return out
	}
	owner := map[tp]int32{}
	sizes := make([]int32, n)
	for i, m := range spec.Members {
		for _, t := range topics {
			if !slices.Contains(m.Topics, t.Name) {
				continue
			}
			for _, p := range m.Current[t.Name] {
				x := tp{Topic: t.Name, Partition: p}
				if _, taken := owner[x]; taken || p < 0 || p >= count[t.Name] {
					continue
				}
				owner[x] = int32(i)
				sizes[i]++
			}
		}
	}
	sortTopics := func(ts []string) {
		sort.Slice(ts, func(i, j int) bool {
			a, b := ts[i], ts[j]
			ra := float64(count[a]) / float64(len(subscribers[a]))
			rb := float64(count[b]) / float64(len(subscribers[b]))
			if ra != rb {
				return ra > rb
			}
			if len(subscribers[a]) != len(subscribers[b]) {
				return len(subscribers[a]) < len(subscribers[b])
			}
			return a < b
		})
	}
	bal := memberBalancer{sizes: sizes}

	var withUnassigned []string
	for t := range subscribers {
		for p := int32(0); p < count[t]; p++ {
			if _, ok := owner[tp{Topic: t, Partition: p}]; !ok {
				withUnassigned = append(withUnassigned, t)
				break
			}
		}
	}
	sortTopics(withUnassigned)
	for _, t := range withUnassigned {
		bal.initialize(subscribers[t])
		for p := int32(0); p < count[t]; p++ {
			x := tp{Topic: t, Partition: p}
			if _, ok := owner[x]; !ok {
				m := bal.nextLeastLoaded()
				owner[x] = m
				sizes[m]++
			}
		}
	}

	var movable []string
	for t, s := range subscribers {
		if len(s) >= 2 {
			movable = append(movable, t)
		}
	}
	sortTopics(movable)
	balanceTopic := func(t string) int {
		if bal.initialize(subscribers[t]) <= 1 {
			return 0
		}
		var parts []int32
		for p := int32(0); p < count[t]; p++ {
			parts = append(parts, p)
		}
		sort.Slice(parts, func(i, j int) bool {
			oi, oj := owner[tp{Topic: t, Partition: parts[i]}], owner[tp{Topic: t, Partition: parts[j]}]
			if oi != oj {
				return oi < oj
			}
			return parts[i] < parts[j]
		})
		start, end := map[int32]int{}, map[int32]int{}
		for i, p := range parts {
			o := owner[tp{Topic: t, Partition: p}]
			if _, ok := start[o]; !ok {
				start[o] = i
			}
			end[o] = i + 1
		}
		moved := 0
		for !bal.balanced() {
			donor := int32(-1)
			for {
				donor = bal.nextMostLoaded()
				if donor < 0 {
					break
				}
				if e, ok := end[donor]; !ok || e-start[donor] <= 0 {
					bal.excludeMostLoaded()
					continue
				}
				break
			}
			if donor < 0 {
				break
			}
			end[donor]--
			p := parts[end[donor]]
			receiver := bal.nextLeastLoaded()
			if bal.balanced() {
				break
			}
			owner[tp{Topic: t, Partition: p}] = receiver
			sizes[donor]--
			sizes[receiver]++
			moved++
		}
		return moved
	}
	last := -1
sweeps:
	for range maxBalancingSweeps {
		for i, t := range movable {
			if i == last {
				break sweeps
			}
			if balanceTopic(t) > 0 || last == -1 {
				last = i
			}
		}
	}

	for x, m := range owner {
		id := spec.Members[m].ID
		out[id][x.Topic] = append(out[id][x.Topic], x.Partition)
	}
	for _, a := range out {
		a.Normalize()
	}
	return out
}

// messUp makes a random group's current targets inconsistent the way a
// buggy caller might: partitions listed twice, claimed by two members,
// unsorted, or beyond the topic's size. The builders must still give every
// partition exactly one owner, and agree with the references.
func messUp(r *rand.Rand, spec GroupSpec) {
	for _, m := range spec.Members {
		for t, ps := range m.Current {
			switch r.IntN(6) {
			case 0:
				m.Current[t] = append(ps, ps...)
			case 1:
				m.Current[t] = append(ps, 99)
			case 2:
				slices.Reverse(ps)
			case 3:
				other := spec.Members[r.IntN(len(spec.Members))]
				other.Current[t] = append(other.Current[t], ps...)
			}
		}
	}
}

func TestBuildersMatchReference(t *testing.T) {
	r := rand.New(rand.NewPCG(848, 5))
	for _, typ := range []SubscriptionType{Homogeneous, Heterogeneous} {
		for _, pr := range propertyRuns {
			for run := range pr.runs {
				spec, topics := randomGroupOf(r, typ, pr.size)
				messy := run%2 == 1
				if messy {
					messUp(r, spec)
				}
				// Kafka 4.0's and 4.1's homogeneous builders, alternately.
				spec.ExtraToAnyMember = run%4 >= 2
				got, err := Uniform().Assign(spec, topics)
				if err != nil {
					t.Fatal(err)
				}
				checkValid(t, spec, topics, got, subscribesTo(spec, topics))
				want := referenceHomogeneous(spec, topics)
				if typ == Heterogeneous {
					want = referenceHeterogeneous(spec, topics)
				}
				for _, m := range spec.Members {
					if !got[m.ID].Equal(want[m.ID]) {
						t.Fatalf("type %d, run %d (messy %v, extra to any member %v), member %s: got %v, reference %v\nspec %+v\ntopics %v",
							typ, run, messy, spec.ExtraToAnyMember, m.ID, got[m.ID], want[m.ID], spec, topics)
					}
				}
			}
		}
	}
}

// TestRollingRestartMatchesReference: a homogeneous group through a
// rolling restart, as the coordinator drives it: each step one member
// leaves (the others keep the targets the previous step gave them) or
// comes back, and every target is checked against the reference builder
// fed the same spec. The steps after a leave are where Kafka 4.1's rule
// queues nearly every member for an extra that most of them do not get.
func TestRollingRestartMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(18, 3))
	for run := range 100 {
		n := 2 + r.IntN(30)
		topics := []kafka.Topic{{Name: "a", Partitions: int32(1 + r.IntN(300))}}
		if r.IntN(2) == 0 {
			topics = append(topics, kafka.Topic{Name: "b", Partitions: int32(1 + r.IntN(50))})
		}
		var names []string
		for _, tp := range topics {
			names = append(names, tp.Name)
		}
		members := make([]Member, n)
		for i := range members {
			members[i] = Member{ID: fmt.Sprintf("m%d", i), Topics: names}
		}
		extraToAny := run%2 == 1
		step := func(what string) {
			t.Helper()
			spec := GroupSpec{Members: members, Type: Homogeneous, ExtraToAnyMember: extraToAny}
			got, err := Uniform().Assign(spec, topics)
			if err != nil {
				t.Fatal(err)
			}
			want := referenceHomogeneous(spec, topics)
			for _, m := range members {
				if !got[m.ID].Equal(want[m.ID]) {
					t.Fatalf("run %d (extra to any member %v), %s: member %s got %v, reference %v", run, extraToAny, what, m.ID, got[m.ID], want[m.ID])
				}
			}
			for i := range members {
				members[i].Current = got[members[i].ID]
			}
		}
		step("first assignment")
		for i := range 2 * n {
			gone := r.IntN(len(members))
			back := members[gone]
			members = slices.Delete(members, gone, gone+1)
			step(fmt.Sprintf("step %d, %s left", i, back.ID))
			back.Current = nil
			at := r.IntN(len(members) + 1)
			members = slices.Insert(members, at, back)
			step(fmt.Sprintf("step %d, %s back", i, back.ID))
		}
	}
}

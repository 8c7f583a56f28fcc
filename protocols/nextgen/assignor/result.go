package assignor

import (
	"slices"

	"github.com/rebalsim/rebalsim/kafka"
)

// GroupAssignment is an assignor's result in spec order, what Kafka's
// PartitionAssignor.assign returns (GroupAssignment, a MemberAssignment per
// member id) with the members in the spec's order instead of keyed by id:
// member i of the result is spec.Members[i].
//
// The built-in builders fill it without a Go map per member. Each member
// either keeps the Current target the spec gave it (Kept), as Kafka's
// builders hand a member that does not change its existing, immutable
// assignment back; or has a new target, laid out by global partition
// index in arrays the result shares between members, which Member turns
// into a map when asked. A caller that wants every target as a map (Each)
// pays for one map per changed member, one that wants to know who changed
// (as TargetAssignmentBuilder does, to write records for those only)
// nothing more.
type GroupAssignment struct {
	ti *topicIndex
	n  int
	// kept has bit i set when member i keeps its Current target.
	kept claimedSet
	// given[i] is member i's target when an assignor that only implements
	// Assign gave it as a map; nil for the built-in ones.
	given []kafka.Assignment
	// The new target of each member, by global index, ascending, is
	// parts[from:to] of its span; spans are listed by member, ascending,
	// and read-only. A member that neither keeps its target nor has a
	// span gets an empty one. Spans rather than slices: a third of the
	// memory, and nothing for the collector to scan.
	parts []int32
	spans []memberSpan
}

type memberSpan struct{ member, from, to int32 }

// newGroupAssignment is an empty result for n members over ti's topics,
// whose partitions the builder lays out in parts: every member's target
// is empty until the builder keeps or sets it.
func newGroupAssignment(ti *topicIndex, n int) *GroupAssignment {
	return &GroupAssignment{ti: ti, n: n, kept: newClaimedSet(n)}
}

// keep makes member i keep its Current target.
func (r *GroupAssignment) keep(i int) { r.kept.add(i) }

// set makes member i's target the partitions parts[from:to] (global
// indices, ascending). Members are set in ascending order, once each.
func (r *GroupAssignment) set(i int, from, to int) {
	r.spans = append(r.spans, memberSpan{int32(i), int32(from), int32(to)})
}

// partsOf is member i's new target by global index.
func (r *GroupAssignment) partsOf(i int) []int32 {
	k := i
	if k >= len(r.spans) || r.spans[k].member != int32(i) {
		var found bool
		k, found = slices.BinarySearchFunc(r.spans, int32(i), func(s memberSpan, m int32) int { return int(s.member - m) })
		if !found {
			return nil
		}
	}
	s := r.spans[k]
	return r.parts[s.from:s.to:s.to]
}

// Len is the number of members in the result, those of the spec.
func (r *GroupAssignment) Len() int { return r.n }

// Kept tells whether member i keeps the Current target the spec gave it.
func (r *GroupAssignment) Kept(i int) bool { return r.kept != nil && r.kept.has(i) }

// Member is member i's new target as a map, built on each call (an empty
// target is an empty map); nil exactly when the member keeps its Current
// target (Kept).
func (r *GroupAssignment) Member(i int) kafka.Assignment {
	if r.Kept(i) {
		return nil
	}
	if r.given != nil {
		return r.given[i]
	}
	gs := r.partsOf(i)
	return r.ti.assignment(gs, make([]int32, len(gs)))
}

// Each is every member's target as a map, in the order of members, the
// spec's: a kept member's is its Current map itself. The new ones get
// their lists cut from one array, sized exactly: it lives as long as any
// of them keeps its target, and holds only what changed in this one
// assignment.
func (r *GroupAssignment) Each(members []Member) []kafka.Assignment {
	if r.given != nil {
		return r.given
	}
	size := 0
	for _, s := range r.spans {
		size += int(s.to - s.from)
	}
	slab := make([]int32, size)
	out := make([]kafka.Assignment, r.n)
	k := 0
	for i := range out {
		if r.kept.has(i) {
			out[i] = members[i].Current
			continue
		}
		var gs []int32
		if k < len(r.spans) && r.spans[k].member == int32(i) {
			s := r.spans[k]
			gs = r.parts[s.from:s.to]
			k++
		}
		n := len(gs)
		out[i] = r.ti.assignment(gs, slab[:n:n])
		slab = slab[n:]
	}
	return out
}

// assignment is the map of the partitions gs (global indices, ascending),
// each topic's list a sub-slice of own (len(gs) long, the caller's to give
// away) with its capacity clipped so that appending to one list cannot
// overwrite the next.
func (ti *topicIndex) assignment(gs, own []int32) kafka.Assignment {
	if len(gs) == 0 {
		return kafka.Assignment{}
	}
	// Global indices ascend with (topic, partition): find the first one's
	// topic, then walk the topics along with them, counting the runs.
	first := ti.topicOf(gs[0])
	t, runs := first, 1
	for _, g := range gs {
		if int(g) >= ti.offset[t+1] {
			runs++
			for int(g) >= ti.offset[t+1] {
				t++
			}
		}
	}
	a := make(kafka.Assignment, runs)
	t, from := first, 0
	for i, g := range gs {
		if int(g) >= ti.offset[t+1] {
			a[ti.names[t]] = own[from:i:i]
			from = i
			for int(g) >= ti.offset[t+1] {
				t++
			}
		}
		own[i] = g - int32(ti.offset[t])
	}
	a[ti.names[t]] = own[from:len(gs):len(gs)]
	return a
}

// sameAsGlobal tells whether current holds exactly the partitions gs
// (global indices, ascending).
func (ti *topicIndex) sameAsGlobal(current kafka.Assignment, gs []int32) bool {
	held := 0
	for _, ps := range current {
		if len(ps) > 0 {
			held++
		}
	}
	if len(gs) == 0 {
		return held == 0
	}
	t := ti.topicOf(gs[0])
	runs := 0
	for i := 0; i < len(gs); {
		for int(gs[i]) >= ti.offset[t+1] {
			t++
		}
		j := i + 1
		for j < len(gs) && int(gs[j]) < ti.offset[t+1] {
			j++
		}
		runs++
		ps := current[ti.names[t]]
		if len(ps) != j-i {
			return false
		}
		base := int32(ti.offset[t])
		for k, p := range ps {
			if p != gs[i+k]-base {
				return false
			}
		}
		i = j
	}
	return runs == held
}

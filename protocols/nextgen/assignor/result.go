package assignor

import (
	"github.com/rebalsim/rebalsim/kafka"
)

// GroupAssignment is an assignor's result in spec order, what Kafka's
// PartitionAssignor.assign returns (GroupAssignment, a MemberAssignment per
// member id) with the members in the spec's order instead of keyed by id:
// member i of the result is spec.Members[i].
//
// The built-in builders fill it without a Go map per member. A member's
// target is either a map it already is (its Current, handed back when it
// does not change, or what an assignor that only implements Assign gave
// it) or its partitions by global index, ascending, in arrays the result
// shares between members. Member builds the map of a member of the second
// kind when it is asked for, so a caller that wants every target as a map
// pays for one map per changed member, and one that does not, nothing.
type GroupAssignment struct {
	ti *topicIndex
	// given[i] is member i's target when it is a map already, else nil.
	given []kafka.Assignment
	// parts[span[i].from:span[i].to] is member i's target by global index,
	// ascending, when given[i] is nil. Read-only. Spans rather than
	// slices: a third of the memory, and nothing for the collector to
	// scan or for a write barrier to record.
	parts []int32
	span  []span
}

type span struct{ from, to int32 }

// newGroupAssignment is an empty result for n members over ti's topics,
// whose partitions the builder lays out in parts: every member's target
// is empty until the builder sets it.
func newGroupAssignment(ti *topicIndex, n int) *GroupAssignment {
	return &GroupAssignment{ti: ti, given: make([]kafka.Assignment, n), span: make([]span, n)}
}

// keep makes member i's target the map a, which the caller does not change.
func (r *GroupAssignment) keep(i int, a kafka.Assignment) { r.given[i] = a }

// set makes member i's target the partitions parts[from:to] (global
// indices, ascending).
func (r *GroupAssignment) set(i int, from, to int) {
	r.given[i], r.span[i] = nil, span{int32(from), int32(to)}
}

// partsOf is member i's target by global index when it is not given.
func (r *GroupAssignment) partsOf(i int) []int32 {
	s := r.span[i]
	return r.parts[s.from:s.to:s.to]
}

// Len is the number of members in the result, those of the spec.
func (r *GroupAssignment) Len() int { return len(r.given) }

// Kept tells whether member i's target is a map given to the assignor
// (its Current, unchanged) or by a custom assignor, rather than one that
// Member builds.
func (r *GroupAssignment) Kept(i int) bool { return r.given[i] != nil }

// Count is the number of partitions in member i's target.
func (r *GroupAssignment) Count(i int) int {
	if a := r.given[i]; a != nil {
		n := 0
		for _, ps := range a {
			n += len(ps)
		}
		return n
	}
	return len(r.partsOf(i))
}

// Member is member i's target as a map, never nil. A kept map is returned
// itself; any other is built on each call, its lists in one new array.
func (r *GroupAssignment) Member(i int) kafka.Assignment {
	if a := r.given[i]; a != nil {
		return a
	}
	gs := r.partsOf(i)
	return r.ti.assignment(gs, make([]int32, len(gs)))
}

// Each is every member's target as a map, in spec order, never nil. The
// members that are not kept get their lists cut from one array, sized
// exactly: it lives as long as any of them keeps its target, and holds
// only what changed in this one assignment.
func (r *GroupAssignment) Each() []kafka.Assignment {
	size := 0
	for i, a := range r.given {
		if a == nil {
			size += len(r.partsOf(i))
		}
	}
	slab := make([]int32, size)
	out := make([]kafka.Assignment, len(r.given))
	for i, a := range r.given {
		if a != nil {
			out[i] = a
			continue
		}
		gs := r.partsOf(i)
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

package assignor

import (
	"slices"
	"strings"

	"github.com/rebalsim/rebalsim/kafka"
)

// rangeAssignor is the server-side RangeAssignor (group.remote.assignor =
// range). It ignores the current assignment entirely: every computation
// starts from scratch, so a member joining can move partitions between
// members that stay (vector server_range_member_added_is_not_sticky).
type rangeAssignor struct{}

// Range returns the server-side range assignor.
func Range() Assignor { return rangeAssignor{} }

func (rangeAssignor) Name() string { return "range" }

// Assign gives each subscriber of a topic one contiguous block of its
// partitions: with n subscribers and P partitions each gets P/n and the first
// P%n (in member order) one more. Members are ordered static first, by
// instance id, then dynamic, by member id (RangeAssignor.sortMemberIds), so
// a static member that restarts under a new member id keeps its block. In a
// homogeneous group every topic is split in the same member order, which
// co-partitions topics of equal size.
func (r rangeAssignor) Assign(spec GroupSpec, topics []kafka.Topic) (map[string]kafka.Assignment, error) {
	return assignByID(r, spec, topics)
}

func (rangeAssignor) assignGroup(spec GroupSpec, topics []kafka.Topic) (*GroupAssignment, error) {
	return assignWith(spec, topics, assignRange)
}

func assignRange(spec GroupSpec, ti *topicIndex) (*GroupAssignment, error) {
	members := spec.Members
	subs := resolveSubscriptions(members, ti)

	order := make([]int, len(members))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(x, y int) int {
		ix, iy := members[x].InstanceID, members[y].InstanceID
		switch {
		case ix != "" && iy != "":
			return strings.Compare(ix, iy)
		case ix != "":
			return -1
		case iy != "":
			return 1
		}
		return strings.Compare(members[x].ID, members[y].ID)
	})
	if spec.Type == Homogeneous {
		// Kafka reads the subscription of the first sorted member and
		// counts every member as a subscriber of each of its topics.
		subs = sameSubscriptions(subs, order[0], len(members))
	}

	nt := len(ti.names)
	subscribers := make([]int32, nt)
	for m := range members {
		for _, t := range subs.of(m) {
			subscribers[t]++
		}
	}
	nextRange := make([]int32, nt)
	extra := make([]int32, nt)
	for t := 0; t < nt; t++ {
		if subscribers[t] > 0 {
			extra[t] = ti.counts[t] % subscribers[t]
		}
	}

	// Every partition goes to one member at most: the members' blocks,
	// by global index, are laid out one after another in one array, each
	// member's ascending because its topics are.
	all := make([]int32, 0, ti.total())
	out := newGroupAssignment(ti, len(members))
	// Every member has a span, set in the sorted order: listed by member
	// directly.
	out.spans = make([]memberSpan, len(members))
	for _, m := range order {
		from := len(all)
		for _, t := range subs.of(m) {
			quota := ti.counts[t] / subscribers[t]
			if extra[t] > 0 {
				quota++
				extra[t]--
			}
			start := nextRange[t]
			end := min(start+quota, ti.counts[t])
			nextRange[t] = end
			base := int32(ti.offset[t])
			for p := start; p < end; p++ {
				all = append(all, base+p)
			}
		}
		out.spans[m] = memberSpan{int32(m), int32(from), int32(len(all))}
	}
	out.parts = all
	return out, nil
}

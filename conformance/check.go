package conformance

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/rebalsim/rebalsim/kafka"
)

// set renders an assignment as a set, e.g. "{topic1[0 2] topic2[1]}".
func set(a kafka.Assignment) string { return "{" + a.String() + "}" }

// diffAssignments compares assignments member by member, as sets. A member
// the expectation omits must get nothing, unless onlyListed is set (a
// partial expectation). It returns "" when they agree.
func diffAssignments(want, got map[string]kafka.Assignment, onlyListed bool) string {
	members := slices.Collect(maps.Keys(want))
	if !onlyListed {
		for m := range got {
			if _, ok := want[m]; !ok {
				members = append(members, m)
			}
		}
	}
	slices.Sort(members)
	var b strings.Builder
	for _, m := range members {
		w, inWant := want[m]
		g, inGot := got[m]
		switch {
		case !inGot:
			fmt.Fprintf(&b, "  %s: expected %s, but the member is not in the result\n", m, set(w))
		case !inWant && g.Size() > 0:
			fmt.Fprintf(&b, "  %s: expected nothing (not listed), got %s\n", m, set(g))
		case inWant && !w.Equal(g):
			fmt.Fprintf(&b, "  %s: expected %s, got %s", m, set(w), set(g))
			var parts []string
			if missing := w.Minus(g); missing.Size() > 0 {
				parts = append(parts, "missing "+set(missing))
			}
			if extra := g.Minus(w); extra.Size() > 0 {
				parts = append(parts, "extra "+set(extra))
			}
			fmt.Fprintf(&b, " (%s)\n", strings.Join(parts, ", "))
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// renderAssignments prints a whole result, one member a line.
func renderAssignments(a map[string]kafka.Assignment) string {
	var b strings.Builder
	for _, m := range slices.Sorted(maps.Keys(a)) {
		fmt.Fprintf(&b, "  %s: %s\n", m, set(a[m]))
	}
	return strings.TrimRight(b.String(), "\n")
}

// subscribedPartitions lists the partitions of existing topics that at
// least one member subscribes to.
func subscribedPartitions(members []memberSpec, topics []kafka.Topic) []kafka.TopicPartition {
	subscribed := map[string]bool{}
	for _, m := range members {
		for _, t := range m.subscription {
			subscribed[t] = true
		}
	}
	var out []kafka.TopicPartition
	for _, t := range topics {
		if subscribed[t.Name] {
			for p := range t.Partitions {
				out = append(out, kafka.TopicPartition{Topic: t.Name, Partition: p})
			}
		}
	}
	return out
}

// validDiff checks the "valid" property: every partition of every
// subscribed existing topic is assigned to exactly one member, which
// subscribes to its topic, and nothing else is assigned.
func validDiff(members []memberSpec, topics []kafka.Topic, got map[string]kafka.Assignment) string {
	var problems []string
	holders := map[kafka.TopicPartition][]string{}
	for _, m := range members {
		for _, tp := range got[m.id].Partitions() {
			holders[tp] = append(holders[tp], m.id)
			if !slices.Contains(m.subscription, tp.Topic) {
				problems = append(problems, fmt.Sprintf("%s holds %s without subscribing to %s", m.id, tp, tp.Topic))
			}
		}
	}
	for _, tp := range subscribedPartitions(members, topics) {
		switch h := holders[tp]; len(h) {
		case 0:
			problems = append(problems, fmt.Sprintf("%s is not assigned", tp))
		case 1:
		default:
			problems = append(problems, fmt.Sprintf("%s is assigned to %s", tp, strings.Join(h, " and ")))
		}
		delete(holders, tp)
	}
	for _, tp := range slices.SortedFunc(maps.Keys(holders), func(a, b kafka.TopicPartition) int {
		return strings.Compare(a.String(), b.String())
	}) {
		problems = append(problems, fmt.Sprintf("%s does not exist or is not subscribed, but %s holds it", tp, strings.Join(holders[tp], " and ")))
	}
	return bullets(problems)
}

// balancedDiff checks the "balanced" property: the members' partition
// counts differ by at most one.
func balancedDiff(members []memberSpec, got map[string]kafka.Assignment) string {
	if len(members) == 0 {
		return ""
	}
	lo, hi := -1, -1
	var loM, hiM string
	for _, m := range members {
		n := got[m.id].Size()
		if lo < 0 || n < lo {
			lo, loM = n, m.id
		}
		if n > hi {
			hi, hiM = n, m.id
		}
	}
	if hi-lo <= 1 {
		return ""
	}
	return fmt.Sprintf("  %s holds %d partitions and %s holds %d", hiM, hi, loM, lo)
}

// previousOwners resolves who validly held each partition before the
// assignment: for a client, the highest generation among the members that
// report owning it, nobody on a tie (AbstractStickyAssignor); for a
// server, the current target (which never has two owners).
func previousOwners(members []memberSpec, server bool) map[kafka.TopicPartition]string {
	type claim struct {
		member string
		gen    int32
		tie    bool
	}
	claims := map[kafka.TopicPartition]*claim{}
	for _, m := range members {
		held, gen := m.owned, m.generation
		if !m.hasGeneration {
			gen = -1
		}
		if server {
			held, gen = m.current, 0
		}
		for _, tp := range held.Partitions() {
			c, ok := claims[tp]
			switch {
			case !ok || gen > c.gen:
				claims[tp] = &claim{member: m.id, gen: gen}
			case gen == c.gen:
				c.tie = true
			}
		}
	}
	out := map[kafka.TopicPartition]string{}
	for tp, c := range claims {
		if !c.tie {
			out[tp] = c.member
		}
	}
	return out
}

// stickyDiff checks the "sticky" property: no more partitions changed
// owner than balance requires. With equal subscriptions, P partitions and
// C members, a balanced assignment gives q = P/C to everyone and one more
// to r = P%C of them, so the most previously held partitions any balanced
// assignment can leave in place is sum(min(held, q)) plus one for each of
// r members that held more than q. It reports ok=false when subscriptions
// differ, where no such simple minimum exists.
func stickyDiff(members []memberSpec, topics []kafka.Topic, got map[string]kafka.Assignment, server bool) (diff string, ok bool) {
	if len(members) == 0 {
		return "", true
	}
	for _, m := range members[1:] {
		if !sameSet(m.subscription, members[0].subscription) {
			return "", false
		}
	}
	universe := map[kafka.TopicPartition]bool{}
	for _, tp := range subscribedPartitions(members, topics) {
		universe[tp] = true
	}
	held := map[string]int{}
	moved, before := 0, 0
	var movedList []string
	prev := previousOwners(members, server)
	for _, tp := range slices.SortedFunc(maps.Keys(prev), func(a, b kafka.TopicPartition) int {
		return strings.Compare(a.String(), b.String())
	}) {
		if !universe[tp] {
			continue
		}
		owner := prev[tp]
		held[owner]++
		before++
		if !got[owner].Contains(tp) {
			moved++
			movedList = append(movedList, fmt.Sprintf("%s from %s", tp, owner))
		}
	}
	q, r := len(universe)/len(members), len(universe)%len(members)
	keep, above := 0, 0
	for _, m := range members {
		keep += min(held[m.id], q)
		if held[m.id] > q {
			above++
		}
	}
	keep += min(r, above)
	if minimum := before - keep; moved > minimum {
		return fmt.Sprintf("  %d partitions changed owner, balance needs only %d: moved %s", moved, minimum, strings.Join(movedList, ", ")), true
	}
	return "", true
}

func sameSet(a, b []string) bool {
	return maps.Equal(toSet(a), toSet(b))
}

func toSet(xs []string) map[string]bool {
	s := make(map[string]bool, len(xs))
	for _, x := range xs {
		s[x] = true
	}
	return s
}

// coopUnsafe checks "coop_safe" on one assign() call: no partition may be
// given to a member while another member still reports owning it.
func coopUnsafe(members []memberSpec, got map[string]kafka.Assignment) string {
	var problems []string
	for _, m := range members {
		for _, tp := range got[m.id].Minus(m.owned).Partitions() {
			for _, o := range members {
				if o.id != m.id && o.owned.Contains(tp) {
					problems = append(problems, fmt.Sprintf("%s given to %s while %s still owns it", tp, m.id, o.id))
				}
			}
		}
	}
	return bullets(problems)
}

// countsDiff checks per_topic_count_per_member_by_step for one step: every
// member holds exactly want partitions of every topic.
func countsDiff(members []memberSpec, topics []kafka.Topic, got map[string]kafka.Assignment, want int32) string {
	var problems []string
	for _, m := range members {
		for _, t := range topics {
			if n := int32(len(got[m.id][t.Name])); n != want {
				problems = append(problems, fmt.Sprintf("%s holds %d partitions of %s, expected %d", m.id, n, t.Name, want))
			}
		}
	}
	return bullets(problems)
}

func bullets(lines []string) string {
	if len(lines) == 0 {
		return ""
	}
	return "  " + strings.Join(lines, "\n  ")
}

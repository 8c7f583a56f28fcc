package conformance

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/rebalsim/rebalsim/kafka"
	classic "github.com/rebalsim/rebalsim/protocols/classic/assignor"
	nextgen "github.com/rebalsim/rebalsim/protocols/nextgen/assignor"
)

// groupRunner runs one assignor vector for one assignor. Client and
// server assignors share everything but the call itself: the same
// expectations, properties and then-steps apply to both.
type groupRunner struct {
	v      *Vector
	name   string
	opts   Options
	r      *report
	topics []kafka.Topic

	client      classic.Assignor
	cooperative bool
	server      nextgen.Assignor
}

// assigned is what one assignment of a group produced.
type assigned struct {
	members []memberSpec // the group as assigned
	final   map[string]kafka.Assignment
	// Client assignors only: every assign() call, the first round's
	// transferring map, and how the follow-up rebalances ended.
	rounds       []round
	transferring map[kafka.TopicPartition]string
	followUps    int
	complete     bool
	// convergenceChecked keeps a non-converging run from being reported
	// once per expectation that looks at it.
	convergenceChecked bool
}

type round struct {
	members []memberSpec
	result  map[string]kafka.Assignment
}

func (v *Vector) runClient(name string, opts Options) *report {
	g := &groupRunner{v: v, name: name, opts: opts, r: &report{}}
	a, ok := opts.clientAssignor(name)
	if !ok {
		g.r.cannot("%s: no client assignor named %q", v.pos, name)
		return g.r
	}
	g.client = a
	g.cooperative = slices.Contains(a.Protocols(), kafka.Cooperative)
	for _, m := range v.group.members {
		if m.current != nil {
			g.r.cannot("%s: member %s has current, a server-side field, in a client vector", v.pos, m.id)
		}
	}
	if v.group.subscriptionType != "" {
		g.r.cannot("%s: subscription_type is a server-side field; client assignors derive it", v.pos)
	}
	g.run()
	return g.r
}

func (v *Vector) runServer(name string, opts Options) *report {
	g := &groupRunner{v: v, name: name, opts: opts, r: &report{}}
	a, ok := opts.serverAssignor(name)
	if !ok {
		g.r.cannot("%s: no server assignor named %q", v.pos, name)
		return g.r
	}
	g.server = a
	for _, m := range v.group.members {
		if m.owned != nil || m.hasGeneration {
			g.r.cannot("%s: member %s has owned or generation, client-side fields, in a server vector", v.pos, m.id)
		}
	}
	w := v.want
	if w.firstRound != nil || w.transferring.given {
		g.r.cannot("%s: first_round and transferring describe client assignors", w.pos)
	}
	if len(v.group.steps) > 0 {
		g.r.cannot("%s: input steps are only defined for client assignors", v.pos)
	}
	g.run()
	return g.r
}

// run assigns the vector's group and checks everything it expects, then
// executes its then-steps.
func (g *groupRunner) run() {
	v, w := g.v, g.v.want
	if v.Version == "trunk" {
		g.r.cannot("%s: version trunk: rebalsim models the 4.0 assignors", v.pos)
		return
	}
	if len(g.r.skips) > 0 {
		return
	}
	g.topics = v.group.topics
	members := v.group.members
	if len(w.topicOrder) > 0 {
		if g.topics = reorderTopics(g.topics, w.topicOrder); g.topics == nil {
			g.r.cannot("%s: reproduce_with.topic_order %v is not an order of the input topics", w.pos, w.topicOrder)
			return
		}
	}
	if len(w.memberOrder) > 0 {
		if members = reorderMembers(members, w.memberOrder); members == nil {
			g.r.cannot("%s: reproduce_with.member_order %v is not an order of the input members", w.pos, w.memberOrder)
			return
		}
	}
	if len(v.group.steps) > 0 {
		g.runSteps()
		return
	}
	res, err := g.assign(members)
	if err != nil {
		g.r.fail("assign: %v", err)
		return
	}
	g.expect("", w, res)

	switch {
	case v.group.then != "" && w.afterThen == nil:
		g.r.cannot("%s: input.then without expected.after_then", v.group.thenPos)
	case v.group.then == "" && w.afterThen != nil:
		g.r.cannot("%s: expected.after_then without input.then", w.pos)
	case v.group.then != "":
		after := &expectation{pos: w.pos, assignment: w.afterThen, exact: w.exact}
		res = g.step(res, v.group.thenPos, v.group.then, after)
	}
	for _, s := range v.then {
		if res == nil {
			return
		}
		res = g.step(res, s.pos, s.description, s.want)
	}
}

// step applies a then-step's change to the group as it stands after prev
// and checks the next assignment against want. It returns nil when the
// step could not be executed.
func (g *groupRunner) step(prev *assigned, pos, description string, want *expectation) *assigned {
	members, err := applyChange(prev, description, g.server != nil)
	if err != nil {
		g.r.cannot("%s: cannot execute then step %q: %v", pos, description, err)
		return nil
	}
	res, err := g.assign(members)
	if err != nil {
		g.r.fail("then %q: assign: %v", description, err)
		return nil
	}
	g.expect(fmt.Sprintf("then %q: ", description), want, res)
	return res
}

// runSteps executes input.steps: a sequence of member lists, each
// assigned with the previous step's result as owned partitions, and
// checks per_topic_count_per_member_by_step and the properties at every
// step. The form lists member ids only; members not described in
// input.members subscribe to every input topic, as in
// AbstractStickyAssignorTest.testTopicBalanceAfterReassignment.
func (g *groupRunner) runSteps() {
	v, w := g.v, g.v.want
	if w.assignment != nil || w.partial != nil || w.byInstance != nil || w.firstRound != nil || w.transferring.given {
		g.r.cannot("%s: with input steps only per_topic_count_per_member_by_step and properties can be checked", w.pos)
		return
	}
	if w.hasCountsByStep && len(w.countsByStep) != len(v.group.steps) {
		g.r.cannot("%s: %d counts for %d steps", w.pos, len(w.countsByStep), len(v.group.steps))
		return
	}
	described := map[string]memberSpec{}
	for _, m := range v.group.members {
		described[m.id] = m
	}
	var all []string
	for _, t := range g.topics {
		all = append(all, t.Name)
	}
	// Per-step checks that hold are summarised in one line at the end;
	// failures keep their step.
	checkedBefore, failedBefore := len(g.r.checked), len(g.r.failures)
	var prev map[string]kafka.Assignment
	for i, s := range v.group.steps {
		var members []memberSpec
		for _, id := range s.ids {
			m, ok := described[id]
			if !ok {
				m = memberSpec{id: id, subscription: all}
			}
			if i > 0 {
				m.owned, m.generation, m.hasGeneration = prev[id].Clone(), int32(i), true
			}
			members = append(members, m)
		}
		res, err := g.assign(members)
		if err != nil {
			g.r.fail("step %d: assign: %v", i+1, err)
			return
		}
		prefix := fmt.Sprintf("step %d %v: ", i+1, s.ids)
		g.checkConverged(prefix, res)
		if w.hasCountsByStep {
			g.r.check(prefix+fmt.Sprintf("%d partitions of each topic per member", w.countsByStep[i]),
				countsDiff(members, g.topics, res.final, w.countsByStep[i]))
		}
		g.properties(prefix, w, res)
		prev = res.final
	}
	if len(g.r.failures) == failedBefore {
		var what []string
		if w.hasCountsByStep {
			what = append(what, "per_topic_count_per_member_by_step")
		}
		for _, p := range w.properties {
			what = append(what, p.name)
		}
		g.r.checked = append(g.r.checked[:checkedBefore],
			fmt.Sprintf("%s at each of %d steps", strings.Join(what, ", "), len(v.group.steps)))
	}
}

// assign runs the assignor on members. For a client assignor that supports
// the COOPERATIVE protocol it then runs the follow-up rebalances the
// members would trigger — each result fed back as the members' owned
// partitions in the next generation — until nothing is withheld or
// Options.MaxFollowUps is reached.
func (g *groupRunner) assign(members []memberSpec) (*assigned, error) {
	res := &assigned{members: members}
	if g.server != nil {
		spec := nextgen.GroupSpec{Type: subscriptionType(g.v.group.subscriptionType, members)}
		for _, m := range members {
			spec.Members = append(spec.Members, nextgen.Member{
				ID: m.id, InstanceID: m.instanceID, Topics: m.subscription, Current: m.current.Clone(),
			})
		}
		out, err := g.server.Assign(spec, slices.Clone(g.topics))
		if err != nil {
			return nil, err
		}
		res.final, res.complete = out, true
		return res, nil
	}
	current := members
	for {
		in := classic.Input{Topics: slices.Clone(g.topics)}
		for _, m := range current {
			in.Members = append(in.Members, classic.Subscription{
				MemberID: m.id, InstanceID: m.instanceID, Topics: m.subscription, Owned: m.owned.Clone(),
				Generation: m.generation, HasGeneration: m.hasGeneration,
			})
		}
		out := g.client.Assign(in)
		res.rounds = append(res.rounds, round{members: current, result: out.Assignment})
		if len(res.rounds) == 1 {
			res.transferring = out.Transferring
		}
		res.final = out.Assignment
		res.complete = withheld(members, g.topics, out.Assignment) == 0
		if res.complete || !g.cooperative || res.followUps == g.opts.maxFollowUps() {
			return res, nil
		}
		current = nextGeneration(current, out.Assignment)
		res.followUps++
	}
}

// withheld counts the subscribed partitions nobody was given.
func withheld(members []memberSpec, topics []kafka.Topic, got map[string]kafka.Assignment) int {
	n := 0
	for _, tp := range subscribedPartitions(members, topics) {
		if !slices.ContainsFunc(members, func(m memberSpec) bool { return got[m.id].Contains(tp) }) {
			n++
		}
	}
	return n
}

// nextGeneration is the group as the follow-up rebalance sees it: everyone
// owns what it was just given, in the next generation.
func nextGeneration(members []memberSpec, got map[string]kafka.Assignment) []memberSpec {
	gen := int32(0)
	for _, m := range members {
		gen = max(gen, m.generation)
	}
	next := slices.Clone(members)
	for i := range next {
		next[i].owned = got[next[i].id].Clone()
		next[i].generation, next[i].hasGeneration = gen+1, true
	}
	return next
}

// subscriptionType is the given type, or ModernGroup.subscriptionType's
// rule: homogeneous iff every member subscribes to the same topics.
func subscriptionType(given string, members []memberSpec) nextgen.SubscriptionType {
	switch given {
	case "HOMOGENEOUS":
		return nextgen.Homogeneous
	case "HETEROGENEOUS":
		return nextgen.Heterogeneous
	}
	for _, m := range members {
		if !sameSet(m.subscription, members[0].subscription) {
			return nextgen.Heterogeneous
		}
	}
	return nextgen.Homogeneous
}

// expect checks one assignment against an expected block.
func (g *groupRunner) expect(prefix string, w *expectation, res *assigned) {
	orderUnknown := w.orderSensitive && len(w.topicOrder) == 0 && len(w.memberOrder) == 0
	compare := func(what string, want map[string]kafka.Assignment, got map[string]kafka.Assignment, onlyListed bool) {
		diff := diffAssignments(want, got, onlyListed)
		if diff != "" && orderUnknown {
			g.r.cannot("%s: %s%s depends on Java iteration order (order_sensitive) and the vector gives no reproduce_with order; got a different answer:\n%s",
				w.pos, prefix, what, diff)
			return
		}
		g.r.check(prefix+what, diff)
	}

	if rounds, ok := w.firstRound[g.name]; ok || w.firstRound[allAssignors] != nil {
		if !ok {
			rounds = w.firstRound[allAssignors]
		}
		if len(res.rounds) == 0 {
			g.r.cannot("%sfirst_round: the assignor ran no client rounds", prefix)
		} else {
			compare("first_round", rounds, res.rounds[0].result, false)
		}
	}

	if w.assignment != nil || w.partial != nil || w.byInstance != nil {
		g.checkConverged(prefix, res)
	}
	label := "assignment"
	switch {
	case res.followUps > 0:
		label += fmt.Sprintf(" (final, after %d follow-up rebalance%s)", res.followUps, plural(res.followUps))
	case w.exact == "derived":
		label += " (derived values)"
	}
	switch {
	case w.assignment == nil:
	case w.exact == "false":
		g.r.pass(prefix + "assignment not compared (exact: false)")
	default:
		compare(label, w.assignment, res.final, w.exact == "partial")
	}
	if w.partial != nil {
		compare("assignment_partial", w.partial, res.final, true)
	}
	if w.byInstance != nil {
		got, err := byInstance(res.members, res.final)
		if err != nil {
			g.r.cannot("%sassignment_by_instance: %v", prefix, err)
		} else {
			compare("assignment_by_instance", w.byInstance, got, false)
		}
	}

	if w.transferring.given {
		g.checkTransferring(prefix, w.transferring, res)
	}
	if w.hasCountsByStep {
		g.r.cannot("%sper_topic_count_per_member_by_step needs input steps", prefix)
	}
	g.properties(prefix, w, res)
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// checkConverged fails a cooperative run whose follow-up rebalances never
// stopped withholding partitions.
func (g *groupRunner) checkConverged(prefix string, res *assigned) {
	if res.convergenceChecked {
		return
	}
	res.convergenceChecked = true
	if g.client != nil && g.cooperative && !res.complete {
		g.r.fail("%sstill withholding partitions after %d follow-up rebalances:\n%s",
			prefix, res.followUps, renderAssignments(res.final))
	}
}

func (g *groupRunner) checkTransferring(prefix string, want transferSpec, res *assigned) {
	got := res.transferring
	switch {
	case want.null && got == nil:
		g.r.pass(prefix + "transferring (null: general path)")
	case want.null:
		g.r.fail("%stransferring: expected null (the general path leaves it uncomputed), got %s", prefix, renderTransfers(got))
	case got == nil:
		g.r.fail("%stransferring: expected %s, got null", prefix, renderTransfers(want.partitions))
	default:
		diff := ""
		if !maps.Equal(want.partitions, got) {
			diff = fmt.Sprintf("  expected %s, got %s", renderTransfers(want.partitions), renderTransfers(got))
		}
		g.r.check(prefix+"transferring", diff)
	}
}

func renderTransfers(m map[kafka.TopicPartition]string) string {
	var parts []string
	for tp, member := range m {
		parts = append(parts, fmt.Sprintf("%s→%s", tp, member))
	}
	slices.Sort(parts)
	return "{" + strings.Join(parts, " ") + "}"
}

// properties checks expected.properties on an assignment.
func (g *groupRunner) properties(prefix string, w *expectation, res *assigned) {
	isServer := g.server != nil
	for _, p := range w.properties {
		what := prefix + p.name
		switch p.name {
		case propValid:
			g.r.check(what, validDiff(res.members, g.topics, res.final))
		case propBalanced:
			g.r.check(what, balancedDiff(res.members, res.final))
		case propBalancedAfterFollowUps:
			g.checkConverged(prefix, res)
			g.r.check(what, balancedDiff(res.members, res.final))
		case propSticky:
			diff, ok := stickyDiff(res.members, g.topics, res.final, isServer)
			if !ok {
				g.r.cannot("%s: sticky is only checked for equal subscriptions, where the minimum movement is known", p.pos)
				continue
			}
			g.r.check(what, diff)
		case propCoopSafe:
			switch {
			case isServer:
				g.r.cannot("%s: coop_safe describes client assign() results", p.pos)
			case !g.cooperative:
				// An EAGER member revokes everything before it rejoins, so
				// handing a partition straight to its new owner is safe.
				g.r.pass(what + " (not applicable to EAGER-only " + g.name + ")")
			default:
				var problems []string
				for i, rd := range res.rounds {
					if d := coopUnsafe(rd.members, rd.result); d != "" {
						problems = append(problems, fmt.Sprintf("  round %d:\n%s", i+1, d))
					}
				}
				g.r.check(what, strings.Join(problems, "\n"))
			}
		case propUnchangedAfterNewIDs:
			g.checkNewMemberIDs(prefix, res)
		default:
			g.r.cannot("%s: property %q is not understood", p.pos, p.text)
		}
	}
}

// checkNewMemberIDs reruns the assignment after giving every member a new
// member id, as a restarted static member gets, and compares the result
// instance by instance.
func (g *groupRunner) checkNewMemberIDs(prefix string, res *assigned) {
	before, err := byInstance(res.members, res.final)
	if err != nil {
		g.r.cannot("%s%s: %v", prefix, propUnchangedAfterNewIDs, err)
		return
	}
	renamed := slices.Clone(res.members)
	for i := range renamed {
		renamed[i].id += "-restarted"
	}
	again, err := g.assign(renamed)
	if err != nil {
		g.r.fail("%s%s: assign: %v", prefix, propUnchangedAfterNewIDs, err)
		return
	}
	after, _ := byInstance(renamed, again.final)
	g.r.check(prefix+propUnchangedAfterNewIDs, diffAssignments(before, after, false))
}

// byInstance re-keys an assignment by group.instance.id.
func byInstance(members []memberSpec, got map[string]kafka.Assignment) (map[string]kafka.Assignment, error) {
	out := map[string]kafka.Assignment{}
	for _, m := range members {
		if m.instanceID == "" {
			return nil, fmt.Errorf("member %s has no instance_id", m.id)
		}
		out[m.instanceID] = got[m.id]
	}
	return out, nil
}

func reorderTopics(topics []kafka.Topic, order []string) []kafka.Topic {
	if len(order) != len(topics) {
		return nil
	}
	var out []kafka.Topic
	for _, name := range order {
		i := slices.IndexFunc(topics, func(t kafka.Topic) bool { return t.Name == name })
		if i < 0 || slices.ContainsFunc(out, func(t kafka.Topic) bool { return t.Name == name }) {
			return nil
		}
		out = append(out, topics[i])
	}
	return out
}

func reorderMembers(members []memberSpec, order []string) []memberSpec {
	if len(order) != len(members) {
		return nil
	}
	var out []memberSpec
	for _, id := range order {
		i := slices.IndexFunc(members, func(m memberSpec) bool { return m.id == id })
		if i < 0 || slices.ContainsFunc(out, func(m memberSpec) bool { return m.id == id }) {
			return nil
		}
		out = append(out, members[i])
	}
	return out
}

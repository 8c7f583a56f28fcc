package conformance

import (
	"fmt"
	"strings"

	"github.com/rebalsim/rebalsim/kafka"
)

// This file reads the input and expected blocks of assignor vectors
// (client_assignor and server_assignor).

// groupInput is the input of an assignor vector.
type groupInput struct {
	topics  []kafka.Topic // file order
	members []memberSpec  // file order
	// subscriptionType is what a server vector passes to the assignor,
	// "" when the file leaves it to be derived.
	subscriptionType string
	// steps is input.steps: member lists, one assignment each.
	steps []stepMembers
	// then is input.then, a change applied before a second assignment
	// whose result is expected.after_then.
	then, thenPos string
}

type memberSpec struct {
	id, instanceID string
	subscription   []string
	owned          kafka.Assignment
	generation     int32
	hasGeneration  bool
	current        kafka.Assignment
}

type stepMembers struct {
	pos string
	ids []string
}

// expectation is an assignor vector's expected block.
type expectation struct {
	pos string
	// assignment is nil when the block has none.
	assignment      map[string]kafka.Assignment
	byInstance      map[string]kafka.Assignment
	partial         map[string]kafka.Assignment
	firstRound      map[string]map[string]kafka.Assignment // by assignor; allAssignors for every one
	transferring    transferSpec
	properties      []property
	exact           string // true | derived | partial | false; "" means true
	orderSensitive  bool
	topicOrder      []string
	memberOrder     []string
	countsByStep    []int32
	hasCountsByStep bool
	afterThen       map[string]kafka.Assignment
}

// allAssignors keys a first_round that is not split by assignor.
const allAssignors = "*"

type transferSpec struct {
	given, null bool
	partitions  map[kafka.TopicPartition]string
}

// property is one entry of expected.properties.
type property struct {
	name string // canonical name, "" when not understood
	text string // as written
	pos  string
}

// step is one entry of a vector's then list.
type step struct {
	pos, description string
	want             *expectation
}

var inputKeys = []string{"topics", "members", "subscription_type", "steps", "then"}
var memberKeys = []string{"id", "instance_id", "subscription", "owned", "generation", "current"}

func parseGroupInput(n node, v *Vector) (*groupInput, error) {
	fs, err := n.fields()
	if err != nil {
		return nil, err
	}
	in := &groupInput{}
	for _, f := range fs {
		switch f.key {
		case "topics":
			tfs, err := f.value.fields()
			if err != nil {
				return nil, err
			}
			for _, tf := range tfs {
				count, err := tf.value.int32()
				if err != nil || count < 0 {
					return nil, tf.value.errorf("want a partition count (an integer ≥ 0), found %s", tf.value.describe())
				}
				in.topics = append(in.topics, kafka.Topic{Name: tf.key, Partitions: count})
			}
		case "members":
			items, err := f.value.items()
			if err != nil {
				return nil, err
			}
			ids := map[string]bool{}
			for _, it := range items {
				m, err := parseMember(it, v)
				if err != nil {
					return nil, err
				}
				if ids[m.id] {
					return nil, it.errorf("member id %q listed twice", m.id)
				}
				ids[m.id] = true
				in.members = append(in.members, m)
			}
		case "subscription_type":
			if in.subscriptionType, err = f.value.str(); err != nil {
				return nil, err
			}
			if in.subscriptionType != "HOMOGENEOUS" && in.subscriptionType != "HETEROGENEOUS" {
				return nil, f.value.errorf("want HOMOGENEOUS or HETEROGENEOUS, found %s", f.value.describe())
			}
		case "steps":
			items, err := f.value.items()
			if err != nil {
				return nil, err
			}
			for _, it := range items {
				s, err := it.str()
				if err != nil {
					return nil, err
				}
				ids, ok := parseMemberList(s)
				if len(ids) > maxVectorMembers {
					return nil, it.errorf("step %q names more than %d members, the limit for a vector", s, maxVectorMembers)
				}
				if !ok {
					v.unsupported = append(v.unsupported, fmt.Sprintf("%s: cannot read step %q as a member list like [c1, c2] or [c1..c4]", it.at(), s))
				}
				in.steps = append(in.steps, stepMembers{pos: it.at(), ids: ids})
			}
		case "then":
			if in.then, err = f.value.str(); err != nil {
				return nil, err
			}
			in.thenPos = f.value.at()
		default:
			return nil, f.name.errorf("input: %s", unknownKey(f, inputKeys))
		}
	}
	if len(in.members) == 0 && len(in.steps) == 0 {
		return nil, n.errorf("no members and no steps")
	}
	if err := in.checkLimits(n); err != nil {
		return nil, err
	}
	return in, nil
}

// Limits of one vector. Kafka's own vectors stay far below them (the
// largest has 2,000 partitions and 500 members); past them an assignor's
// run takes minutes, or the partitions do not fit in memory (2,000,000,000
// partitions of one topic used to end in Go's fatal out-of-memory error).
const (
	maxVectorPartitions = 200_000
	maxVectorMembers    = 20_000
	maxVectorSteps      = 1_000
)

// checkLimits refuses a group input past the limits, naming the limit.
func (in *groupInput) checkLimits(n node) error {
	total := int64(0)
	for _, t := range in.topics {
		total += int64(t.Partitions)
	}
	switch {
	case total > maxVectorPartitions:
		return n.errorf("the topics have %d partitions in total; the limit for a vector is %d", total, maxVectorPartitions)
	case len(in.members) > maxVectorMembers:
		return n.errorf("%d members; the limit for a vector is %d", len(in.members), maxVectorMembers)
	case len(in.steps) > maxVectorSteps:
		return n.errorf("%d steps; the limit for a vector is %d", len(in.steps), maxVectorSteps)
	}
	return nil
}

func parseMember(n node, v *Vector) (memberSpec, error) {
	fs, err := n.fields()
	if err != nil {
		return memberSpec{}, err
	}
	var m memberSpec
	hasSubscription := false
	for _, f := range fs {
		switch f.key {
		case "id":
			m.id, err = f.value.str()
		case "instance_id":
			if !f.value.isNull() {
				m.instanceID, err = f.value.str()
			}
		case "subscription":
			m.subscription, err = f.value.strings()
			hasSubscription = true
		case "owned":
			m.owned, err = f.value.assignment()
		case "generation":
			m.generation, err = f.value.int32()
			m.hasGeneration = true
		case "current":
			m.current, err = f.value.assignment()
		default:
			err = f.name.errorf("member: %s", unknownKey(f, memberKeys))
		}
		if err != nil {
			return memberSpec{}, err
		}
	}
	if m.id == "" {
		return memberSpec{}, n.errorf("member without an id")
	}
	if !hasSubscription {
		return memberSpec{}, n.errorf("member %q has no subscription", m.id)
	}
	return m, nil
}

var expectedKeys = []string{
	"assignment", "assignment_by_instance", "assignment_partial", "first_round", "transferring",
	"properties", "exact", "order_sensitive", "reproduce_with", "per_topic_count_per_member_by_step", "after_then",
}

func parseExpectation(n node, v *Vector) (*expectation, error) {
	fs, err := n.fields()
	if err != nil {
		return nil, err
	}
	e := &expectation{pos: n.at()}
	for _, f := range fs {
		switch f.key {
		case "assignment":
			e.assignment, _, err = f.value.memberAssignments()
		case "assignment_by_instance":
			e.byInstance, _, err = f.value.memberAssignments()
		case "assignment_partial":
			e.partial, _, err = f.value.memberAssignments()
		case "after_then":
			e.afterThen, _, err = f.value.memberAssignments()
		case "first_round":
			e.firstRound, err = parseFirstRound(f.value)
		case "transferring":
			e.transferring, err = parseTransferring(f.value)
		case "properties":
			e.properties, err = parseProperties(f.value)
		case "exact":
			e.exact, err = f.value.str()
			switch e.exact {
			case "true", "derived", "partial", "false":
			default:
				if err == nil {
					err = f.value.errorf("want true, derived, partial or false, found %s", f.value.describe())
				}
			}
		case "order_sensitive":
			e.orderSensitive, err = f.value.bool()
		case "reproduce_with":
			err = parseReproduce(f.value, e, v)
		case "per_topic_count_per_member_by_step":
			var items []node
			if items, err = f.value.items(); err == nil {
				for _, it := range items {
					var c int32
					if c, err = it.int32(); err != nil {
						break
					}
					e.countsByStep = append(e.countsByStep, c)
				}
			}
			e.hasCountsByStep = true
		default:
			err = f.name.errorf("expected: %s", unknownKey(f, expectedKeys))
		}
		if err != nil {
			return nil, err
		}
	}
	return e, nil
}

// parseFirstRound reads first_round either per assignor
// ({cooperative-sticky: {member: ...}}) or, when its keys are not assignor
// names, as one assignment for every assignor of the vector.
func parseFirstRound(n node) (map[string]map[string]kafka.Assignment, error) {
	fs, err := n.fields()
	if err != nil {
		return nil, err
	}
	perAssignor := len(fs) > 0
	for _, f := range fs {
		if !isAssignorName(f.key) {
			perAssignor = false
		}
	}
	out := map[string]map[string]kafka.Assignment{}
	if !perAssignor {
		a, _, err := n.memberAssignments()
		if err != nil {
			return nil, err
		}
		out[allAssignors] = a
		return out, nil
	}
	for _, f := range fs {
		a, _, err := f.value.memberAssignments()
		if err != nil {
			return nil, err
		}
		out[f.key] = a
	}
	return out, nil
}

func isAssignorName(s string) bool {
	switch s {
	case "range", "roundrobin", "sticky", "cooperative-sticky", "uniform", "server-range":
		return true
	}
	return false
}

func parseTransferring(n node) (transferSpec, error) {
	t := transferSpec{given: true}
	if n.isNull() {
		t.null = true
		return t, nil
	}
	fs, err := n.fields()
	if err != nil {
		return t, err
	}
	t.partitions = map[kafka.TopicPartition]string{}
	for _, f := range fs {
		tp, ok := parseTopicPartition(f.key)
		if !ok {
			return t, f.value.errorf("want a key like \"topic-0\", found %q", f.key)
		}
		if t.partitions[tp], err = f.value.str(); err != nil {
			return t, err
		}
	}
	return t, nil
}

// parseTopicPartition reads "topic-3" (TopicPartition.toString); the topic
// name may itself contain dashes.
func parseTopicPartition(s string) (kafka.TopicPartition, bool) {
	i := strings.LastIndexByte(s, '-')
	if i <= 0 {
		return kafka.TopicPartition{}, false
	}
	var p int32
	if _, err := fmt.Sscanf(s[i+1:], "%d", &p); err != nil || fmt.Sprint(p) != s[i+1:] || p < 0 {
		return kafka.TopicPartition{}, false
	}
	return kafka.TopicPartition{Topic: s[:i], Partition: p}, true
}

// Properties the runner checks. Free text is matched loosely so that a
// phrase such as "balanced after follow-up rebalances" is understood.
const (
	propValid                  = "valid"
	propBalanced               = "balanced"
	propSticky                 = "sticky"
	propCoopSafe               = "coop_safe"
	propUnchangedAfterNewIDs   = "unchanged_after_member_id_change"
	propBalancedAfterFollowUps = "balanced after follow-up rebalances"
)

func parseProperties(n node) ([]property, error) {
	items, err := n.items()
	if err != nil {
		return nil, err
	}
	var out []property
	for _, it := range items {
		text, err := it.str()
		if err != nil {
			return nil, err
		}
		out = append(out, property{name: canonicalProperty(text), text: text, pos: it.at()})
	}
	return out, nil
}

func canonicalProperty(text string) string {
	t := strings.ToLower(strings.TrimSpace(text))
	switch t {
	case propValid, propBalanced, propSticky, propCoopSafe, propUnchangedAfterNewIDs:
		return t
	}
	if strings.Contains(t, "balanced") && (strings.Contains(t, "follow-up") || strings.Contains(t, "follow up")) {
		return propBalancedAfterFollowUps
	}
	return ""
}

func parseReproduce(n node, e *expectation, v *Vector) error {
	fs, err := n.fields()
	if err != nil {
		return err
	}
	for _, f := range fs {
		switch f.key {
		case "topic_order":
			e.topicOrder, err = f.value.strings()
		case "member_order":
			e.memberOrder, err = f.value.strings()
		case "note":
			_, err = f.value.str()
		default:
			err = f.name.errorf("reproduce_with: %s", unknownKey(f, []string{"topic_order", "member_order", "note"}))
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func parseSteps(n node, v *Vector) ([]step, error) {
	items, err := n.items()
	if err != nil {
		return nil, err
	}
	var out []step
	for _, it := range items {
		fs, err := it.fields()
		if err != nil {
			return nil, err
		}
		s := step{pos: it.at()}
		for _, f := range fs {
			switch f.key {
			case "step":
				s.description, err = f.value.str()
			case "expected":
				s.want, err = parseExpectation(f.value, v)
			default:
				err = f.name.errorf("then: %s", unknownKey(f, []string{"step", "expected"}))
			}
			if err != nil {
				return nil, err
			}
		}
		if s.description == "" || s.want == nil {
			return nil, it.errorf("a then step needs a step description and an expected block")
		}
		out = append(out, s)
	}
	return out, nil
}

// parseMemberList reads a steps entry such as "[c1, c2]" or "[c1..c4]",
// where a..b expands numbered ids sharing a prefix.
func parseMemberList(s string) ([]string, bool) {
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, "[") || !strings.HasSuffix(s, "]") {
		return nil, false
	}
	var out []string
	for _, part := range strings.Split(s[1:len(s)-1], ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			return nil, false
		}
		lo, hi, isRange := strings.Cut(part, "..")
		if !isRange {
			out = append(out, part)
			continue
		}
		prefix, a, ok1 := splitNumber(strings.TrimSpace(lo))
		prefix2, b, ok2 := splitNumber(strings.TrimSpace(hi))
		if !ok1 || !ok2 || prefix != prefix2 || a > b {
			return nil, false
		}
		if b-a >= maxVectorMembers-len(out) {
			// Too many to list: the caller refuses the step by its length.
			return make([]string, maxVectorMembers+1), true
		}
		for i := a; i <= b; i++ {
			out = append(out, fmt.Sprintf("%s%d", prefix, i))
		}
	}
	return out, len(out) > 0
}

// splitNumber splits "consumer12" into ("consumer", 12).
func splitNumber(s string) (string, int, bool) {
	i := len(s)
	for i > 0 && s[i-1] >= '0' && s[i-1] <= '9' {
		i--
	}
	if i == len(s) {
		return "", 0, false
	}
	var n int
	fmt.Sscan(s[i:], &n)
	return s[:i], n, true
}

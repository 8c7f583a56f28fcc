package scenarios

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rebalsim/rebalsim/sim"
)

// Validate checks a scenario built in Go by the rules Parse applies to
// files, and returns nil or an error naming the offending fields by path,
// for example `scenario "deploy": events[2].members[0]: crash names unknown
// member "c9"; did you mean "c2"?`.
//
// Zero values that sim documents as defaults are accepted: an empty
// Protocols list (every model), a zero Network (no latency) and
// zero GroupConfig fields (Kafka's broker defaults). Validate does not
// change s.
func Validate(s *sim.Scenario) error { return Loader{}.Validate(s) }

// Validate checks a scenario built in Go against the rules and the names
// the loader's models register (see the function Validate).
func (l Loader) Validate(s *sim.Scenario) error {
	return l.ValidateFile(&File{Scenario: s})
}

// ValidateFile is Validate for a scenario with its expectations and sweep
// block, as Parse checks a file.
func ValidateFile(f *File) error { return Loader{}.ValidateFile(f) }

// ValidateFile is the function ValidateFile under the loader's models.
func (l Loader) ValidateFile(f *File) error {
	if f == nil || f.Scenario == nil {
		return &Error{Source: "scenario", Message: "the scenario is nil"}
	}
	c := newChecker(f, nil, l.names())
	c.run()
	return c.err()
}

// locator tells the checker where a field was written in a file. Validate
// has none; Parse passes its decoder.
type locator interface {
	// locate returns the position of the field at path, or of the nearest
	// enclosing field that has one.
	locate(path string) (line, col int, ok bool)
	// written reports whether the file spells out the field at path.
	written(path string) bool
}

// checker applies the semantic rules: values in range, names that refer to
// something declared, times inside the horizon, and the limits. Every rule
// lives here once, for files and for scenarios built in Go.
type checker struct {
	s     *File
	loc   locator
	names sim.Names
	label string
	errs  []*Error
	// topicIndex and memberIndex find declarations by name (first wins).
	topicIndex  map[string]int
	memberIndex map[string]int
}

func newChecker(s *File, loc locator, names sim.Names) *checker {
	label := s.Source
	if label == "" {
		label = "scenario"
		if s.Name != "" {
			label = fmt.Sprintf("scenario %q", short(s.Name))
		}
	}
	return &checker{s: s, loc: loc, names: names, label: label,
		topicIndex: make(map[string]int, len(s.Topics)), memberIndex: make(map[string]int, min(len(s.Members), MaxMembers))}
}

// problem records a problem with the field at path.
func (c *checker) problem(path, format string, args ...any) {
	if len(c.errs) >= maxErrors {
		return
	}
	e := &Error{Source: c.label, Path: path, Message: fmt.Sprintf(format, args...)}
	if c.loc != nil {
		if line, col, ok := c.loc.locate(path); ok {
			e.Line, e.Column, e.Path = line, col, ""
		}
	}
	// One mistake in a shared block (defaults, a count: entry) surfaces
	// once per member that inherits it; say it once.
	if slices.ContainsFunc(c.errs, func(o *Error) bool { return *o == *e }) {
		return
	}
	c.errs = append(c.errs, e)
}

// full reports whether the checker has as many problems as it reports;
// loops stop then, before computing suggestions nobody will read.
func (c *checker) full() bool { return len(c.errs) >= maxErrors }

// repeats finds the items of a list that repeat an earlier one, in linear
// time: lists here can hold 100,000 member ids.
type repeats map[string]struct{}

// seen reports whether v was seen before, and remembers it.
func (r repeats) seen(v string) bool {
	if _, ok := r[v]; ok {
		return true
	}
	r[v] = struct{}{}
	return false
}

func (c *checker) written(path string) bool { return c.loc != nil && c.loc.written(path) }

// err returns the problems found, in file order when there is a file.
func (c *checker) err() error {
	if c.loc != nil {
		slices.SortStableFunc(c.errs, func(a, b *Error) int {
			return cmp.Or(cmp.Compare(a.Line, b.Line), cmp.Compare(a.Column, b.Column))
		})
	}
	return asError(c.errs)
}

func (c *checker) run() {
	c.checkTop()
	c.checkTopics()
	c.checkNetwork()
	c.checkGroup()
	c.checkSettings("defaults", &c.s.Defaults)
	c.checkTimeouts([]layer{{"defaults", "defaults", &c.s.Defaults}}, "")
	c.checkMembers()
	c.checkEvents()
	c.checkAutoscaler()
	if len(c.errs) == 0 {
		c.checkOverlaps()
	}
	c.checkExpectations()
}

// minDuration is the shortest horizon a scenario may have.
const minDuration = time.Second

func (c *checker) checkTop() {
	s := c.s
	if s.Name == "" {
		c.problem("name", "the scenario has no name; add name:")
	}
	switch {
	case s.Duration <= 0:
		c.problem("duration", "duration must be positive, found %s", FormatDuration(s.Duration))
	case s.Duration < minDuration:
		c.problem("duration", "duration must be at least %s, found %s: the horizon is too short for a group to form and be disturbed (one JoinGroup round alone waits for the initial rebalance delay)",
			FormatDuration(minDuration), FormatDuration(s.Duration))
	}
	if len(s.Protocols) == 0 && c.written("protocols") {
		c.problem("protocols", "protocols must name at least one protocol (allowed: %s)", strings.Join(c.names.Protocols, ", "))
	}
	c.checkProtocolList("protocols", s.Protocols, c.names.Protocols)
}

// checkProtocolList checks names against the allowed protocols.
func (c *checker) checkProtocolList(path string, ps, allowed []string) {
	dup := repeats{}
	for i, p := range ps {
		if c.full() {
			return
		}
		at := fmt.Sprintf("%s[%d]", path, i)
		switch {
		case !slices.Contains(c.names.Protocols, p):
			oneOf("protocol", c.names.Protocols)(c, at, "", p)
		case !slices.Contains(allowed, p):
			c.problem(at, "protocol %s is not among the scenario's protocols (%s), so this expectation would never be checked",
				p, strings.Join(allowed, ", "))
		case dup.seen(p):
			c.problem(at, "protocol %s is listed twice", p)
		}
	}
}

// runs returns the protocols the scenario runs; empty means all of them.
func (c *checker) runs() []string {
	if len(c.s.Protocols) == 0 {
		return c.names.Protocols
	}
	return c.s.Protocols
}

func (c *checker) checkTopics() {
	if len(c.s.Topics) == 0 {
		c.problem("topics", "the scenario has no topics; add topics: [{name: orders, partitions: 12}]")
	}
	var total int64
	for i, t := range c.s.Topics {
		path := fmt.Sprintf("topics[%d]", i)
		if msg := nameProblem(t.Name); msg != "" {
			c.problem(path+".name", "topic name %s", msg)
		} else if first, dup := c.topicIndex[t.Name]; dup {
			c.problem(path+".name", "topic %q is declared twice (first as topics[%d])", t.Name, first)
		} else {
			c.topicIndex[t.Name] = i
		}
		if t.Partitions < 1 {
			c.problem(path+".partitions", "partitions must be at least 1, found %d", t.Partitions)
		}
		if t.Rate < 0 || math.IsNaN(t.Rate) || math.IsInf(t.Rate, 0) {
			c.problem(path+".rate", "rate must be a non-negative number of records per second per partition, found %v", t.Rate)
		}
		total += int64(max(t.Partitions, 0))
	}
	if total > MaxPartitions {
		c.problem("topics", "the topics have %s partitions in total; the limit is %s", grouped(total), grouped(MaxPartitions))
	}
}

func (c *checker) hasTopic(name string) bool {
	_, ok := c.topicIndex[name]
	return ok
}

// topicHint suggests the nearest declared topic, or lists them.
func (c *checker) topicHint(name string) string {
	names := make([]string, len(c.s.Topics))
	for i, t := range c.s.Topics {
		names[i] = t.Name
	}
	if hint := didYouMean(name, names); hint != "" {
		return hint
	}
	if len(names) > 0 && len(names) <= 10 {
		return " (topics: " + strings.Join(names, ", ") + ")"
	}
	return ""
}

func (c *checker) checkNetwork() {
	c.checkDistribution("network.latency", "latency", c.s.Network.Latency)
}

// checkDistribution checks a distribution of durations written at path;
// key names it in messages.
func (c *checker) checkDistribution(path, key string, l sim.Distribution) {
	switch l.Kind {
	case "":
		if l != (sim.Distribution{}) {
			c.problem(path, "%s has parameters but no kind (allowed: %s)", key, strings.Join(distKinds(), ", "))
		}
	case sim.DistConstant:
		nonNegative(c, path+".value", key, l.Value)
	case sim.DistUniform:
		nonNegative(c, path+".min", "min", l.Min)
		if l.Max < l.Min {
			c.problem(path+".max", "uniform %s max %s is below min %s", key, FormatDuration(l.Max), FormatDuration(l.Min))
		}
	case sim.DistLogNormal:
		positive(c, path+".median", "median", l.Median)
		if l.P99 < l.Median {
			c.problem(path+".p99", "lognormal %s p99 %s is below its median %s", key, FormatDuration(l.P99), FormatDuration(l.Median))
		}
	default:
		c.problem(path, "unknown %s dist %q (allowed: %s)", key, short(string(l.Kind)), strings.Join(distKinds(), ", "))
	}
}

func (c *checker) checkGroup() {
	g := &c.s.Group
	c.checkGroupSettings(g)
	resolved := sim.ResolveGroupConfigFor(*g, c.s.KafkaVersion)
	hb, st := resolved.HeartbeatInterval, resolved.SessionTimeout
	for _, v := range sim.ConsumerGroupBounds(resolved) {
		if v.Key == "heartbeat_interval" && hb >= st {
			continue // the rule below says what is wrong
		}
		// Reported where the file wrote the value, else at the bound
		// it wrote.
		path := "group." + v.Key
		if !c.written(path) && c.written("group."+v.Bound) {
			path = "group." + v.Bound
		}
		c.problem(path, "%s", v.Error())
	}
	if hb > 0 && st > 0 && hb >= st {
		path := "group.heartbeat_interval"
		if !c.written(path) && c.written("group.session_timeout") {
			path = "group.session_timeout"
		}
		c.problem(path, "group.heartbeat_interval %s must be less than group.session_timeout %s, or members expire between heartbeats",
			FormatDuration(hb), FormatDuration(st))
	}
	lo, hi := resolved.MinSessionTimeout, resolved.MaxSessionTimeout
	if lo > 0 && hi > 0 && lo > hi {
		c.problem("group.min_session_timeout", "group.min_session_timeout %s exceeds group.max_session_timeout %s", FormatDuration(lo), FormatDuration(hi))
	}
}

// layer is one level of consumer settings, highest first when resolving.
type layer struct {
	name string // for messages: "defaults", "the member", "set"
	path string
	cs   *sim.ConsumerSettings
}

// checkTimeouts applies the classic consumer's rule that
// heartbeat.interval.ms be below session.timeout.ms (the constructor of
// Kafka's Heartbeat) to the settings resolved from layers over Kafka's
// defaults. It speaks only when the top layer sets one of the two, so a
// problem is reported once, where it was introduced, and reports whether
// it found one.
func (c *checker) checkTimeouts(layers []layer, who string) bool {
	top := layers[0]
	if top.cs.SessionTimeout == nil && top.cs.HeartbeatInterval == nil {
		return false
	}
	st, hb := kafkaTimeouts()
	stFrom, hbFrom := "Kafka's default", "Kafka's default"
	for i := len(layers) - 1; i >= 0; i-- {
		if p := layers[i].cs.SessionTimeout; p != nil {
			st, stFrom = *p, layers[i].name
		}
		if p := layers[i].cs.HeartbeatInterval; p != nil {
			hb, hbFrom = *p, layers[i].name
		}
	}
	if hb <= 0 || st <= 0 || hb < st { // non-positive values have their own rule
		return false
	}
	from := func(layer string) string {
		if layer == top.name {
			return ""
		}
		return " (" + layer + ")"
	}
	path := top.path + ".session_timeout"
	if top.cs.HeartbeatInterval != nil {
		path = top.path + ".heartbeat_interval"
	}
	c.problem(path, "heartbeat_interval %s%s must be less than session_timeout %s%s%s; Kafka's classic consumer refuses to start otherwise",
		FormatDuration(hb), from(hbFrom), FormatDuration(st), from(stFrom), who)
	return true
}

func (c *checker) checkMembers() {
	s := c.s
	if len(s.Members) == 0 {
		c.problem("members", "the scenario has no members; add members: [{id: c1}]")
	}
	if len(s.Members) > MaxMembers {
		c.problem("members", "the scenario declares %s members; the limit is %s", grouped(len(s.Members)), grouped(MaxMembers))
		return
	}
	for i, m := range s.Members {
		if c.full() {
			return
		}
		path := fmt.Sprintf("members[%d]", i)
		switch msg := nameProblem(m.ID); {
		case msg != "":
			c.problem(path+".id", "member id %s", msg)
		case m.ID == "all":
			c.problem(path+".id", "all is reserved: events write members: all to mean every member; choose another id")
		default:
			if first, dup := c.memberIndex[m.ID]; dup {
				c.problem(path+".id", "member id %q is declared twice (first %s)", m.ID, c.memberWhere(first))
			} else {
				c.memberIndex[m.ID] = i
			}
		}
		switch {
		case m.Start < 0:
			c.problem(path+".start", "start must not be negative, found %s", FormatDuration(m.Start))
		case s.Duration > 0 && m.Start >= s.Duration:
			c.problem(path+".start", "start %s is at or after the %s horizon (duration), so the member would never run",
				FormatDuration(m.Start), FormatDuration(s.Duration))
		}
		// Members expanded from one count: entry share their settings;
		// one check covers them all.
		if i > 0 && m.Settings == s.Members[i-1].Settings {
			continue
		}
		c.checkSettings(path, &s.Members[i].Settings)
		c.checkTimeouts([]layer{{"the member", path, &s.Members[i].Settings}, {"defaults", "defaults", &s.Defaults}}, "")
	}
}

// memberWhere says where member i was declared, for "declared twice".
func (c *checker) memberWhere(i int) string {
	if line := c.s.Members[i].Line; line > 0 {
		return fmt.Sprintf("on line %d", line)
	}
	return fmt.Sprintf("as members[%d]", i)
}

// memberHint suggests the nearest declared member id.
func (c *checker) memberHint(id string) string {
	ids := make([]string, len(c.s.Members))
	for i, m := range c.s.Members {
		ids[i] = m.ID
	}
	return didYouMean(id, ids)
}

func (c *checker) checkEvents() {
	s := c.s
	actions := 0
	for _, ev := range s.Events {
		actions += max(len(ev.Members), 1)
	}
	if actions > MaxEventActions {
		c.problem("events", "the events act on %s members in total; the limit is %s (an event counts once per member it names)",
			grouped(actions), grouped(MaxEventActions))
		return
	}
	partitions := make([]int32, len(s.Topics))
	var total int64
	for i, t := range s.Topics {
		partitions[i] = t.Partitions
		total += int64(max(t.Partitions, 0))
	}
	for i, ev := range s.Events {
		if c.full() {
			return
		}
		path := fmt.Sprintf("events[%d]", i)
		if i > 0 && ev.At < s.Events[i-1].At {
			c.problem(path+".at", "events must be sorted by time: events[%d] at %s comes after events[%d] at %s",
				i, FormatDuration(ev.At), i-1, FormatDuration(s.Events[i-1].At))
		}
		switch {
		case ev.At < 0:
			c.problem(path+".at", "at must not be negative, found %s", FormatDuration(ev.At))
		case s.Duration > 0 && ev.At >= s.Duration:
			c.problem(path+".at", "%s at %s is at or after the %s horizon (duration), so it would never happen",
				ev.Kind, FormatDuration(ev.At), FormatDuration(s.Duration))
		}
		if !slices.Contains(eventKinds(), string(ev.Kind)) {
			c.problem(path, "unknown event kind %q (allowed: %s)", short(string(ev.Kind)), strings.Join(eventKinds(), ", "))
			continue
		}
		if ev.Kind != sim.EventAddPartitions {
			c.checkTargets(path, ev)
		}
		switch ev.Kind {
		case sim.EventPause, sim.EventStall, sim.EventNetworkPartition:
			positive(c, path+".for", "for", ev.For)
		case sim.EventRestart, sim.EventRollingRestart:
			nonNegative(c, path+".down", "down", ev.For)
			if ev.Kind == sim.EventRollingRestart {
				nonNegative(c, path+".interval", "interval", ev.Interval)
			}
			c.checkSettings(path+".set", &s.Events[i].Set)
			for _, id := range ev.Members {
				if m, ok := c.memberIndex[id]; ok {
					layers := []layer{{"set", path + ".set", &s.Events[i].Set},
						{"the member", fmt.Sprintf("members[%d]", m), &s.Members[m].Settings},
						{"defaults", "defaults", &s.Defaults}}
					if c.checkTimeouts(layers, " for member "+id) {
						break
					}
				}
			}
		case sim.EventAddPartitions:
			t, ok := c.topicIndex[ev.Topic]
			if !ok {
				c.problem(path+".topic", "add_partitions names unknown topic %q%s", short(ev.Topic), c.topicHint(ev.Topic))
				continue
			}
			if ev.Partitions <= partitions[t] {
				c.problem(path+".partitions", "add_partitions must grow topic %s: it has %d partitions by %s, and Kafka cannot shrink a topic; found %d",
					ev.Topic, partitions[t], FormatDuration(ev.At), ev.Partitions)
				continue
			}
			total += int64(ev.Partitions - partitions[t])
			partitions[t] = ev.Partitions
			if total > MaxPartitions {
				c.problem(path+".partitions", "this growth brings the topics to %s partitions in total; the limit is %s", grouped(total), grouped(MaxPartitions))
				return
			}
		case sim.EventRollout:
			c.checkRollout(path+".rollout", ev.Rollout)
			c.checkSettings(path+".set", &s.Events[i].Set)
		case sim.EventSubscribe:
			if len(ev.Topics) == 0 {
				c.problem(path+".topics", "subscribe needs at least one topic; to stop a member, use leave")
			}
			checkSubscription(c, path+".topics", "subscribe", ev.Topics)
		}
	}
}

// checkTargets checks the members an event names.
func (c *checker) checkTargets(path string, ev sim.Event) {
	if len(ev.Members) == 0 {
		c.problem(path+".members", "%s names no members", ev.Kind)
	}
	dup := make(repeats, len(ev.Members))
	for j, id := range ev.Members {
		if c.full() {
			return
		}
		_, known := c.memberIndex[id]
		at := func() string { return fmt.Sprintf("%s.members[%d]", path, j) }
		switch {
		case id == "all":
			c.problem(at(), "all must be resolved to the member ids before Validate (sim.Event.Members never holds all)")
		case !known:
			c.problem(at(), "%s names unknown member %q%s", ev.Kind, short(id), c.memberHint(id))
		case dup.seen(id):
			c.problem(at(), "%s names member %s twice", ev.Kind, id)
		}
	}
}

func (c *checker) checkExpectations() {
	metrics := sim.MetricNames()
	for i, x := range c.s.Expect {
		if c.full() {
			return
		}
		path := fmt.Sprintf("expect[%d]", i)
		c.checkProtocolList(path+".protocols", x.Protocols, c.runs())
		if x.ConvergedWithin != nil {
			nonNegative(c, path+".converged_within", "converged_within", *x.ConvergedWithin)
		}
		if x.Seeds < 0 || x.Seeds > MaxSeeds {
			c.problem(path+".seeds", "seeds must be a whole number from 1 to %s, found %d", grouped(MaxSeeds), x.Seeds)
		}
		if q := x.Quantile; q < 0 || q > 1 || math.IsNaN(q) || (q == 0 && c.written(path+".quantile")) {
			c.problem(path+".quantile", "quantile is the fraction of seeds on which the expectation must hold: more than 0 and at most 1, found %v", q)
		}
		for j, b := range x.Bounds {
			key := "min_" + b.Metric
			if b.IsMax {
				key = "max_" + b.Metric
			}
			at := path + "." + key
			if !slices.Contains(metrics, b.Metric) {
				c.problem(at, "unknown metric %q%s (metrics: %s)", short(b.Metric), didYouMean(b.Metric, metrics), strings.Join(metrics, ", "))
				continue
			}
			if b.FractionOf != "" {
				at += ".value"
			}
			if b.Value < 0 || math.IsNaN(b.Value) || math.IsInf(b.Value, 0) {
				if b.FractionOf != "" {
					c.problem(at, "the value of %s is a non-negative factor, found %v", key, b.Value)
				} else {
					c.problem(at, "%s must be a non-negative number, found %v; every metric is a non-negative amount", key, b.Value)
				}
				continue
			}
			if b.FractionOf != "" {
				c.checkComparison(path, key, x, b)
			}
			for _, o := range x.Bounds[:j] {
				if o.Metric == b.Metric && o.IsMax != b.IsMax && o.FractionOf == b.FractionOf {
					lo, hi := b.Value, o.Value
					if b.IsMax {
						lo, hi = o.Value, b.Value
					}
					if lo > hi {
						c.problem(at, "min_%s %s exceeds max_%s %s, so the expectation can never hold",
							b.Metric, fmtNumber(lo), b.Metric, fmtNumber(hi))
					}
				}
			}
		}
		if x.DoubleOwnershipHazard {
			pinned := slices.ContainsFunc(x.Bounds, func(b Bound) bool {
				return b.Metric == "double_ownership_seconds" && !b.IsMax && b.FractionOf == "" && b.Value > 0
			})
			switch {
			case len(x.Protocols) == 0:
				c.problem(path+".no_double_ownership", "no_double_ownership: false declares a known hazard of some protocols; name them with protocols:")
			case !pinned:
				c.problem(path+".no_double_ownership", "no_double_ownership: false must show the hazard it declares: add min_double_ownership_seconds with a positive value")
			}
		} else if x.ConvergedWithin == nil && !x.NoDoubleOwnership && !x.NoZombieProcessing && len(x.Bounds) == 0 {
			c.problem(path, "the expectation checks nothing; add converged_within, no_double_ownership, no_zombie_processing or a max_/min_ bound")
		}
	}
}

// checkComparison checks a bound relative to another protocol's run: the
// reference must be a protocol the scenario runs, and the expectation must
// name the runs it applies to, without the reference itself.
func (c *checker) checkComparison(path, key string, x Expectation, b Bound) {
	at := path + "." + key + ".fraction_of"
	switch {
	case !slices.Contains(c.names.Protocols, b.FractionOf):
		oneOf("protocol", c.names.Protocols)(c, at, "", b.FractionOf)
	case !slices.Contains(c.runs(), b.FractionOf):
		c.problem(at, "%s compares with %s, which is not among the scenario's protocols (%s)", key, b.FractionOf, strings.Join(c.runs(), ", "))
	case len(x.Protocols) == 0:
		c.problem(path+"."+key, "%s compares with %s's run; add protocols: naming the runs it applies to, such as [%s]",
			key, b.FractionOf, strings.Join(slices.DeleteFunc(slices.Clone(c.runs()), func(p string) bool { return p == b.FractionOf }), ", "))
	case slices.Contains(x.Protocols, b.FractionOf):
		c.problem(at, "%s compares %s with itself; remove %s from protocols: or compare with another protocol", key, b.FractionOf, b.FractionOf)
	}
}

func fmtNumber(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

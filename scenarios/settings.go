package scenarios

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/rebalsim/rebalsim/sim"
)

// Kafka's client defaults for the two settings the checker compares
// (reference §1.1: session.timeout.ms, heartbeat.interval.ms).
func kafkaTimeouts() (session, heartbeat time.Duration) {
	c := sim.DefaultConsumerConfig("")
	return c.SessionTimeout, c.HeartbeatInterval
}

// The consumer and group setting keys are sim's settings tables
// (sim.ConsumerSettingTable, sim.GroupSettingTable): the decoder reads a
// key by its row's kind and the checker applies the row's rule, so a key
// cannot be decoded without being checked, or checked differently in Go
// and in YAML.

func settingKeys() []string {
	var keys []string
	for _, s := range sim.ConsumerSettingTable() {
		keys = append(keys, s.Info().Key)
	}
	return keys
}

func groupKeys() []string {
	var keys []string
	for _, s := range sim.GroupSettingTable() {
		keys = append(keys, s.Info().Key)
	}
	return keys
}

// decodeSettings reads the consumer setting keys among f into a
// ConsumerSettings, recording each under path.key.
func (d *decoder) decodeSettings(f fields, path string) sim.ConsumerSettings {
	var cs sim.ConsumerSettings
	for _, s := range sim.ConsumerSettingTable() {
		key := s.Info().Key
		if e := f.get(key); e != nil {
			d.mark(path+"."+key, e.val)
			if v, ok := d.settingValue(e.val, s.Info(), path+"."+key); ok {
				s.Put(&cs, v)
			}
		}
	}
	return cs
}

// decodeGroup reads the keys of the group: section into g.
func (d *decoder) decodeGroup(f fields, g *sim.GroupConfig) {
	for _, s := range sim.GroupSettingTable() {
		key := s.Info().Key
		if e := f.get(key); e != nil {
			d.mark("group."+key, e.val)
			if v, ok := d.settingValue(e.val, s.Info(), "group."+key); ok {
				s.Put(g, v)
			}
		}
	}
}

// settingValue reads n as a value of the setting's kind, in the Go type
// its row holds.
func (d *decoder) settingValue(n *yaml.Node, s sim.Setting, path string) (any, bool) {
	switch s.Kind {
	case sim.KindStrings:
		return ok(d.strings(n, s.Key, path))
	case sim.KindBool:
		return ok(d.boolean(n, s.Key))
	case sim.KindDuration:
		return ok(d.duration(n, s.Key))
	case sim.KindInt:
		v, good := d.integer(n, s.Key, math.MinInt32, math.MaxInt32)
		return int(v), good
	case sim.KindNumber:
		return ok(d.number(n, s.Key))
	case sim.KindDistribution:
		return ok(d.distribution(n, s.Key, path, "a duration such as 2ms, or {dist: lognormal, median: 2ms, p99: 40ms}"))
	}
	return ok(d.str(n, s.Key))
}

// ok passes on a typed value and whether it was read, as an any.
func ok[T any](v T, good bool) (any, bool) { return v, good }

// checkSettings applies every key's rule to cs, written at path.
func (c *checker) checkSettings(path string, cs *sim.ConsumerSettings) {
	for _, s := range sim.ConsumerSettingTable() {
		if v, set := s.Value(cs); set {
			c.checkValue(s.Info(), path+"."+s.Info().Key, s.Info().Key, v)
		}
	}
}

// checkGroupSettings applies every group key's rule to g.
func (c *checker) checkGroupSettings(g *sim.GroupConfig) {
	for _, s := range sim.GroupSettingTable() {
		path := "group." + s.Info().Key
		// GroupConfig documents zero as "Kafka's default", so a scenario
		// built in Go may leave fields zero. A file that writes the zero
		// out means it.
		if s.IsZero(g) && !c.written(path) {
			continue
		}
		c.checkValue(s.Info(), path, path, s.Value(g))
	}
}

// checkValue applies the setting's rule to v, reporting at path and naming key.
func (c *checker) checkValue(s sim.Setting, path, key string, v any) {
	switch s.Rule {
	case sim.RulePositive:
		if d, isDuration := v.(time.Duration); isDuration {
			positive(c, path, key, d)
		} else {
			positiveRate(c, path, key, v.(float64))
		}
	case sim.RuleNonNegative:
		if d, isDuration := v.(time.Duration); isDuration {
			nonNegative(c, path, key, d)
		} else if n := v.(int); n < 0 {
			c.problem(path, "%s must not be negative (0 means %s), found %d", key, s.Zero, n)
		}
	case sim.RuleRange:
		if n := v.(int); int64(n) < s.Min || int64(n) > s.Max {
			c.problem(path, "%s must be a whole number from %s to %s, found %d", key, grouped(s.Min), grouped(s.Max), n)
		}
	case sim.RuleOneOf:
		oneOf(s.Key, s.Allowed)(c, path, key, v.(string))
	case sim.RuleDistribution:
		c.checkDistribution(path, key, v.(sim.Distribution))
	case sim.RuleProtocol:
		oneOf("protocol", c.names.Protocols)(c, path, key, v.(string))
	case sim.RuleClientAssignors:
		checkAssignors(c, path, key, v.([]string))
	case sim.RuleServerAssignor:
		checkServerAssignor(c, path, key, v.(string))
	case sim.RuleServerAssignorOrNone:
		if v != "" { // Kafka's null: the broker's default assignor.
			checkServerAssignor(c, path, key, v.(string))
		}
	case sim.RuleName:
		checkName(c, path, key, v.(string))
	case sim.RuleTopics:
		checkSubscription(c, path, key, v.([]string))
	}
}

// Rules. Each reports its problems at path, naming key.

func positive(c *checker, path, key string, v time.Duration) {
	if v <= 0 {
		c.problem(path, "%s must be positive, found %s", key, FormatDuration(v))
	}
}

func nonNegative(c *checker, path, key string, v time.Duration) {
	if v < 0 {
		c.problem(path, "%s must not be negative, found %s", key, FormatDuration(v))
	}
}

func positiveRate(c *checker, path, key string, v float64) {
	if !(v > 0) || math.IsInf(v, 0) {
		c.problem(path, "%s must be a positive number of records per second, found %v", key, v)
	}
}

// oneOf returns a rule accepting only the allowed values.
func oneOf(noun string, allowed []string) func(*checker, string, string, string) {
	return func(c *checker, path, _ string, v string) {
		if !slices.Contains(allowed, v) {
			c.problem(path, "unknown %s %q%s (allowed: %s)", noun, short(v), didYouMean(v, allowed), strings.Join(allowed, ", "))
		}
	}
}

func checkAssignors(c *checker, path, key string, v []string) {
	if len(v) == 0 {
		c.problem(path, "%s must name at least one assignor (allowed: %s)", key, strings.Join(c.names.ClientAssignors, ", "))
		return
	}
	dup := repeats{}
	for i, a := range v {
		if c.full() {
			return
		}
		at := fmt.Sprintf("%s[%d]", path, i)
		switch {
		case slices.Contains(c.names.ClientAssignors, a):
			if dup.seen(a) {
				c.problem(at, "assignor %q is listed twice in %s", a, key)
			}
		case slices.Contains(c.names.ServerAssignors, a):
			c.problem(at, "%s is a server assignor of the consumer protocol, not a client one; use remote_assignor or group.assignor (client assignors: %s)",
				short(a), strings.Join(c.names.ClientAssignors, ", "))
		default:
			c.problem(at, "unknown assignor %q in %s%s (client assignors: %s)", short(a), key, didYouMean(a, c.names.ClientAssignors), strings.Join(c.names.ClientAssignors, ", "))
		}
	}
}

func checkServerAssignor(c *checker, path, key string, v string) {
	if slices.Contains(c.names.ServerAssignors, v) {
		return
	}
	if slices.Contains(c.names.ClientAssignors, v) {
		c.problem(path, "%s %q is a client assignor of the classic protocol; the consumer protocol's server assignors are %s",
			key, v, strings.Join(c.names.ServerAssignors, ", "))
		return
	}
	c.problem(path, "unknown %s %q%s (server assignors: %s)", key, short(v), didYouMean(v, c.names.ServerAssignors), strings.Join(c.names.ServerAssignors, ", "))
}

func checkName(c *checker, path, key string, v string) {
	if msg := nameProblem(v); msg != "" {
		c.problem(path, "%s %s", key, msg)
	}
}

func checkSubscription(c *checker, path, key string, v []string) {
	dup := repeats{}
	for i, t := range v {
		if c.full() {
			return
		}
		at := fmt.Sprintf("%s[%d]", path, i)
		switch {
		case dup.seen(t):
			c.problem(at, "topic %q is listed twice in %s", short(t), key)
		case !c.hasTopic(t):
			c.problem(at, "%s names unknown topic %q%s", key, short(t), c.topicHint(t))
		}
	}
}

// maxNameLen is Kafka's limit on topic names and group.instance.id.
const maxNameLen = sim.MaxNameLength

// nameProblem applies Kafka's rules for topic names and group instance ids:
// 1 to 249 of the characters a-z, A-Z, 0-9, '.', '_' and '-', and neither
// "." nor "..". Member ids follow them too, because `static: true` makes the
// id the member's group.instance.id.
func nameProblem(v string) string {
	switch {
	case v == "":
		return "must not be empty"
	case len(v) > maxNameLen:
		return fmt.Sprintf("is longer than %d characters, Kafka's limit", maxNameLen)
	case v == "." || v == "..":
		return fmt.Sprintf("must not be %q", v)
	}
	for _, r := range v {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-') {
			return fmt.Sprintf("%q has the character %q; Kafka allows only letters, digits, '.', '_' and '-'", short(v), r)
		}
	}
	return ""
}

// FormatDuration prints a duration the way scenario files write them:
// "5m", not Go's "5m0s".
func FormatDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

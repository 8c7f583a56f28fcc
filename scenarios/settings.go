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

// The allowed values of the enumerated settings (reference §1). They are
// functions rather than variables so that no caller can change them.

// protocolNames lists the protocol models, in the order runs compare them.
func protocolNames() []string { return []string{"eager", "cooperative", "nextgen"} }

func groupProtocolNames() []string { return []string{"classic", "consumer"} }

func clientAssignorNames() []string {
	return []string{"range", "roundrobin", "sticky", "cooperative-sticky"}
}

func serverAssignorNames() []string { return []string{"uniform", "range"} }

func migrationPolicies() []string {
	return []string{"bidirectional", "upgrade", "downgrade", "disabled"}
}

// Kafka's client defaults for the two settings the checker compares
// (reference §1.1: session.timeout.ms, heartbeat.interval.ms).
const (
	kafkaSessionTimeout    = 45 * time.Second
	kafkaHeartbeatInterval = 3 * time.Second
)

// setting is one consumer setting key: how to read it from YAML into a
// sim.ConsumerSettings and which rule its value must satisfy. The decoder
// and the checker both walk the same table, so a key cannot be decoded
// without being checked, or checked differently in Go and in YAML.
type setting interface {
	name() string
	decode(d *decoder, n *yaml.Node, path string, cs *sim.ConsumerSettings)
	check(c *checker, path string, cs *sim.ConsumerSettings)
}

type settingOf[T any] struct {
	key   string
	parse func(d *decoder, n *yaml.Node, key, path string) (T, bool)
	field func(cs *sim.ConsumerSettings) **T
	// rule reports problems with a value that has the right type.
	rule func(c *checker, path, key string, v T)
}

func (s settingOf[T]) name() string { return s.key }

func (s settingOf[T]) decode(d *decoder, n *yaml.Node, path string, cs *sim.ConsumerSettings) {
	if v, ok := s.parse(d, n, s.key, path); ok {
		*s.field(cs) = &v
	}
}

func (s settingOf[T]) check(c *checker, path string, cs *sim.ConsumerSettings) {
	if p := *s.field(cs); p != nil {
		s.rule(c, path+"."+s.key, s.key, *p)
	}
}

// consumerSettings lists the consumer setting keys, mirroring Kafka's
// consumer configs in snake_case without units, in the order of
// sim.ConsumerSettings.
func consumerSettings() []setting {
	return []setting{
		settingOf[string]{"protocol", parseString,
			func(cs *sim.ConsumerSettings) **string { return &cs.Protocol }, oneOf("protocol", protocolNames())},
		settingOf[string]{"group_protocol", parseString,
			func(cs *sim.ConsumerSettings) **string { return &cs.GroupProtocol }, oneOf("group_protocol", groupProtocolNames())},
		settingOf[[]string]{"assignors", parseStrings,
			func(cs *sim.ConsumerSettings) **[]string { return &cs.Assignors }, checkAssignors},
		settingOf[string]{"remote_assignor", parseString,
			func(cs *sim.ConsumerSettings) **string { return &cs.RemoteAssignor }, checkRemoteAssignor},
		settingOf[string]{"group_instance_id", parseString,
			func(cs *sim.ConsumerSettings) **string { return &cs.GroupInstanceID }, checkName},
		settingOf[bool]{"static", parseBool,
			func(cs *sim.ConsumerSettings) **bool { return &cs.Static }, anyValue[bool]},
		settingOf[time.Duration]{"session_timeout", parseDuration,
			func(cs *sim.ConsumerSettings) **time.Duration { return &cs.SessionTimeout }, positive},
		settingOf[time.Duration]{"heartbeat_interval", parseDuration,
			func(cs *sim.ConsumerSettings) **time.Duration { return &cs.HeartbeatInterval }, positive},
		settingOf[time.Duration]{"max_poll_interval", parseDuration,
			func(cs *sim.ConsumerSettings) **time.Duration { return &cs.MaxPollInterval }, positive},
		settingOf[time.Duration]{"request_timeout", parseDuration,
			func(cs *sim.ConsumerSettings) **time.Duration { return &cs.RequestTimeout }, positive},
		settingOf[time.Duration]{"retry_backoff", parseDuration,
			func(cs *sim.ConsumerSettings) **time.Duration { return &cs.RetryBackoff }, nonNegative},
		settingOf[bool]{"enable_auto_commit", parseBool,
			func(cs *sim.ConsumerSettings) **bool { return &cs.EnableAutoCommit }, anyValue[bool]},
		settingOf[time.Duration]{"auto_commit_interval", parseDuration,
			func(cs *sim.ConsumerSettings) **time.Duration { return &cs.AutoCommitInterval }, nonNegative},
		settingOf[time.Duration]{"metadata_max_age", parseDuration,
			func(cs *sim.ConsumerSettings) **time.Duration { return &cs.MetadataMaxAge }, nonNegative},
		settingOf[int]{"max_poll_records", parseInt,
			func(cs *sim.ConsumerSettings) **int { return &cs.MaxPollRecords }, checkMaxPollRecords},
		settingOf[float64]{"processing_rate", parseNumber,
			func(cs *sim.ConsumerSettings) **float64 { return &cs.ProcessingRate }, positiveRate},
		settingOf[time.Duration]{"commit_latency", parseDuration,
			func(cs *sim.ConsumerSettings) **time.Duration { return &cs.CommitLatency }, nonNegative},
		settingOf[time.Duration]{"revoke_callback", parseDuration,
			func(cs *sim.ConsumerSettings) **time.Duration { return &cs.RevokeCallback }, nonNegative},
		settingOf[time.Duration]{"assign_callback", parseDuration,
			func(cs *sim.ConsumerSettings) **time.Duration { return &cs.AssignCallback }, nonNegative},
		settingOf[time.Duration]{"lost_callback", parseDuration,
			func(cs *sim.ConsumerSettings) **time.Duration { return &cs.LostCallback }, nonNegative},
		settingOf[bool]{"rebalance_listener", parseBool,
			func(cs *sim.ConsumerSettings) **bool { return &cs.RebalanceListener }, anyValue[bool]},
		settingOf[[]string]{"subscription", parseStrings,
			func(cs *sim.ConsumerSettings) **[]string { return &cs.Subscription }, checkSubscription},
	}
}

func settingKeys() []string {
	var keys []string
	for _, s := range consumerSettings() {
		keys = append(keys, s.name())
	}
	return keys
}

// decodeSettings reads the consumer setting keys among f into a
// ConsumerSettings, recording each under path.key.
func (d *decoder) decodeSettings(f fields, path string) sim.ConsumerSettings {
	var cs sim.ConsumerSettings
	for _, s := range consumerSettings() {
		if e := f.get(s.name()); e != nil {
			d.mark(path+"."+s.name(), e.val)
			s.decode(d, e.val, path+"."+s.name(), &cs)
		}
	}
	return cs
}

// checkSettings applies every key's rule to cs, written at path.
func (c *checker) checkSettings(path string, cs *sim.ConsumerSettings) {
	for _, s := range consumerSettings() {
		s.check(c, path, cs)
	}
}

// groupSetting is one key of the group: section, like setting but for the
// value fields of sim.GroupConfig, where zero means Kafka's default.
type groupSetting interface {
	name() string
	decode(d *decoder, n *yaml.Node, g *sim.GroupConfig)
	check(c *checker, g *sim.GroupConfig)
}

type groupSettingOf[T comparable] struct {
	key   string
	parse func(d *decoder, n *yaml.Node, key, path string) (T, bool)
	field func(g *sim.GroupConfig) *T
	rule  func(c *checker, path, key string, v T)
}

func (s groupSettingOf[T]) name() string { return s.key }

func (s groupSettingOf[T]) decode(d *decoder, n *yaml.Node, g *sim.GroupConfig) {
	if v, ok := s.parse(d, n, s.key, "group."+s.key); ok {
		*s.field(g) = v
	}
}

func (s groupSettingOf[T]) check(c *checker, g *sim.GroupConfig) {
	path := "group." + s.key
	var zero T
	// GroupConfig documents zero as "Kafka's default", so a scenario built
	// in Go may leave fields zero. A file that writes the zero out means it.
	if *s.field(g) == zero && !c.written(path) {
		return
	}
	s.rule(c, path, path, *s.field(g))
}

// groupSettings lists the broker-side keys of the group: section
// (reference §1.2, §1.3), in the order of sim.GroupConfig.
func groupSettings() []groupSetting {
	return []groupSetting{
		groupSettingOf[time.Duration]{"initial_rebalance_delay", parseDuration,
			func(g *sim.GroupConfig) *time.Duration { return &g.InitialRebalanceDelay }, nonNegative},
		groupSettingOf[time.Duration]{"heartbeat_interval", parseDuration,
			func(g *sim.GroupConfig) *time.Duration { return &g.HeartbeatInterval }, positive},
		groupSettingOf[time.Duration]{"session_timeout", parseDuration,
			func(g *sim.GroupConfig) *time.Duration { return &g.SessionTimeout }, positive},
		groupSettingOf[string]{"assignor", parseString,
			func(g *sim.GroupConfig) *string { return &g.Assignor }, checkServerAssignor},
		groupSettingOf[string]{"migration_policy", parseString,
			func(g *sim.GroupConfig) *string { return &g.MigrationPolicy }, oneOf("migration_policy", migrationPolicies())},
		groupSettingOf[time.Duration]{"assignment_interval", parseDuration,
			func(g *sim.GroupConfig) *time.Duration { return &g.AssignmentInterval }, nonNegative},
		groupSettingOf[time.Duration]{"min_session_timeout", parseDuration,
			func(g *sim.GroupConfig) *time.Duration { return &g.MinSessionTimeout }, positive},
		groupSettingOf[time.Duration]{"max_session_timeout", parseDuration,
			func(g *sim.GroupConfig) *time.Duration { return &g.MaxSessionTimeout }, positive},
		groupSettingOf[int]{"max_size", parseInt,
			func(g *sim.GroupConfig) *int { return &g.MaxSize }, checkMaxSize},
	}
}

func groupKeys() []string {
	var keys []string
	for _, s := range groupSettings() {
		keys = append(keys, s.name())
	}
	return keys
}

// Parsers with the common signature of the tables.

func parseString(d *decoder, n *yaml.Node, key, _ string) (string, bool) { return d.str(n, key) }
func parseBool(d *decoder, n *yaml.Node, key, _ string) (bool, bool)     { return d.boolean(n, key) }
func parseDuration(d *decoder, n *yaml.Node, key, _ string) (time.Duration, bool) {
	return d.duration(n, key)
}
func parseNumber(d *decoder, n *yaml.Node, key, _ string) (float64, bool) { return d.number(n, key) }
func parseStrings(d *decoder, n *yaml.Node, key, path string) ([]string, bool) {
	return d.strings(n, key, path)
}
func parseInt(d *decoder, n *yaml.Node, key, _ string) (int, bool) {
	v, ok := d.integer(n, key, math.MinInt32, math.MaxInt32)
	return int(v), ok
}

// Rules. Each reports its problems at path, naming key.

func anyValue[T any](*checker, string, string, T) {}

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

func checkMaxPollRecords(c *checker, path, key string, v int) {
	if v < 1 || v > math.MaxInt32 {
		c.problem(path, "%s must be a whole number from 1 to %s, found %d", key, grouped(math.MaxInt32), v)
	}
}

func checkMaxSize(c *checker, path, key string, v int) {
	if v < 0 {
		c.problem(path, "%s must not be negative (0 means unlimited), found %d", key, v)
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
		c.problem(path, "%s must name at least one assignor (allowed: %s)", key, strings.Join(clientAssignorNames(), ", "))
		return
	}
	dup := repeats{}
	for i, a := range v {
		if c.full() {
			return
		}
		at := fmt.Sprintf("%s[%d]", path, i)
		switch {
		case slices.Contains(clientAssignorNames(), a):
			if dup.seen(a) {
				c.problem(at, "assignor %q is listed twice in %s", a, key)
			}
		case a == "uniform":
			c.problem(at, "uniform is a server assignor of the consumer protocol, not a client one; use remote_assignor or group.assignor (client assignors: %s)",
				strings.Join(clientAssignorNames(), ", "))
		default:
			c.problem(at, "unknown assignor %q in %s%s (client assignors: %s)", short(a), key, didYouMean(a, clientAssignorNames()), strings.Join(clientAssignorNames(), ", "))
		}
	}
}

func checkRemoteAssignor(c *checker, path, key string, v string) {
	if v == "" { // Kafka's null: the broker's default assignor.
		return
	}
	checkServerAssignor(c, path, key, v)
}

func checkServerAssignor(c *checker, path, key string, v string) {
	if slices.Contains(serverAssignorNames(), v) {
		return
	}
	if slices.Contains(clientAssignorNames(), v) {
		c.problem(path, "%s %q is a client assignor of the classic protocol; the consumer protocol's server assignors are %s",
			key, v, strings.Join(serverAssignorNames(), ", "))
		return
	}
	c.problem(path, "unknown %s %q%s (server assignors: %s)", key, short(v), didYouMean(v, serverAssignorNames()), strings.Join(serverAssignorNames(), ", "))
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

// maxNameLen is Kafka's limit on topic names and group.instance.id
// (Topic.MAX_NAME_LENGTH, JoinGroupRequest.validateGroupInstanceId).
const maxNameLen = 249

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

package sim

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// The settings registry. Every consumer and group setting is one row
// below: its scenario key, Kafka's config name, its default, unit, rule
// and meaning. Defaults (DefaultConsumerConfig, DefaultGroupConfig), the
// layering of ConsumerSettings (Apply), the scenario loader's decoding and
// checks, the keys --vary accepts, the report's settings table and the
// README's are all derived from these rows, so a setting is added in one
// place. Kafka's defaults are those of reference §1.1 (client) and §1.2,
// §1.3 (broker).

// Kind is the type of a setting's value in a scenario file.
type Kind int

const (
	KindString   Kind = iota
	KindStrings       // a list of strings
	KindBool          // true or false
	KindDuration      // a Go duration with a unit: 45s, 250ms
	KindInt           // a whole number
	KindNumber        // any number
	// KindDistribution is a distribution of durations: a duration
	// (constant) or {dist: constant|uniform|lognormal, ...}.
	KindDistribution
)

// Rule names the check a setting's value must pass. The scenario loader
// applies it; RuleText states it for people.
type Rule int

const (
	RuleAny         Rule = iota
	RulePositive         // a duration or number above zero
	RuleNonNegative      // a duration or whole number of at least zero
	RuleRange            // a whole number from Min to Max
	RuleOneOf            // one of Allowed
	RuleProtocol         // a protocol the models implement
	// RuleClientAssignors is a non-empty list of client assignors the
	// models register, each once, in preference order.
	RuleClientAssignors
	// RuleServerAssignor is a server assignor the models register;
	// RuleServerAssignorOrNone also accepts "" (Kafka's null).
	RuleServerAssignor
	RuleServerAssignorOrNone
	RuleName   // Kafka's rule for names: 1 to MaxNameLength of a-z A-Z 0-9 . _ -
	RuleTopics // declared topics, each once
	// RuleDistribution is a well-formed distribution of durations that are
	// not negative.
	RuleDistribution
)

// MaxNameLength is Kafka's limit on topic names and group.instance.id
// (Topic.MAX_NAME_LENGTH, JoinGroupRequest.validateGroupInstanceId).
const MaxNameLength = 249

// Setting describes one setting; ConsumerSettingTable and
// GroupSettingTable hold its value accessors beside it.
type Setting struct {
	// Key is the scenario file's key: Kafka's name in snake_case without
	// the unit (session.timeout.ms is session_timeout).
	Key string
	// Kafka is Kafka's config name; "" for what rebalsim models beyond
	// Kafka's configs (processing speed, callback durations, shorthands).
	Kafka string
	Kind  Kind
	// Unit of a number ("records/s"); durations carry their own.
	Unit string
	Rule Rule
	// Min and Max bound a RuleRange value.
	Min, Max int64
	// Allowed are a RuleOneOf setting's values.
	Allowed []string
	// Zero says what a zero value means where that is not plain zero
	// ("off", "unlimited").
	Zero string
	// Meaning says in a line what the setting is.
	Meaning string
}

// clone copies Allowed, so that no caller can change a row.
func (s Setting) clone() Setting {
	s.Allowed = slices.Clone(s.Allowed)
	return s
}

// RuleText states the setting's rule for people ("> 0", "1 to 2147483647").
func (s Setting) RuleText() string {
	switch s.Rule {
	case RulePositive:
		return "> 0"
	case RuleNonNegative:
		return "≥ 0"
	case RuleRange:
		return strconv.FormatInt(s.Min, 10) + " to " + strconv.FormatInt(s.Max, 10)
	case RuleOneOf:
		return "one of " + strings.Join(s.Allowed, ", ")
	case RuleProtocol:
		return "a protocol the models implement"
	case RuleClientAssignors:
		return "registered client assignors, each once"
	case RuleServerAssignor:
		return "a registered server assignor"
	case RuleServerAssignorOrNone:
		return "a registered server assignor, or empty"
	case RuleName:
		return "1 to " + strconv.Itoa(MaxNameLength) + " of a-z A-Z 0-9 . _ -"
	case RuleTopics:
		return "declared topics, each once"
	case RuleDistribution:
		return "a duration, or {dist: uniform, min, max} or {dist: lognormal, median, p99}"
	}
	return ""
}

// Format writes a setting's value the way the report shows it: durations
// as Go prints them, lists comma-separated.
func Format(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case []string:
		return strings.Join(v, ",")
	case bool:
		return strconv.FormatBool(v)
	case time.Duration:
		return v.String()
	case int:
		return strconv.Itoa(v)
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case Distribution:
		return v.String()
	}
	panic("sim: a setting of unknown type") // every row's type is listed above
}

// ConsumerSetting is one row of the consumer settings: a Setting and how
// to read and write it in a ConsumerSettings layer.
type ConsumerSetting interface {
	Info() Setting
	// Value returns the layer's value, if it sets one.
	Value(cs *ConsumerSettings) (any, bool)
	// Put sets the layer's value; v has the row's Kind's Go type.
	Put(cs *ConsumerSettings, v any)
	// Default returns Kafka's (or rebalsim's) default, if there is one
	// that does not depend on the run.
	Default() (any, bool)
	apply(cs *ConsumerSettings, c *ConsumerConfig) error
	setDefault(c *ConsumerConfig)
}

type consumerRow[T any] struct {
	Setting
	def    T
	hasDef bool
	layer  func(cs *ConsumerSettings) **T
	// config is the resolved field; nil for rows with their own apply.
	config func(c *ConsumerConfig) *T
	// with applies a set value when copying it is not enough.
	with func(c *ConsumerConfig, v T) error
}

func (r consumerRow[T]) Info() Setting { return r.Setting.clone() }

func (r consumerRow[T]) Value(cs *ConsumerSettings) (any, bool) {
	if p := *r.layer(cs); p != nil {
		return *p, true
	}
	return nil, false
}

func (r consumerRow[T]) Put(cs *ConsumerSettings, v any) {
	t := v.(T)
	*r.layer(cs) = &t
}

func (r consumerRow[T]) Default() (any, bool) {
	if !r.hasDef {
		return nil, false
	}
	return cloned(r.def), true
}

func (r consumerRow[T]) apply(cs *ConsumerSettings, c *ConsumerConfig) error {
	p := *r.layer(cs)
	switch {
	case p == nil:
		return nil
	case r.with != nil:
		return r.with(c, *p)
	}
	*r.config(c) = cloned(*p)
	return nil
}

func (r consumerRow[T]) setDefault(c *ConsumerConfig) {
	if r.hasDef && r.config != nil {
		*r.config(c) = cloned(r.def)
	}
}

// cloned copies a list, so that no two configurations share one. Only a
// pointer goes into the interface, which costs no allocation.
func cloned[T any](v T) T {
	if p, ok := any(&v).(*[]string); ok {
		*p = slices.Clone(*p)
	}
	return v
}

func consumer[T any](s Setting, def T, layer func(*ConsumerSettings) **T, config func(*ConsumerConfig) *T) consumerRow[T] {
	return consumerRow[T]{Setting: s, def: def, hasDef: true, layer: layer, config: config}
}

// ConsumerSettingTable lists the consumer settings in the order Apply lays
// them on: the shorthand first, then every explicit key, group_instance_id
// after static so that an explicit id wins. The returned slice is the
// caller's.
func ConsumerSettingTable() []ConsumerSetting {
	return slices.Clone(consumerSettingTable())
}

// consumerSettingTable is built once: every member incarnation resolves
// its configuration through it. Its rows are never changed.
var consumerSettingTable = sync.OnceValue(func() []ConsumerSetting {
	return []ConsumerSetting{
		consumerRow[string]{Setting: Setting{Key: "protocol", Kind: KindString, Rule: RuleProtocol,
			Meaning: "a protocol shorthand (the protocols table), under every explicit key; default: the run's protocol"},
			layer: func(cs *ConsumerSettings) **string { return &cs.Protocol },
			with:  applyShorthand},
		consumer(Setting{Key: "group_protocol", Kafka: "group.protocol", Kind: KindString, Rule: RuleOneOf, Allowed: GroupProtocols(),
			Meaning: "the group protocol: classic (JoinGroup/SyncGroup) or consumer (KIP-848)"},
			GroupProtocolClassic, func(cs *ConsumerSettings) **string { return &cs.GroupProtocol }, func(c *ConsumerConfig) *string { return &c.GroupProtocol }),
		consumer(Setting{Key: "assignors", Kafka: "partition.assignment.strategy", Kind: KindStrings, Rule: RuleClientAssignors,
			Meaning: "classic client assignors, in preference order"},
			[]string{"range", "cooperative-sticky"}, func(cs *ConsumerSettings) **[]string { return &cs.Assignors }, func(c *ConsumerConfig) *[]string { return &c.Assignors }),
		consumer(Setting{Key: "remote_assignor", Kafka: "group.remote.assignor", Kind: KindString, Rule: RuleServerAssignorOrNone, Zero: "the group's assignor",
			Meaning: "consumer protocol: the server assignor this member asks for"},
			"", func(cs *ConsumerSettings) **string { return &cs.RemoteAssignor }, func(c *ConsumerConfig) *string { return &c.RemoteAssignor }),
		consumerRow[bool]{Setting: Setting{Key: "static", Kind: KindBool,
			Meaning: "true sets group.instance.id to the member's id, false clears it"},
			layer: func(cs *ConsumerSettings) **bool { return &cs.Static },
			with: func(c *ConsumerConfig, static bool) error {
				c.GroupInstanceID = ""
				if static {
					c.GroupInstanceID = c.ClientID
				}
				return nil
			}},
		consumer(Setting{Key: "group_instance_id", Kafka: "group.instance.id", Kind: KindString, Rule: RuleName, Zero: "a dynamic member",
			Meaning: "makes the member static (KIP-345)"},
			"", func(cs *ConsumerSettings) **string { return &cs.GroupInstanceID }, func(c *ConsumerConfig) *string { return &c.GroupInstanceID }),
		consumer(Setting{Key: "session_timeout", Kafka: "session.timeout.ms", Kind: KindDuration, Rule: RulePositive,
			Meaning: "classic: how long the coordinator waits for a heartbeat before it removes the member"},
			45*time.Second, func(cs *ConsumerSettings) **time.Duration { return &cs.SessionTimeout }, func(c *ConsumerConfig) *time.Duration { return &c.SessionTimeout }),
		consumer(Setting{Key: "heartbeat_interval", Kafka: "heartbeat.interval.ms", Kind: KindDuration, Rule: RulePositive,
			Meaning: "classic: time between heartbeats; must be below session_timeout"},
			3*time.Second, func(cs *ConsumerSettings) **time.Duration { return &cs.HeartbeatInterval }, func(c *ConsumerConfig) *time.Duration { return &c.HeartbeatInterval }),
		consumer(Setting{Key: "max_poll_interval", Kafka: "max.poll.interval.ms", Kind: KindDuration, Rule: RulePositive,
			Meaning: "longest time between polls before the member leaves the group; also the classic rebalance timeout"},
			5*time.Minute, func(cs *ConsumerSettings) **time.Duration { return &cs.MaxPollInterval }, func(c *ConsumerConfig) *time.Duration { return &c.MaxPollInterval }),
		consumer(Setting{Key: "request_timeout", Kafka: "request.timeout.ms", Kind: KindDuration, Rule: RulePositive,
			Meaning: "how long the client waits for a response"},
			30*time.Second, func(cs *ConsumerSettings) **time.Duration { return &cs.RequestTimeout }, func(c *ConsumerConfig) *time.Duration { return &c.RequestTimeout }),
		consumer(Setting{Key: "retry_backoff", Kafka: "retry.backoff.ms", Kind: KindDuration, Rule: RuleNonNegative,
			Meaning: "wait before retrying a failed request"},
			100*time.Millisecond, func(cs *ConsumerSettings) **time.Duration { return &cs.RetryBackoff }, func(c *ConsumerConfig) *time.Duration { return &c.RetryBackoff }),
		consumer(Setting{Key: "enable_auto_commit", Kafka: "enable.auto.commit", Kind: KindBool,
			Meaning: "commit offsets in the background every auto_commit_interval"},
			true, func(cs *ConsumerSettings) **bool { return &cs.EnableAutoCommit }, func(c *ConsumerConfig) *bool { return &c.EnableAutoCommit }),
		consumer(Setting{Key: "auto_commit_interval", Kafka: "auto.commit.interval.ms", Kind: KindDuration, Rule: RuleNonNegative,
			Meaning: "time between automatic offset commits"},
			5*time.Second, func(cs *ConsumerSettings) **time.Duration { return &cs.AutoCommitInterval }, func(c *ConsumerConfig) *time.Duration { return &c.AutoCommitInterval }),
		consumer(Setting{Key: "metadata_max_age", Kafka: "metadata.max.age.ms", Kind: KindDuration, Rule: RuleNonNegative,
			Meaning: "how often the client refreshes metadata, and so how soon it sees new partitions"},
			5*time.Minute, func(cs *ConsumerSettings) **time.Duration { return &cs.MetadataMaxAge }, func(c *ConsumerConfig) *time.Duration { return &c.MetadataMaxAge }),
		consumer(Setting{Key: "max_poll_records", Kafka: "max.poll.records", Kind: KindInt, Rule: RuleRange, Min: 1, Max: math.MaxInt32, Unit: "records",
			Meaning: "records one poll returns at most"},
			500, func(cs *ConsumerSettings) **int { return &cs.MaxPollRecords }, func(c *ConsumerConfig) *int { return &c.MaxPollRecords }),
		consumer(Setting{Key: "processing_rate", Kind: KindNumber, Rule: RulePositive, Unit: "records/s",
			Meaning: "records per second the member can process"},
			2000.0, func(cs *ConsumerSettings) **float64 { return &cs.ProcessingRate }, func(c *ConsumerConfig) *float64 { return &c.ProcessingRate }),
		consumer(Setting{Key: "record_processing_time", Kind: KindDistribution, Rule: RuleDistribution, Zero: "none: processing_rate",
			Meaning: "time the application takes per record, drawn for each record from the seed; when set, the member's processing rate is its mean's inverse"},
			Distribution{}, func(cs *ConsumerSettings) **Distribution { return &cs.RecordProcessingTime }, func(c *ConsumerConfig) *Distribution { return &c.RecordProcessingTime }),
		consumer(Setting{Key: "commit_latency", Kind: KindDuration, Rule: RuleNonNegative,
			Meaning: "time a synchronous offset commit takes (before a revocation completes)"},
			5*time.Millisecond, func(cs *ConsumerSettings) **time.Duration { return &cs.CommitLatency }, func(c *ConsumerConfig) *time.Duration { return &c.CommitLatency }),
		consumer(Setting{Key: "commit_on_revoke", Kind: KindBool,
			Meaning: "the application's onPartitionsRevoked commits synchronously (Kafka's default listener does nothing)"},
			false, func(cs *ConsumerSettings) **bool { return &cs.CommitOnRevoke }, func(c *ConsumerConfig) *bool { return &c.CommitOnRevoke }),
		consumer(Setting{Key: "revoke_callback", Kind: KindDuration, Rule: RuleNonNegative,
			Meaning: "time the application spends in onPartitionsRevoked"},
			time.Duration(0), func(cs *ConsumerSettings) **time.Duration { return &cs.RevokeCallback }, func(c *ConsumerConfig) *time.Duration { return &c.RevokeCallback }),
		consumer(Setting{Key: "assign_callback", Kind: KindDuration, Rule: RuleNonNegative,
			Meaning: "time the application spends in onPartitionsAssigned"},
			time.Duration(0), func(cs *ConsumerSettings) **time.Duration { return &cs.AssignCallback }, func(c *ConsumerConfig) *time.Duration { return &c.AssignCallback }),
		consumer(Setting{Key: "lost_callback", Kind: KindDuration, Rule: RuleNonNegative,
			Meaning: "time the application spends in onPartitionsLost"},
			time.Duration(0), func(cs *ConsumerSettings) **time.Duration { return &cs.LostCallback }, func(c *ConsumerConfig) *time.Duration { return &c.LostCallback }),
		consumer(Setting{Key: "rebalance_listener", Kind: KindBool,
			Meaning: "the application registered a rebalance listener: the consumer protocol's callbacks then wait for poll(); without one its background thread revokes and acknowledges"},
			false, func(cs *ConsumerSettings) **bool { return &cs.RebalanceListener }, func(c *ConsumerConfig) *bool { return &c.RebalanceListener }),
		consumerRow[[]string]{Setting: Setting{Key: "subscription", Kind: KindStrings, Rule: RuleTopics,
			Meaning: "the topics the member subscribes to; default: every topic"},
			layer:  func(cs *ConsumerSettings) **[]string { return &cs.Subscription },
			config: func(c *ConsumerConfig) *[]string { return &c.Subscription }},
		consumer(Setting{Key: "close_membership", Kind: KindString, Rule: RuleOneOf, Allowed: CloseMemberships(),
			Meaning: "the GroupMembershipOperation the application passes to close() (KIP-1092): default (a dynamic member leaves, a static one stays), leave_group, remain_in_group"},
			CloseDefault, func(cs *ConsumerSettings) **string { return &cs.CloseMembership }, func(c *ConsumerConfig) *string { return &c.CloseMembership }),
	}
})

// The values of group.consumer.migration.policy
// (ConsumerGroupMigrationPolicy).
const (
	MigrationBidirectional = "bidirectional"
	MigrationUpgrade       = "upgrade"
	MigrationDowngrade     = "downgrade"
	MigrationDisabled      = "disabled"
)

// GroupSetting is one row of the group coordinator's settings: a Setting
// and how to read and write it in a GroupConfig.
type GroupSetting interface {
	Info() Setting
	// Value returns g's value; a zero field means the default (see
	// GroupConfig), except where ZeroIsValue.
	Value(g *GroupConfig) any
	// Put sets g's value; v has the row's Kind's Go type.
	Put(g *GroupConfig, v any)
	// IsZero reports whether g leaves the field zero.
	IsZero(g *GroupConfig) bool
	// ZeroIsValue reports whether zero is a setting of its own rather
	// than "Kafka's default".
	ZeroIsValue() bool
	Default() any
	// DefaultFor is the default in a Kafka release ("" is
	// DefaultKafkaVersion): Default, unless ByRelease.
	DefaultFor(release string) any
	// ByRelease reports whether the default differs between releases.
	ByRelease() bool
}

type groupRow[T comparable] struct {
	Setting
	def         T
	zeroIsValue bool
	field       func(g *GroupConfig) *T
}

// releaseRow is a group setting whose default differs between Kafka
// releases: byRelease gives it, and def is DefaultKafkaVersion's.
type releaseRow[T comparable] struct {
	groupRow[T]
	byRelease func(release string) T
}

func (r releaseRow[T]) ByRelease() bool               { return true }
func (r releaseRow[T]) DefaultFor(release string) any { return r.byRelease(release) }

func (r groupRow[T]) Info() Setting                 { return r.Setting.clone() }
func (r groupRow[T]) Value(g *GroupConfig) any      { return *r.field(g) }
func (r groupRow[T]) Put(g *GroupConfig, v any)     { *r.field(g) = v.(T) }
func (r groupRow[T]) Default() any                  { return r.def }
func (r groupRow[T]) ZeroIsValue() bool             { return r.zeroIsValue }
func (r groupRow[T]) ByRelease() bool               { return false }
func (r groupRow[T]) DefaultFor(release string) any { return r.def }
func (r groupRow[T]) IsZero(g *GroupConfig) bool {
	var zero T
	return *r.field(g) == zero
}

// GroupSettingTable lists the broker-side settings of the group
// coordinator (reference §1.2, §1.3), in the order of GroupConfig. The
// returned slice is the caller's.
func GroupSettingTable() []GroupSetting { return slices.Clone(groupSettingTable()) }

// groupSettingTable is built once, like consumerSettingTable.
var groupSettingTable = sync.OnceValue(func() []GroupSetting {
	return []GroupSetting{
		groupRow[time.Duration]{Setting{Key: "initial_rebalance_delay", Kafka: "group.initial.rebalance.delay.ms", Kind: KindDuration, Rule: RuleNonNegative,
			Meaning: "classic: how long an empty group waits for more members before its first rebalance"},
			3 * time.Second, true, func(g *GroupConfig) *time.Duration { return &g.InitialRebalanceDelay }},
		groupRow[time.Duration]{Setting{Key: "heartbeat_interval", Kafka: "group.consumer.heartbeat.interval.ms", Kind: KindDuration, Rule: RulePositive,
			Meaning: "consumer protocol: the heartbeat interval the coordinator gives members"},
			5 * time.Second, false, func(g *GroupConfig) *time.Duration { return &g.HeartbeatInterval }},
		groupRow[time.Duration]{Setting{Key: "session_timeout", Kafka: "group.consumer.session.timeout.ms", Kind: KindDuration, Rule: RulePositive,
			Meaning: "consumer protocol: how long the coordinator waits for a heartbeat before it fences the member"},
			45 * time.Second, false, func(g *GroupConfig) *time.Duration { return &g.SessionTimeout }},
		groupRow[string]{Setting{Key: "assignor", Kafka: "group.consumer.assignors", Kind: KindString, Rule: RuleServerAssignor,
			Meaning: "consumer protocol: the server assignor of members that ask for none (the first of Kafka's list)"},
			"uniform", false, func(g *GroupConfig) *string { return &g.Assignor }},
		groupRow[string]{Setting{Key: "migration_policy", Kafka: "group.consumer.migration.policy", Kind: KindString, Rule: RuleOneOf,
			Allowed: []string{MigrationBidirectional, MigrationUpgrade, MigrationDowngrade, MigrationDisabled},
			Meaning: "which online migrations between a classic and a consumer group are allowed (KIP-848)"},
			MigrationBidirectional, false, func(g *GroupConfig) *string { return &g.MigrationPolicy }},
		releaseRow[time.Duration]{groupRow[time.Duration]{Setting{Key: "assignment_interval", Kafka: "group.consumer.assignment.interval.ms", Kind: KindDuration, Rule: RuleNonNegative, Zero: "off",
			Meaning: "consumer protocol: least time between two target assignments; the default is the release's: 1s from 4.3 (KIP-1263), off before"},
			VersionAssignmentInterval(DefaultKafkaVersion), false, func(g *GroupConfig) *time.Duration { return &g.AssignmentInterval }}, VersionAssignmentInterval},
		groupRow[time.Duration]{Setting{Key: "min_session_timeout", Kafka: "group.min.session.timeout.ms", Kind: KindDuration, Rule: RulePositive,
			Meaning: "classic: the smallest session_timeout a member may ask for"},
			6 * time.Second, false, func(g *GroupConfig) *time.Duration { return &g.MinSessionTimeout }},
		groupRow[time.Duration]{Setting{Key: "max_session_timeout", Kafka: "group.max.session.timeout.ms", Kind: KindDuration, Rule: RulePositive,
			Meaning: "classic: the largest session_timeout a member may ask for"},
			30 * time.Minute, false, func(g *GroupConfig) *time.Duration { return &g.MaxSessionTimeout }},
		groupRow[int]{Setting{Key: "max_size", Kafka: "group.max.size, group.consumer.max.size", Kind: KindInt, Rule: RuleNonNegative, Zero: "unlimited", Unit: "members",
			Meaning: "most members the group admits"},
			0, false, func(g *GroupConfig) *int { return &g.MaxSize }},
		// GroupCoordinatorConfig's defaults, the same in the 4.0 source
		// and the 4.3.1 group-coordinator jar.
		groupRow[time.Duration]{Setting{Key: "consumer_min_session_timeout", Kafka: "group.consumer.min.session.timeout.ms", Kind: KindDuration, Rule: RulePositive,
			Meaning: "consumer protocol: the smallest session_timeout the broker accepts"},
			45 * time.Second, false, func(g *GroupConfig) *time.Duration { return &g.ConsumerMinSessionTimeout }},
		groupRow[time.Duration]{Setting{Key: "consumer_max_session_timeout", Kafka: "group.consumer.max.session.timeout.ms", Kind: KindDuration, Rule: RulePositive,
			Meaning: "consumer protocol: the largest session_timeout the broker accepts"},
			time.Minute, false, func(g *GroupConfig) *time.Duration { return &g.ConsumerMaxSessionTimeout }},
		groupRow[time.Duration]{Setting{Key: "consumer_min_heartbeat_interval", Kafka: "group.consumer.min.heartbeat.interval.ms", Kind: KindDuration, Rule: RulePositive,
			Meaning: "consumer protocol: the smallest heartbeat_interval the broker accepts"},
			5 * time.Second, false, func(g *GroupConfig) *time.Duration { return &g.ConsumerMinHeartbeatInterval }},
		groupRow[time.Duration]{Setting{Key: "consumer_max_heartbeat_interval", Kafka: "group.consumer.max.heartbeat.interval.ms", Kind: KindDuration, Rule: RulePositive,
			Meaning: "consumer protocol: the largest heartbeat_interval the broker accepts"},
			15 * time.Second, false, func(g *GroupConfig) *time.Duration { return &g.ConsumerMaxHeartbeatInterval }},
	}
})

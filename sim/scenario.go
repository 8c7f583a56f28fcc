package sim

import (
	"math"
	"sync"
	"time"
)

// Scenario is a validated, typed scenario: a group, its members and a
// timeline of disturbances. The scenarios package builds one from YAML;
// Go code may build one directly. Run treats it as read-only.
type Scenario struct {
	Name        string
	Description string
	Seed        uint64
	// KafkaVersion is the Kafka release whose behaviours and defaults the
	// run follows (KafkaVersions); "" is DefaultKafkaVersion.
	KafkaVersion string
	// Duration is the simulated horizon.
	Duration time.Duration
	// Protocols names the models to run (eager, cooperative, nextgen).
	Protocols []string
	Topics    []TopicSpec
	Network   NetworkSpec
	// Defaults apply to every member, under the member's own settings.
	Defaults ConsumerSettings
	Group    GroupConfig
	Members  []MemberSpec
	// Events are sorted by At (stable for equal times, in file order).
	Events []Event
	// Autoscaler, when set, scales a workload of the members on lag.
	Autoscaler *Autoscaler
	// StuckAfter is how long a partition owned by a live, current member
	// may go without progress while it has lag before a stuck_partition
	// finding is reported; 0 means DefaultStuckAfter.
	StuckAfter time.Duration
	// Source is the file the scenario came from, for messages ("" if built in Go).
	Source string
}

// DefaultStuckAfter is the stuck_after of a scenario that sets none.
const DefaultStuckAfter = time.Minute

// TopicSpec is a topic at the start of the run.
type TopicSpec struct {
	Name       string
	Partitions int32
	// Rate is the records per second produced to each partition (lag model).
	Rate float64
	// Rates, if set, are the partitions' own rates, one per partition from
	// partition 0; partitions beyond the list produce at Rate.
	Rates []float64
	// Skew, if set, draws each partition's rate around Rate from the run's
	// seed (stream "skew/<topic>"), keeping Rate as the mean.
	Skew *Skew
	// Hot, if set, overrides the rate of some partitions.
	Hot *HotPartitions
	// Load are steps of the topic's production over time: from At on,
	// every partition produces Factor times its rate. Sorted by At.
	Load []LoadStep
}

// Skew is a distribution of partition rates around a topic's rate.
//   - zipf: the partitions in a random order get weights 1/k^S (k = 1, 2, …)
//   - lognormal: each rate is Rate·exp(Sigma·Z − Sigma²/2), Z standard normal
type Skew struct {
	Dist  string
	S     float64
	Sigma float64
}

// HotPartitions gives some partitions of a topic their own rate.
type HotPartitions struct {
	Partitions []int32
	Rate       float64
}

// LoadStep changes a topic's production from At on to Factor times its rates.
type LoadStep struct {
	At     time.Duration
	Factor float64
}

// NetworkSpec describes the one-way latency between a member and the coordinator.
type NetworkSpec struct {
	Latency Distribution
}

// DistKind names a latency distribution.
type DistKind string

const (
	DistConstant  DistKind = "constant"
	DistUniform   DistKind = "uniform"
	DistLogNormal DistKind = "lognormal"
)

// Distribution is a distribution of durations.
//   - constant: Value
//   - uniform: between Min and Max
//   - lognormal: given its Median and its 99th percentile P99
type Distribution struct {
	Kind   DistKind
	Value  time.Duration
	Min    time.Duration
	Max    time.Duration
	Median time.Duration
	P99    time.Duration
}

// String describes the distribution ("lognormal median 2ms, p99 20ms").
func (d Distribution) String() string {
	switch d.Kind {
	case DistConstant:
		return "constant " + d.Value.String()
	case DistUniform:
		return "uniform " + d.Min.String() + "–" + d.Max.String()
	case DistLogNormal:
		return "lognormal median " + d.Median.String() + ", p99 " + d.P99.String()
	case "":
		if d.Value != 0 {
			return "constant " + d.Value.String()
		}
		return ""
	}
	return string(d.Kind)
}

// Mean is the distribution's mean: a lognormal's is its median times
// exp(sigma²/2), with sigma from the p99 as the sampler takes it.
func (d Distribution) Mean() time.Duration {
	switch d.Kind {
	case DistUniform:
		return (d.Min + d.Max) / 2
	case DistLogNormal:
		if d.P99 <= d.Median || d.Median <= 0 {
			return d.Median
		}
		sigma := math.Log(float64(d.P99)/float64(d.Median)) / z99
		return time.Duration(float64(d.Median) * math.Exp(sigma*sigma/2))
	}
	return d.Value
}

// Rate is the records per second the member processes: the inverse of
// the mean record time when one is drawn, processing_rate otherwise.
func (c *ConsumerConfig) Rate() float64 {
	if c.RecordProcessingTime.Kind != "" {
		if mean := c.RecordProcessingTime.Mean(); mean > 0 {
			return float64(time.Second) / float64(mean)
		}
	}
	return c.ProcessingRate
}

// GroupConfig holds the broker-side settings of the group coordinator.
// Zero values mean Kafka's default (see DefaultGroupConfig), except for
// InitialRebalanceDelay, where zero means no delay; the YAML loader fills in
// every default explicitly.
type GroupConfig struct {
	// InitialRebalanceDelay is group.initial.rebalance.delay.ms (classic).
	InitialRebalanceDelay time.Duration
	// HeartbeatInterval is group.consumer.heartbeat.interval.ms (consumer protocol).
	HeartbeatInterval time.Duration
	// SessionTimeout is group.consumer.session.timeout.ms (consumer protocol).
	SessionTimeout time.Duration
	// Assignor is the default server assignor (uniform | range).
	Assignor string
	// MigrationPolicy is group.consumer.migration.policy
	// (bidirectional | upgrade | downgrade | disabled).
	MigrationPolicy string
	// AssignmentInterval is the newer group.consumer.assignment.interval.ms rate
	// limit on target recomputation. In a scenario 0 is the Kafka
	// release's default (VersionAssignmentInterval) and
	// AssignmentIntervalOff turns it off; in a resolved configuration
	// (ResolveGroupConfigFor), which the models see, 0 is off.
	AssignmentInterval time.Duration
	// MinSessionTimeout and MaxSessionTimeout bound classic members' session
	// timeouts (group.min/max.session.timeout.ms).
	MinSessionTimeout time.Duration
	MaxSessionTimeout time.Duration
	// MaxSize is group.max.size / group.consumer.max.size; 0 = unlimited.
	MaxSize int
	// The broker's bounds on the consumer protocol's session timeout and
	// heartbeat interval (group.consumer.min/max.session.timeout.ms,
	// group.consumer.min/max.heartbeat.interval.ms): outside them the
	// broker refuses its configuration (see ConsumerGroupBounds).
	ConsumerMinSessionTimeout    time.Duration
	ConsumerMaxSessionTimeout    time.Duration
	ConsumerMinHeartbeatInterval time.Duration
	ConsumerMaxHeartbeatInterval time.Duration
}

// KafkaVersions lists the Kafka releases a scenario may name.
func KafkaVersions() []string { return []string{"4.0", "4.1", "4.2", "4.3"} }

// DefaultKafkaVersion is the release a scenario follows unless it names one.
const DefaultKafkaVersion = "4.3"

// ReleaseAtLeast reports whether Kafka release version ("" is
// DefaultKafkaVersion) is min or later. Releases are "4.N", so they
// compare as strings.
func ReleaseAtLeast(version, min string) bool {
	if version == "" {
		version = DefaultKafkaVersion
	}
	return version >= min
}

// AssignmentIntervalOff is a scenario's explicit
// group.consumer.assignment.interval.ms of 0: no batching, whatever the
// release (a zero field means the release's default).
const AssignmentIntervalOff time.Duration = -1

// VersionAssignmentInterval is the default of
// group.consumer.assignment.interval.ms in a Kafka release: KIP-1263
// (4.3) batches target-assignment computation, by default at most once a
// second; before it the target was recomputed on every epoch bump.
func VersionAssignmentInterval(version string) time.Duration {
	if ReleaseAtLeast(version, "4.3") {
		return time.Second
	}
	return 0
}

// DefaultGroupConfig returns Kafka's broker defaults (reference §1.2, §1.3;
// GroupSettingTable).
//
// A setting whose default differs between Kafka releases is left zero, so
// that the scenario's KafkaVersion supplies it when the run resolves the
// configuration (ResolveGroupConfigFor).
func DefaultGroupConfig() GroupConfig { return defaultGroupConfig() }

// defaultGroupConfig is read from the table once, as the table is built
// once: a consumer-protocol client starts from the default heartbeat
// interval, and a large rolling restart starts thousands of them. A
// GroupConfig holds only values, so each caller gets a copy of its own.
var defaultGroupConfig = sync.OnceValue(func() GroupConfig {
	var g GroupConfig
	for _, row := range groupSettingTable() {
		if !row.ByRelease() {
			row.Put(&g, row.Default())
		}
	}
	return g
})

// MemberSpec is one consumer process of the scenario.
type MemberSpec struct {
	// ID names the process (and is its client.id); events refer to it.
	ID string
	// Start is when the process first starts and subscribes.
	Start time.Duration
	// Settings are this member's own configs, over Scenario.Defaults.
	Settings ConsumerSettings
	// Line is the source line of the member's entry (0 if unknown).
	Line int
}

// ConsumerSettings is a partial consumer configuration: nil fields are unset
// and fall through to the layer below (member → defaults → run protocol →
// Kafka defaults). The same type describes the `defaults:` block, a member's
// own keys and the `set:` patch of a rolling restart.
type ConsumerSettings struct {
	// Protocol is the shorthand eager | cooperative | nextgen.
	Protocol *string
	// GroupProtocol is group.protocol: classic | consumer.
	GroupProtocol *string
	// Assignors is partition.assignment.strategy (classic), in preference order.
	Assignors *[]string
	// RemoteAssignor is group.remote.assignor (consumer protocol); "" = broker default.
	RemoteAssignor *string
	// GroupInstanceID is group.instance.id; Static sets it to the member's ID.
	GroupInstanceID *string
	Static          *bool

	SessionTimeout     *time.Duration
	HeartbeatInterval  *time.Duration
	MaxPollInterval    *time.Duration
	RequestTimeout     *time.Duration
	RetryBackoff       *time.Duration
	EnableAutoCommit   *bool
	AutoCommitInterval *time.Duration
	MetadataMaxAge     *time.Duration
	MaxPollRecords     *int

	// ProcessingRate is the records per second the member can process.
	ProcessingRate *float64
	// RecordProcessingTime is the time the application takes per record,
	// drawn per record; when set it decides the processing rate.
	RecordProcessingTime *Distribution
	// CommitLatency is the time a synchronous offset commit takes (before revocation).
	CommitLatency *time.Duration
	// CommitOnRevoke makes the application's onPartitionsRevoked commit
	// synchronously (Kafka's default listener does nothing).
	CommitOnRevoke *bool
	// RevokeCallback, AssignCallback and LostCallback are the time the
	// application spends in onPartitionsRevoked / Assigned / Lost.
	RevokeCallback *time.Duration
	AssignCallback *time.Duration
	LostCallback   *time.Duration
	// RebalanceListener says the application registered a
	// ConsumerRebalanceListener. The consumer protocol's client runs
	// rebalance callbacks on the application thread, in poll(), only
	// when there is one; without one its background thread revokes and
	// acknowledges. The classic client runs them in poll() either way.
	RebalanceListener *bool
	// Subscription is the topics the member subscribes to; nil = every topic.
	Subscription *[]string
	// CloseMembership is the GroupMembershipOperation the application
	// passes to close() (KIP-1092, Kafka 4.1's CloseOptions).
	CloseMembership *string
}

// ConsumerConfig is a member's resolved configuration.
type ConsumerConfig struct {
	ClientID           string
	GroupProtocol      string // classic | consumer
	Assignors          []string
	RemoteAssignor     string
	GroupInstanceID    string // "" = dynamic member
	SessionTimeout     time.Duration
	HeartbeatInterval  time.Duration
	MaxPollInterval    time.Duration
	RequestTimeout     time.Duration
	RetryBackoff       time.Duration
	EnableAutoCommit   bool
	AutoCommitInterval time.Duration
	MetadataMaxAge     time.Duration
	MaxPollRecords     int
	ProcessingRate     float64
	// RecordProcessingTime, when its Kind is set, is drawn per record;
	// ProcessingRate is then its mean's inverse (see Rate).
	RecordProcessingTime Distribution
	CommitLatency        time.Duration
	CommitOnRevoke       bool
	RevokeCallback       time.Duration
	AssignCallback       time.Duration
	LostCallback         time.Duration
	RebalanceListener    bool
	Subscription         []string
	CloseMembership      string // default | leave_group | remain_in_group
}

// EventKind names a scenario disturbance.
type EventKind string

const (
	EventStart            EventKind = "start"             // start (join) a member that is not running
	EventLeave            EventKind = "leave"             // graceful close: LeaveGroup (dynamic members)
	EventCrash            EventKind = "crash"             // process dies, no LeaveGroup
	EventRestart          EventKind = "restart"           // down for For, then back
	EventPause            EventKind = "pause"             // stop-the-world GC for For
	EventStall            EventKind = "stall"             // poll loop blocked for For
	EventNetworkPartition EventKind = "network_partition" // members cut off from the coordinator for For
	EventRollingRestart   EventKind = "rolling_restart"   // restart Members one by one, Interval apart
	EventAddPartitions    EventKind = "add_partitions"    // Topic grows to Partitions
	EventSubscribe        EventKind = "subscribe"         // Members change subscription to Topics
	EventRollout          EventKind = "rollout"           // a Kubernetes rollout of Members (Rollout)
)

// Event is one scenario disturbance.
type Event struct {
	At      time.Duration
	Kind    EventKind
	Members []string // targets, resolved (never "all")
	// For is the length of a pause, stall or network partition, and the
	// down time of a restart.
	For time.Duration
	// Interval separates consecutive restarts of a rolling restart.
	Interval time.Duration
	// Graceful restarts close the consumer (LeaveGroup for dynamic members)
	// before going down; otherwise the process is killed.
	Graceful bool
	// Set is applied to a member's settings when it comes back from a restart.
	Set ConsumerSettings
	// Topic and Partitions describe add_partitions.
	Topic      string
	Partitions int32
	// Topics is the new subscription of a subscribe event.
	Topics []string
	// Rollout describes a rollout; Set is its new pod template's settings.
	Rollout *Rollout
	// Line is the event's source line (0 if unknown).
	Line int
}

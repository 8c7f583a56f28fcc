package swarm

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rebalsim/rebalsim/scenarios"
)

// Spec is a generated scenario, kept in a form the shrinker can cut
// pieces off and that writes itself as an ordinary scenario file. Every
// Spec is judged through its YAML, loaded by the normal loader, so what
// the swarm runs is exactly what a reproducer file says.
type Spec struct {
	// Name and Description head the file.
	Name        string
	Description string
	// Seed is the scenario's seed (its network delays and tie order).
	Seed      uint64
	Protocols []string
	Topics    []Topic
	Latency   Latency
	Group     Group
	Defaults  Settings
	Members   []Member
	Events    []Event
}

// Topic is one topic at the start.
type Topic struct {
	Name       string
	Partitions int
	Rate       float64
}

// Latency is the network's one-way latency: constant (Min only), uniform
// between Min and Max, or lognormal with median Min and p99 Max.
type Latency struct {
	Dist     string // constant | uniform | lognormal
	Min, Max time.Duration
}

// Group holds the broker-side settings the swarm varies; zero leaves
// Kafka's default.
type Group struct {
	InitialRebalanceDelay *time.Duration
	HeartbeatInterval     time.Duration
	SessionTimeout        time.Duration
	Assignor              string
	MigrationPolicy       string
}

// Settings are the consumer settings the swarm varies; zero values are
// left out of the file (Kafka's default applies).
type Settings struct {
	Protocol          string
	GroupProtocol     string
	Assignors         []string
	Static            bool
	SessionTimeout    time.Duration
	HeartbeatInterval time.Duration
	MaxPollInterval   time.Duration
	RequestTimeout    time.Duration
	MetadataMaxAge    time.Duration
	CommitLatency     time.Duration
	RevokeCallback    time.Duration
	AssignCallback    time.Duration
	LostCallback      time.Duration
	ProcessingRate    float64
	Subscription      []string
}

// Member is one consumer process.
type Member struct {
	ID       string
	Start    time.Duration
	Settings Settings
}

// Event is one disturbance, in the scenario file's own kinds.
type Event struct {
	At       time.Duration
	Kind     string // crash | leave | start | restart | pause | stall | network_partition | rolling_restart | add_partitions | subscribe
	Members  []string
	For      time.Duration // pause, stall, network_partition; the down time of restarts
	Interval time.Duration // rolling_restart
	Graceful bool
	Set      Settings // restarts: settings the member comes back with
	Topic    string   // add_partitions
	Count    int      // add_partitions: the topic's new partition count
	Topics   []string // subscribe
}

// End is when the event's fault has healed: a paused member runs again,
// a restarted one is back.
func (e Event) End() time.Duration {
	switch e.Kind {
	case "pause", "stall", "network_partition", "restart":
		return e.At + e.For
	case "rolling_restart":
		return e.At + time.Duration(max(len(e.Members)-1, 0))*e.Interval + e.For
	}
	return e.At
}

// Healed is when the last fault of the storm has healed (0 without events).
func (s *Spec) Healed() time.Duration {
	var h time.Duration
	for _, e := range s.Events {
		h = max(h, e.End())
	}
	return h
}

// YAML writes s as a scenario file with a duration of horizon and the
// given expect: lines (each already a YAML flow mapping).
func (s *Spec) YAML(horizon time.Duration, expect []string) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "name: %s\n", s.Name)
	if s.Description != "" {
		fmt.Fprintf(&b, "description: %s\n", strconv.Quote(s.Description))
	}
	fmt.Fprintf(&b, "seed: %d\n", s.Seed)
	fmt.Fprintf(&b, "duration: %s\n", dur(horizon))
	fmt.Fprintf(&b, "protocols: [%s]\n", strings.Join(s.Protocols, ", "))
	b.WriteString("topics:\n")
	for _, t := range s.Topics {
		fmt.Fprintf(&b, "  - {name: %s, partitions: %d, rate: %s}\n", t.Name, t.Partitions, num(t.Rate))
	}
	b.WriteString("network:\n")
	switch s.Latency.Dist {
	case "uniform":
		fmt.Fprintf(&b, "  latency: {dist: uniform, min: %s, max: %s}\n", dur(s.Latency.Min), dur(s.Latency.Max))
	case "lognormal":
		fmt.Fprintf(&b, "  latency: {dist: lognormal, median: %s, p99: %s}\n", dur(s.Latency.Min), dur(s.Latency.Max))
	default:
		fmt.Fprintf(&b, "  latency: %s\n", dur(s.Latency.Min))
	}
	if g := s.Group.fields(); len(g) > 0 {
		fmt.Fprintf(&b, "group: {%s}\n", strings.Join(g, ", "))
	}
	if d := s.Defaults.fields(); len(d) > 0 {
		fmt.Fprintf(&b, "defaults: {%s}\n", strings.Join(d, ", "))
	}
	b.WriteString("members:\n")
	for _, m := range s.Members {
		f := []string{"id: " + m.ID}
		if m.Start > 0 {
			f = append(f, "start: "+dur(m.Start))
		}
		f = append(f, m.Settings.fields()...)
		fmt.Fprintf(&b, "  - {%s}\n", strings.Join(f, ", "))
	}
	if len(s.Events) > 0 {
		b.WriteString("events:\n")
		for _, e := range s.Events {
			fmt.Fprintf(&b, "  - {at: %s, %s}\n", dur(e.At), e.body())
		}
	}
	if len(expect) > 0 {
		b.WriteString("expect:\n")
		for _, x := range expect {
			fmt.Fprintf(&b, "  - %s\n", x)
		}
	}
	return []byte(b.String())
}

func (e Event) body() string {
	members := "[" + strings.Join(e.Members, ", ") + "]"
	switch e.Kind {
	case "crash", "leave", "start":
		return e.Kind + ": " + e.Members[0]
	case "restart":
		f := []string{"member: " + e.Members[0], "down: " + dur(e.For)}
		return e.Kind + ": {" + strings.Join(append(f, e.restartFields()...), ", ") + "}"
	case "rolling_restart":
		f := []string{"members: " + members, "interval: " + dur(e.Interval), "down: " + dur(e.For)}
		return e.Kind + ": {" + strings.Join(append(f, e.restartFields()...), ", ") + "}"
	case "pause", "stall", "network_partition":
		return fmt.Sprintf("%s: {members: %s, for: %s}", e.Kind, members, dur(e.For))
	case "add_partitions":
		return fmt.Sprintf("%s: {topic: %s, partitions: %d}", e.Kind, e.Topic, e.Count)
	case "subscribe":
		return fmt.Sprintf("%s: {members: %s, topics: [%s]}", e.Kind, members, strings.Join(e.Topics, ", "))
	}
	panic("swarm: unknown event kind " + e.Kind)
}

func (e Event) restartFields() []string {
	var f []string
	if e.Graceful {
		f = append(f, "graceful: true")
	}
	if set := e.Set.fields(); len(set) > 0 {
		f = append(f, "set: {"+strings.Join(set, ", ")+"}")
	}
	return f
}

func (g Group) fields() []string {
	var f []string
	if g.InitialRebalanceDelay != nil {
		f = append(f, "initial_rebalance_delay: "+dur(*g.InitialRebalanceDelay))
	}
	f = appendDur(f, "heartbeat_interval", g.HeartbeatInterval)
	f = appendDur(f, "session_timeout", g.SessionTimeout)
	f = appendStr(f, "assignor", g.Assignor)
	f = appendStr(f, "migration_policy", g.MigrationPolicy)
	return f
}

func (s Settings) fields() []string {
	var f []string
	f = appendStr(f, "protocol", s.Protocol)
	f = appendStr(f, "group_protocol", s.GroupProtocol)
	if len(s.Assignors) > 0 {
		f = append(f, "assignors: ["+strings.Join(s.Assignors, ", ")+"]")
	}
	if s.Static {
		f = append(f, "static: true")
	}
	f = appendDur(f, "session_timeout", s.SessionTimeout)
	f = appendDur(f, "heartbeat_interval", s.HeartbeatInterval)
	f = appendDur(f, "max_poll_interval", s.MaxPollInterval)
	f = appendDur(f, "request_timeout", s.RequestTimeout)
	f = appendDur(f, "metadata_max_age", s.MetadataMaxAge)
	f = appendDur(f, "commit_latency", s.CommitLatency)
	f = appendDur(f, "revoke_callback", s.RevokeCallback)
	f = appendDur(f, "assign_callback", s.AssignCallback)
	f = appendDur(f, "lost_callback", s.LostCallback)
	if s.ProcessingRate > 0 {
		f = append(f, "processing_rate: "+num(s.ProcessingRate))
	}
	if len(s.Subscription) > 0 {
		f = append(f, "subscription: ["+strings.Join(s.Subscription, ", ")+"]")
	}
	return f
}

func appendDur(f []string, key string, d time.Duration) []string {
	if d > 0 {
		f = append(f, key+": "+dur(d))
	}
	return f
}

func appendStr(f []string, key, v string) []string {
	if v != "" {
		f = append(f, key+": "+v)
	}
	return f
}

func dur(d time.Duration) string { return scenarios.FormatDuration(d) }

func num(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// clone returns a deep copy of s, for the shrinker to cut.
func (s *Spec) clone() *Spec {
	c := *s
	c.Protocols = slices.Clone(s.Protocols)
	c.Topics = slices.Clone(s.Topics)
	c.Defaults = s.Defaults.clone()
	c.Members = slices.Clone(s.Members)
	for i := range c.Members {
		c.Members[i].Settings = c.Members[i].Settings.clone()
	}
	c.Events = slices.Clone(s.Events)
	for i := range c.Events {
		c.Events[i].Members = slices.Clone(c.Events[i].Members)
		c.Events[i].Topics = slices.Clone(c.Events[i].Topics)
		c.Events[i].Set = c.Events[i].Set.clone()
	}
	return &c
}

func (s Settings) clone() Settings {
	s.Assignors = slices.Clone(s.Assignors)
	s.Subscription = slices.Clone(s.Subscription)
	return s
}

package report

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rebalsim/rebalsim/sim"
)

// NewScenarioInfo describes sc for a report. Settings use the scenario
// file's keys (snake_case Kafka config names). A member's Settings are its
// own keys over the scenario's defaults; what a run resolves beyond that
// (the run protocol's and Kafka's defaults) depends on the run, so callers
// that know the resolved configuration may replace them.
func NewScenarioInfo(sc *sim.Scenario) ScenarioInfo {
	info := ScenarioInfo{
		Name:        sc.Name,
		Description: sc.Description,
		Source:      sc.Source,
		Seed:        sc.Seed,
		Duration:    sc.Duration.Seconds(),
		Protocols:   append([]string(nil), sc.Protocols...),
		Network:     describeDistribution(sc.Network.Latency),
		Group:       groupSettings(sc.Group),
		Defaults:    consumerSettings(sc.Defaults),
	}
	for _, t := range sc.Topics {
		info.Topics = append(info.Topics, TopicInfo{Name: t.Name, Partitions: t.Partitions, Rate: t.Rate})
	}
	for _, m := range sc.Members {
		settings := consumerSettings(sc.Defaults)
		for k, v := range consumerSettings(m.Settings) {
			settings[k] = v
		}
		if len(settings) == 0 {
			settings = nil
		}
		info.Members = append(info.Members, MemberInfo{ID: m.ID, Start: m.Start.Seconds(), Settings: settings})
	}
	// A member that starts after time zero joins a running group: that is
	// a disturbance too (the simulator measures from it), listed in time
	// order with the events.
	for _, m := range sc.Members {
		if m.Start > 0 {
			info.Disturbances = append(info.Disturbances, EventInfo{At: m.Start.Seconds(), Kind: "start", Members: []string{m.ID}})
		}
	}
	for _, ev := range sc.Events {
		info.Disturbances = append(info.Disturbances, eventInfo(ev))
	}
	slices.SortStableFunc(info.Disturbances, func(a, b EventInfo) int { return cmp.Compare(a.At, b.At) })
	return info
}

func eventInfo(ev sim.Event) EventInfo {
	e := EventInfo{
		At:       ev.At.Seconds(),
		Kind:     string(ev.Kind),
		Members:  append([]string(nil), ev.Members...),
		For:      ev.For.Seconds(),
		Interval: ev.Interval.Seconds(),
	}
	var detail []string
	switch ev.Kind {
	case sim.EventRestart, sim.EventRollingRestart:
		if ev.Graceful {
			detail = append(detail, "graceful")
		} else {
			detail = append(detail, "killed")
		}
		set := consumerSettings(ev.Set)
		for _, k := range slices.Sorted(maps.Keys(set)) {
			detail = append(detail, "set "+k+"="+set[k])
		}
	case sim.EventAddPartitions:
		detail = append(detail, fmt.Sprintf("%s grows to %d partitions", ev.Topic, ev.Partitions))
	case sim.EventSubscribe:
		detail = append(detail, "subscribes to "+strings.Join(ev.Topics, ","))
	}
	e.Detail = strings.Join(detail, "; ")
	return e
}

func describeDistribution(d sim.Distribution) string {
	switch d.Kind {
	case sim.DistConstant:
		return "constant " + d.Value.String()
	case sim.DistUniform:
		return "uniform " + d.Min.String() + "–" + d.Max.String()
	case sim.DistLogNormal:
		return "lognormal median " + d.Median.String() + ", p99 " + d.P99.String()
	case "":
		if d.Value != 0 {
			return "constant " + d.Value.String()
		}
		return ""
	}
	return string(d.Kind)
}

// groupSettings renders the group coordinator's settings; zero fields mean
// Kafka's default (sim.GroupConfig), so the default is shown instead.
func groupSettings(g sim.GroupConfig) map[string]string {
	def := sim.DefaultGroupConfig()
	or := func(v, d time.Duration) string {
		if v == 0 {
			v = d
		}
		return v.String()
	}
	orS := func(v, d string) string {
		if v == "" {
			return d
		}
		return v
	}
	m := map[string]string{
		"initial_rebalance_delay": g.InitialRebalanceDelay.String(),
		"heartbeat_interval":      or(g.HeartbeatInterval, def.HeartbeatInterval),
		"session_timeout":         or(g.SessionTimeout, def.SessionTimeout),
		"assignor":                orS(g.Assignor, def.Assignor),
		"migration_policy":        orS(g.MigrationPolicy, def.MigrationPolicy),
		"assignment_interval":     g.AssignmentInterval.String(),
		"min_session_timeout":     or(g.MinSessionTimeout, def.MinSessionTimeout),
		"max_session_timeout":     or(g.MaxSessionTimeout, def.MaxSessionTimeout),
		"max_size":                "unlimited",
	}
	if g.AssignmentInterval == 0 {
		m["assignment_interval"] = "0s (off)"
	}
	if g.MaxSize > 0 {
		m["max_size"] = strconv.Itoa(g.MaxSize)
	}
	return m
}

// consumerSettings renders the set fields of cs under the scenario file's keys.
func consumerSettings(cs sim.ConsumerSettings) map[string]string {
	m := map[string]string{}
	str := func(k string, v *string) {
		if v != nil {
			m[k] = *v
		}
	}
	list := func(k string, v *[]string) {
		if v != nil {
			m[k] = strings.Join(*v, ",")
		}
	}
	dur := func(k string, v *time.Duration) {
		if v != nil {
			m[k] = v.String()
		}
	}
	boolean := func(k string, v *bool) {
		if v != nil {
			m[k] = strconv.FormatBool(*v)
		}
	}
	str("protocol", cs.Protocol)
	str("group_protocol", cs.GroupProtocol)
	list("assignors", cs.Assignors)
	str("remote_assignor", cs.RemoteAssignor)
	str("group_instance_id", cs.GroupInstanceID)
	boolean("static", cs.Static)
	dur("session_timeout", cs.SessionTimeout)
	dur("heartbeat_interval", cs.HeartbeatInterval)
	dur("max_poll_interval", cs.MaxPollInterval)
	dur("request_timeout", cs.RequestTimeout)
	dur("retry_backoff", cs.RetryBackoff)
	boolean("enable_auto_commit", cs.EnableAutoCommit)
	dur("auto_commit_interval", cs.AutoCommitInterval)
	dur("metadata_max_age", cs.MetadataMaxAge)
	if cs.MaxPollRecords != nil {
		m["max_poll_records"] = strconv.Itoa(*cs.MaxPollRecords)
	}
	if cs.ProcessingRate != nil {
		m["processing_rate"] = strconv.FormatFloat(*cs.ProcessingRate, 'f', -1, 64)
	}
	dur("commit_latency", cs.CommitLatency)
	dur("revoke_callback", cs.RevokeCallback)
	dur("assign_callback", cs.AssignCallback)
	dur("lost_callback", cs.LostCallback)
	boolean("rebalance_listener", cs.RebalanceListener)
	list("subscription", cs.Subscription)
	return m
}

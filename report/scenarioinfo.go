package report

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/rebalsim/rebalsim/sim"
)

// NewScenarioInfo describes sc for a report. Settings use the scenario
// file's keys (snake_case Kafka config names). A member's Settings are its
// own keys over the scenario's defaults; what a run resolves beyond that
// (the run protocol's and Kafka's defaults) depends on the run, so callers
// that know the resolved configuration may replace them.
func NewScenarioInfo(sc *sim.Scenario) ScenarioInfo {
	info := ScenarioInfo{
		Name:         sc.Name,
		Description:  sc.Description,
		Source:       sc.Source,
		Seed:         sc.Seed,
		KafkaVersion: sc.KafkaVersion,
		Duration:     sc.Duration.Seconds(),
		Protocols:    append([]string(nil), sc.Protocols...),
		Network:      sc.Network.Latency.String(),
		Group:        groupSettings(sc.Group, sc.KafkaVersion),
		Defaults:     consumerSettings(sc.Defaults),
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

// groupSettings renders the group coordinator's settings
// (sim.GroupSettingTable); zero fields mean Kafka's default
// (sim.GroupConfig), so the default is shown instead, and a zero that means
// something says what ("0s (off)", "unlimited").
func groupSettings(g sim.GroupConfig, release string) map[string]string {
	g = sim.ResolveGroupConfigFor(g, release)
	m := map[string]string{}
	for _, s := range sim.GroupSettingTable() {
		info := s.Info()
		text := sim.Format(s.Value(&g))
		switch {
		case !s.IsZero(&g) || info.Zero == "":
		case info.Kind == sim.KindDuration:
			text += " (" + info.Zero + ")"
		default:
			text = info.Zero
		}
		m[info.Key] = text
	}
	return m
}

// consumerSettings renders the set fields of cs under the scenario file's
// keys (sim.ConsumerSettingTable).
func consumerSettings(cs sim.ConsumerSettings) map[string]string {
	m := map[string]string{}
	for _, s := range sim.ConsumerSettingTable() {
		if v, ok := s.Value(&cs); ok {
			m[s.Info().Key] = sim.Format(v)
		}
	}
	return m
}

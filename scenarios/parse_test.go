package scenarios

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rebalsim/rebalsim/sim"
)

func mustParse(t *testing.T, src string) *File {
	t.Helper()
	s, err := Parse("t.yaml", []byte(src))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return s
}

func ptr[T any](v T) *T { return &v }

// designScenario is the example of DESIGN.md ("Scenario files") with one
// change: its horizon is 5m, not 2m, because the rolling restart it
// schedules at 2m would fall on the horizon, which the rules reject.
const designScenario = `name: scale-out
description: three consumers share 12 partitions; a fourth joins
seed: 1                       # default; --seed overrides
duration: 5m                  # simulated horizon
protocols: [eager, cooperative, nextgen]   # models to run; default all three
topics:
  - {name: orders, partitions: 12, rate: 1000}   # rate: records/s per partition (lag model)
network:
  latency: {dist: lognormal, median: 2ms, p99: 20ms}
defaults:                     # consumer configs for every member
  session_timeout: 45s
  heartbeat_interval: 3s
  max_poll_interval: 5m
  processing_rate: 2000       # records/s a member can process
group:                        # broker-side settings of the group coordinator
  initial_rebalance_delay: 3s # classic: group.initial.rebalance.delay.ms
  heartbeat_interval: 5s      # consumer protocol: group.consumer.heartbeat.interval.ms
  session_timeout: 45s        # consumer protocol: group.consumer.session.timeout.ms
  assignor: uniform           # consumer protocol: server assignor (uniform | range)
  migration_policy: bidirectional
members:
  - {id: c1}
  - {count: 2, id: "c{i}", from: 2}   # c2, c3
  - {id: c4, start: 30s}              # joins at 30s
events:
  - {at: 60s, crash: c2}
  - {at: 90s, pause: {member: c3, for: 12s}}          # stop-the-world GC
  - {at: 2m,  rolling_restart: {members: all, interval: 20s, down: 5s}}
expect:                       # checked by ` + "`rebalsim check`" + `
  - {protocols: [cooperative, nextgen], converged_within: 30s, max_moved_partitions: 3}
  - {no_double_ownership: true}
`

func TestParseDesignScenario(t *testing.T) {
	got := mustParse(t, designScenario)
	defaults := sim.ConsumerSettings{
		SessionTimeout:    ptr(45 * time.Second),
		HeartbeatInterval: ptr(3 * time.Second),
		MaxPollInterval:   ptr(5 * time.Minute),
		ProcessingRate:    ptr(2000.0),
	}
	// The example names no release, so it follows 4.3; the release's
	// assignment interval is left to the run (sim.ResolveGroupConfigFor).
	group43 := sim.DefaultGroupConfig()
	want := &File{
		Scenario: &sim.Scenario{
			Name:        "scale-out",
			Description: "three consumers share 12 partitions; a fourth joins",
			Seed:        1,
			Duration:    5 * time.Minute,
			Protocols:   []string{"eager", "cooperative", "nextgen"},
			Topics:      []sim.TopicSpec{{Name: "orders", Partitions: 12, Rate: 1000}},
			Network: sim.NetworkSpec{Latency: sim.Distribution{
				Kind: sim.DistLogNormal, Median: 2 * time.Millisecond, P99: 20 * time.Millisecond}},
			Defaults:     defaults,
			Group:        group43,
			KafkaVersion: sim.DefaultKafkaVersion,
			Members: []sim.MemberSpec{
				{ID: "c1", Line: 22},
				{ID: "c2", Line: 23},
				{ID: "c3", Line: 23},
				{ID: "c4", Start: 30 * time.Second, Line: 24},
			},
			Events: []sim.Event{
				{At: time.Minute, Kind: sim.EventCrash, Members: []string{"c2"}, Line: 26},
				{At: 90 * time.Second, Kind: sim.EventPause, Members: []string{"c3"}, For: 12 * time.Second, Line: 27},
				{At: 2 * time.Minute, Kind: sim.EventRollingRestart, Members: []string{"c1", "c2", "c3", "c4"},
					Interval: 20 * time.Second, For: 5 * time.Second, Graceful: true, Line: 28},
			},
			Source: "t.yaml",
		},
		Expect: []Expectation{
			{Protocols: []string{"cooperative", "nextgen"}, ConvergedWithin: ptr(30 * time.Second),
				Bounds: []Bound{{Metric: "moved_partitions", IsMax: true, Value: 3}}, Line: 30},
			{NoDoubleOwnership: true, Line: 31},
		},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Parse(DESIGN.md example):\n got %+v\nwant %+v", got, want)
	}
}

func TestParseFillsDefaults(t *testing.T) {
	got := mustParse(t, base)
	if got.Name != "t" {
		t.Errorf("Name = %q; want the file's base name %q", got.Name, "t")
	}
	if got.Seed != 1 {
		t.Errorf("Seed = %d; want 1", got.Seed)
	}
	if want := []string{"eager", "cooperative", "nextgen"}; !slices.Equal(got.Protocols, want) {
		t.Errorf("Protocols = %v; want %v", got.Protocols, want)
	}
	if want := (sim.Distribution{Kind: sim.DistConstant, Value: time.Millisecond}); got.Network.Latency != want {
		t.Errorf("Latency = %+v; want %+v", got.Network.Latency, want)
	}
	if got.Topics[0].Rate != 100 {
		t.Errorf("Rate = %v; want 100 records/s per partition", got.Topics[0].Rate)
	}
	// Kafka's broker defaults; the release's assignment interval (1s
	// under 4.3, KIP-1263) is left to the run, which resolves it.
	wantGroup := sim.DefaultGroupConfig()
	if got.Group != wantGroup {
		t.Errorf("Group = %+v; want Kafka 4.3's defaults %+v", got.Group, wantGroup)
	}
	if got.Defaults != (sim.ConsumerSettings{}) {
		t.Errorf("Defaults = %+v; want nothing set", got.Defaults)
	}
}

// TestParseGroupZeroMeansZero checks that a zero the file writes is kept,
// and every field the file leaves out is Kafka's default.
func TestParseGroupZeroMeansZero(t *testing.T) {
	got := mustParse(t, base+"group: {initial_rebalance_delay: 0s, assignment_interval: 0, max_size: 0}\n")
	want := sim.DefaultGroupConfig()
	want.InitialRebalanceDelay = 0
	want.AssignmentInterval = sim.AssignmentIntervalOff // 0 written out is off in any release
	if got.Group != want {
		t.Errorf("Group = %+v; want %+v", got.Group, want)
	}
	got = mustParse(t, base+"group:\n  session_timeout: 60s\n  heartbeat_interval: 15s\n  assignor: range\n  migration_policy: upgrade\n  assignment_interval: 1s\n  min_session_timeout: 10s\n  max_session_timeout: 10m\n  max_size: 50\n")
	want = sim.GroupConfig{InitialRebalanceDelay: 3 * time.Second, HeartbeatInterval: 15 * time.Second,
		SessionTimeout: time.Minute, Assignor: "range", MigrationPolicy: "upgrade", AssignmentInterval: time.Second,
		MinSessionTimeout: 10 * time.Second, MaxSessionTimeout: 10 * time.Minute, MaxSize: 50,
		ConsumerMinSessionTimeout: 45 * time.Second, ConsumerMaxSessionTimeout: time.Minute,
		ConsumerMinHeartbeatInterval: 5 * time.Second, ConsumerMaxHeartbeatInterval: 15 * time.Second}
	if got.Group != want {
		t.Errorf("Group = %+v; want %+v", got.Group, want)
	}
}

func TestParseEveryConsumerSetting(t *testing.T) {
	got := mustParse(t, base+`defaults:
  protocol: cooperative
  group_protocol: consumer
  assignors: [cooperative-sticky, range]
  remote_assignor: range
  group_instance_id: app-1
  static: true
  session_timeout: 30s
  heartbeat_interval: 2s
  max_poll_interval: 1m
  request_timeout: 20s
  retry_backoff: 50ms
  enable_auto_commit: false
  auto_commit_interval: 1s
  metadata_max_age: 30s
  max_poll_records: 100
  processing_rate: 1500.5
  commit_latency: 20ms
  commit_on_revoke: true
  revoke_callback: 100ms
  assign_callback: 200ms
  lost_callback: 300ms
  subscription: [orders]
`)
	want := sim.ConsumerSettings{
		Protocol: ptr("cooperative"), GroupProtocol: ptr("consumer"),
		Assignors: ptr([]string{"cooperative-sticky", "range"}), RemoteAssignor: ptr("range"),
		GroupInstanceID: ptr("app-1"), Static: ptr(true),
		SessionTimeout: ptr(30 * time.Second), HeartbeatInterval: ptr(2 * time.Second),
		MaxPollInterval: ptr(time.Minute), RequestTimeout: ptr(20 * time.Second),
		RetryBackoff: ptr(50 * time.Millisecond), EnableAutoCommit: ptr(false),
		AutoCommitInterval: ptr(time.Second), MetadataMaxAge: ptr(30 * time.Second),
		MaxPollRecords: ptr(100), ProcessingRate: ptr(1500.5), CommitLatency: ptr(20 * time.Millisecond),
		CommitOnRevoke: ptr(true), RevokeCallback: ptr(100 * time.Millisecond), AssignCallback: ptr(200 * time.Millisecond),
		LostCallback: ptr(300 * time.Millisecond), Subscription: ptr([]string{"orders"}),
	}
	if !reflect.DeepEqual(got.Defaults, want) {
		t.Errorf("Defaults =\n %+v\nwant\n %+v", got.Defaults, want)
	}
	if len(settingKeys()) != reflect.TypeFor[sim.ConsumerSettings]().NumField() {
		t.Errorf("%d setting keys for %d ConsumerSettings fields; a field has no key",
			len(settingKeys()), reflect.TypeFor[sim.ConsumerSettings]().NumField())
	}
	if len(groupKeys()) != reflect.TypeFor[sim.GroupConfig]().NumField() {
		t.Errorf("%d group keys for %d GroupConfig fields; a field has no key",
			len(groupKeys()), reflect.TypeFor[sim.GroupConfig]().NumField())
	}
}

func TestMemberExpansion(t *testing.T) {
	for _, tc := range []struct {
		name    string
		members string
		ids     []string
		starts  []time.Duration
		lines   []int
	}{
		{"one id", "  - {id: c1}\n", []string{"c1"}, []time.Duration{0}, []int{4}},
		{"count from 1", "  - {count: 3, id: \"c{i}\"}\n", []string{"c1", "c2", "c3"}, []time.Duration{0, 0, 0}, []int{4, 4, 4}},
		{"count from 2", "  - {count: 3, id: \"c{i}\", from: 2}\n", []string{"c2", "c3", "c4"}, nil, nil},
		{"count from 0", "  - {count: 2, id: \"w{i}\", from: 0}\n", []string{"w0", "w1"}, nil, nil},
		{"placeholder twice", "  - {count: 2, id: \"g{i}-c{i}\"}\n", []string{"g1-c1", "g2-c2"}, nil, nil},
		{"count of one without placeholder", "  - {count: 1, id: solo}\n", []string{"solo"}, nil, nil},
		{"entries in order, with starts", "  - {count: 2, id: \"a{i}\", start: 10s}\n  - {id: b}\n  - {count: 2, id: \"c{i}\", from: 7}\n",
			[]string{"a1", "a2", "b", "c7", "c8"}, []time.Duration{10 * time.Second, 10 * time.Second, 0, 0, 0}, []int{4, 4, 5, 6, 6}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := mustParse(t, "duration: 2m\ntopics: [{name: orders, partitions: 12}]\nmembers:\n"+tc.members)
			var ids []string
			var starts []time.Duration
			var lines []int
			for _, m := range s.Members {
				ids, starts, lines = append(ids, m.ID), append(starts, m.Start), append(lines, m.Line)
			}
			if !slices.Equal(ids, tc.ids) {
				t.Errorf("ids = %v; want %v", ids, tc.ids)
			}
			if tc.starts != nil && !slices.Equal(starts, tc.starts) {
				t.Errorf("starts = %v; want %v", starts, tc.starts)
			}
			if tc.lines != nil && !slices.Equal(lines, tc.lines) {
				t.Errorf("lines = %v; want %v", lines, tc.lines)
			}
		})
	}
}

func TestMemberSettingsStayWithTheirEntry(t *testing.T) {
	s := mustParse(t, "duration: 2m\ntopics: [{name: orders, partitions: 12}]\nmembers:\n"+
		"  - {count: 2, id: \"s{i}\", static: true, session_timeout: 10s}\n  - {id: d1}\n")
	for _, m := range s.Members[:2] {
		if m.Settings.Static == nil || !*m.Settings.Static || *m.Settings.SessionTimeout != 10*time.Second {
			t.Errorf("member %s settings = %+v; want static with a 10s session timeout", m.ID, m.Settings)
		}
	}
	if s.Members[2].Settings != (sim.ConsumerSettings{}) {
		t.Errorf("member d1 settings = %+v; want none", s.Members[2].Settings)
	}
}

func TestEventTargets(t *testing.T) {
	const members = "duration: 10m\ntopics: [{name: orders, partitions: 12}]\nmembers:\n" +
		"  - {count: 2, id: \"c{i}\"}\n  - {id: late, start: 30s}\n  - {count: 2, id: \"c{i}\", from: 3}\nevents:\n"
	for _, tc := range []struct {
		event string
		want  []string
	}{
		{"{at: 1m, crash: c2}", []string{"c2"}},
		{"{at: 1m, crash: [c4, c1]}", []string{"c4", "c1"}},
		{"{at: 1m, crash: all}", []string{"c1", "c2", "late", "c3", "c4"}},
		{"{at: 1m, leave: all}", []string{"c1", "c2", "late", "c3", "c4"}},
		{"{at: 1m, pause: {members: all, for: 1s}}", []string{"c1", "c2", "late", "c3", "c4"}},
		{"{at: 1m, pause: {member: late, for: 1s}}", []string{"late"}},
		{"{at: 1m, network_partition: {members: [c1, c3], for: 1s}}", []string{"c1", "c3"}},
		{"{at: 1m, rolling_restart: {members: all, interval: 1s}}", []string{"c1", "c2", "late", "c3", "c4"}},
		{"{at: 1m, subscribe: {members: all, topics: [orders]}}", []string{"c1", "c2", "late", "c3", "c4"}},
	} {
		s := mustParse(t, members+"  - "+tc.event+"\n")
		if got := s.Events[0].Members; !slices.Equal(got, tc.want) {
			t.Errorf("%s: members = %v; want %v", tc.event, got, tc.want)
		}
	}
}

func TestEventKinds(t *testing.T) {
	// One event of each kind, timed so that none overlaps another on the
	// same member (see TestOverlappingEvents); the restart at 4s brings
	// back c2, which left at 2s.
	s := mustParse(t, base+`events:
  - {at: 1s, crash: c1}
  - {at: 2s, leave: c2}
  - {at: 3s, start: c1}
  - {at: 4s, restart: {member: c2, down: 10s, graceful: false, set: {protocol: nextgen}}}
  - {at: 5s, pause: {member: c3, for: 12s}}
  - {at: 20s, stall: {member: c3, for: 1m}}
  - {at: 21s, network_partition: {members: [c1, c2], for: 30s}}
  - {at: 60s, rolling_restart: {members: all, interval: 20s, down: 5s, set: {assignors: [cooperative-sticky]}}}
  - {at: 70s, add_partitions: {topic: orders, partitions: 24}}
  - {at: 110s, subscribe: {members: [c1], topics: [orders]}}
  - {at: 111s, restart: {members: [c1, c3]}}
  - {at: 115s, rollout: {members: all, kind: statefulset, start_time: 20s, min_ready: 5s, instance_id: pod_name}}
`)
	want := []sim.Event{
		{At: 1 * time.Second, Kind: sim.EventCrash, Members: []string{"c1"}},
		{At: 2 * time.Second, Kind: sim.EventLeave, Members: []string{"c2"}},
		{At: 3 * time.Second, Kind: sim.EventStart, Members: []string{"c1"}},
		{At: 4 * time.Second, Kind: sim.EventRestart, Members: []string{"c2"}, For: 10 * time.Second,
			Set: sim.ConsumerSettings{Protocol: ptr("nextgen")}},
		{At: 5 * time.Second, Kind: sim.EventPause, Members: []string{"c3"}, For: 12 * time.Second},
		{At: 20 * time.Second, Kind: sim.EventStall, Members: []string{"c3"}, For: time.Minute},
		{At: 21 * time.Second, Kind: sim.EventNetworkPartition, Members: []string{"c1", "c2"}, For: 30 * time.Second},
		{At: 60 * time.Second, Kind: sim.EventRollingRestart, Members: []string{"c1", "c2", "c3"}, Interval: 20 * time.Second,
			For: 5 * time.Second, Graceful: true, Set: sim.ConsumerSettings{Assignors: ptr([]string{"cooperative-sticky"})}},
		{At: 70 * time.Second, Kind: sim.EventAddPartitions, Topic: "orders", Partitions: 24},
		{At: 110 * time.Second, Kind: sim.EventSubscribe, Members: []string{"c1"}, Topics: []string{"orders"}},
		{At: 111 * time.Second, Kind: sim.EventRestart, Members: []string{"c1", "c3"}, Graceful: true},
		// A StatefulSet replaces one pod at a time: max_unavailable 1, no
		// surge; the grace period is Kubernetes' default 30 s.
		{At: 115 * time.Second, Kind: sim.EventRollout, Members: []string{"c1", "c2", "c3"},
			Rollout: &sim.Rollout{Kind: sim.StatefulSet, MaxUnavailable: sim.IntOrPercent{Value: 1}, MinReady: 5 * time.Second,
				Pod: sim.PodTemplate{StartTime: sim.Distribution{Kind: sim.DistConstant, Value: 20 * time.Second},
					TerminationGracePeriod: 30 * time.Second, InstanceID: sim.InstanceIDPodName}}},
	}
	for i := range want {
		want[i].Line = 5 + i
	}
	if !reflect.DeepEqual(s.Events, want) {
		t.Errorf("events:\n got %+v\nwant %+v", s.Events, want)
	}
	if len(want) != len(eventKinds())+1 {
		t.Errorf("the test covers %d events for %d kinds; cover every kind", len(want), len(eventKinds()))
	}
}

// TestEventsSortedStably checks the order by time, file order among equal
// times, and that a problem in a moved event still names its own line.
func TestEventsSortedStably(t *testing.T) {
	s := mustParse(t, base+`events:
  - {at: 90s, crash: c1}
  - {at: 30s, leave: c2}
  - {at: 90s, leave: c3}
  - {at: 0s, pause: {member: c2, for: 1s}}
`)
	var got []string
	for _, e := range s.Events {
		got = append(got, string(e.Kind)+"@"+FormatDuration(e.At))
	}
	if want := []string{"pause@0s", "leave@30s", "crash@1m30s", "leave@1m30s"}; !slices.Equal(got, want) {
		t.Errorf("order = %v; want %v", got, want)
	}
	var lines []int
	for _, e := range s.Events {
		lines = append(lines, e.Line)
	}
	if want := []int{8, 6, 5, 7}; !slices.Equal(lines, want) {
		t.Errorf("lines = %v; want %v", lines, want)
	}
	checkRejections(t, []rejection{{"moved event names its own line",
		base + "events:\n  - {at: 90s, crash: c9}\n  - {at: 30s, leave: c2}\n", "t.yaml:5:22", []string{`unknown member "c9"`}}})
}

func TestNullAndZeroForms(t *testing.T) {
	s := mustParse(t, base+"events:\nexpect:\ndefaults:\ngroup:\nnetwork:\n")
	if len(s.Events) != 0 || len(s.Expect) != 0 {
		t.Errorf("empty sections gave %d events and %d expectations", len(s.Events), len(s.Expect))
	}
	s = mustParse(t, base+"group: {assignment_interval: 0}\nnetwork: {latency: 0}\n")
	if s.Group.AssignmentInterval != sim.AssignmentIntervalOff || s.Network.Latency.Value != 0 {
		t.Errorf("a bare 0 is zero for a duration; got %v and %v", s.Group.AssignmentInterval, s.Network.Latency.Value)
	}
}

func TestParseReportsSeveralProblemsInFileOrder(t *testing.T) {
	_, err := Parse("t.yaml", []byte(`duration: 2m
topics: [{name: orders, partitions: 12}]
members: [{count: 3, id: "c{i}"}]
events:
  - {at: 1m, crash: c9}
defaults: {session_timeout: 45}
protocols: [eagre]
`))
	// The decoder's problem (line 6) stops the semantic checks, which
	// would find lines 5 and 7; one problem comes as a plain *Error.
	var one *Error
	if !errors.As(err, &one) || one.Line != 6 || strings.Contains(err.Error(), "\n") {
		t.Errorf("got %v; want only the type problem on line 6", err)
	}
	var list ErrorList
	_, err = Parse("t.yaml", []byte(`duration: 2m
topics: [{name: orders, partitions: 12}]
members: [{count: 3, id: "c{i}"}]
events:
  - {at: 1m, crash: c9}
protocols: [eagre]
group: {assignor: unifrom}
`))
	if !errors.As(err, &list) {
		t.Fatalf("err = %v; want an ErrorList", err)
	}
	var lines []int
	for _, e := range list {
		lines = append(lines, e.Line)
		if !strings.HasPrefix(e.Error(), "t.yaml:") {
			t.Errorf("problem %q does not name the file", e)
		}
	}
	if !slices.Equal(lines, []int{5, 6, 7}) {
		t.Errorf("lines = %v; want [5 6 7] in file order:\n%v", lines, err)
	}
	var first *Error
	if !errors.As(err, &first) || first.Line != 5 {
		t.Errorf("errors.As(*Error) = %+v; want the first problem", first)
	}
}

func TestParseCapsTheNumberOfProblems(t *testing.T) {
	var b strings.Builder
	b.WriteString(base + "events:\n")
	for range 50 {
		b.WriteString("  - {at: 1m, crash: nobody}\n")
	}
	_, err := Parse("t.yaml", []byte(b.String()))
	var list ErrorList
	if !errors.As(err, &list) || len(list) != maxErrors {
		t.Errorf("got %d problems; want the first %d", len(list), maxErrors)
	}
}

func TestLoadFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "deploy.yaml")
	if err := os.WriteFile(path, []byte(base), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := LoadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if s.Name != "deploy" || s.Source != path {
		t.Errorf("Name, Source = %q, %q; want deploy, %s", s.Name, s.Source, path)
	}
	missing := filepath.Join(dir, "missing.yaml")
	if _, err := LoadFile(missing); err == nil || !strings.HasPrefix(err.Error(), missing+": cannot read the scenario: open: ") {
		t.Errorf("LoadFile(missing) = %v; want an error naming the file", err)
	}
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte(base+"seed: x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadFile(bad); err == nil || !strings.HasPrefix(err.Error(), bad+":4:7: seed must be") {
		t.Errorf("LoadFile(bad) = %v; want the problem at %s:4:7", err, bad)
	}
}

func TestParseWithoutSourceName(t *testing.T) {
	_, err := Parse("", []byte("duration: x\n"))
	if err == nil || !strings.HasPrefix(err.Error(), "<scenario>:1:11: ") {
		t.Errorf("err = %v; want it to name <scenario>", err)
	}
}

// TestParseReturnsNoScenarioWithAnError is a regression test: FuzzParse's
// seeds found Parse returning the half-checked scenario beside the error.
func TestParseReturnsNoScenarioWithAnError(t *testing.T) {
	for _, src := range []string{"duration: x\n", base + "events:\n  - {at: 1m, crash: c9}\n"} {
		if s, err := Parse("t.yaml", []byte(src)); s != nil || err == nil {
			t.Errorf("Parse(%q) = %p, %v; want nil and an error", src, s, err)
		}
	}
}

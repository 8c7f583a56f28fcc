package scenarios

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/rebalsim/rebalsim/sim"
)

// sweepBase has something at every kind of path: lines and columns below
// refer to it.
const sweepBase = `name: base
duration: 5m
topics:
  - {name: orders, partitions: 12}
  - {name: payments, partitions: 6}
network:
  latency: 2ms
defaults:
  session_timeout: 45s
group:
  heartbeat_interval: 5s
members:
  - {count: 3, id: "c{i}"}
  - {count: 3, id: "c{i}", from: 4, static: true}
events:
  - {at: 30s, crash: c2}
  - {at: 60s, pause: {member: c3, for: 12s}}
  - {at: 90s, rolling_restart: {members: all, interval: 20s, down: 5s}}
`

func parseWith(t *testing.T, src string, overrides ...string) (*File, error) {
	t.Helper()
	var ovs []Override
	for _, s := range overrides {
		o, err := ParseOverride(s)
		if err != nil {
			t.Fatalf("ParseOverride(%q): %v", s, err)
		}
		ovs = append(ovs, o)
	}
	return ParseWith("t.yaml", []byte(src), ovs)
}

func mustParseWith(t *testing.T, src string, overrides ...string) *File {
	t.Helper()
	s, err := parseWith(t, src, overrides...)
	if err != nil {
		t.Fatalf("ParseWith(%v): %v", overrides, err)
	}
	return s
}

func memberIDs(s *sim.Scenario) []string {
	var ids []string
	for _, m := range s.Members {
		ids = append(ids, m.ID)
	}
	return ids
}

func TestOverridePaths(t *testing.T) {
	d := func(s string) time.Duration { v, _ := time.ParseDuration(s); return v }
	cases := []struct {
		override string
		check    func(s *sim.Scenario) any
		want     any
	}{
		{"defaults.session_timeout=10s", func(s *sim.Scenario) any { return *s.Defaults.SessionTimeout }, d("10s")},
		{"session_timeout=10s", func(s *sim.Scenario) any { return *s.Defaults.SessionTimeout }, d("10s")},
		{"max_poll_interval=1m", func(s *sim.Scenario) any { return *s.Defaults.MaxPollInterval }, d("1m")},
		{"defaults.processing_rate=500", func(s *sim.Scenario) any { return *s.Defaults.ProcessingRate }, 500.0},
		{"group.heartbeat_interval=10s", func(s *sim.Scenario) any { return s.Group.HeartbeatInterval }, d("10s")},
		{"group.session_timeout=50s", func(s *sim.Scenario) any { return s.Group.SessionTimeout }, d("50s")},
		{"topics.orders.partitions=100", func(s *sim.Scenario) any { return []int32{s.Topics[0].Partitions, s.Topics[1].Partitions} }, []int32{100, 6}},
		{"topics[payments].partitions=9", func(s *sim.Scenario) any { return []int32{s.Topics[0].Partitions, s.Topics[1].Partitions} }, []int32{12, 9}},
		{"topics[1].partitions=9", func(s *sim.Scenario) any { return []int32{s.Topics[0].Partitions, s.Topics[1].Partitions} }, []int32{12, 9}},
		{"topics[0].rate=50", func(s *sim.Scenario) any { return s.Topics[0].Rate }, 50.0},
		{"partitions=48", func(s *sim.Scenario) any { return []int32{s.Topics[0].Partitions, s.Topics[1].Partitions} }, []int32{48, 48}},
		{"network.latency=5ms", func(s *sim.Scenario) any { return s.Network.Latency.Value }, d("5ms")},
		{"latency=7ms", func(s *sim.Scenario) any { return s.Network.Latency.Value }, d("7ms")},
		{"latency={dist: uniform, min: 1ms, max: 5ms}", func(s *sim.Scenario) any { return s.Network.Latency },
			sim.Distribution{Kind: sim.DistUniform, Min: d("1ms"), Max: d("5ms")}},
		{"events[1].pause.for=60s", func(s *sim.Scenario) any { return s.Events[1].For }, d("60s")},
		{"events[2].rolling_restart.interval=5s", func(s *sim.Scenario) any { return s.Events[2].Interval }, d("5s")},
		{"members[1].count=5", func(s *sim.Scenario) any { return len(s.Members) }, 8},
		{"members.c{i}.start=1s", func(s *sim.Scenario) any { return s.Members[0].Start }, d("1s")},
		{"seed=42", func(s *sim.Scenario) any { return s.Seed }, uint64(42)},
		{"duration=10m", func(s *sim.Scenario) any { return s.Duration }, d("10m")},
		{"defaults.assignors=[cooperative-sticky, range]", func(s *sim.Scenario) any { return *s.Defaults.Assignors }, []string{"cooperative-sticky", "range"}},
	}
	for _, tc := range cases {
		t.Run(tc.override, func(t *testing.T) {
			s := mustParseWith(t, sweepBase, tc.override)
			if got := tc.check(s.Scenario); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestOverridesApplyInOrderAndLeaveOthersAlone(t *testing.T) {
	s := mustParseWith(t, sweepBase, "session_timeout=10s", "defaults.session_timeout=20s", "partitions=30")
	if *s.Defaults.SessionTimeout != 20*time.Second {
		t.Errorf("session_timeout = %v, want the later override's 20s", *s.Defaults.SessionTimeout)
	}
	plain := mustParseWith(t, sweepBase)
	if plain.Topics[0].Partitions != 12 || *plain.Defaults.SessionTimeout != 45*time.Second {
		t.Error("ParseWith without overrides changed the scenario")
	}
}

func TestOverrideAddsMissingSections(t *testing.T) {
	src := "duration: 2m\ntopics: [{name: orders, partitions: 12}]\nmembers: [{count: 3, id: \"c{i}\"}]\ndefaults:\n"
	s := mustParseWith(t, src, "defaults.heartbeat_interval=1s", "group.session_timeout=50s", "network.latency=3ms")
	if *s.Defaults.HeartbeatInterval != time.Second || s.Group.SessionTimeout != 50*time.Second || s.Network.Latency.Value != 3*time.Millisecond {
		t.Errorf("got heartbeat %v, group session %v, latency %v", *s.Defaults.HeartbeatInterval, s.Group.SessionTimeout, s.Network.Latency.Value)
	}
}

func TestOverrideMembers(t *testing.T) {
	// rolling-restart's shape: dynamic c1-c3, then static c4-c6 numbered on.
	s := mustParseWith(t, sweepBase, "members=10")
	want := []string{"c1", "c2", "c3", "c4", "c5", "c6", "c7", "c8", "c9", "c10"}
	if got := memberIDs(s.Scenario); !reflect.DeepEqual(got, want) {
		t.Fatalf("members = %v, want %v", got, want)
	}
	for i, m := range s.Members {
		static := m.Settings.Static != nil && *m.Settings.Static
		if static != (i >= 5) {
			t.Errorf("%s static = %v; want the second half static, as in the file", m.ID, static)
		}
	}
	// members: all covers every member.
	if got := len(s.Events[2].Members); got != 10 {
		t.Errorf("rolling restart of all members restarts %d, want 10", got)
	}
	// Odd totals: the earlier entry gets the remainder.
	s = mustParseWith(t, sweepBase, "members=7")
	if got := memberIDs(s.Scenario); len(got) != 7 || s.Members[3].Settings.Static != nil {
		t.Errorf("members=7: %v, want 4 dynamic then 3 static", got)
	}

	t.Run("one count entry and plain members", func(t *testing.T) {
		src := "duration: 2m\ntopics: [{name: orders, partitions: 12}]\nmembers:\n  - {count: 3, id: \"c{i}\"}\n  - {id: late, start: 30s}\n"
		s := mustParseWith(t, src, "members=50")
		if len(s.Members) != 50 || s.Members[48].ID != "c49" || s.Members[49].ID != "late" {
			t.Errorf("members = %d, last two %v", len(s.Members), memberIDs(s.Scenario)[48:])
		}
	})
	t.Run("plain ids become a count entry", func(t *testing.T) {
		src := "duration: 2m\ntopics: [{name: orders, partitions: 12}]\nmembers: [{id: w1}, {id: w2}]\nevents: [{at: 1m, crash: w2}]\n"
		s := mustParseWith(t, src, "members=4")
		if got := memberIDs(s.Scenario); !reflect.DeepEqual(got, []string{"w1", "w2", "w3", "w4"}) {
			t.Errorf("members = %v", got)
		}
	})
	t.Run("an event naming a member that is no longer there", func(t *testing.T) {
		_, err := parseWith(t, sweepBase, "members=2")
		if err == nil || !strings.Contains(err.Error(), `unknown member "c3"`) {
			t.Errorf("err = %v, want the pause of c3 reported", err)
		}
	})
	t.Run("too few for the entries", func(t *testing.T) {
		_, err := parseWith(t, sweepBase, "members=1")
		if err == nil || !strings.Contains(err.Error(), "t.yaml:13:3: override members=1: members=1 is too few") {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("not a number", func(t *testing.T) {
		_, err := parseWith(t, sweepBase, "members=many")
		if err == nil || !strings.Contains(err.Error(), `members must be a whole number from 1 to 100,000, found the string "many"`) {
			t.Errorf("err = %v", err)
		}
	})
}

func TestOverrideErrors(t *testing.T) {
	cases := []struct {
		override string
		// want is the whole message: position, override, problem.
		want string
	}{
		{"sesion_timeout=10s", `t.yaml: override sesion_timeout=10s: unknown path "sesion_timeout"; did you mean "session_timeout"?`},
		{"netwrk.latency=5ms", `t.yaml: override netwrk.latency=5ms: unknown path "netwrk.latency"; did you mean "network"?`},
		{"protocols=[eager]", `t.yaml: override protocols=[eager]: protocols cannot be overridden`},
		{"topics.ordrs.partitions=5", `t.yaml:4:3: override topics.ordrs.partitions=5: topics has no item named "ordrs"; did you mean "orders"? (names: orders, payments)`},
		{"topics[5].partitions=5", `t.yaml:4:3: override topics[5].partitions=5: topics has 2 items, so topics[5] does not exist (positions count from 0)`},
		{"events.crash.at=5s", `t.yaml:16:3: override events.crash.at=5s: the items of events have no names; pick one by position, as in events[0]`},
		{"network.latency.median=5ms", `t.yaml:7:12: override network.latency.median=5ms: network.latency is the string "2ms", so it has no median; override network.latency itself`},
		{"defaults[0]=1", `t.yaml:9:3: override defaults[0]=1: defaults is a mapping, not a list; defaults[0] needs a list`},
		// Problems in values are the decoder's, at the value they replaced.
		{"session_timeout=10", `t.yaml:9:20: session_timeout is a duration and needs a unit: write 10s, not 10 (or 10ms for milliseconds) (set by override session_timeout=10)`},
		{"topics.orders.partitions=0", `t.yaml:4:32: partitions must be at least 1, found 0 (set by override topics.orders.partitions=0)`},
		{"events[0].at=10m", `t.yaml:16:10: crash at 10m is at or after the 5m horizon (duration), so it would never happen (set by override events[0].at=10m)`},
		// An added key that the section does not know: the decoder's suggestion.
		{"defaults.sesion_timeout=10s", `t.yaml:9:3: unknown key "sesion_timeout" in defaults; did you mean "session_timeout"? (set by override defaults.sesion_timeout=10s)`},
		{"group.heartbeat_interval=1m", `t.yaml:11:23: group.heartbeat_interval 1m must be less than group.session_timeout 45s, or members expire between heartbeats (set by override group.heartbeat_interval=1m)`},
	}
	for _, tc := range cases {
		t.Run(tc.override, func(t *testing.T) {
			_, err := parseWith(t, sweepBase, tc.override)
			if err == nil {
				t.Fatalf("ParseWith accepted %s", tc.override)
			}
			if !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("error\n  %v\nwant it to start with\n  %s", err, tc.want)
			}
			var e *Error
			if !errors.As(err, &e) || e.Source != "t.yaml" {
				t.Errorf("errors.As(*Error) = %v", errors.As(err, &e))
			}
		})
	}
}

func TestParseOverride(t *testing.T) {
	good := map[string]Override{
		"members=50":                {Path: "members", Value: "50"},
		" latency = 5ms ":           {Path: "latency", Value: "5ms"},
		"topics[orders.v2].rate=10": {Path: "topics[orders.v2].rate", Value: "10"},
		"defaults.assignors=[a, b]": {Path: "defaults.assignors", Value: "[a, b]"},
		"network.latency={dist: uniform, min: 1ms, max: 2ms}": {Path: "network.latency", Value: "{dist: uniform, min: 1ms, max: 2ms}"},
	}
	for in, want := range good {
		if got, err := ParseOverride(in); err != nil || got != want {
			t.Errorf("ParseOverride(%q) = %+v, %v; want %+v", in, got, err, want)
		}
	}
	for _, in := range []string{"members", "=5", "members=", "a..b=1", "a.=1", "[0]=1", "topics[0=1", "topics[0]x=1", "topics[-1].rate=1", ".a=1"} {
		if _, err := ParseOverride(in); err == nil {
			t.Errorf("ParseOverride(%q) accepted it", in)
		}
	}
}

func TestOverrideDoesNotLeakThroughAliases(t *testing.T) {
	src := `duration: 2m
topics: [{name: orders, partitions: 12}]
defaults: &d {session_timeout: 45s}
members:
  - {count: 2, id: "c{i}"}
events:
  - {at: 30s, pause: &p {member: c1, for: 5s}}
  - {at: 60s, pause: *p}
`
	s := mustParseWith(t, src, "events[0].pause.for=9s")
	if s.Events[0].For != 9*time.Second || s.Events[1].For != 5*time.Second {
		t.Errorf("pauses = %v, %v; want only the first changed", s.Events[0].For, s.Events[1].For)
	}
}

func TestSweepBlock(t *testing.T) {
	src := sweepBase + `sweep:
  seeds: 20
  vary:
    members: [10, 50]
    session_timeout: [10s, "45s"]
    latency: [1ms, {dist: uniform, min: 1ms, max: 5ms}]
`
	s, err := Parse("t.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := &SweepSpec{Seeds: 20, Vary: []Variation{
		{Path: "members", Values: []string{"10", "50"}, Line: 22},
		{Path: "session_timeout", Values: []string{"10s", `"45s"`}, Line: 23},
		{Path: "latency", Values: []string{"1ms", "{dist: uniform, min: 1ms, max: 5ms}"}, Line: 24},
	}}
	if !reflect.DeepEqual(s.Sweep, want) {
		t.Errorf("sweep = %+v, want %+v", s.Sweep, want)
	}
	// Every value works as an override.
	for _, v := range s.Sweep.Vary {
		for _, value := range v.Values {
			if _, err := ParseWith("t.yaml", []byte(src), []Override{{Path: v.Path, Value: value}}); err != nil {
				t.Errorf("%s=%s: %v", v.Path, value, err)
			}
		}
	}
	if s, err := Parse("t.yaml", []byte(sweepBase)); err != nil || s.Sweep != nil {
		t.Errorf("no sweep block: Sweep = %+v, %v", s.Sweep, err)
	}
}

func TestSweepBlockRejects(t *testing.T) {
	head := sweepBase + "sweep:\n"
	checkRejections(t, []rejection{
		{"unknown key", head + "  seed: 3\n", "t.yaml:20:3", []string{`unknown key "seed" in sweep; did you mean "seeds"?`}},
		{"zero seeds", head + "  seeds: 0\n", "t.yaml:20:10", []string{"seeds must be a whole number from 1 to 1,000,000,000"}},
		{"vary not a mapping", head + "  vary: [members]\n", "t.yaml:20:9", []string{"vary must be a mapping of paths to lists of values"}},
		{"unknown path", head + "  vary:\n    sesion_timeout: [10s]\n", "t.yaml:21:5", []string{`unknown path "sesion_timeout"; did you mean "session_timeout"?`}},
		{"unknown topic", head + "  vary:\n    topics.ordrs.partitions: [10]\n", "t.yaml:21:5", []string{`topics has no item named "ordrs"; did you mean "orders"?`}},
		{"values not a list", head + "  vary:\n    members: 10\n", "t.yaml:21:14", []string{"members must be a list such as [10, 50, 100]"}},
		{"no values", head + "  vary:\n    members: []\n", "t.yaml:21:14", []string{"vary members lists no values"}},
		{"repeated value", head + "  vary:\n    members: [10, 10]\n", "t.yaml:21:19", []string{"value 10 appears twice in vary members"}},
		{"bad path syntax", head + "  vary:\n    topics..rate: [1]\n", "t.yaml:21:5", []string{`path "topics..rate": a '.' must separate two keys`}},
		{"too few members for a value", head + "  vary:\n    members: [1]\n", "t.yaml:21:5", []string{"members=1 is too few"}},
	})
}

func ExampleParseWith() {
	src := []byte(`
duration: 5m
topics: [{name: orders, partitions: 12}]
members:
  - {count: 3, id: "c{i}"}
  - {count: 3, id: "c{i}", from: 4, static: true}
events:
  - {at: 30s, rolling_restart: {members: all, interval: 20s, down: 5s}}
`)
	s, err := ParseWith("rolling.yaml", src, []Override{
		{Path: "members", Value: "10"},
		{Path: "session_timeout", Value: "10s"},
		{Path: "topics.orders.partitions", Value: "48"},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(s.Members), s.Members[9].ID, *s.Defaults.SessionTimeout, s.Topics[0].Partitions, len(s.Events[0].Members))

	_, err = ParseWith("rolling.yaml", src, []Override{{Path: "session_timeout", Value: "10"}})
	fmt.Println(err)
	// Output:
	// 10 c10 10s 48 10
	// rolling.yaml:2:1: session_timeout is a duration and needs a unit: write 10s, not 10 (or 10ms for milliseconds) (set by override session_timeout=10)
}

// FuzzParseWith applies an arbitrary override to a scenario. Whatever the
// override, ParseWith must not panic, and every error line must name the
// source; whatever it accepts must satisfy Validate.
//
//	go test -fuzz=FuzzParseWith ./scenarios
func FuzzParseWith(f *testing.F) {
	for _, seed := range []string{
		"members=10", "members=1", "members=[{id: x}]", "partitions=3", "latency=5ms",
		"topics.orders.partitions=7", "topics[9].rate=1", "events[1].pause=null", "defaults=~",
		"members.c{i}.count=0", "group=[1]", "a[0][1].b=c", "defaults.subscription=[orders, orders]",
		"events[2].rolling_restart.members=[c1, c1]", "seed=-1", "duration=1ns",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, override string) {
		o, err := ParseOverride(override)
		if err != nil {
			return
		}
		s, err := ParseWith("t.yaml", []byte(sweepBase), []Override{o})
		if err != nil {
			for _, line := range strings.Split(err.Error(), "\n") {
				if !strings.HasPrefix(line, "t.yaml") {
					t.Fatalf("error line %q does not name the source", line)
				}
			}
			return
		}
		if err := ValidateFile(s); err != nil {
			t.Fatalf("ParseWith accepted %q but Validate says: %v", override, err)
		}
	})
}

// TestOverrideTarget: the spellings of one place give one string, and
// different places give different strings.
func TestOverrideTarget(t *testing.T) {
	for _, tc := range []struct {
		paths []string
		want  string
	}{
		{[]string{"latency", "network.latency", "network[latency]"}, "network.latency"},
		{[]string{"session_timeout", "defaults.session_timeout"}, "defaults.session_timeout"},
		{[]string{"topics.orders.rate", "topics[orders].rate", `topics["orders"].rate`}, "topics.orders.rate"},
		{[]string{"topics[orders.v2].rate"}, "topics[orders.v2].rate"},
		{[]string{"topics[0].partitions"}, "topics[0].partitions"},
		{[]string{"members"}, "members"},
		{[]string{"seed"}, "seed"},
		{[]string{"group.session_timeout"}, "group.session_timeout"}, // the broker's, not defaults.session_timeout
		{[]string{"a..b"}, "a..b"},                                   // no path: returned as it is
	} {
		for _, p := range tc.paths {
			if got := OverrideTarget(p); got != tc.want {
				t.Errorf("OverrideTarget(%q) = %q, want %q", p, got, tc.want)
			}
		}
	}
}

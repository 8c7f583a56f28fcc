package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/rebalsim/rebalsim/sim"
)

func TestJSONRoundTrip(t *testing.T) {
	for _, r := range []*Report{labReport(), largeReport(10, 200)} {
		var first bytes.Buffer
		if err := WriteJSON(&first, r); err != nil {
			t.Fatal(err)
		}
		back, err := ReadJSON(bytes.NewReader(first.Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		var second bytes.Buffer
		if err := WriteJSON(&second, back); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(first.Bytes(), second.Bytes()) {
			t.Errorf("%s: result.json changes on a round trip", r.Scenario.Name)
		}
	}
}

func TestJSONIsIndentedWithContractNames(t *testing.T) {
	var b bytes.Buffer
	if err := WriteJSON(&b, labReport()); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"\n  \"version\": ", "\"downtime_partition_seconds\": ", "\"member_timeline\": ", "\"runs\": "} {
		if !strings.Contains(out, want) {
			t.Errorf("result.json lacks %q", want)
		}
	}
}

func TestReadJSONErrors(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
	}{
		{"empty", "  \n", "empty input"},
		{"syntax", "{\n  \"version\": \"v1\",\n  \"runs\": [}\n", "line 3, column"},
		{"truncated", "{\"version\": \"v1\", \"runs\": [", "truncated"},
		{"unknown key", "{\"version\": \"v1\", \"verison\": 2}", "unknown field \"verison\""},
		{"wrong type", "{\"version\": \"v1\", \"runs\": [{\"metrics\": {\"rebalances\": \"three\"}}]}", "runs.metrics.rebalances: found a JSON string, expected int"},
		{"not a report", "{}", "not a rebalsim result.json"},
		{"an array", "[1, 2]", "found a JSON array"},
		{"null run", "{\"version\": \"v1\", \"runs\": [null]}", "runs[0] is null"},
		{"trailing", "{\"version\": \"v1\"} {}", "unexpected data after the report"},
		// A result must have runs and come from a release whose layout
		// this package reads.
		{"runs null", "{\"version\": \"0.1.0\", \"runs\": null}", "has no runs"},
		{"runs empty", "{\"version\": \"0.1.0\", \"runs\": []}", "has no runs"},
		{"future version", "{\"version\": \"99\", \"runs\": [{}]}", "version \"99\" is not one this rebalsim reads"},
		{"no version", "{\"runs\": [{}]}", "version \"\" is not one"},
	} {
		_, err := ReadJSON(strings.NewReader(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
}

func TestNewScenarioInfo(t *testing.T) {
	rate := 2000.0
	static := true
	session := 10 * time.Second
	sc := &sim.Scenario{
		Name: "scale-out", Seed: 7, Duration: 2 * time.Minute,
		Protocols: []string{"eager", "nextgen"},
		Topics:    []sim.TopicSpec{{Name: "orders", Partitions: 12, Rate: 1000}},
		Network:   sim.NetworkSpec{Latency: sim.Distribution{Kind: sim.DistConstant, Value: 2 * time.Millisecond}},
		Defaults:  sim.ConsumerSettings{ProcessingRate: &rate, SessionTimeout: &session},
		Group:     sim.GroupConfig{InitialRebalanceDelay: 3 * time.Second},
		Members: []sim.MemberSpec{
			{ID: "c1"},
			{ID: "c4", Start: 30 * time.Second, Settings: sim.ConsumerSettings{Static: &static}},
		},
		Events: []sim.Event{
			{At: time.Minute, Kind: sim.EventRollingRestart, Members: []string{"c1", "c4"}, For: 5 * time.Second, Interval: 20 * time.Second, Graceful: true},
		},
	}
	info := NewScenarioInfo(sc)
	if info.Duration != 120 || info.Seed != 7 || info.Network != "constant 2ms" || info.Topics[0].Partitions != 12 {
		t.Errorf("info = %+v", info)
	}
	if got := info.Members[1]; got.Start != 30 || got.Settings["static"] != "true" || got.Settings["processing_rate"] != "2000" || got.Settings["session_timeout"] != "10s" {
		t.Errorf("member c4 = %+v", got)
	}
	if info.Group["session_timeout"] != "45s" || info.Group["initial_rebalance_delay"] != "3s" || info.Group["max_size"] != "unlimited" {
		t.Errorf("group = %v", info.Group)
	}
	// c4's late start is a disturbance too, before the rolling restart.
	if len(info.Disturbances) != 2 {
		t.Fatalf("disturbances = %+v, want c4's start and the rolling restart", info.Disturbances)
	}
	if d := info.Disturbances[0]; d.At != 30 || d.Kind != "start" || len(d.Members) != 1 || d.Members[0] != "c4" {
		t.Errorf("first disturbance = %+v, want c4 starting at 30s", d)
	}
	if d := info.Disturbances[1]; d.At != 60 || d.For != 5 || d.Interval != 20 || d.Detail != "graceful" {
		t.Errorf("event = %+v", d)
	}
}

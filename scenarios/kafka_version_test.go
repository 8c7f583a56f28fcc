package scenarios

import (
	"strings"
	"testing"
	"time"

	"github.com/rebalsim/rebalsim/sim"
)

// TestKafkaVersionDefaults: a release selects the defaults that differ
// between releases, and an explicit setting wins over them.
func TestKafkaVersionDefaults(t *testing.T) {
	for _, tc := range []struct {
		name, yaml, version string
		interval            time.Duration
	}{
		// 4.3 is the default; KIP-1263's assignment interval is 1s there.
		{"default", "", "4.3", time.Second},
		{"4.3", "kafka_version: \"4.3\"\n", "4.3", time.Second},
		// Before 4.3 the target is recomputed on every epoch bump.
		{"4.0", "kafka_version: \"4.0\"\n", "4.0", 0},
		// An explicit setting wins over the release's default.
		{"explicit", "kafka_version: \"4.3\"\ngroup: {assignment_interval: 0}\n", "4.3", 0},
		{"explicit-4.0", "kafka_version: \"4.0\"\ngroup: {assignment_interval: 2s}\n", "4.0", 2 * time.Second},
	} {
		src := tc.yaml + "name: v\nduration: 1m\ntopics: [{name: t, partitions: 2}]\nmembers: [{id: c1}]\n"
		f, err := Parse("v.yaml", []byte(src))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		// The release's defaults are derived where the run resolves the
		// group, for a file and for a scenario built in Go alike.
		got := sim.ResolveGroupConfigFor(f.Scenario.Group, f.Scenario.KafkaVersion).AssignmentInterval
		if f.Scenario.KafkaVersion != tc.version || got != tc.interval {
			t.Errorf("%s: version %q interval %s, want %q %s", tc.name, f.Scenario.KafkaVersion, got, tc.version, tc.interval)
		}
	}
	if _, err := Parse("v.yaml", []byte("kafka_version: \"3.9\"\nname: v\nduration: 1m\ntopics: [{name: t, partitions: 2}]\nmembers: [{id: c1}]\n")); err == nil {
		t.Errorf("kafka_version 3.9 was accepted, want an error naming the allowed releases")
	}
}

// TestRecordProcessingTime reads a per-record time distribution and
// rejects a malformed one with its path.
func TestRecordProcessingTime(t *testing.T) {
	const body = "name: r\nduration: 1m\ntopics: [{name: t, partitions: 2}]\nmembers: [{id: c1}]\n"
	f, err := Parse("r.yaml", []byte(body+"defaults: {record_processing_time: {dist: lognormal, median: 2ms, p99: 40ms}}\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := sim.Distribution{Kind: sim.DistLogNormal, Median: 2 * time.Millisecond, P99: 40 * time.Millisecond}
	if got := f.Scenario.Defaults.RecordProcessingTime; got == nil || *got != want {
		t.Errorf("record_processing_time = %v, want %v", got, want)
	}
	_, err = Parse("r.yaml", []byte(body+"defaults: {record_processing_time: {dist: lognormal, median: 40ms, p99: 2ms}}\n"))
	if err == nil || !strings.Contains(err.Error(), "r.yaml:5") || !strings.Contains(err.Error(), "p99 2ms is below its median 40ms") {
		t.Errorf("a p99 below the median: error %v, want one at r.yaml:5 saying the p99 is below the median", err)
	}
}

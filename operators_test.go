package rebalsim_test

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/rebalsim/rebalsim"
	"github.com/rebalsim/rebalsim/report"
	"github.com/rebalsim/rebalsim/scenarios"
	"github.com/rebalsim/rebalsim/sim"
)

// The tests here check what operators feel (latency, lag in time, hot and
// stuck partitions) end to end: a scenario file, every protocol, the
// result.

func runNamed(t *testing.T, name, yaml string, timeline bool) *rebalsim.Results {
	t.Helper()
	f, err := scenarios.Parse(name+".yaml", []byte(yaml))
	return runFile(t, f, err, timeline)
}

func runLibrary(t *testing.T, name string, timeline bool) *rebalsim.Results {
	t.Helper()
	f, err := scenarios.LibraryScenario(name)
	return runFile(t, f, err, timeline)
}

// runFile runs a loaded scenario under its protocols.
func runFile(t *testing.T, f *scenarios.File, err error, timeline bool) *rebalsim.Results {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	res, err := rebalsim.Run(f.Scenario, rebalsim.Options{Timeline: timeline})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestLatencyExactUnderEveryProtocol: one partition at r = 100 records/s,
// one member processing C = 1000/s, paused for 10s at 60s (inside the
// session timeout, so no protocol rebalances and the partition is dark
// exactly as long as the pause). Whatever the protocol, the window
// (60-180s) then holds N = r·120 records; the backlog r·G drains at C−r,
// during which M = r·G·C/(C−r) records leave with latency falling
// evenly from G to 0; the rest leave at once. So latency_max is G and the
// q-quantile is G·(q−(1−f))/f for q above 1−f, f = M/N (the derivation
// is TestLatencyClosedForm's). G is the gap the run measured.
func TestLatencyExactUnderEveryProtocol(t *testing.T) {
	res := runNamed(t, "dark-partition", `
duration: 3m
topics: [{name: t, partitions: 1, rate: 100}]
defaults: {processing_rate: 1000}
members: [{id: c1}]
events: [{at: 60s, pause: {member: c1, for: 10s}}]
`, false)
	for _, run := range res.Runs {
		g := run.Metrics.MaxPartitionGapSeconds
		if math.Abs(g-10) > 1e-6 {
			t.Fatalf("%s: the partition was dark %vs, want the pause's 10s", run.Protocol, g)
		}
		const r, c, window = 100.0, 1000.0, 120.0
		f := (r * g * c / (c - r)) / (r * window)
		quantile := func(q float64) float64 { return max(0, g*(q-(1-f))/f) }
		for _, w := range []struct {
			name string
			want float64
		}{
			{"latency_p50_seconds", 0},
			{"latency_p99_seconds", quantile(0.99)},
			{"latency_p999_seconds", quantile(0.999)},
			{"latency_max_seconds", g},
			{"max_lag_seconds", g},
		} {
			got, _ := run.Metrics.Value(w.name)
			if math.Abs(got-w.want) > 1e-6*max(1, w.want) {
				t.Errorf("%s: %s = %v, want %v", run.Protocol, w.name, got, w.want)
			}
		}
	}
}

// TestLatencyRisesWithDisturbances: a steady group's records leave as
// they are produced (the fluid model's poll loop keeps up), so its
// latency stays within the few hundred ms of a real poll loop; the
// window needs a disturbance to start, so the steady group's is a 1ms
// pause. A 10s pause of one member delays its partitions by the pause,
// and a crash by the session timeout, which is longer still.
func TestLatencyRisesWithDisturbances(t *testing.T) {
	group := `
duration: 3m
topics: [{name: t, partitions: 6, rate: 100}]
members: [{count: 3, id: "c{i}", from: 1}]
`
	steady := runNamed(t, "steady", group+"events: [{at: 60s, pause: {member: c1, for: 1ms}}]\n", false)
	paused := runNamed(t, "paused", group+"events: [{at: 60s, pause: {member: c1, for: 10s}}]\n", false)
	crashed := runNamed(t, "crashed", group+"events: [{at: 60s, crash: c1}]\n", false)
	for i, p := range steady.Protocols {
		s, pa, cr := steady.Runs[i].Metrics, paused.Runs[i].Metrics, crashed.Runs[i].Metrics
		if s.LatencyMaxSeconds > 0.3 || s.LatencyP99Seconds > 0.3 {
			t.Errorf("%s: steady group latency p99 %vs, max %vs, want at most 0.3s", p, s.LatencyP99Seconds, s.LatencyMaxSeconds)
		}
		if !(pa.LatencyMaxSeconds >= 10-1e-6 && cr.LatencyMaxSeconds > pa.LatencyMaxSeconds) {
			t.Errorf("%s: latency max steady %v, paused %v, crashed %v: want it to rise", p, s.LatencyMaxSeconds, pa.LatencyMaxSeconds, cr.LatencyMaxSeconds)
		}
		if !(pa.LatencyP999Seconds > s.LatencyP999Seconds && cr.LatencyP999Seconds > pa.LatencyP999Seconds) {
			t.Errorf("%s: latency p99.9 steady %v, paused %v, crashed %v: want it to rise", p, s.LatencyP999Seconds, pa.LatencyP999Seconds, cr.LatencyP999Seconds)
		}
	}
}

// TestHotPartitionScaleOut: with clicks-7 at twenty times the others, the
// range assignor moves it when a fourth member joins and cooperative-sticky
// does not (see the scenario's description), so eager reports the larger
// moved load and p99 than cooperative, and the report names the hot
// partition. The consumer protocol's uniform assignor leaves it in place
// under Kafka 4.0-4.2, but moves it under 4.3, whose target assignment is
// computed at most once a second (KIP-1263) and so places the first three
// members one by one: less moved load than range's, a larger p99.
func TestHotPartitionScaleOut(t *testing.T) {
	res := runLibrary(t, "hot-partition-scale-out", false)
	byProto := map[string]sim.Metrics{}
	for _, run := range res.Runs {
		byProto[run.Protocol] = run.Metrics
		if !slices.Equal(run.HotPartitions, []string{"clicks-7"}) {
			t.Errorf("%s: hot partitions %v, want [clicks-7]", run.Protocol, run.HotPartitions)
		}
	}
	eager, coop, next := byProto[sim.ProtocolEager], byProto[sim.ProtocolCooperative], byProto[sim.ProtocolNextgen]
	if !(eager.MovedLoadRecordsPerSecond > coop.MovedLoadRecordsPerSecond) || !(eager.LatencyP99Seconds > coop.LatencyP99Seconds) {
		t.Errorf("eager moved load %v, p99 %v; cooperative %v, %v: want eager larger in both",
			eager.MovedLoadRecordsPerSecond, eager.LatencyP99Seconds, coop.MovedLoadRecordsPerSecond, coop.LatencyP99Seconds)
	}
	// 4.3: the hot partition and two cold ones, 2000 + 2·100.
	if next.MovedLoadRecordsPerSecond != 2200 || !(next.LatencyP99Seconds > eager.LatencyP99Seconds) {
		t.Errorf("nextgen under 4.3: moved load %v, p99 %v (eager's %v): want 2200 and a p99 above eager's",
			next.MovedLoadRecordsPerSecond, next.LatencyP99Seconds, eager.LatencyP99Seconds)
	}
	src, err := scenarios.LibrarySource("hot-partition-scale-out")
	if err != nil {
		t.Fatal(err)
	}
	f, err := scenarios.Parse("hot-partition-scale-out-4.0.yaml", []byte("kafka_version: \"4.0\"\n"+string(src)))
	if err != nil {
		t.Fatal(err)
	}
	res40, err := rebalsim.Run(f.Scenario, rebalsim.Options{Protocols: []string{sim.ProtocolNextgen}})
	if err != nil {
		t.Fatal(err)
	}
	// 4.0: three cold partitions, 3·100, as cooperative-sticky.
	if m := res40.Runs[0].Metrics; m.MovedLoadRecordsPerSecond != 300 || !(m.LatencyP99Seconds < eager.LatencyP99Seconds) {
		t.Errorf("nextgen under 4.0: moved load %v, p99 %v: want 300 and a p99 below eager's %v", m.MovedLoadRecordsPerSecond, m.LatencyP99Seconds, eager.LatencyP99Seconds)
	}
	var b strings.Builder
	if err := report.Table(&b, res.Report()); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "hot partitions (at least twice their topic's median rate): clicks-7") {
		t.Errorf("the report does not name the hot partition:\n%s", b.String())
	}
}

// TestStuckPartitions: c1 is paused for 30s, inside the session timeout,
// with stuck_after 20s. Each partition c1 owned during the pause that
// produces records is stuck and reported once; orders-1 produces nothing,
// has no lag, and is never reported. Nothing else is stuck.
func TestStuckPartitions(t *testing.T) {
	res := runLibrary(t, "stuck-partition-paused-owner", true)
	for _, run := range res.Runs {
		var want []string
		for _, seg := range run.Timeline {
			if seg.Owner == "c1" && seg.Start <= 70 && seg.End >= 70 && seg.Partition != "orders-1" {
				want = append(want, seg.Partition)
			}
		}
		var got []string
		for _, f := range run.Findings {
			if f.Kind == "stuck_partition" {
				got = append(got, f.Partitions...)
				if f.At != 80 || !slices.Equal(f.Members, []string{"c1"}) {
					t.Errorf("%s: %+v, want c1 reported at 80s (60s + stuck_after)", run.Protocol, f)
				}
			}
		}
		slices.Sort(want)
		slices.Sort(got)
		if len(want) == 0 || !slices.Equal(got, want) {
			t.Errorf("%s: stuck partitions %v, want %v", run.Protocol, got, want)
		}
	}
}

// TestNewMetricsReachCheckAndSweep: every metric of the contract can be
// bounded in an expect: entry and swept, under its own name.
func TestNewMetricsReachCheckAndSweep(t *testing.T) {
	for _, m := range []string{"latency_p50_seconds", "latency_p99_seconds", "latency_p999_seconds", "latency_max_seconds",
		"max_lag_seconds", "peak_partition_lag_records", "moved_load_records_per_second"} {
		if !slices.Contains(sim.MetricNames(), m) {
			t.Errorf("%s is not in the contract", m)
		}
		src := fmt.Sprintf("duration: 1m\ntopics: [{name: t, partitions: 2}]\nmembers: [{id: c1}]\nexpect: [{max_%s: 5}]\n", m)
		f, err := scenarios.Parse("bound.yaml", []byte(src))
		if err != nil {
			t.Errorf("max_%s: %v", m, err)
			continue
		}
		if b := f.Expect[0].Bounds; len(b) != 1 || b[0].Metric != m || !b[0].IsMax || b[0].Value != 5 {
			t.Errorf("max_%s decoded as %+v", m, b)
		}
	}
}

// TestLatencyAcrossALoadStep: the partition triples its rate halfway
// through a 10s pause (60-70s), from 100 to 300 records/s. The lag at 70s
// is 100·5 + 300·5 = 2000 records; the oldest, produced at 60s, waits the
// whole 10s, and the lag in time is 10s too, although 2000 records at the
// new rate would read as 6.7s.
func TestLatencyAcrossALoadStep(t *testing.T) {
	res := runNamed(t, "spike", `
duration: 3m
topics: [{name: t, partitions: 1, rate: 100, load: [{at: 65s, factor: 3}]}]
defaults: {processing_rate: 1000}
members: [{id: c1}]
events: [{at: 60s, pause: {member: c1, for: 10s}}]
`, false)
	for _, run := range res.Runs {
		m := run.Metrics
		for name, want := range map[string]float64{"latency_max_seconds": 10, "max_lag_seconds": 10, "peak_partition_lag_records": 2000} {
			if got, _ := m.Value(name); math.Abs(got-want) > 1e-6*want {
				t.Errorf("%s: %s = %v, want %v", run.Protocol, name, got, want)
			}
		}
	}
}

package rebalsim_test

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
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

// TestHotPartitionScaleOut: with clicks-7 at twenty times the others and
// Kafka 4.3, a fourth member's join makes range move it and
// cooperative-sticky keep it, so eager reports the larger moved load and
// p99 than cooperative; but the consumer protocol's uniform assignor
// moves it too (TestHotPartitionWhichPartitionsMove says why), with less
// moved load than range's and the largest p99, and under Kafka 4.0 it
// keeps it. With the hot key on clicks-6 the sticky assignors both keep
// it and the claim holds. Both reports name the hot partition.
func TestHotPartitionScaleOut(t *testing.T) {
	metrics := func(res *rebalsim.Results, hot string) map[string]sim.Metrics {
		byProto := map[string]sim.Metrics{}
		for _, run := range res.Runs {
			byProto[run.Protocol] = run.Metrics
			if !slices.Equal(run.HotPartitions, []string{hot}) {
				t.Errorf("%s: hot partitions %v, want [%s]", run.Protocol, run.HotPartitions, hot)
			}
			// result.json carries them under the same name.
			if b, err := json.Marshal(run); err != nil || !strings.Contains(string(b), `"hot_partitions":["`+hot+`"]`) {
				t.Errorf("%s: result.json does not name the hot partition %s (%v)", run.Protocol, hot, err)
			}
		}
		return byProto
	}
	res := runLibrary(t, "hot-partition-scale-out", false)
	m := metrics(res, "clicks-7")
	eager, coop, next := m[sim.ProtocolEager], m[sim.ProtocolCooperative], m[sim.ProtocolNextgen]
	if !(eager.MovedLoadRecordsPerSecond > coop.MovedLoadRecordsPerSecond) || !(eager.LatencyP99Seconds > coop.LatencyP99Seconds) {
		t.Errorf("eager moved load %v, p99 %v; cooperative %v, %v: want eager larger in both",
			eager.MovedLoadRecordsPerSecond, eager.LatencyP99Seconds, coop.MovedLoadRecordsPerSecond, coop.LatencyP99Seconds)
	}
	// 4.3: the hot partition and two cold ones, 2000 + 2·100; range's
	// 2000 + 5·100 is more, but the consumer protocol's new owner waits
	// for its next heartbeat, so its p99 is the larger.
	if next.MovedLoadRecordsPerSecond != 2200 || !(next.MovedLoadRecordsPerSecond < eager.MovedLoadRecordsPerSecond) || !(next.LatencyP99Seconds > eager.LatencyP99Seconds) {
		t.Errorf("nextgen under 4.3: moved load %v, p99 %v (eager's %v, %v): want 2200 and a p99 above eager's",
			next.MovedLoadRecordsPerSecond, next.LatencyP99Seconds, eager.MovedLoadRecordsPerSecond, eager.LatencyP99Seconds)
	}
	f := libraryWith(t, "hot-partition-scale-out", "kafka_version: \"4.0\"\n")
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

	// clicks-6: range moves it (2000 + 5·100), the sticky assignors three
	// cold partitions (3·100) and no record of theirs waits at p99.
	kept := metrics(runLibrary(t, "hot-partition-scale-out-kept", false), "clicks-6")
	eager = kept[sim.ProtocolEager]
	if eager.MovedLoadRecordsPerSecond != 2500 {
		t.Errorf("clicks-6, eager: moved load %v, want 2500", eager.MovedLoadRecordsPerSecond)
	}
	for _, p := range []string{sim.ProtocolCooperative, sim.ProtocolNextgen} {
		if m := kept[p]; m.MovedLoadRecordsPerSecond != 300 || !(m.LatencyP99Seconds < eager.LatencyP99Seconds) {
			t.Errorf("clicks-6, %s: moved load %v, p99 %v: want 300 and a p99 below eager's %v", p, m.MovedLoadRecordsPerSecond, m.LatencyP99Seconds, eager.LatencyP99Seconds)
		}
	}
}

// libraryWith is a library scenario with lines put before its own.
func libraryWith(t *testing.T, name, prefix string) *scenarios.File {
	t.Helper()
	src, err := scenarios.LibrarySource(name)
	if err != nil {
		t.Fatal(err)
	}
	f, err := scenarios.Parse(name+"-variant.yaml", []byte(prefix+string(src)))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestHotPartitionWhichPartitionsMove: which partitions change owner when
// c4 joins hot-partition-scale-out (twelve partitions, three members at
// 4 each, then four at 3), read from the ownership timeline, so it holds
// wherever the hot key sits. No assignor looks at load; each gives up
// partitions by number:
//
//   - range (eager) cuts the partitions into blocks by member id, 0-3,
//     4-7, 8-11, then 0-2, 3-5, 6-8, 9-11: six partitions cross a border.
//   - cooperative-sticky dealt them out round-robin when the group formed
//     in one generation (c1 0, 3, 6, 9; c2 1, 4, 7, 10; c3 2, 5, 8, 11), and
//     each member keeps its lowest three.
//   - the uniform assignor (UniformHomogeneousAssignmentBuilder) also lets
//     each member keep the first partitions of its target up to its quota,
//     in the order of Kafka's HashSet<Integer>, ascending for numbers below
//     the table size (16 here), and deals the rest out in that order. The
//     first member to join holds all twelve, then 0-3. Under 4.0 every
//     join gets its own target: the second member takes 6-11, the third
//     4, 5 (from the first) and 10, 11 (from the second), so c4 takes the
//     highest of each: 3, 9, 11. Under 4.3 the two later members join
//     within the 1s assignment interval (KIP-1263) and share one target:
//     they take 4-7 and 8-11, and c4 takes 3, 7, 11. When they join 2s
//     apart, each join gets its own target again, as under 4.0.
//
// Who joins first, and so which member is which, varies with the seed; the
// partitions that move do not.
func TestHotPartitionWhichPartitionsMove(t *testing.T) {
	staggered := strings.NewReplacer(`  - {count: 3, id: "c{i}", from: 1}`, "  - {id: c1}\n  - {id: c2, start: 2s}\n  - {id: c3, start: 4s}")
	for _, tc := range []struct {
		name, protocol, prefix string
		staggered              bool
		want                   []int
	}{
		{"range", sim.ProtocolEager, "", false, []int{3, 6, 7, 9, 10, 11}},
		{"cooperative-sticky", sim.ProtocolCooperative, "", false, []int{9, 10, 11}},
		{"uniform 4.0", sim.ProtocolNextgen, "kafka_version: \"4.0\"\n", false, []int{3, 9, 11}},
		{"uniform 4.3", sim.ProtocolNextgen, "kafka_version: \"4.3\"\n", false, []int{3, 7, 11}},
		{"uniform 4.3, joins 2s apart", sim.ProtocolNextgen, "kafka_version: \"4.3\"\n", true, []int{3, 9, 11}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src, err := scenarios.LibrarySource("hot-partition-scale-out")
			if err != nil {
				t.Fatal(err)
			}
			s := string(src)
			if tc.staggered {
				if s = staggered.Replace(s); s == string(src) {
					t.Fatal("the scenario's members line changed: update the replacer")
				}
			}
			f, err := scenarios.Parse("hot-partition-scale-out-variant.yaml", []byte(tc.prefix+s))
			if err != nil {
				t.Fatal(err)
			}
			for _, seed := range []uint64{1, 2, 3} {
				f.Scenario.Seed = seed
				res, err := rebalsim.Run(f.Scenario, rebalsim.Options{Protocols: []string{tc.protocol}, Timeline: true})
				if err != nil {
					t.Fatal(err)
				}
				if got := movedAt(t, res.Runs[0].Timeline, 60, 120); !slices.Equal(got, tc.want) {
					t.Errorf("seed %d: clicks-%v moved at c4's join, want clicks-%v", seed, got, tc.want)
				}
			}
		})
	}
}

// movedAt lists, ascending, the partitions of a one-topic scenario whose
// processing owner at the end differs from their owner before the join at
// joinAt.
func movedAt(t *testing.T, timeline []sim.Segment, joinAt, end float64) []int {
	t.Helper()
	before, after := map[string]string{}, map[string]string{}
	for _, seg := range timeline {
		if seg.State != "processing" {
			continue
		}
		if seg.Start < joinAt && seg.End >= joinAt-1 {
			before[seg.Partition] = seg.Owner
		}
		if seg.End >= end {
			after[seg.Partition] = seg.Owner
		}
	}
	var moved []int
	for p, owner := range after {
		if before[p] != owner {
			i := strings.LastIndexByte(p, '-')
			n, err := strconv.Atoi(p[i+1:])
			if err != nil {
				t.Fatalf("partition %q: %v", p, err)
			}
			moved = append(moved, n)
		}
	}
	slices.Sort(moved)
	return moved
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

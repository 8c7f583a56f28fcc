package sim_test

import (
	"math"
	"sort"
	"testing"
	"time"

	"github.com/rebalsim/rebalsim/kafka"
	"github.com/rebalsim/rebalsim/sim"
)

// feed collects one ledger case's observations, in time order, for
// sim.Replay: what a real run would report.
type feed struct {
	obs []sim.Observation
	gen int // the last generation reported
}

func (f *feed) add(o sim.Observation) { f.obs = append(f.obs, o) }

// callback reports a listener callback that returns at once.
func (f *feed) callback(at float64, kind sim.ObservationKind, m string) {
	f.add(sim.Observation{At: s(at), Kind: kind, Member: m, Partitions: p0})
	f.add(sim.Observation{At: s(at), Kind: sim.ObservedCallbackDone, Member: m})
}

// step is one recorded event of a ledger case.
type step func(f *feed)

var p0 = []kafka.TopicPartition{{Topic: "t", Partition: 0}}

func s(d float64) time.Duration { return time.Duration(d * float64(time.Second)) }

func on(at float64, kind sim.ObservationKind, m string) step {
	return func(f *feed) { f.add(sim.Observation{At: s(at), Kind: kind, Member: m, Partitions: p0}) }
}
func assign(at float64, m string) step {
	return func(f *feed) { f.callback(at, sim.ObservedAssigned, m) }
}
func revoking(at float64, m string) step { return on(at, sim.ObservedRevoking, m) }
func revoked(at float64, m string) step  { return on(at, sim.ObservedRevoked, m) }
func lost(at float64, m string) step {
	return func(f *feed) { f.callback(at, sim.ObservedLost, m) }
}
func commit(at float64, m string) step { return on(at, sim.ObservedCommitted, m) }
func pause(at float64, m string, paused bool) step {
	if paused {
		return on(at, sim.ObservedPause, m)
	}
	return on(at, sim.ObservedResume, m)
}
func stall(at float64, m string, stalled bool) step {
	if stalled {
		return on(at, sim.ObservedStall, m)
	}
	return on(at, sim.ObservedUnstall, m)
}
func crash(at float64, m string) step { return on(at, sim.ObservedStop, m) }
func left(at float64, m string) step {
	return func(f *feed) { f.add(sim.Observation{At: s(at), Kind: sim.ObservedMembers, Member: m, Members: 0}) }
}

// rejoined: a fenced member that lost its partitions joins again, owning
// nothing, as a real consumer does (else the group is not converged).
func rejoined(at float64, m string) step {
	return func(f *feed) { f.add(sim.Observation{At: s(at), Kind: sim.ObservedMembers, Member: m, Members: 1}) }
}
func rebalanced(at float64) step {
	return func(f *feed) {
		f.gen++
		f.add(sim.Observation{At: s(at), Kind: sim.ObservedGeneration, Generation: f.gen})
	}
}

// replay measures a one-partition-per-topic story with sim.Replay: the
// topics, members a (rateA records/s) and more at the given rates, all
// started, joined and counted by a Stable coordinator at 0 (generation
// 1), the window from windowStart, horizon as the scenario's duration.
func replay(t *testing.T, topics []sim.TopicSpec, rates map[string]float64, windowStart, horizon float64, steps []step) *sim.Result {
	t.Helper()
	sc := &sim.Scenario{Name: "story", Seed: 1, Duration: s(horizon), Topics: topics}
	f := &feed{gen: 1}
	f.add(sim.Observation{At: 0, Kind: sim.ObservedCoordinator, Stable: true})
	f.add(sim.Observation{At: 0, Kind: sim.ObservedGeneration, Generation: 1})
	for _, name := range []string{"a", "b"} {
		rate, ok := rates[name]
		if !ok {
			continue
		}
		sc.Members = append(sc.Members, sim.MemberSpec{ID: name, Settings: sim.ConsumerSettings{ProcessingRate: &rate}})
		f.add(sim.Observation{At: 0, Kind: sim.ObservedStart, Member: name})
		f.add(sim.Observation{At: 0, Kind: sim.ObservedMembers, Member: name, Members: 1})
	}
	if windowStart > 0 {
		// The window opens at the first disturbance: a member that is
		// due then and never starts.
		sc.Members = append(sc.Members, sim.MemberSpec{ID: "late", Start: s(windowStart)})
	}
	for _, st := range steps {
		st(f)
	}
	r, err := sim.NewReplay(sc, sim.ProtocolCooperative)
	must(t, err)
	sort.SliceStable(f.obs, func(i, j int) bool { return f.obs[i].At < f.obs[j].At })
	for _, o := range f.obs {
		must(t, r.Observe(o))
	}
	return r.Finish()
}

// TestLedger feeds the ledger one partition's story at a time and checks
// every metric it measures. Every case has one partition t-0 produced at
// 100 records/s, members a and b started and joined at 0 (a processes 1000
// records/s unless the case says otherwise), a 10s horizon, the window
// from 0 unless the case says otherwise (samples, every 100ms, feed only the charts).
//
// Two rules give most numbers. Lag grows at 100/s while nobody processes
// the partition and drains at 1000-100 = 900/s under a; lag_recovery is
// the instant, measured from the window start, after which the lag never
// again exceeds the lag at the window start by more than max(1, 1% of the
// peak): the lag is piecewise linear, so that instant is exact. Duplicates are the records an owner processed since its
// last commit when it lets go without one: at 100/s, since an owner that
// keeps up processes exactly what is produced.
func TestLedger(t *testing.T) {
	cases := []struct {
		name        string
		rateA       float64
		windowStart float64
		steps       []step
		want        sim.Metrics
		// doubleFindings is how many double_ownership findings to expect.
		doubleFindings int
	}{{
		// Unowned 0-2s: downtime and the gap are 2s, the lag peaks at
		// 2s × 100/s = 200 and drains at 900/s, so it is down to 2 (1% of
		// 200) at 2 + 198/900 s: recovery 2.22s.
		// The first owner moves nothing.
		name:  "assign",
		steps: []step{rebalanced(2), assign(2, "a")},
		want: sim.Metrics{Rebalances: 1, DowntimePartitionSeconds: 2, MaxPartitionGapSeconds: 2,
			PeakLagRecords: 200, LagRecoverySeconds: 2 + 198.0/900, Converged: true},
	}, {
		// a stops processing at 4s and lets go at 5s; b takes over at
		// 5s. Nobody processes 4-5s: downtime and gap 1s, peak lag 100,
		// down to 1 (max(1, 1% of 100)) at 5 + 99/900 s: recovery 5.11s. One move a → b, one revocation, committed, so
		// no duplicates.
		name:  "revoke",
		steps: []step{assign(0, "a"), revoking(4, "a"), revoked(5, "a"), assign(5, "b")},
		want: sim.Metrics{MovedPartitions: 1, Revocations: 1, DowntimePartitionSeconds: 1, MaxPartitionGapSeconds: 1,
			PeakLagRecords: 100, LagRecoverySeconds: 5 + 99.0/900, Converged: true},
	}, {
		// a commits at 2s and loses the partition at 3s: the 100 records
		// of 2-3s are processed again. b takes it at once: no downtime,
		// no lag. A loss is not a revocation.
		name:  "lose",
		steps: []step{assign(0, "a"), commit(2, "a"), lost(3, "a"), assign(3, "b")},
		want:  sim.Metrics{MovedPartitions: 1, DuplicateRecords: 100, Converged: true},
	}, {
		// A 3s pause (2-5s): downtime and gap 3s, peak lag 300, down to 3
		// at 5 + 297/900 s: recovery 5.33s.
		name:  "pause",
		steps: []step{assign(0, "a"), pause(2, "a", true), pause(5, "a", false)},
		want: sim.Metrics{DowntimePartitionSeconds: 3, MaxPartitionGapSeconds: 3,
			PeakLagRecords: 300, LagRecoverySeconds: 5 + 297.0/900, Converged: true},
	}, {
		// A 1s stall (6-7s) stops processing like a pause: downtime and
		// gap 1s, peak lag 100, down to 1 at 7 + 99/900 s: recovery 7.11s.
		name:  "stall",
		steps: []step{assign(0, "a"), stall(6, "a", true), stall(7, "a", false)},
		want: sim.Metrics{DowntimePartitionSeconds: 1, MaxPartitionGapSeconds: 1,
			PeakLagRecords: 100, LagRecoverySeconds: 7 + 99.0/900, Converged: true},
	}, {
		// a commits at 4s and dies at 5s: the 100 records of 4-5s are
		// duplicates. b takes over at 8s: downtime and gap 3s, peak lag
		// 300, down to 3 at 8 + 297/900 s: recovery 8.33s.
		name:  "crash",
		steps: []step{assign(0, "a"), commit(4, "a"), crash(5, "a"), assign(8, "b")},
		want: sim.Metrics{MovedPartitions: 1, DowntimePartitionSeconds: 3, MaxPartitionGapSeconds: 3,
			DuplicateRecords: 100, PeakLagRecords: 300, LagRecoverySeconds: 8 + 297.0/900, Converged: true},
	}, {
		// b is handed the partition at 2s while a, a current member too,
		// still holds it until it revokes at 3s: 1s of double ownership
		// and one finding. Someone processes it throughout: no downtime.
		name:  "double ownership",
		steps: []step{assign(0, "a"), assign(2, "b"), revoked(3, "a")},
		want: sim.Metrics{MovedPartitions: 1, Revocations: 1, DoubleOwnershipSeconds: 1,
			Converged: true},
		doubleFindings: 1,
	}, {
		// The coordinator fences a at 2s (after its commit at 1s) and a
		// learns it at once: it loses the partition, and the 100
		// records of 1-2s are duplicates. b takes over at 4s: downtime
		// and gap 2s, peak lag 200, down to 2 at 4 + 198/900 s: recovery
		// 4.22s.
		name:  "fence",
		steps: []step{assign(0, "a"), commit(1, "a"), left(2, "a"), lost(2, "a"), rejoined(3, "a"), assign(4, "b")},
		want: sim.Metrics{MovedPartitions: 1, DowntimePartitionSeconds: 2, MaxPartitionGapSeconds: 2,
			DuplicateRecords: 100, PeakLagRecords: 200, LagRecoverySeconds: 4 + 198.0/900, Converged: true},
	}, {
		// a is fenced at 2s (it committed just before) but goes on
		// processing until it notices at 5s: 3s of zombie processing.
		// b, the only current member owning it, drives the lag from 2s;
		// a re-reads the 100/s it would have processed, 300 records
		// lost at 5s as duplicates. A zombie is not a current member,
		// so there is no double ownership.
		name:  "zombie",
		steps: []step{assign(0, "a"), commit(2, "a"), left(2, "a"), assign(2, "b"), lost(5, "a"), rejoined(6, "a")},
		want: sim.Metrics{MovedPartitions: 1, ZombieProcessingSeconds: 3, DuplicateRecords: 300,
			Converged: true},
	}, {
		// a processes 150 records/s, 50/s more than is produced: the lag
		// of 400 built up unowned (0-4s) drains at 50/s and is still 100
		// at the horizon, above 4 (1% of 400), so recovery is the whole
		// 10s.
		name:  "slow drain",
		rateA: 150,
		steps: []step{assign(4, "a")},
		want: sim.Metrics{DowntimePartitionSeconds: 4, MaxPartitionGapSeconds: 4,
			PeakLagRecords: 400, LagRecoverySeconds: 10, Converged: true},
	}, {
		// The window opens at 5s in the middle of a 2-7s pause: only
		// 5-7s counts as downtime and gap. The peak, observed inside the
		// window only, is 500 at 7s. The lag at the window start is 300;
		// exceeds 300 + 5 (1% of 500) until it drains to 305 at
		// 7 + 195/900 s, so recovery is 2 + 195/900 = 2.217s.
		name:        "window",
		windowStart: 5,
		steps:       []step{assign(0, "a"), pause(2, "a", true), pause(7, "a", false)},
		want: sim.Metrics{DowntimePartitionSeconds: 2, MaxPartitionGapSeconds: 2,
			PeakLagRecords: 500, LagRecoverySeconds: 2 + 195.0/900, Converged: true},
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, findings := story(t, c.rateA, c.windowStart, c.steps)
			for _, name := range ledgerMetrics {
				g, _ := got.Value(name)
				w, _ := c.want.Value(name)
				if math.Abs(g-w) > 1e-9 {
					t.Errorf("%s = %v, want %v", name, g, w)
				}
			}
			if got.Converged != c.want.Converged {
				t.Errorf("converged = %v, want %v", got.Converged, c.want.Converged)
			}
			n := 0
			for _, f := range findings {
				if f.Kind == "double_ownership" && f.Safety {
					n++
				}
			}
			if n != c.doubleFindings {
				t.Errorf("%d double_ownership findings, want %d: %v", n, c.doubleFindings, findings)
			}
		})
	}
}

// story replays one partition's story: t-0 produced at 100 records/s,
// members a (rateA records/s, 1000 if 0) and b (1000) started and joined
// at 0, the window from windowStart, a 10s horizon.
func story(t *testing.T, rateA, windowStart float64, steps []step) (sim.Metrics, []sim.Finding) {
	t.Helper()
	if rateA == 0 {
		rateA = 1000
	}
	res := replay(t, []sim.TopicSpec{{Name: "t", Partitions: 1, Rate: 100}}, map[string]float64{"a": rateA, "b": 1000}, windowStart, 10, steps)
	return res.Metrics, res.Findings
}

// ledgerMetrics are the metrics TestLedger's cases derive; the latency
// and lag-in-time metrics have their own cases in latency_test.go.
var ledgerMetrics = []string{"rebalances", "moved_partitions", "revocations",
	"downtime_partition_seconds", "max_partition_gap_seconds", "double_ownership_seconds",
	"zombie_processing_seconds", "peak_lag_records", "lag_recovery_seconds", "duplicate_records"}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

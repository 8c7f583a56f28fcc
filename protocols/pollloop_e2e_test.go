package protocols_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/rebalsim/rebalsim/protocols"
	"github.com/rebalsim/rebalsim/sim"
)

// slowGroup is six consumers processing 100 records/s each, 500 records
// per poll (a batch takes 5s), sharing 24 partitions; a seventh joins at
// 30s. rate is each partition's production rate.
func slowGroup(rate float64) *sim.Scenario {
	processing, records := 100.0, 500
	sc := &sim.Scenario{Name: "slow-consumer-scale-out", Seed: 1, Duration: 2 * time.Minute,
		Topics:   []sim.TopicSpec{{Name: "orders", Partitions: 24, Rate: rate}},
		Network:  sim.NetworkSpec{Latency: sim.Distribution{Kind: sim.DistConstant, Value: 2 * time.Millisecond}},
		Group:    sim.DefaultGroupConfig(),
		Defaults: sim.ConsumerSettings{ProcessingRate: &processing, MaxPollRecords: &records},
	}
	for i := 1; i <= 7; i++ {
		m := sim.MemberSpec{ID: fmt.Sprintf("c%d", i)}
		if i == 7 {
			m.Start = 30 * time.Second
		}
		sc.Members = append(sc.Members, m)
	}
	return sc
}

func runSeed(t *testing.T, sc *sim.Scenario, protocol string, seed uint64) sim.Metrics {
	t.Helper()
	r, err := sim.Run(sc, protocols.Default(), sim.RunOptions{Protocol: protocol, Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	return r.Metrics
}

// TestSlowConsumerScaleOutStallsEagerForABatch: a member reaches poll(),
// and so joins the rebalance, only when it has processed the batch in
// hand (ClassicKafkaConsumer.poll → ConsumerCoordinator.poll). With a
// standing backlog (24 × 30 = 720 records/s against 600, then 700) every
// batch is a full 500 records, 5s. The six members learn of the rebalance
// on the same heartbeat and each joins at the end of its batch, a uniform
// point of it; eager members revoke everything when they join, so the
// first to join waits for the last. The expected spread of six uniform
// points of 5s is 5 × 5/7 ≈ 3.6s; over ten seeds the mean of eager's
// longest gap must be at least half a batch, 2.5s. Eager's downtime then
// exceeds nextgen's on each of these seeds (on 198 of seeds 1-200; on the
// other two the six batches happen to end within half a second of each
// other): nextgen stops only the 3 partitions
// that move, each for up to a heartbeat interval (5s), ≈ 15
// partition-seconds, while eager stops all 24 for the spread.
func TestSlowConsumerScaleOutStallsEagerForABatch(t *testing.T) {
	sc := slowGroup(30)
	total := 0.0
	const seeds = 10
	for seed := uint64(1); seed <= seeds; seed++ {
		eager := runSeed(t, sc, sim.ProtocolEager, seed)
		nextgen := runSeed(t, sc, sim.ProtocolNextgen, seed)
		total += eager.MaxPartitionGapSeconds
		if eager.DowntimePartitionSeconds <= nextgen.DowntimePartitionSeconds {
			t.Errorf("seed %d: eager downtime %.3f, nextgen %.3f; want eager's larger", seed, eager.DowntimePartitionSeconds, nextgen.DowntimePartitionSeconds)
		}
	}
	if mean := total / seeds; mean < 2.5 {
		t.Errorf("eager's longest partition gap averages %.3fs over %d seeds, want at least 2.5s (half a 5s batch)", mean, seeds)
	}
}

// TestCaughtUpScaleOutKeepsEagerShort: the same group with a tenth of the
// production (72 records/s against 600) is caught up: each consumer waits
// in poll() for records and acts on the rebalance at once, so eager's
// longest gap is the rebalance's round trips, well under 0.5s (measured
// 0.013s: the JoinGroup and SyncGroup round trips, 4 × 2ms, and the 5ms
// commit before revoking).
//
// It is also why fetch.max.wait.ms (default 500ms) is not modelled: with
// fetch.min.bytes at its default of 1 the broker answers a fetch as soon
// as one record is there, and a caught-up consumer blocked in a fetch is
// woken by the coordinator's response (ConsumerNetworkClient.poll returns
// on any response), so it acts on the rebalance at once instead of after
// the fetch wait. The same holds for a trickle, 0.2 records/s per
// partition, a record every 5s, ten fetch waits: were poll() to wait out
// a fetch before acting, eager's gap would be at least 0.5s there.
func TestCaughtUpScaleOutKeepsEagerShort(t *testing.T) {
	for _, rate := range []float64{3, 0.2} {
		sc := slowGroup(rate)
		for seed := uint64(1); seed <= 5; seed++ {
			if m := runSeed(t, sc, sim.ProtocolEager, seed); m.MaxPartitionGapSeconds >= 0.5 {
				t.Errorf("rate %g, seed %d: eager's longest gap %.3fs, want under 0.5s", rate, seed, m.MaxPartitionGapSeconds)
			}
		}
	}
}

// TestPausedSaturatedMemberProcessesItsBatchAsAZombie: c2 is frozen for
// 10s, beyond its 6s session, while processing a full batch (40 × 3 = 120
// records/s for its partitions against 100: a standing backlog; 500
// records per poll, 5s a batch). The coordinator removes it and hands its
// partitions on; when it resumes it goes on with what is left of its batch
// (the classic client until its next poll() learns it was fenced; the
// consumer protocol's client although its background thread drops the
// partitions on the heartbeat that tells it). Its last commit was the
// auto-commit inside the poll() that returned that batch, so everything
// of the batch, before and after the pause, is processed again by the new
// owner: one batch, 500 records, whatever the point of the batch the
// pause struck (that commit carries the positions of its sending, so
// nothing processed while it travels is committed). And the part after
// resuming is zombie processing.
func TestPausedSaturatedMemberProcessesItsBatchAsAZombie(t *testing.T) {
	processing, records := 100.0, 500
	session, heartbeat := 6*time.Second, 500*time.Millisecond
	sc := &sim.Scenario{Name: "paused-saturated-zombie", Seed: 1, Duration: 2 * time.Minute,
		Topics:  []sim.TopicSpec{{Name: "orders", Partitions: 12, Rate: 40}},
		Network: sim.NetworkSpec{Latency: sim.Distribution{Kind: sim.DistConstant, Value: 2 * time.Millisecond}},
		Group:   sim.DefaultGroupConfig(),
		Defaults: sim.ConsumerSettings{ProcessingRate: &processing, MaxPollRecords: &records,
			SessionTimeout: &session, HeartbeatInterval: &heartbeat},
		Events: []sim.Event{{At: 30 * time.Second, Kind: sim.EventPause, Members: []string{"c2"}, For: 10 * time.Second}},
	}
	// The consumer protocol's session and heartbeat are the broker's.
	sc.Group.SessionTimeout, sc.Group.HeartbeatInterval = session, heartbeat
	// The broker's bounds must admit them (GroupCoordinatorConfig).
	sc.Group.ConsumerMinSessionTimeout, sc.Group.ConsumerMinHeartbeatInterval = session, heartbeat
	for i := 1; i <= 4; i++ {
		sc.Members = append(sc.Members, sim.MemberSpec{ID: fmt.Sprintf("c%d", i)})
	}
	for _, protocol := range sim.Protocols() {
		for seed := uint64(1); seed <= 3; seed++ {
			m := runSeed(t, sc, protocol, seed)
			if m.DuplicateRecords < 499.5 || m.DuplicateRecords > 500.5 {
				t.Errorf("%s seed %d: duplicate_records %.1f, want 500 (the batch in hand)", protocol, seed, m.DuplicateRecords)
			}
			if m.ZombieProcessingSeconds <= 0 {
				t.Errorf("%s seed %d: zombie_processing_seconds %.3f, want > 0 (the rest of the batch after resuming)", protocol, seed, m.ZombieProcessingSeconds)
			}
		}
	}
}

// TestRecordProcessingTimeConstantIsProcessingRate: a constant 10ms per
// record is 100 records/s, so the slow scale-out gives the same metrics
// with record_processing_time: 10ms as with processing_rate: 100 (a
// constant draws nothing from its stream, and a batch of n records takes
// n × 10ms either way).
func TestRecordProcessingTimeConstantIsProcessingRate(t *testing.T) {
	rate := slowGroup(30)
	perRecord := slowGroup(30)
	d := sim.Distribution{Kind: sim.DistConstant, Value: 10 * time.Millisecond}
	perRecord.Defaults.ProcessingRate = nil
	perRecord.Defaults.RecordProcessingTime = &d
	for _, protocol := range sim.Protocols() {
		if a, b := runSeed(t, rate, protocol, 1), runSeed(t, perRecord, protocol, 1); a != b {
			t.Errorf("%s: processing_rate 100 gives %+v,\nrecord_processing_time 10ms %+v", protocol, a, b)
		}
	}
}

// TestRecordProcessingTimeLognormal: per-record times drawn from a
// lognormal (median 2ms, p99 40ms) give the member the mean's inverse as
// its processing rate: a mean of 2ms × exp(σ²/2) with σ = ln 20 / 2.326,
// 4.58ms, so about 218 records/s. The draws come from the seed: the same
// seed gives the same metrics twice.
func TestRecordProcessingTimeLognormal(t *testing.T) {
	sc := slowGroup(30)
	d := sim.Distribution{Kind: sim.DistLogNormal, Median: 2 * time.Millisecond, P99: 40 * time.Millisecond}
	sc.Defaults.ProcessingRate = nil
	sc.Defaults.RecordProcessingTime = &d
	cfg := sim.ConsumerConfig{RecordProcessingTime: d}
	if got := cfg.Rate(); got < 217 || got > 219 {
		t.Errorf("Rate() = %.2f records/s, want about 218 (1 / 4.58ms)", got)
	}
	a, b := runSeed(t, sc, sim.ProtocolEager, 1), runSeed(t, sc, sim.ProtocolEager, 1)
	if a != b {
		t.Errorf("two runs on seed 1 differ:\n%+v\n%+v", a, b)
	}
	if !a.Converged {
		t.Errorf("not converged: %+v", a)
	}
}

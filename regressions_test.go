package rebalsim_test

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/rebalsim/rebalsim"
	"github.com/rebalsim/rebalsim/scenarios"
	"github.com/rebalsim/rebalsim/sim"
)

// runYAML runs a scenario written inline under the given protocols.
func runYAML(t *testing.T, src string, opts rebalsim.Options) []*sim.Result {
	t.Helper()
	sc, err := scenarios.Parse("inline.yaml", []byte(src))
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	rep, err := rebalsim.Run(sc.Scenario, opts)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	return rep.Runs
}

// crashAt is the reproducer of a crash whose time is not a whole number of
// float seconds: 32.3 s as float64 seconds is 32.299999999999997, which
// truncated back to nanoseconds lands 1 ns before the crash, when the
// group was still converged.
func crashAt(at time.Duration) string {
	return fmt.Sprintf(`name: crash-at
duration: 87s
topics: [{name: t, partitions: 12, rate: 4}]
network: {latency: 1ms}
group: {initial_rebalance_delay: 0s}
defaults: {processing_rate: 1000, max_poll_records: 1}
members: [{count: 4, id: "c{i}", from: 1}]
events: [{at: %dns, crash: c4}]
`, at.Nanoseconds())
}

func TestCrashConvergenceIsNotLostToRounding(t *testing.T) {
	for _, r := range runYAML(t, crashAt(32300*time.Millisecond), rebalsim.Options{}) {
		m := r.Metrics
		// Under the classic protocols c4's partitions stay dark until its
		// session (45 s, Kafka's default) expires, counted from its last
		// heartbeat 2.28 s before the crash: 42.7 s, and the group is
		// stable again as soon as they are reassigned.
		if r.Protocol != "nextgen" && (m.ConvergenceSeconds < 42.6 || m.ConvergenceSeconds > 42.8) {
			t.Errorf("%s: convergence_seconds = %.3f, want about 42.7", r.Protocol, m.ConvergenceSeconds)
		}
		// Under every protocol the group cannot be stable while a
		// partition is dark, and it is stable once the last one resumes.
		if m.ConvergenceSeconds < m.MaxPartitionGapSeconds || m.ConvergenceSeconds > m.MaxPartitionGapSeconds+0.5 {
			t.Errorf("%s: convergence_seconds = %.3f, longest gap %.3f", r.Protocol, m.ConvergenceSeconds, m.MaxPartitionGapSeconds)
		}
	}
}

// TestCrashConvergenceSweep moves the crash over sub-second offsets, some
// of them not representable in float seconds, and checks each run against
// what must hold whatever the offset.
func TestCrashConvergenceSweep(t *testing.T) {
	if testing.Short() {
		t.Skip("sweeps 40 crash times")
	}
	for k := range 40 {
		// 32 s plus k·23.1 ms plus k ns: offsets all over the second.
		at := 32*time.Second + time.Duration(k)*23100*time.Microsecond + time.Duration(k)
		for _, r := range runYAML(t, crashAt(at), rebalsim.Options{}) {
			m := r.Metrics
			name := fmt.Sprintf("crash at %v, %s", at, r.Protocol)
			if !m.Converged || len(r.Convergence) != 1 || !r.Convergence[0].Converged {
				t.Errorf("%s: not converged: %+v", name, r.Convergence)
				continue
			}
			// The crashed member's partitions are dark at least until
			// the coordinator fences it, and the group is not stable
			// while one is dark.
			if m.MaxPartitionGapSeconds <= 0 {
				t.Errorf("%s: no partition went dark", name)
			}
			if m.ConvergenceSeconds < m.MaxPartitionGapSeconds {
				t.Errorf("%s: convergence_seconds %.6f below the longest gap %.6f", name, m.ConvergenceSeconds, m.MaxPartitionGapSeconds)
			}
			// At most a session timeout (45 s under both protocols'
			// defaults) plus one heartbeat interval (5 s for the consumer
			// protocol, 3 s classic) plus the rebalance itself.
			if m.ConvergenceSeconds > 51 {
				t.Errorf("%s: convergence_seconds %.3f above 51", name, m.ConvergenceSeconds)
			}
			if got := r.Convergence[0].Seconds; got != m.ConvergenceSeconds {
				t.Errorf("%s: the disturbance's %.6f and the metric's %.6f differ", name, got, m.ConvergenceSeconds)
			}
		}
	}
}

// A rolling restart the horizon cuts off after its fifth bounce: the
// bounces not started are not reached, and the one in progress at the
// horizon has not converged.
func TestDisturbancesPastTheHorizon(t *testing.T) {
	const src = `name: cut-off-deploy
duration: 105s
topics: [{name: t, partitions: 12, rate: 10}]
members: [{count: 20, id: "c{i}", from: 1}]
events: [{at: 60s, rolling_restart: {members: all, interval: 10s, down: 5s}}]
`
	for _, r := range runYAML(t, src, rebalsim.Options{}) {
		// Bounces start at 60, 70, 80, 90 and 100 s: five before the
		// 105 s horizon, the other fifteen after it. The fifth is down
		// until 105 s, which is not before the horizon: not settled.
		if len(r.Convergence) != 5 || r.DisturbancesNotReached != 15 || len(r.Disturbances) != 5 {
			t.Fatalf("%s: %d judged, %d listed, %d not reached; want 5, 5, 15", r.Protocol, len(r.Convergence), len(r.Disturbances), r.DisturbancesNotReached)
		}
		if last := r.Convergence[4]; last.Converged || last.Seconds != 5 {
			t.Errorf("%s: the bounce at 100 s: %+v, want not converged after 5 s", r.Protocol, last)
		}
		if r.Metrics.Converged {
			t.Errorf("%s: converged with a bounce in progress at the horizon", r.Protocol)
		}
	}
}

// One member, one partition at 10 records/s, processed at 100/s: a 20 s
// pause at 10 s builds a backlog of exactly 200 records, drained at
// 100 - 10 = 90 records/s. The lag is back within the tolerance (1% of the
// 200-record peak: 2 records) of its baseline 0 after (200-2)/90 = 2.2 s,
// so 22.2 s after the window start.
func TestLagRecoveryClosedForm(t *testing.T) {
	const src = `name: lag-closed-form
duration: 60s
topics: [{name: t, partitions: 1, rate: 10}]
network: {latency: 1ms}
group: {initial_rebalance_delay: 0s}
defaults: {processing_rate: 100}
members: [{id: c1}]
events: [{at: 10s, pause: {members: [c1], for: 20s}}]
`
	for _, r := range runYAML(t, src, rebalsim.Options{}) {
		m := r.Metrics
		if math.Abs(m.PeakLagRecords-200) > 1e-6 || math.Abs(m.LagRecoverySeconds-22.2) > 1e-6 {
			t.Errorf("%s: peak %.9f, recovery %.9f; want 200 and 22.2", r.Protocol, m.PeakLagRecords, m.LagRecoverySeconds)
		}
	}
}

// A dynamic rolling deploy of 200 members: every eager bounce stops the
// whole group, so the lag spikes far above 1% of its peak at each of the
// 200 bounces, 25 s apart, and cannot have recovered before the last one
// started 199·25 = 4975 s after the first. Measured on the chart's
// samples with the baseline taken inside the first spike, this reported
// 0 at a 95-minute horizon; exactly, it does not depend on the horizon
// once the deploy is over.
func TestLagRecoveryRollingDeploy(t *testing.T) {
	if testing.Short() {
		t.Skip("three runs of a 200-member group")
	}
	deploy := func(horizon string) string {
		return `name: rolling-deploy-200
duration: ` + horizon + `
topics: [{name: t, partitions: 400, rate: 20}]
defaults: {processing_rate: 200}
members: [{count: 200, id: "c{i}", from: 1}]
events: [{at: 187s, rolling_restart: {members: all, interval: 25s, down: 10s}}]
`
	}
	var first float64
	for i, horizon := range []string{"90m", "95m", "100m"} {
		r := runYAML(t, deploy(horizon), rebalsim.Options{Protocols: []string{"eager"}})[0]
		got := r.Metrics.LagRecoverySeconds
		if got < 4975 || got > r.WindowEnd-r.WindowStart {
			t.Errorf("horizon %s: lag_recovery_seconds = %.3f, want at least 4975 and within the window", horizon, got)
		}
		if i == 0 {
			first = got
		} else if math.Abs(got-first) > 1e-6 {
			t.Errorf("horizon %s: lag_recovery_seconds = %.9f, at 90m %.9f", horizon, got, first)
		}
	}
}

// A cooperative member whose SyncGroup response is lost to a network
// partition, and which the coordinator then removes (session 10 s), must
// rejoin: its SyncGroup times out after request.timeout.ms (30 s), as in
// AbstractCoordinator, and the next JoinGroup learns it is unknown. Before,
// it waited for that response forever and ran as a zombie to the horizon.
func TestLostSyncResponseRejoins(t *testing.T) {
	const src = `name: lost-sync-response
duration: 20m
topics: [{name: orders, partitions: 12, rate: 20}]
defaults: {session_timeout: 10s, heartbeat_interval: 3s}
group: {session_timeout: 10s, heartbeat_interval: 3s, consumer_min_session_timeout: 10s, consumer_min_heartbeat_interval: 3s}
members: [{count: 3, id: "c{i}"}, {id: c4, start: 30s}]
events: [{at: 30.3185s, network_partition: {members: [c2], for: 11s}}]
`
	for seed := uint64(1); seed <= 20; seed++ {
		r := runYAML(t, src, rebalsim.Options{Protocols: []string{"cooperative"}, Seed: seed})[0]
		// Where the partition drops the SyncGroup response the member is
		// back within the SyncGroup's 30 s request timeout and a
		// rebalance. On other seeds it drops the JoinGroup (request or
		// response) instead, and the member waits out the JoinGroup's
		// request timeout, max.poll.interval.ms + 5 s = 305 s from
		// 30.3 s; either way well before the 20-minute horizon. (The
		// reproducer's 30.3185 s was timed to catch the SyncGroup
		// response under the old poll delays; caught-up members now
		// poll at once, and on seed 1 it catches the JoinGroup.)
		bound := 320.0
		if !r.Metrics.Converged || r.Metrics.ConvergenceSeconds > bound {
			t.Errorf("seed %d: converged %v in %.3f s (bound %.0f s); findings %+v", seed, r.Metrics.Converged, r.Metrics.ConvergenceSeconds, bound, r.Findings)
		}
	}
}

// Commits as Kafka's clients make them, in the scale-out example (c4 joins
// three consumers of 12 partitions at 30 s, 200 records/s each). At
// Kafka's defaults a cooperative member auto-commits in onJoinPrepare,
// then goes on processing the partition it will give up until SyncGroup
// revokes it, with no commit of its own: the new owner processes those
// records again. A listener that commits on revocation (commit_on_revoke)
// leaves nothing to reprocess; eager revokes everything right after the
// onJoinPrepare commit, and the consumer protocol's client commits before
// every revocation, so both reprocess nothing.
func TestCommitsAsKafkaMakesThem(t *testing.T) {
	src, err := scenarios.ExampleSource("scale-out")
	if err != nil {
		t.Fatal(err)
	}
	run := func(overrides ...string) map[string]float64 {
		var ovs []scenarios.Override
		for _, o := range overrides {
			ov, err := scenarios.ParseOverride(o)
			if err != nil {
				t.Fatal(err)
			}
			ovs = append(ovs, ov)
		}
		sc, err := scenarios.ParseWith("scale-out.yaml", src, ovs)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := rebalsim.Run(sc.Scenario, rebalsim.Options{})
		if err != nil {
			t.Fatal(err)
		}
		dups := map[string]float64{}
		for _, r := range rep.Runs {
			dups[r.Protocol] = r.Metrics.DuplicateRecords
		}
		return dups
	}
	defaults := run()
	if defaults["cooperative"] <= 0 || defaults["eager"] != 0 || defaults["nextgen"] != 0 {
		t.Errorf("at Kafka's defaults: duplicate_records %v; want cooperative > 0, eager and nextgen 0", defaults)
	}
	listener := run("defaults.commit_on_revoke=true")
	if listener["cooperative"] != 0 || listener["eager"] != 0 || listener["nextgen"] != 0 {
		t.Errorf("with commit_on_revoke: duplicate_records %v; want 0 everywhere", listener)
	}
}

// A classic member that was leader once, with stale metadata, and is not
// any more must stop watching the metadata: found by rebalsim swarm
// (seed 101). c12 leads generation 3 with t3 at one partition (t3 grew to
// two at 82.6s; the leader's metadata is five minutes old), is cut off
// and expired, and rejoins as a follower. It used to keep the partition
// count it had assigned and rejoin at each of its metadata refreshes
// (every metadata.max.age.ms, 5 min) for good, so the group was never
// stable for long and was mid-rebalance at the horizon.
func TestFormerLeaderStopsWatchingMetadata(t *testing.T) {
	const src = `name: former-leader
seed: 101
duration: 20m0.619s
protocols: [eager, cooperative]
topics: [{name: t3, partitions: 1, rate: 60}]
network: {latency: 1ms}
group: {initial_rebalance_delay: 0s}
defaults: {session_timeout: 10s, heartbeat_interval: 1s}
members: [{id: c12}, {id: c13}, {id: c16}]
events:
  - {at: 1m22.573s, add_partitions: {topic: t3, partitions: 2}}
  - {at: 1m28.604s, leave: c13}
  - {at: 1m58.403s, network_partition: {members: [c12], for: 23.067s}}
  - {at: 8m24.619s, start: c13}
`
	for _, r := range runYAML(t, src, rebalsim.Options{}) {
		for _, f := range r.Findings {
			if f.Kind == "not_converged" {
				t.Errorf("%s: %s at %gs: %s", r.Protocol, f.Kind, f.At, f.Detail)
			}
		}
		// Five rebalances: c13 leaves (88.6s), c12 expires (128.4s), c12
		// rejoins (149.4s), the leader c16's metadata refresh at about
		// 300s sees t3's second partition, and c13 starts (504.6s). The
		// former leader added one at each of its refreshes after that
		// (600s, 900s).
		if r.Metrics.Rebalances != 5 {
			t.Errorf("%s: %d rebalances, want 5", r.Protocol, r.Metrics.Rebalances)
		}
	}
}

// TestLeaveBehindAHeldJoinGroup: c3 starts at 20 s and its JoinGroup is
// held until c1 and c2 rejoin, which they do when their next heartbeat
// (every 3 s) hears of the rebalance. c3 closes at 20.5 s, while it is
// held: its LeaveGroup waits behind the JoinGroup on the connection, as
// a broker reads a connection's next request only after answering the
// last (SocketServer, KafkaChannel.ChannelMuteState). So the join phase
// completes with c3 in it (one generation), and its leave then starts
// another: two rebalances. Were the LeaveGroup read at once, c3 would be
// gone before the join completed, and there would be one.
func TestLeaveBehindAHeldJoinGroup(t *testing.T) {
	const src = `name: leave-behind-held-join
duration: 60s
topics: [{name: t, partitions: 6, rate: 10}]
group: {initial_rebalance_delay: 0s}
members:
  - {count: 2, id: "c{i}"}
  - {id: c3, start: 20s}
events:
  - {at: 20500ms, leave: c3}
`
	for _, r := range runYAML(t, src, rebalsim.Options{Protocols: []string{"eager", "cooperative"}}) {
		if got := r.Metrics.Rebalances; got != 2 {
			t.Errorf("%s: rebalances = %d, want 2 (the join with c3, then its leave)", r.Protocol, got)
		}
	}
}

// TestLeaveBehindAHeldJoinGroupOutlivesItsProcess: four members restart
// 2 s apart, each down for 1 s, so that a member closes while its
// JoinGroup is held and its next process starts before that join
// completes. The old process's LeaveGroup still waits on the old
// connection and is read when the join completes: each process has a
// connection of its own. Had the new process's connection replaced the
// old one's, the LeaveGroup would be lost, the old member would stay in
// the group unsynced until its session expired (45 s), and the group
// would not settle; with it, the group is stable again within one
// heartbeat interval and a rebalance of the last restart (about 6 s).
func TestLeaveBehindAHeldJoinGroupOutlivesItsProcess(t *testing.T) {
	const src = `name: quick-rolling-restart
duration: 128s
topics: [{name: events, partitions: 40, rate: 1}]
network: {latency: 2ms}
members: [{count: 4, id: "c{i}"}]
events:
  - {at: 60s, rolling_restart: {members: all, interval: 2s, down: 1s, graceful: true}}
`
	for _, r := range runYAML(t, src, rebalsim.Options{Protocols: []string{"cooperative"}}) {
		if got := r.Metrics.ConvergenceSeconds; got > 10 {
			t.Errorf("%s: convergence_seconds = %.3f, want under 10 (a LeaveGroup lost behind a held JoinGroup)", r.Protocol, got)
		}
	}
}

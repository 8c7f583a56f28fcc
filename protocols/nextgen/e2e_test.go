package nextgen_test

import (
	"bytes"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/rebalsim/rebalsim/protocols"
	"github.com/rebalsim/rebalsim/sim"
)

// End-to-end runs through sim.Run: the nextgen models inside the whole
// simulator, measured by the protocol-neutral ledger.

// group builds a scenario of n members c1..cn on one 12-partition topic.
func group(name string, n int, horizon time.Duration) *sim.Scenario {
	sc := &sim.Scenario{Name: name, Seed: 1, Duration: horizon,
		Topics:  []sim.TopicSpec{{Name: "orders", Partitions: 12, Rate: 1000}},
		Network: sim.NetworkSpec{Latency: sim.Distribution{Kind: sim.DistConstant, Value: 2 * time.Millisecond}},
		Group:   sim.DefaultGroupConfig(),
	}
	for i := 1; i <= n; i++ {
		sc.Members = append(sc.Members, sim.MemberSpec{ID: fmt.Sprintf("c%d", i)})
	}
	return sc
}

func names(n int) []string {
	var out []string
	for i := 1; i <= n; i++ {
		out = append(out, fmt.Sprintf("c%d", i))
	}
	return out
}

func run(t *testing.T, sc *sim.Scenario, protocol string) (*sim.Result, string) {
	t.Helper()
	var trace bytes.Buffer
	r, err := sim.Run(sc, protocols.Default(), sim.RunOptions{Protocol: protocol, Timeline: true, Trace: &trace})
	if err != nil {
		t.Fatal(err)
	}
	return r, trace.String()
}

// notProcessing lists, sorted, the partitions with a segment in [from, to)
// in which nobody processed them.
func notProcessing(r *sim.Result, from, to float64) []string {
	set := map[string]bool{}
	for _, s := range r.Timeline {
		if s.State != "processing" && s.End > from && s.Start < to {
			set[s.Partition] = true
		}
	}
	return sortedSet(set)
}

// ownerAt returns each partition's processing owner at time at.
func ownerAt(r *sim.Result, at float64) map[string]string {
	owners := map[string]string{}
	for _, s := range r.Timeline {
		if s.Start <= at && at < s.End && s.State == "processing" {
			owners[s.Partition] = s.Owner
		}
	}
	return owners
}

func sortedSet(set map[string]bool) []string {
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func findingKinds(r *sim.Result) []string {
	var kinds []string
	for _, f := range r.Findings {
		kinds = append(kinds, f.Kind+": "+f.Detail)
	}
	return kinds
}

// The 12-partition lab (DESIGN.md): c1-c3 share 12 partitions, c4 joins at
// 30s. Exactly three partitions move; the other nine never stop.
func TestLab12Partitions(t *testing.T) {
	sc := group("lab", 4, 2*time.Minute)
	sc.Members[3].Start = 30 * time.Second
	r, _ := run(t, sc, sim.ProtocolNextgen)
	m := r.Metrics
	t.Logf("moved=%d rebalances=%d downtime=%.3fs max_gap=%.3fs convergence=%.3fs", m.MovedPartitions, m.Rebalances, m.DowntimePartitionSeconds, m.MaxPartitionGapSeconds, m.ConvergenceSeconds)
	if m.MovedPartitions != 3 {
		t.Errorf("moved partitions = %d, want 3", m.MovedPartitions)
	}
	if m.Rebalances != 1 {
		t.Errorf("rebalances (group epoch bumps) = %d, want 1", m.Rebalances)
	}
	if len(r.Findings) != 0 || !m.Converged {
		t.Errorf("findings %v, converged %v", findingKinds(r), m.Converged)
	}
	stopped := notProcessing(r, 30, r.WindowEnd)
	before, after := ownerAt(r, 29), ownerAt(r, r.WindowEnd-1)
	var moved []string
	for p, o := range after {
		if before[p] != o {
			moved = append(moved, p)
		}
	}
	sort.Strings(moved)
	if len(stopped) != 3 || !slices.Equal(stopped, moved) {
		t.Errorf("partitions that stopped after 30s: %v; partitions that moved: %v; want the same 3", stopped, moved)
	}
	for p, o := range after {
		if slices.Contains(moved, p) && o != "c4" {
			t.Errorf("%s moved to %s, want c4", p, o)
		}
	}
	unowned := map[string]bool{}
	for _, s := range r.Timeline {
		if s.State == "unowned" && s.End > 30 {
			unowned[s.Partition] = true
		}
	}
	if got := sortedSet(unowned); !slices.Equal(got, moved) {
		t.Errorf("partitions with an unowned segment after 30s: %v, want %v", got, moved)
	}
	if m.DoubleOwnershipSeconds != 0 || m.ZombieProcessingSeconds != 0 {
		t.Errorf("double ownership %.3fs, zombie processing %.3fs", m.DoubleOwnershipSeconds, m.ZombieProcessingSeconds)
	}
}

// A rolling restart of static members that each return within the session
// timeout: they leave with epoch -2 and come back to their own partitions,
// so the group epoch never moves and no partition changes hands.
func TestStaticRollingRestart(t *testing.T) {
	sc := group("static-rolling-restart", 4, 3*time.Minute)
	static := true
	sc.Defaults.Static = &static
	sc.Events = []sim.Event{{At: 30 * time.Second, Kind: sim.EventRollingRestart, Members: names(4),
		Interval: 20 * time.Second, For: 5 * time.Second, Graceful: true}}
	r, _ := run(t, sc, sim.ProtocolNextgen)
	m := r.Metrics
	t.Logf("moved=%d rebalances=%d downtime=%.3fs convergence=%.3fs", m.MovedPartitions, m.Rebalances, m.DowntimePartitionSeconds, m.ConvergenceSeconds)
	if m.Rebalances != 0 || m.MovedPartitions != 0 {
		t.Errorf("rebalances = %d, moved = %d; want 0 and 0", m.Rebalances, m.MovedPartitions)
	}
	if len(r.Findings) != 0 || !m.Converged {
		t.Errorf("findings %v, converged %v", findingKinds(r), m.Converged)
	}
}

// A static member killed (no leave) and restarted within the session
// timeout finds its instance id still held: Kafka 4.0's consumer fails with
// UNRELEASED_INSTANCE_ID, which the run reports as a join failure.
func TestStaticCrashRestartIsUnreleased(t *testing.T) {
	sc := group("static-crash-restart", 4, 2*time.Minute)
	static := true
	sc.Defaults.Static = &static
	sc.Events = []sim.Event{{At: 30 * time.Second, Kind: sim.EventRestart, Members: []string{"c2"}, For: 5 * time.Second}}
	r, trace := run(t, sc, sim.ProtocolNextgen)
	if !slices.ContainsFunc(r.Findings, func(f sim.Finding) bool {
		return f.Kind == "join_failure" && strings.Contains(f.Detail, "UNRELEASED_INSTANCE_ID")
	}) {
		t.Errorf("findings %v, want a join failure with UNRELEASED_INSTANCE_ID", findingKinds(r))
	}
	// The old incarnation's session runs out 45s after its last heartbeat
	// and its partitions go to the others.
	if !strings.Contains(trace, "the member session expired") {
		t.Error("the crashed static member was never fenced")
	}
}

// A stop-the-world pause longer than the session timeout: the paused
// member is fenced and its partitions move; nobody else stops. When it
// wakes it learns it was fenced, reports its partitions lost and rejoins.
func TestGCPauseLongerThanSession(t *testing.T) {
	sc := group("gc-pause", 4, 3*time.Minute)
	sc.Events = []sim.Event{{At: 30 * time.Second, Kind: sim.EventPause, Members: []string{"c2"}, For: 60 * time.Second}}
	r, trace := run(t, sc, sim.ProtocolNextgen)
	m := r.Metrics
	t.Logf("moved=%d rebalances=%d downtime=%.3fs max_gap=%.3fs zombie=%.3fs convergence=%.3fs", m.MovedPartitions, m.Rebalances, m.DowntimePartitionSeconds, m.MaxPartitionGapSeconds, m.ZombieProcessingSeconds, m.ConvergenceSeconds)
	owners := ownerAt(r, 29.9)
	var own, others []string
	for p, o := range owners {
		if o == "c2" {
			own = append(own, p)
		} else {
			others = append(others, p)
		}
	}
	sort.Strings(own)
	if len(own) != 3 || len(others) != 9 {
		t.Fatalf("before the pause c2 owns %v and the others %d partitions", own, len(others))
	}
	// While c2 is frozen only its partitions stop.
	if got := notProcessing(r, 30, 90); !slices.Equal(got, own) {
		t.Errorf("partitions that stopped during the pause: %v, want c2's %v", got, own)
	}
	// They are taken over once the session (45s after c2's last heartbeat)
	// expires, long before the pause ends.
	during := ownerAt(r, 80)
	for _, p := range own {
		if o := during[p]; o == "" || o == "c2" {
			t.Errorf("%s processed by %q at 80s, want another member", p, o)
		}
	}
	if !strings.Contains(trace, `"ev":"fenced","member":"c2","detail":"UNKNOWN_MEMBER_ID"`) {
		t.Error("c2 did not learn it was fenced when it woke up")
	}
	if m.Rebalances != 2 || !m.Converged {
		t.Errorf("rebalances = %d (want 2: the fence and the rejoin), converged = %v", m.Rebalances, m.Converged)
	}
	for _, f := range r.Findings {
		if f.Kind != "zombie_processing" {
			t.Errorf("unexpected finding %s: %s", f.Kind, f.Detail)
		}
	}
	// Waking up, c2 finishes the batch its last poll() returned, although
	// its first heartbeat's answer (one round trip) tells the background
	// thread that the partitions are lost: c2 owns 3 partitions produced
	// at 3,000 records/s against its 2,000, so a batch is a full 500
	// records, 0.25s. At most a batch and a round trip on each of its 3
	// partitions: 3 × (0.25 + 0.004) = 0.762s.
	if m.ZombieProcessingSeconds <= 0 || m.ZombieProcessingSeconds > 0.762 {
		t.Errorf("zombie processing %.3fs, want more than 0 and at most a batch and a round trip on each of 3 partitions (0.762s)", m.ZombieProcessingSeconds)
	}
}

// Online migration: a classic group rolls its members over to
// group.protocol=consumer one by one. The first upgraded member converts the
// group; the classic members follow the consumer group through
// JoinGroup/SyncGroup until each is restarted.
func TestRollingUpgradeFromClassic(t *testing.T) {
	for _, protocol := range []string{sim.ProtocolCooperative, sim.ProtocolEager} {
		t.Run(protocol, func(t *testing.T) {
			sc := group("rolling-upgrade", 4, 4*time.Minute)
			consumer := "consumer"
			sc.Events = []sim.Event{{At: 30 * time.Second, Kind: sim.EventRollingRestart, Members: names(4),
				Interval: 30 * time.Second, For: 5 * time.Second, Graceful: true,
				Set: sim.ConsumerSettings{GroupProtocol: &consumer}}}
			r, trace := run(t, sc, protocol)
			m := r.Metrics
			t.Logf("moved=%d rebalances=%d downtime=%.3fs convergence=%.3fs", m.MovedPartitions, m.Rebalances, m.DowntimePartitionSeconds, m.ConvergenceSeconds)
			if len(r.Findings) != 0 || !m.Converged {
				t.Errorf("findings %v, converged %v", findingKinds(r), m.Converged)
			}
			if got := notProcessing(r, r.WindowEnd-10, r.WindowEnd); len(got) != 0 {
				t.Errorf("partitions not processed at the end: %v", got)
			}
			if n := strings.Count(trace, `"ev":"group_type","detail":" consumer"`); n != 1 {
				t.Errorf("the group became a consumer group %d times, want once", n)
			}
			if strings.Contains(trace, `"ev":"group_type","detail":" classic"`) {
				t.Error("the group went back to classic")
			}
		})
	}
}

// Online downgrade: a consumer group rolls back to the classic protocol.
// When the last consumer-protocol member leaves, the group becomes a classic
// group again and rebalances.
func TestRollingDowngradeToClassic(t *testing.T) {
	sc := group("rolling-downgrade", 4, 4*time.Minute)
	classicProtocol := "classic"
	assignors := []string{"cooperative-sticky"}
	sc.Events = []sim.Event{{At: 30 * time.Second, Kind: sim.EventRollingRestart, Members: names(4),
		Interval: 30 * time.Second, For: 5 * time.Second, Graceful: true,
		Set: sim.ConsumerSettings{GroupProtocol: &classicProtocol, Assignors: &assignors}}}
	r, trace := run(t, sc, sim.ProtocolNextgen)
	m := r.Metrics
	t.Logf("moved=%d rebalances=%d downtime=%.3fs convergence=%.3fs", m.MovedPartitions, m.Rebalances, m.DowntimePartitionSeconds, m.ConvergenceSeconds)
	if len(r.Findings) != 0 || !m.Converged {
		t.Errorf("findings %v, converged %v", findingKinds(r), m.Converged)
	}
	if !strings.Contains(trace, `"ev":"group_type","detail":" classic"`) {
		t.Error("the group never went back to classic")
	}
	if got := notProcessing(r, r.WindowEnd-10, r.WindowEnd); len(got) != 0 {
		t.Errorf("partitions not processed at the end: %v", got)
	}
}

// With group.consumer.migration.policy=disabled a classic group with
// members cannot be upgraded: the first consumer-protocol member is refused
// (GROUP_ID_NOT_FOUND) and its consumer fails, which the run reports.
func TestUpgradeRefusedByPolicy(t *testing.T) {
	sc := group("upgrade-disabled", 3, 2*time.Minute)
	sc.Group.MigrationPolicy = "disabled"
	consumer := "consumer"
	sc.Events = []sim.Event{{At: 30 * time.Second, Kind: sim.EventRestart, Members: []string{"c1"}, For: 5 * time.Second,
		Graceful: true, Set: sim.ConsumerSettings{GroupProtocol: &consumer}}}
	r, trace := run(t, sc, sim.ProtocolCooperative)
	if !slices.ContainsFunc(r.Findings, func(f sim.Finding) bool {
		return f.Kind == "join_failure" && slices.Equal(f.Members, []string{"c1"}) && strings.Contains(f.Detail, "GROUP_ID_NOT_FOUND")
	}) {
		t.Errorf("findings %v, want c1's join failure with GROUP_ID_NOT_FOUND", findingKinds(r))
	}
	if strings.Contains(trace, `"ev":"group_type"`) {
		t.Error("the group changed type")
	}
}

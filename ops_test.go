package rebalsim_test

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/rebalsim/rebalsim"
	"github.com/rebalsim/rebalsim/protocols"
	"github.com/rebalsim/rebalsim/scenarios"
	"github.com/rebalsim/rebalsim/sim"
)

// runLibraryTraced runs a library scenario under every protocol on seed (0:
// the scenario's), with the traces kept per protocol.
func runLibraryTraced(t *testing.T, name string, seed uint64) (map[string]*sim.Result, map[string]string) {
	t.Helper()
	f, err := scenarios.LibraryScenario(name)
	if err != nil {
		t.Fatalf("library %s: %v", name, err)
	}
	results, traces := map[string]*sim.Result{}, map[string]string{}
	for _, p := range protocols.Implemented() {
		var trace bytes.Buffer
		res, err := rebalsim.Run(f.Scenario, rebalsim.Options{Protocols: []string{p}, Seed: seed,
			Trace: func(string) (io.Writer, error) { return &trace, nil }})
		if err != nil {
			t.Fatalf("%s under %s: %v", name, p, err)
		}
		results[p], traces[p] = res.Runs[0], trace.String()
	}
	return results, traces
}

func findings(r *sim.Result, kind, member string) []sim.Finding {
	var out []sim.Finding
	for _, f := range r.Findings {
		if f.Kind == kind && (member == "" || strings.Join(f.Members, ",") == member) {
			out = append(out, f)
		}
	}
	return out
}

// TestStatefulSetVersusDeployment: 20 static members rolled out. As a
// StatefulSet each pod comes back under its own name, so its instance id,
// within the 3 minute session timeout: the coordinator never rebalances.
// As a Deployment with instance ids from pod names every new pod is a new
// member and every old member holds its partitions until its session
// expires.
func TestStatefulSetVersusDeployment(t *testing.T) {
	sts, _ := runLibraryTraced(t, "rollout-statefulset-static", 0)
	dep, _ := runLibraryTraced(t, "rollout-deployment-static", 0)
	for _, p := range protocols.Implemented() {
		// 0: every pod is back (20-30 s start) well within 180 s.
		if m := sts[p].Metrics; m.Rebalances != 0 || m.MovedPartitions != 0 {
			t.Errorf("statefulset under %s: %d rebalances, %d moved; want 0 and 0", p, m.Rebalances, m.MovedPartitions)
		}
		// At least the 180 s session timeout: the departed member is
		// only removed when it expires.
		if g := dep[p].Metrics.MaxPartitionGapSeconds; g < 180 {
			t.Errorf("deployment under %s: longest gap %.1f s, want at least the 180 s session timeout", p, g)
		}
	}
	// 20 joins and 20 expiries, each an epoch bump.
	if n := dep["nextgen"].Metrics.Rebalances; n != 40 {
		t.Errorf("deployment under nextgen: %d rebalances, want 40 (20 joins, 20 expiries)", n)
	}
}

// TestRevokeOutlastsGracePeriod: the old pods' 299 s revoke callbacks
// outlast the 30 s grace period: each is killed, without a LeaveGroup,
// and the coordinator learns of it from the session timeout.
func TestRevokeOutlastsGracePeriod(t *testing.T) {
	res, traces := runLibraryTraced(t, "rollout-revoke-outlasts-grace", 0)
	for _, p := range []string{"eager", "cooperative"} {
		// Every old pod is inside its revoke callback 30 s after SIGTERM.
		if n := len(findings(res[p], "pod_killed", "")); n != 6 {
			t.Errorf("%s: %d pods killed, want all 6", p, n)
		}
		tr := traces[p]
		kill := strings.Index(tr, `"ev":"pod_killed","member":"c1"`)
		expiry := strings.Index(tr, `c1 session timeout expired`)
		if kill < 0 || expiry < kill {
			t.Errorf("%s: want c1 killed, then its session to expire; kill at %d, expiry at %d in the trace", p, kill, expiry)
		}
		if strings.Contains(tr[kill:], `"from":{"process":"c1","incarnation":1},"to":{"process":"coordinator"},"msg":"LeaveGroup"`) {
			t.Errorf("%s: the killed c1 sent a LeaveGroup", p)
		}
		// The join that started it, and the one the expiries end in.
		// Cooperative members keep polling through the slow revokes, and
		// the expiries can fold into the rebalance in progress (as the
		// scenario file says): under the poll loop they do on seed 1.
		want := 2
		if p == "cooperative" {
			want = 1
		}
		if n := res[p].Metrics.Rebalances; n < want {
			t.Errorf("%s: %d rebalances, want at least %d", p, n, want)
		}
	}
	// The slow handlers hold the eager group for about the 5 minute
	// rebalance timeout.
	if g := res["eager"].Metrics.MaxPartitionGapSeconds; g < 290 || g > 310 {
		t.Errorf("eager: longest gap %.1f s, want about 300", g)
	}
}

// TestSurgeWithDuplicateInstanceID: max_surge 1 with an instance id kept
// per replica runs the old and the new pod with one id. Classic replaces
// the old member and fences it (FENCED_INSTANCE_ID on its next
// heartbeat); the consumer protocol refuses the new one
// (UNRELEASED_INSTANCE_ID), which crash-loops while the old one lives.
func TestSurgeWithDuplicateInstanceID(t *testing.T) {
	res, _ := runLibraryTraced(t, "rollout-surge-duplicate-instance-id", 0)
	for _, p := range []string{"eager", "cooperative"} {
		for _, old := range []string{"c1", "c2", "c3"} {
			f := findings(res[p], "join_failure", old)
			if len(f) != 1 || !strings.Contains(f[0].Detail, "FENCED_INSTANCE_ID") {
				t.Errorf("%s: want %s fenced with FENCED_INSTANCE_ID, got %+v", p, old, f)
			}
		}
		// It clears at the old member's next heartbeat, 3 s apart at most
		// (measured 5.3 s over the 3 pods).
		if z := res[p].Metrics.ZombieProcessingSeconds; z <= 0 || z > 9 {
			t.Errorf("%s: %.2f s of zombie processing, want up to one heartbeat interval per pod", p, z)
		}
	}
	ng := res["nextgen"]
	if f := findings(ng, "join_failure", "c1-v1"); len(f) != 1 || !strings.Contains(f[0].Detail, "UNRELEASED_INSTANCE_ID") {
		t.Errorf("nextgen: want c1-v1 refused with UNRELEASED_INSTANCE_ID, got %+v", f)
	}
	// Container exits at 80 s, then 10, 20, 40, 80, 160 s back-offs plus
	// 20 s starts: 110, 150, 210, 310, 490 s; the next would be at 810 s,
	// after the 600 s horizon.
	if n := len(findings(ng, "container_exit", "c1-v1")); n != 6 {
		t.Errorf("nextgen: c1-v1's container exited %d times, want 6", n)
	}
	if m := ng.Metrics.MovedPartitions; m != 0 {
		t.Errorf("nextgen: %d partitions moved, want 0: the old pods keep theirs", m)
	}
}

// TestAutoscalerFeedbackLoop: under eager the scaler reacts to the lag of
// the rebalances its own pods cause; the incremental protocols do not.
// With min = max replicas nothing scales.
func TestAutoscalerFeedbackLoop(t *testing.T) {
	for seed := uint64(1); seed <= 3; seed++ {
		res, _ := runLibraryTraced(t, "autoscaler-feedback-loop", seed)
		e := res["eager"].Metrics
		for _, p := range []string{"cooperative", "nextgen"} {
			m := res[p].Metrics
			if m.ScaleEvents >= e.ScaleEvents || m.Oscillation >= e.Oscillation {
				t.Errorf("seed %d: %s scaled %d times with %d direction changes; want fewer than eager's %d and %d",
					seed, p, m.ScaleEvents, m.Oscillation, e.ScaleEvents, e.Oscillation)
			}
		}
		if d := res["eager"].Autoscaler; d == nil || len(d.Decisions) == 0 {
			t.Errorf("seed %d: no autoscaler decisions in the result", seed)
		}
	}
	pinned, _ := runLibraryTraced(t, "autoscaler-min-equals-max", 0)
	for p, r := range pinned {
		if m := r.Metrics; m.ScaleEvents != 0 || m.ReplicasMax != 8 {
			t.Errorf("min = max under %s: %d scale events, %d replicas at most; want 0 and 8", p, m.ScaleEvents, m.ReplicasMax)
		}
	}
}

// TestRolloutDeterminism: the same seed gives the same bytes, rollout and
// autoscaler included.
func TestRolloutDeterminism(t *testing.T) {
	for _, name := range []string{"rollout-deployment-static", "autoscaler-feedback-loop"} {
		_, a := runLibraryTraced(t, name, 2)
		_, b := runLibraryTraced(t, name, 2)
		for p := range a {
			if a[p] != b[p] {
				t.Errorf("%s under %s: two runs on seed 2 traced differently", name, p)
			}
		}
	}
}

// TestCloseMembership: KIP-1092's close options change what a rollout
// costs. Three members rolled out as a StatefulSet, 20 s per pod.
func TestCloseMembership(t *testing.T) {
	run := func(defaults string) map[string]*sim.Result {
		t.Helper()
		src := "name: leave\nduration: 6m\ntopics: [{name: orders, partitions: 6}]\ndefaults: " + defaults +
			"\nmembers: [{count: 3, id: \"c{i}\"}]\nevents:\n  - {at: 60s, rollout: {members: all, kind: statefulset, start_time: 20s}}\n"
		f, err := scenarios.Parse("leave.yaml", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]*sim.Result{}
		for _, p := range protocols.Implemented() {
			res, err := rebalsim.Run(f.Scenario, rebalsim.Options{Protocols: []string{p}})
			if err != nil {
				t.Fatal(err)
			}
			out[p] = res.Runs[0]
		}
		return out
	}
	// Static members that stay (the default): back within the session
	// timeout, no rebalance.
	for p, r := range run("{static: true}") {
		if n := r.Metrics.Rebalances; n != 0 {
			t.Errorf("static, default close, %s: %d rebalances, want 0", p, n)
		}
	}
	// leave_group: each static member leaves (epoch -1) and joins again,
	// two epoch bumps per pod: 6.
	if n := run("{static: true, close_membership: leave_group}")["nextgen"].Metrics.Rebalances; n != 6 {
		t.Errorf("static, leave_group, nextgen: %d rebalances, want 6", n)
	}
	// remain_in_group: a dynamic member sends no leave heartbeat, so its
	// partitions wait for the 45 s session timeout, counted from its last
	// heartbeat at most 5 s before the close: at least 40 s.
	if g := run("{close_membership: remain_in_group}")["nextgen"].Metrics.MaxPartitionGapSeconds; g < 40 {
		t.Errorf("dynamic, remain_in_group, nextgen: longest gap %.1f s, want at least 40", g)
	}
}

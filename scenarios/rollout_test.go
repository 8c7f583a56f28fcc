package scenarios

import (
	"testing"
	"time"

	"github.com/rebalsim/rebalsim/sim"
)

// TestRejectRollouts: rollout and autoscaler mistakes name their place
// and what is allowed.
func TestRejectRollouts(t *testing.T) {
	ev := base + "events:\n  - {at: 60s, rollout: "
	as := base + "autoscaler: "
	checkRejections(t, []rejection{
		{"both zero", ev + "{members: all, max_surge: 0, max_unavailable: 0}}\n", "t.yaml:5:70", []string{"max_surge and max_unavailable may not both be 0"}},
		{"statefulset surge", ev + "{members: all, kind: statefulset, max_surge: 1}}\n", "t.yaml:5:69", []string{"a statefulset has no max_surge"}},
		{"unknown kind", ev + "{members: all, kind: daemonset}}\n", "t.yaml:5:45", []string{`unknown rollout kind "daemonset"`, "deployment, statefulset"}},
		{"bad percent", ev + "{members: all, max_surge: 120%}}\n", "t.yaml:5:50", []string{"max_surge must be a count of pods such as 1 or a percentage from 0% to 100%"}},
		{"unknown instance id", ev + "{members: all, instance_id: podname}}\n", "t.yaml:5:52", []string{`unknown instance_id "podname"`, "pod_name"}},
		{"unknown key", ev + "{members: all, grace: 30s}}\n", "t.yaml:5:39", []string{"grace"}},
		{"no lag threshold", as + "{max_replicas: 4}\n", "t.yaml:4:13", []string{"autoscaler has no lag_threshold:"}},
		{"max below min", as + "{lag_threshold: 100, min_replicas: 4, max_replicas: 2}\n", "t.yaml:4:65", []string{"max_replicas 2 is below min_replicas 4"}},
		{"stable on the autoscaler", as + "{lag_threshold: 100, max_replicas: 4, instance_id: stable}\n", "t.yaml:4:64", []string{`unknown instance_id "stable"`, "pod_name, none"}},
		{"policy type", as + "{lag_threshold: 100, max_replicas: 4, scale_up: {policies: [{type: pod, value: 1, period: 15s}]}}\n", "t.yaml:4:80", []string{`unknown policy type "pod"`, "pods"}},
	})
}

// TestAutoscalerDefaults: what an autoscaler written with its two
// required keys means: KEDA's 30 s polling, the HPA's 10% tolerance and
// default behavior, one replica at least, every member.
func TestAutoscalerDefaults(t *testing.T) {
	s := mustParse(t, base+"autoscaler: {lag_threshold: 500, max_replicas: 6}\n")
	want := &sim.Autoscaler{Members: []string{"c1", "c2", "c3"}, PollingInterval: 30 * time.Second, LagThreshold: 500,
		MinReplicas: 1, MaxReplicas: 6, Tolerance: 0.1, ScaleUp: sim.DefaultScaleUp(), ScaleDown: sim.DefaultScaleDown(),
		Pod: sim.PodTemplate{StartTime: sim.Distribution{Kind: sim.DistConstant, Value: 20 * time.Second}, TerminationGracePeriod: 30 * time.Second}}
	got := s.Autoscaler
	if got == nil {
		t.Fatal("no autoscaler")
	}
	if got.PollingInterval != want.PollingInterval || got.MinReplicas != want.MinReplicas || got.Tolerance != want.Tolerance ||
		len(got.Members) != 3 || got.Pod != want.Pod || len(got.ScaleUp.Policies) != 2 || got.ScaleDown.StabilizationWindow != 300*time.Second {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
}

// TestRolloutOverride: sweeps vary rollout and autoscaler keys as any
// other, through overrides.
func TestRolloutOverride(t *testing.T) {
	src := base + "events:\n  - {at: 60s, rollout: {members: [c1, c2], max_surge: 1, max_unavailable: 0}}\nautoscaler: {members: [c3], lag_threshold: 500, max_replicas: 6}\n"
	f, err := ParseWith("t.yaml", []byte(src), []Override{
		{Path: "events[0].rollout.max_surge", Value: "50%"},
		{Path: "autoscaler.max_replicas", Value: "9"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := f.Events[0].Rollout.MaxSurge; got != (sim.IntOrPercent{Value: 50, Percent: true}) {
		t.Errorf("max_surge: got %s, want 50%%", got)
	}
	if got := f.Autoscaler.MaxReplicas; got != 9 {
		t.Errorf("max_replicas: got %d, want 9", got)
	}
}

// TestRejectRolloutOfAutoscaled: the two controllers would both own the
// pods.
func TestRejectRolloutOfAutoscaled(t *testing.T) {
	checkRejections(t, []rejection{{"rollout of autoscaled",
		base + "events:\n  - {at: 60s, rollout: {members: [c2]}}\nautoscaler: {lag_threshold: 100, max_replicas: 4}\n",
		"t.yaml:5:34", []string{"c2 is autoscaled; a rollout of an autoscaled workload is not modelled"}}})
}

// TestRejectEventOnReplacedMember: after a Deployment's rollout the old
// member is gone; a later event naming it is refused.
func TestRejectEventOnReplacedMember(t *testing.T) {
	checkRejections(t, []rejection{{"pause after a deployment rollout",
		base + "events:\n  - {at: 10s, rollout: {members: all}}\n  - {at: 60s, pause: {member: c1, for: 5s}}\n",
		"t.yaml:6:5", []string{"the member is down (a deployment rollout replaced it, line 5)"}}})
}

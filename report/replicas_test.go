package report

import (
	"testing"

	"github.com/rebalsim/rebalsim/sim"
)

// TestReplicasChart: the chart is there only for runs with an autoscaler,
// and its step line holds the last count to the horizon.
func TestReplicasChart(t *testing.T) {
	r := labReport()
	charts, err := Charts(r)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range charts {
		if c.Name == "replicas" {
			t.Fatal("a report without an autoscaler has a replicas chart")
		}
	}
	decisions := []sim.ScaleDecision{{At: 30, Replicas: 4}, {At: 60, Lag: 9000, Desired: 9, Replicas: 8}}
	for _, run := range r.Runs {
		run.Autoscaler = &sim.AutoscalerResult{Decisions: decisions}
	}
	charts, err = Charts(r)
	if err != nil {
		t.Fatal(err)
	}
	if png := pngOf(t, chartByName(t, charts, "replicas")); len(png) == 0 {
		t.Error("the replicas chart rendered nothing")
	}
	// 4 at 30 s, 8 from 60 s to the 120 s horizon: three points.
	xys := replicaSteps(decisions, 120)
	if len(xys) != 3 || xys[2].X != 120 || xys[2].Y != 8 {
		t.Errorf("steps: got %v, want (30,4) (60,8) (120,8)", xys)
	}
}

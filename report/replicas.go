package report

import (
	"gonum.org/v1/plot/plotter"

	"github.com/rebalsim/rebalsim/sim"
)

// hasAutoscaler reports whether any run had an autoscaler.
func hasAutoscaler(r *Report) bool {
	for _, run := range r.Runs {
		if run.Autoscaler != nil {
			return true
		}
	}
	return false
}

// replicaSteps turns the decisions into a step line held to the horizon.
func replicaSteps(ds []sim.ScaleDecision, end float64) plotter.XYs {
	xys := make(plotter.XYs, 0, len(ds)+1)
	for _, d := range ds {
		xys = append(xys, plotter.XY{X: d.At, Y: float64(d.Replicas)})
	}
	last := ds[len(ds)-1]
	if end > last.At {
		xys = append(xys, plotter.XY{X: end, Y: float64(last.Replicas)})
	}
	return xys
}

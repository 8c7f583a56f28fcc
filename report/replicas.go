package report

import (
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

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

// replicasChart draws the replica count the autoscaler set at each poll,
// one step line per protocol: a climb the lag did not need, and every
// reversal, is the feedback loop.
func replicasChart(r *Report, looks []protocolLook, names []string, end float64) Chart {
	p := timePlot(r, "replicas", end)
	legend := []legendItem{{name: "protocol"}}
	for i, run := range r.Runs {
		if run.Autoscaler == nil || len(run.Autoscaler.Decisions) == 0 {
			continue
		}
		xys := replicaSteps(run.Autoscaler.Decisions, end)
		l, err := plotter.NewLine(xys)
		if err != nil {
			legend = append(legend, legendItem{name: names[i] + " (invalid data)"})
			continue
		}
		l.LineStyle = looks[i].line(vg.Points(lineWidth))
		l.StepStyle = plotter.PostStep
		p.Add(l)
		legend = append(legend, legendItem{name: names[i], thumb: lineThumb(l.LineStyle)})
	}
	p.Add(disturbanceLines{ds: disturbances(r)})
	p.Y.Min = 0
	headroom(p)
	p.Y.Tick.Marker = countTicks{}
	return plotChart("replicas", "Autoscaler replicas", scenarioName(r)+": the replica count the HPA set at each poll",
		"The autoscaler's replica count over time, one step line per protocol: scale_events counts its changes, oscillation its reversals, and replicas_max its peak.", legend, p)
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

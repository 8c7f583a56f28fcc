package report

import (
	"gonum.org/v1/plot"

	"github.com/rebalsim/rebalsim/sim"
)

// The charts over virtual time are described once, here, and drawn two
// ways: for one run per protocol (Charts), a line per protocol; over
// seeds (SeedCharts), per protocol the median over the seeds and a band
// from p5 to p95. Every series the report charts is so charted over seeds
// as well.

// yAxis is how a panel of a time chart scales its values.
type yAxis int

const (
	// shareAxis is a percentage: 0 to 100, with headroom for the labels.
	shareAxis yAxis = iota
	// levelAxis is a level that cannot be negative (lag, latency):
	// valueAxis decides between linear and logarithmic.
	levelAxis
	// countAxis is a cumulative count or a replica count, read as a
	// length from zero: linear.
	countAxis
)

func (a yAxis) apply(p *plot.Plot, drawn []float64) {
	switch a {
	case shareAxis:
		// Headroom above 100% keeps the lines off the frame and the
		// disturbance labels off the lines.
		p.Y.Min, p.Y.Max = 0, 112
		var ticks []plot.Tick
		for v := 0.0; v <= 100; v += 25 {
			ticks = append(ticks, plot.Tick{Value: v, Label: trimFloat(v)})
		}
		p.Y.Tick.Marker = plot.ConstantTicks(ticks)
	case levelAxis:
		valueAxis(p, drawn)
	case countAxis:
		p.Y.Min = 0
		headroom(p)
		p.Y.Tick.Marker = countTicks{}
	}
}

// timePanel is one plot of a time chart.
type timePanel struct {
	yLabel string
	// points is a run's series to draw: instants and values, with end the
	// horizon. A run without the series gives none.
	points func(run *sim.Result, end float64) (xs, ys []float64)
	// scale multiplies the values (a fraction drawn as a percentage).
	scale float64
	// step draws the values as steps: each holds until the next instant.
	step bool
	axis yAxis
}

// timeChart is a chart of one panel, or of two side by side sharing a
// legend.
type timeChart struct {
	name, title string
	// subtitle says what the chart shows, after the scenario's name.
	subtitle string
	caption  string
	panels   []timePanel
	// only, when set, says whether a report has the chart at all.
	only func(r *Report) bool
}

// timeCharts are the charts over virtual time, in the order the report
// shows them.
func timeCharts() []timeChart {
	series := func(pick func(s sim.Series) []float64) func(*sim.Result, float64) ([]float64, []float64) {
		return func(run *sim.Result, _ float64) ([]float64, []float64) { return run.Series.Times, pick(run.Series) }
	}
	latency := func(pick func(s sim.LatencySeries) []float64) func(*sim.Result, float64) ([]float64, []float64) {
		return func(run *sim.Result, _ float64) ([]float64, []float64) {
			return stepStarts(run.Series.Latency), pick(run.Series.Latency)
		}
	}
	return []timeChart{
		{
			name: "processing", title: "Processing availability",
			subtitle: "share of partitions with an owner that is processing them",
			caption:  "The share of partitions being processed at each instant, one line per protocol: a dip is downtime, and the area above a dip is downtime_partition_seconds.",
			panels:   []timePanel{{yLabel: "partitions being processed (%)", points: series(func(s sim.Series) []float64 { return s.Processing }), scale: 100, axis: shareAxis}},
		},
		{
			name: "lag", title: "Consumer lag",
			subtitle: "total lag over all partitions",
			caption:  "Records produced but not yet processed, summed over partitions, one line per protocol through the highest lag of each sample step, so that the peak is peak_lag_records however short it was; how long the line takes to come back down is lag_recovery_seconds.",
			panels:   []timePanel{{yLabel: "total consumer lag (records)", points: series(lagPeaks), scale: 1, axis: levelAxis}},
		},
		{
			// Two panels, because the two counts on one axis would need
			// two styles per protocol, and dash patterns already tell
			// protocols apart.
			name: "movement", title: "Partition movement",
			subtitle: "cumulative counts from the start of the run",
			caption:  "Left: partitions handed to a different owner so far; right: (member, partition) revocations so far, including partitions revoked and given straight back. Each step is a rebalance; lower and flatter is better.",
			panels: []timePanel{
				{yLabel: "moved partitions (cumulative)", points: series(func(s sim.Series) []float64 { return s.Moved }), scale: 1, step: true, axis: countAxis},
				{yLabel: "revocations (cumulative)", points: series(func(s sim.Series) []float64 { return s.Revocations }), scale: 1, step: true, axis: countAxis},
			},
		},
		{
			// A dip in processing shows here as a ramp, its height the
			// longest wait.
			name: "latency", title: "Record latency",
			subtitle: "latency of the records processed, per step of the window",
			caption:  "Left: the 99th percentile, right: the largest end-to-end latency of the records processed in each step, from production to processing. The largest over the run is latency_max_seconds; lower is better.",
			panels: []timePanel{
				{yLabel: "latency p99 (s)", points: latency(func(s sim.LatencySeries) []float64 { return s.P99 }), scale: 1, step: true, axis: levelAxis},
				{yLabel: "latency max (s)", points: latency(func(s sim.LatencySeries) []float64 { return s.Max }), scale: 1, step: true, axis: levelAxis},
			},
		},
		{
			// A climb the lag did not need, and every reversal, is the
			// feedback loop.
			name: "replicas", title: "Autoscaler replicas",
			subtitle: "the replica count the HPA set at each poll",
			caption:  "The autoscaler's replica count over time, one step line per protocol: scale_events counts its changes, oscillation its reversals, and replicas_max its peak.",
			panels:   []timePanel{{yLabel: "replicas", points: replicaPoints, scale: 1, step: true, axis: countAxis}},
			only:     hasAutoscaler,
		},
	}
}

// draw lays out the chart's panels over the window of r, each filled by
// fill, which adds the data and returns the legend and the values drawn.
func (tc timeChart) draw(r *Report, name, title, subtitle, caption string, end float64, fill func(p *plot.Plot, tp timePanel) ([]legendItem, []float64)) Chart {
	var plots []*plot.Plot
	var legend []legendItem
	for i, tp := range tc.panels {
		p := timePlot(r, tp.yLabel, end)
		leg, drawn := fill(p, tp)
		if i == 0 {
			legend = leg
		}
		p.Add(disturbanceMarks(disturbances(r)))
		tp.axis.apply(p, drawn)
		plots = append(plots, p)
	}
	if len(plots) == 1 {
		return plotChart(name, title, subtitle, caption, legend, plots[0])
	}
	return sideBySide(name, title, caption, subtitle, legend, plots[0], plots[1])
}

// single draws the chart of one run per protocol: a line each.
func (tc timeChart) single(r *Report, looks []protocolLook, names []string, end float64) Chart {
	return tc.draw(r, tc.name, tc.title, scenarioName(r)+": "+tc.subtitle, tc.caption, end,
		func(p *plot.Plot, tp timePanel) ([]legendItem, []float64) {
			return xyLines(p, r, looks, names, tp.step, func(run *sim.Result) ([]float64, []float64) { return tp.points(run, end) }, tp.scale)
		})
}

// overSeeds draws the chart over seeds: per protocol a median line in a
// band from p5 to p95.
func (tc timeChart) overSeeds(s *Seeds, looks []protocolLook, names []string, end float64) Chart {
	r := s.Reports[0]
	what := itoa(len(s.Reports)) + " seeds: median line, band from p5 to p95"
	caption := tc.caption + " Over seeds, per protocol: the line is the median over the seeds at each instant, the band holds nine seeds in ten (p5 to p95). Disturbances are the first seed's."
	return tc.draw(r, "seeds-"+tc.name, tc.title+" over seeds", scenarioName(r)+": "+what, caption, end,
		func(p *plot.Plot, tp timePanel) ([]legendItem, []float64) {
			return seedBands(p, s, looks, names, tp, end)
		})
}

// replicaPoints is the replica count the autoscaler set at each poll, held
// to the horizon; none without an autoscaler.
func replicaPoints(run *sim.Result, end float64) ([]float64, []float64) {
	if run.Autoscaler == nil || len(run.Autoscaler.Decisions) == 0 {
		return nil, nil
	}
	xys := replicaSteps(run.Autoscaler.Decisions, end)
	xs, ys := make([]float64, len(xys)), make([]float64, len(xys))
	for i, p := range xys {
		xs[i], ys[i] = p.X, p.Y
	}
	return xs, ys
}

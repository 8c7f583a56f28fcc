package report

import (
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/rebalsim/rebalsim/sim"
)

// lineWidth is thick enough for dash patterns to read on a projector.
const lineWidth = 2.5

// seriesLines adds one line per run of the values pick takes from its
// series, and returns the legend of the runs drawn and the values drawn
// (for valueAxis).
func seriesLines(p *plot.Plot, r *Report, looks []protocolLook, names []string, step bool, pick func(s sim.Series) []float64, scale float64) ([]legendItem, []float64) {
	return xyLines(p, r, looks, names, step, func(s sim.Series) ([]float64, []float64) { return s.Times, pick(s) }, scale)
}

// xyLines adds one line per run of the points pick takes from its series
// (for series sampled at their own times), and returns the legend and the
// values drawn.
func xyLines(p *plot.Plot, r *Report, looks []protocolLook, names []string, step bool, pick func(s sim.Series) (xs, ys []float64), scale float64) ([]legendItem, []float64) {
	legend := []legendItem{{name: "protocol"}}
	var drawn []float64
	for i, run := range r.Runs {
		xs, ys := pick(run.Series)
		n := min(len(ys), len(xs))
		if n == 0 {
			continue
		}
		xys := drawnSeries(xs[:n], ys[:n], p.X.Min, scale)
		l, err := plotter.NewLine(xys)
		if err != nil {
			// NaN or Inf in a series: leave the line out rather than fail
			// the whole report; the legend says so.
			legend = append(legend, legendItem{name: names[i] + " (invalid data)"})
			continue
		}
		l.LineStyle = looks[i].line(vg.Points(lineWidth))
		if step {
			l.StepStyle = plotter.PostStep
		}
		p.Add(l)
		legend = append(legend, legendItem{name: names[i], thumb: lineThumb(l.LineStyle)})
		for _, xy := range xys {
			drawn = append(drawn, xy.Y)
		}
	}
	return legend, drawn
}

// drawnSeries is the part of a series a chart from start on draws: the
// samples at or after start only, so that nothing before the window (the
// start-up lag) sets the scale.
func drawnSeries(times, ys []float64, start, scale float64) plotter.XYs {
	from := 0
	for from < len(times) && times[from] < start {
		from++
	}
	xys := make(plotter.XYs, 0, len(times)-from)
	for k := from; k < len(times); k++ {
		xys = append(xys, plotter.XY{X: times[k], Y: ys[k] * scale})
	}
	return xys
}

// timePlot is a plot over the measurement window (from the first
// disturbance to the horizon), with the disturbances: what happens before
// it, the group's start-up, is not what the metrics measure and must not
// set the scale.
func timePlot(r *Report, yLabel string, end float64) *plot.Plot {
	start := windowStart(r)
	p := newPlot("", yLabel)
	timeAxis(p, start, end)
	p.Add(grid(true), disturbanceBands(disturbances(r)))
	return p
}

func processingChart(r *Report, looks []protocolLook, names []string, end float64) Chart {
	p := timePlot(r, "partitions being processed (%)", end)
	legend, _ := seriesLines(p, r, looks, names, false, func(s sim.Series) []float64 { return s.Processing }, 100)
	p.Add(disturbanceMarks(disturbances(r)))
	// Headroom above 100% keeps the lines off the frame and the
	// disturbance labels off the lines.
	p.Y.Min, p.Y.Max = 0, 112
	var ticks []plot.Tick
	for v := 0.0; v <= 100; v += 25 {
		ticks = append(ticks, plot.Tick{Value: v, Label: trimFloat(v)})
	}
	p.Y.Tick.Marker = plot.ConstantTicks(ticks)
	return plotChart("processing", "Processing availability", scenarioName(r)+": share of partitions with an owner that is processing them",
		"The share of partitions being processed at each instant, one line per protocol: a dip is downtime, and the area above a dip is downtime_partition_seconds.", legend, p)
}

func lagChart(r *Report, looks []protocolLook, names []string, end float64) Chart {
	p := timePlot(r, "total consumer lag (records)", end)
	legend, drawn := seriesLines(p, r, looks, names, false, lagPeaks, 1)
	p.Add(disturbanceMarks(disturbances(r)))
	valueAxis(p, drawn)
	return plotChart("lag", "Consumer lag", scenarioName(r)+": total lag over all partitions",
		"Records produced but not yet processed, summed over partitions, one line per protocol through the highest lag of each sample step, so that the peak is peak_lag_records however short it was; how long the line takes to come back down is lag_recovery_seconds.", legend, p)
}

// lagPeaks is the lag series to draw: the highest lag of each sample step
// where the result has it (a sample alone misses a peak between two), else
// the samples.
func lagPeaks(s sim.Series) []float64 {
	if len(s.LagMax) == len(s.Lag) {
		return s.LagMax
	}
	return s.Lag
}

// movementChart puts cumulative moved partitions and revocations side by
// side: two panels, because the two counts on one axis would need two
// styles per protocol, and dash patterns already tell protocols apart.
func movementChart(r *Report, looks []protocolLook, names []string, end float64) Chart {
	moved := timePlot(r, "moved partitions (cumulative)", end)
	legend, _ := seriesLines(moved, r, looks, names, true, func(s sim.Series) []float64 { return s.Moved }, 1)
	moved.Add(disturbanceMarks(disturbances(r)))
	revoked := timePlot(r, "revocations (cumulative)", end)
	seriesLines(revoked, r, looks, names, true, func(s sim.Series) []float64 { return s.Revocations }, 1)
	revoked.Add(disturbanceMarks(disturbances(r)))
	for _, p := range []*plot.Plot{moved, revoked} {
		p.Y.Min = 0
		headroom(p)
		p.Y.Tick.Marker = countTicks{}
	}
	return sideBySide("movement", "Partition movement",
		"Left: partitions handed to a different owner so far; right: (member, partition) revocations so far, including partitions revoked and given straight back. Each step is a rebalance; lower and flatter is better.",
		scenarioName(r)+": cumulative counts from the start of the run", legend, moved, revoked)
}

// sideBySide is a chart of two panels sharing one legend.
func sideBySide(name, title, caption, subtitle string, legend []legendItem, left, right *plot.Plot) Chart {
	return Chart{
		Name:    name,
		Title:   title,
		Caption: caption,
		Width:   chartWidth,
		Height:  chartHeight,
		Render: figure{
			title:    title,
			subtitle: subtitle,
			legend:   legend,
			body: func(c draw.Canvas) {
				tiles := draw.Tiles{Rows: 1, Cols: 2, PadX: vg.Points(24)}
				left.Draw(tiles.At(c, 0, 0))
				right.Draw(tiles.At(c, 1, 0))
			},
		}.draw,
	}
}

// latencyChart puts the p99 and the largest latency of the records
// processed in each step side by side, one line per protocol: a dip in
// processing shows here as a ramp, its height the longest wait.
func latencyChart(r *Report, looks []protocolLook, names []string, end float64) Chart {
	p99 := timePlot(r, "latency p99 (s)", end)
	legend, p99s := xyLines(p99, r, looks, names, true, func(s sim.Series) ([]float64, []float64) { return stepStarts(s.Latency), s.Latency.P99 }, 1)
	p99.Add(disturbanceLines{ds: disturbances(r)})
	valueAxis(p99, p99s)
	worst := timePlot(r, "latency max (s)", end)
	_, maxes := xyLines(worst, r, looks, names, true, func(s sim.Series) ([]float64, []float64) { return stepStarts(s.Latency), s.Latency.Max }, 1)
	worst.Add(disturbanceLines{ds: disturbances(r)})
	valueAxis(worst, maxes)
	return sideBySide("latency", "Record latency",
		"Left: the 99th percentile, right: the largest end-to-end latency of the records processed in each step, from production to processing. The largest over the run is latency_max_seconds; lower is better.",
		scenarioName(r)+": latency of the records processed, per step of the window", legend, p99, worst)
}

// stepStarts are the instants the latency steps begin, for step lines.
func stepStarts(s sim.LatencySeries) []float64 {
	out := make([]float64, len(s.Times))
	for i, t := range s.Times {
		out[i] = t - s.Step
	}
	return out
}

// headroom raises the top of a plot's y range by 15%, so that the highest
// line is not drawn on the frame and the disturbance labels along the top
// do not cover it.
func headroom(p *plot.Plot) {
	if p.Y.Max > p.Y.Min && !math.IsInf(p.Y.Max, 0) {
		p.Y.Max += (p.Y.Max - p.Y.Min) * 0.15
	}
}

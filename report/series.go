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
// series, and returns the legend of the runs drawn.
func seriesLines(p *plot.Plot, r *Report, looks []protocolLook, names []string, step bool, pick func(s sim.Series) []float64, scale float64) []legendItem {
	legend := []legendItem{{name: "protocol"}}
	for i, run := range r.Runs {
		ys := pick(run.Series)
		n := min(len(ys), len(run.Series.Times))
		if n == 0 {
			continue
		}
		xys := drawnSeries(run.Series.Times[:n], ys[:n], p.X.Min, scale)
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
	}
	return legend
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
	legend := seriesLines(p, r, looks, names, false, func(s sim.Series) []float64 { return s.Processing }, 100)
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
	legend := seriesLines(p, r, looks, names, false, lagPeaks, 1)
	p.Add(disturbanceMarks(disturbances(r)))
	p.Y.Min = 0
	headroom(p)
	p.Y.Tick.Marker = countTicks{}
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
	legend := seriesLines(moved, r, looks, names, true, func(s sim.Series) []float64 { return s.Moved }, 1)
	moved.Add(disturbanceMarks(disturbances(r)))
	revoked := timePlot(r, "revocations (cumulative)", end)
	seriesLines(revoked, r, looks, names, true, func(s sim.Series) []float64 { return s.Revocations }, 1)
	revoked.Add(disturbanceMarks(disturbances(r)))
	for _, p := range []*plot.Plot{moved, revoked} {
		p.Y.Min = 0
		headroom(p)
		p.Y.Tick.Marker = countTicks{}
	}
	return Chart{
		Name:    "movement",
		Title:   "Partition movement",
		Caption: "Left: partitions handed to a different owner so far; right: (member, partition) revocations so far, including partitions revoked and given straight back. Each step is a rebalance; lower and flatter is better.",
		Width:   chartWidth,
		Height:  chartHeight,
		Render: figure{
			title:    "Partition movement",
			subtitle: scenarioName(r) + ": cumulative counts from the start of the run",
			legend:   legend,
			body: func(c draw.Canvas) {
				tiles := draw.Tiles{Rows: 1, Cols: 2, PadX: vg.Points(24)}
				moved.Draw(tiles.At(c, 0, 0))
				revoked.Draw(tiles.At(c, 1, 0))
			},
		}.draw,
	}
}

// headroom raises the top of a plot's y range by 15%, so that the highest
// line is not drawn on the frame and the disturbance labels along the top
// do not cover it.
func headroom(p *plot.Plot) {
	if p.Y.Max > p.Y.Min && !math.IsInf(p.Y.Max, 0) {
		p.Y.Max += (p.Y.Max - p.Y.Min) * 0.15
	}
}

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

// xyLines adds one line per run of the points pick takes from it, and
// returns the legend and the values drawn (for valueAxis).
func xyLines(p *plot.Plot, r *Report, looks []protocolLook, names []string, step bool, pick func(run *sim.Result) (xs, ys []float64), scale float64) ([]legendItem, []float64) {
	legend := []legendItem{{name: "protocol"}}
	var drawn []float64
	for i, run := range r.Runs {
		xs, ys := pick(run)
		n := min(len(ys), len(xs))
		if n == 0 {
			continue
		}
		xys := drawnSeries(xs[:n], ys[:n], p.X.Min, scale, step)
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
// start-up lag) sets the scale. A step series holds its last value from
// before start into the window: a replica count set before it still holds.
func drawnSeries(times, ys []float64, start, scale float64, step bool) plotter.XYs {
	from := 0
	for from < len(times) && times[from] < start {
		from++
	}
	xys := make(plotter.XYs, 0, len(times)-from+1)
	if step && from > 0 && (from == len(times) || times[from] > start) {
		xys = append(xys, plotter.XY{X: start, Y: ys[from-1] * scale})
	}
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

// lagPeaks is the lag series to draw: the highest lag of each sample step
// where the result has it (a sample alone misses a peak between two), else
// the samples.
func lagPeaks(s sim.Series) []float64 {
	if len(s.LagMax) == len(s.Lag) {
		return s.LagMax
	}
	return s.Lag
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

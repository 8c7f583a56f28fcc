package report

import (
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// summaryChartMetrics are the headline costs the summary chart compares.
func summaryChartMetrics() []string {
	return []string{"downtime_partition_seconds", "moved_partitions", "rebalances", "convergence_seconds", "duplicate_records"}
}

// bars draws one bar per run at x = 0, 1, ..., each with its value written
// above it, so the chart can be read without the axis.
type bars struct {
	values []float64
	labels []string
	looks  []protocolLook
}

func (b bars) DataRange() (xmin, xmax, ymin, ymax float64) {
	top := 0.0
	for _, v := range b.values {
		top = max(top, v)
	}
	if top <= 0 {
		top = 1
	}
	// Headroom for the value labels.
	return -0.5, float64(len(b.values)) - 0.5, 0, top * 1.18
}

func (b bars) Plot(c draw.Canvas, p *plot.Plot) {
	xf, yf := p.Transforms(&c)
	half := (xf(1) - xf(0)) * 0.32
	sty := textStyle(tickSize)
	sty.XAlign, sty.YAlign = draw.XCenter, draw.YBottom
	for i, v := range b.values {
		x := xf(float64(i))
		top := yf(max(v, 0))
		r := vg.Rectangle{Min: vg.Point{X: x - half, Y: yf(0)}, Max: vg.Point{X: x + half, Y: top}}
		if r.Max.Y-r.Min.Y < vg.Points(1) && v > 0 {
			r.Max.Y = r.Min.Y + vg.Points(1) // a tiny cost is still not zero
		}
		if r.Max.Y > r.Min.Y {
			c.FillPolygon(b.looks[i].color, rectPoints(r))
			c.StrokeLines(draw.LineStyle{Color: rgb(inkHex), Width: vg.Points(0.8)}, append(rectPoints(r), r.Min))
		}
		c.FillText(sty, vg.Point{X: x, Y: r.Max.Y + vg.Points(3)}, b.labels[i])
	}
}

func summaryChart(r *Report, looks []protocolLook, names []string) Chart {
	metrics := summaryChartMetrics()
	var plots []*plot.Plot
	// A metric that is zero under every protocol gets no panel (five bars
	// of nothing take a slot and say less than a line); the subtitle names it.
	var zero []string
	for _, name := range metrics {
		unit := metricUnit(name)
		allZero := len(r.Runs) > 0
		for _, run := range r.Runs {
			v, _ := run.Metrics.Value(name)
			allZero = allZero && v == 0 && (name != "convergence_seconds" || run.Metrics.Converged)
		}
		if allZero {
			zero = append(zero, name)
			continue
		}
		b := bars{looks: looks}
		for _, run := range r.Runs {
			v, _ := run.Metrics.Value(name)
			label := trimFloat(v)
			if name == "convergence_seconds" && !run.Metrics.Converged {
				label = "never (>" + label + "s)"
			}
			if math.IsNaN(v) || math.IsInf(v, 0) {
				v = 0
			}
			b.values = append(b.values, v)
			b.labels = append(b.labels, label)
		}
		p := newPlot("", unit)
		p.Title.Text = name
		p.Title.TextStyle = textStyle(axisSize)
		p.Title.TextStyle.XAlign = draw.XCenter
		p.Title.TextStyle.YAlign = draw.YTop
		p.Title.Padding = vg.Points(6)
		if len(names) > 0 {
			p.Add(grid(false), b)
			p.NominalX(names...)
			// Slanted names fit a narrow panel without running into each
			// other ("cooperativenextgen").
			p.X.Tick.Label.Rotation = math.Pi / 7
			p.X.Tick.Label.XAlign, p.X.Tick.Label.YAlign = draw.XRight, draw.YCenter
		}
		p.Y.Min = 0
		p.Y.Tick.Marker = countTicks{}
		plots = append(plots, p)
	}
	legend := []legendItem{{name: "protocol"}}
	for i, n := range names {
		legend = append(legend, legendItem{name: n, thumb: swatch(fillLook{fill: looks[i].color})})
	}
	subtitle := scenarioName(r)
	if len(zero) > 0 {
		subtitle += "; zero under every protocol, so not drawn: " + strings.Join(zero, ", ")
	}
	return Chart{
		Name:    "summary",
		Title:   "Summary",
		Caption: "Five headline costs, one panel each, protocols side by side with the value written on each bar: every one is a cost, so shorter is better.",
		Width:   chartWidth,
		Height:  chartHeight,
		Render: figure{
			title:    "Summary: lower is better",
			subtitle: subtitle,
			legend:   legend,
			body: func(c draw.Canvas) {
				tiles := draw.Tiles{Rows: 2, Cols: 3, PadX: vg.Points(20), PadY: vg.Points(18)}
				for i, p := range plots {
					p.Draw(tiles.At(c, i%3, i/3))
				}
			},
		}.draw,
	}
}

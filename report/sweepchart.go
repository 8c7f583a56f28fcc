package report

import (
	"errors"
	"image/color"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/rebalsim/rebalsim/sim"
)

// A sweep is drawn two ways, for each headline metric:
//
//   - against each varied value: one line per protocol through the mean
//     over the seeds, in a band from p10 to p90, with a panel per
//     combination of the other varied values;
//   - as box plots: at every grid point, one box per protocol.
//
// Protocols keep the looks of every other chart (palette.go), plus a
// marker shape per protocol, so the lines stay apart in greyscale.

// maxSweepPanels is how many panels one line chart shows; more would be
// too small to read on a slide.
const maxSweepPanels = 9

// maxBoxPoints is how many grid points one box-plot chart shows.
const maxBoxPoints = 40

// SweepCharts builds the charts of a sweep, in the order the sweep report
// shows them: for each headline metric, one line chart per varied path
// (sweep-<metric>-vs-<path>), then its box plots (sweep-<metric>-box).
func SweepCharts(s *Sweep) ([]Chart, error) {
	if s == nil {
		return nil, errors.New("report: no sweep to chart")
	}
	for _, p := range s.Points {
		if len(p.Values) != len(s.Params) || len(p.Protocols) != len(s.Protocols) {
			return nil, errors.New("report: the sweep's points do not match its params and protocols")
		}
		for _, c := range p.Protocols {
			if len(c.Metrics) != len(s.Metrics) {
				return nil, errors.New("report: the sweep's cells do not match its metrics")
			}
		}
	}
	looks := protocolLooks(s.Protocols)
	var charts []Chart
	for _, metric := range sweepTableMetrics(s) {
		for j := range s.Params {
			charts = append(charts, sweepLineChart(s, looks, metric, j))
		}
		charts = append(charts, sweepBoxChart(s, looks, metric))
	}
	return charts, nil
}

// sweepGlyph is the marker of the i-th protocol's line.
func sweepGlyph(i int) draw.GlyphDrawer {
	switch i % 4 {
	case 0:
		return draw.CircleGlyph{}
	case 1:
		return draw.TriangleGlyph{}
	case 2:
		return draw.SquareGlyph{}
	}
	return draw.CrossGlyph{}
}

// metricUnit is the y-axis unit of a metric (sim.MetricTable).
func metricUnit(metric string) string {
	for _, m := range sim.MetricTable() {
		if m.Name == metric {
			return m.Unit
		}
	}
	return "count"
}

// paramAxis places the values of a varied path on the x axis: at their
// numbers (durations in seconds) when they all are numbers, on a log scale
// when they span a factor of ten or more, else evenly in grid order.
type paramAxis struct {
	values []string
	pos    []float64
	log    bool
	// numeric reports whether positions are the values themselves.
	numeric bool
}

func newParamAxis(values []string) paramAxis {
	a := paramAxis{values: values, pos: make([]float64, len(values)), numeric: true}
	lo, hi := math.Inf(1), math.Inf(-1)
	for i, v := range values {
		x, ok := numericValue(v)
		if !ok {
			a.numeric = false
			break
		}
		a.pos[i] = x
		lo, hi = min(lo, x), max(hi, x)
	}
	if !a.numeric {
		for i := range a.pos {
			a.pos[i] = float64(i)
		}
		return a
	}
	a.log = lo > 0 && hi/lo >= 10
	return a
}

// numericValue reads a value as a number: a plain number, or a duration
// in seconds.
func numericValue(v string) (float64, bool) {
	if x, err := strconv.ParseFloat(strings.ReplaceAll(v, "_", ""), 64); err == nil && !math.IsNaN(x) && !math.IsInf(x, 0) {
		return x, true
	}
	if d, err := time.ParseDuration(v); err == nil {
		return d.Seconds(), true
	}
	return 0, false
}

func (a paramAxis) apply(p *plot.Plot) {
	ticks := make([]plot.Tick, len(a.values))
	for i, v := range a.values {
		ticks[i] = plot.Tick{Value: a.pos[i], Label: v}
	}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, x := range a.pos {
		lo, hi = min(lo, x), max(hi, x)
	}
	switch {
	case a.log:
		p.X.Scale = plot.LogScale{}
		p.X.Min, p.X.Max = lo/math.Pow(hi/lo, 0.05), hi*math.Pow(hi/lo, 0.05)
	case hi > lo:
		pad := (hi - lo) * 0.05
		p.X.Min, p.X.Max = lo-pad, hi+pad
	default:
		p.X.Min, p.X.Max = lo-1, hi+1
	}
}

// sweepSeries is one protocol's statistics along a varied path in one panel.
type sweepSeries struct {
	xs, mean, p10, p90 []float64
}

// band fills the area between two lines: the p10–p90 spread.
type band struct {
	xs, lo, hi []float64
	fill       color.Color
	edge       draw.LineStyle
}

func (b band) Plot(c draw.Canvas, p *plot.Plot) {
	xf, yf := p.Transforms(&c)
	if len(b.xs) == 0 {
		return
	}
	lo, hi := make([]vg.Point, len(b.xs)), make([]vg.Point, len(b.xs))
	for i, x := range b.xs {
		lo[i] = vg.Point{X: xf(x), Y: yf(b.lo[i])}
		hi[i] = vg.Point{X: xf(x), Y: yf(b.hi[i])}
	}
	// The area runs along the low line and back along the high one.
	area := slices.Concat(lo, hi)
	slices.Reverse(area[len(lo):])
	c.FillPolygon(b.fill, c.ClipPolygonXY(area))
	c.StrokeLines(b.edge, c.ClipLinesXY(lo)...)
	c.StrokeLines(b.edge, c.ClipLinesXY(hi)...)
}

func (b band) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, ymin = math.Inf(1), math.Inf(1)
	xmax, ymax = math.Inf(-1), math.Inf(-1)
	for i, x := range b.xs {
		xmin, xmax = min(xmin, x), max(xmax, x)
		ymin, ymax = min(ymin, b.lo[i]), max(ymax, b.hi[i])
	}
	return
}

// translucent is c at the given opacity.
func translucent(c color.RGBA, alpha uint8) color.NRGBA {
	return color.NRGBA{R: c.R, G: c.G, B: c.B, A: alpha}
}

func finite(v Number) bool { f := float64(v); return !math.IsNaN(f) && !math.IsInf(f, 0) }

func sweepLineChart(s *Sweep, looks []protocolLook, metric string, param int) Chart {
	k := s.metricIndex(metric)
	axis := newParamAxis(sweepParamValues(s, param))
	at := map[string]int{}
	for i, v := range axis.values {
		at[v] = i
	}
	// Panels: the combinations of the other varied values, in grid order.
	type panel struct {
		label  string
		series []sweepSeries
	}
	var panels []*panel
	byKey := map[string]*panel{}
	for _, pt := range s.Points {
		var others []string
		for j, v := range pt.Values {
			if j != param {
				others = append(others, s.Params[j]+"="+v)
			}
		}
		key := strings.Join(others, ", ")
		pn := byKey[key]
		if pn == nil {
			pn = &panel{label: key, series: make([]sweepSeries, len(s.Protocols))}
			byKey[key] = pn
			panels = append(panels, pn)
		}
		x := axis.pos[at[pt.Values[param]]]
		for i, c := range pt.Protocols {
			st := c.Metrics[k]
			if !finite(st.Mean) || !finite(st.P10) || !finite(st.P90) {
				continue
			}
			sr := &pn.series[i]
			sr.xs = append(sr.xs, x)
			sr.mean = append(sr.mean, float64(st.Mean))
			sr.p10 = append(sr.p10, float64(st.P10))
			sr.p90 = append(sr.p90, float64(st.P90))
		}
	}
	shown := panels
	if len(shown) > maxSweepPanels {
		shown = shown[:maxSweepPanels]
	}
	// Every panel's axis is set from the values of all of them, so that
	// the panels share one scale (valueAxis: one outlier of 1.9M over a
	// few hundreds puts it on a log axis, where the small ones stay
	// readable).
	var drawn []float64
	for _, pn := range shown {
		for _, sr := range pn.series {
			drawn = slices.Concat(drawn, sr.p10, sr.mean, sr.p90)
		}
	}
	xLabel := s.Params[param]
	if axis.log {
		xLabel += " (log scale)"
	}
	var plots []*plot.Plot
	for _, pn := range shown {
		p := newPlot(xLabel, metricUnit(metric))
		if len(shown) > 1 || pn.label != "" {
			p.Title.Text = pn.label
			p.Title.TextStyle = textStyle(axisSize)
			p.Title.TextStyle.XAlign, p.Title.TextStyle.YAlign = draw.XCenter, draw.YTop
			p.Title.Padding = vg.Points(6)
		}
		p.Add(grid(true))
		for i, sr := range pn.series {
			if len(sr.xs) == 0 {
				continue
			}
			edge := looks[i].line(vg.Points(0.8))
			p.Add(band{xs: sr.xs, lo: sr.p10, hi: sr.p90, fill: translucent(looks[i].color, 0x30), edge: edge})
		}
		for i, sr := range pn.series {
			if len(sr.xs) == 0 {
				continue
			}
			xys := make(plotter.XYs, len(sr.xs))
			for n := range sr.xs {
				xys[n] = plotter.XY{X: sr.xs[n], Y: sr.mean[n]}
			}
			l, pts, err := plotter.NewLinePoints(xys)
			if err != nil {
				continue
			}
			l.LineStyle = looks[i].line(vg.Points(lineWidth))
			pts.GlyphStyle = draw.GlyphStyle{Color: looks[i].color, Radius: vg.Points(4.5), Shape: sweepGlyph(i)}
			// Between values that are not numbers (true and false, range
			// and sticky) there is nothing for a line to pass through.
			if axis.numeric {
				p.Add(l)
			}
			p.Add(pts)
		}
		axis.apply(p)
		valueAxis(p, drawn)
		plots = append(plots, p)
	}
	legend := []legendItem{{name: "protocol (mean)"}}
	for i, name := range s.Protocols {
		legend = append(legend, legendItem{name: name, thumb: lineGlyphThumb{line: looks[i].line(vg.Points(lineWidth)),
			glyph: draw.GlyphStyle{Color: looks[i].color, Radius: vg.Points(4.5), Shape: sweepGlyph(i)}}})
	}
	legend = append(legend, legendItem{name: "band: p10 to p90", thumb: swatch(fillLook{fill: lighten(rgb(0x777777), 0.75)})})
	subtitle := orUnknownName(s.Scenario.Name) + ": mean over " + itoa(s.Seeds) + " seeds per point, band from p10 to p90"
	if len(panels) > len(shown) {
		subtitle += " (first " + itoa(len(shown)) + " of " + itoa(len(panels)) + " panels; stats.csv has all)"
	}
	title := metric + " vs " + s.Params[param]
	return Chart{
		Name:  "sweep-" + fileSafe(metric) + "-vs-" + fileSafe(s.Params[param]),
		Title: title,
		Caption: "One line per protocol through the mean of " + metric + " over the seeds at each value of " + s.Params[param] +
			", in a band from the 10th to the 90th percentile: the band's top is how bad one run in ten gets." + panelsCaption(len(shown)),
		Width:  chartWidth,
		Height: chartHeight,
		Render: figure{
			title:    title,
			subtitle: subtitle,
			legend:   legend,
			body: func(c draw.Canvas) {
				cols := min(len(plots), 3)
				rows := (len(plots) + cols - 1) / cols
				tiles := draw.Tiles{Rows: rows, Cols: cols, PadX: vg.Points(20), PadY: vg.Points(16)}
				for i, p := range plots {
					p.Draw(tiles.At(c, i%cols, i/cols))
				}
			},
		}.draw,
	}
}

func panelsCaption(n int) string {
	if n <= 1 {
		return ""
	}
	return " One panel per combination of the other varied values, all on the same scale."
}

// lineGlyphThumb is a legend sample of a line with its marker.
type lineGlyphThumb struct {
	line  draw.LineStyle
	glyph draw.GlyphStyle
}

func (t lineGlyphThumb) Thumbnail(c *draw.Canvas) {
	y := c.Center().Y
	c.StrokeLine2(t.line, c.Min.X, y, c.Max.X, y)
	c.DrawGlyph(t.glyph, c.Center())
}

// boxes draws, at each grid point, one box per protocol: the middle half
// of the runs (p25 to p75) with the median across it, whiskers from p10
// to p90, and a dot at the worst run.
type boxes struct {
	stats [][]SweepStats // [point][protocol]
	looks []protocolLook
}

func (b boxes) DataRange() (xmin, xmax, ymin, ymax float64) {
	top := 0.0
	for _, pt := range b.stats {
		for _, st := range pt {
			if finite(st.Max) {
				top = max(top, float64(st.Max))
			}
		}
	}
	if top <= 0 {
		top = 1
	}
	return -0.5, float64(len(b.stats)) - 0.5, 0, top * 1.08
}

func (b boxes) Plot(c draw.Canvas, p *plot.Plot) {
	xf, yf := p.Transforms(&c)
	n := len(b.looks)
	slot := (xf(1) - xf(0)) * 0.84 / vg.Length(max(n, 1))
	half := slot * 0.36
	for g, pt := range b.stats {
		for i, st := range pt {
			if !finite(st.P25) || !finite(st.P75) || !finite(st.Median) {
				continue
			}
			x := xf(float64(g)) + (vg.Length(i)-vg.Length(n-1)/2)*slot
			look := b.looks[i]
			ink := draw.LineStyle{Color: look.color, Width: vg.Points(1.2)}
			// Whiskers with caps.
			c.StrokeLine2(ink, x, yf(float64(st.P10)), x, yf(float64(st.P25)))
			c.StrokeLine2(ink, x, yf(float64(st.P75)), x, yf(float64(st.P90)))
			for _, y := range []Number{st.P10, st.P90} {
				c.StrokeLine2(ink, x-half/2, yf(float64(y)), x+half/2, yf(float64(y)))
			}
			box := vg.Rectangle{Min: vg.Point{X: x - half, Y: yf(float64(st.P25))}, Max: vg.Point{X: x + half, Y: yf(float64(st.P75))}}
			if box.Max.Y-box.Min.Y < vg.Points(1) {
				box.Max.Y = box.Min.Y + vg.Points(1)
			}
			c.FillPolygon(lighten(look.color, 0.55), rectPoints(box))
			c.StrokeLines(ink, append(rectPoints(box), box.Min))
			c.StrokeLine2(draw.LineStyle{Color: rgb(inkHex), Width: vg.Points(2.2)}, x-half, yf(float64(st.Median)), x+half, yf(float64(st.Median)))
			c.DrawGlyph(draw.GlyphStyle{Color: look.color, Radius: vg.Points(3), Shape: sweepGlyph(i)}, vg.Point{X: x, Y: yf(float64(st.Max))})
		}
	}
}

func sweepBoxChart(s *Sweep, looks []protocolLook, metric string) Chart {
	k := s.metricIndex(metric)
	points := s.Points
	if len(points) > maxBoxPoints {
		points = points[:maxBoxPoints]
	}
	b := boxes{looks: looks}
	var ticks []plot.Tick
	every := (len(points) + 15) / 16 // at most 16 labels
	for g, pt := range points {
		var row []SweepStats
		for _, c := range pt.Protocols {
			row = append(row, c.Metrics[k])
		}
		b.stats = append(b.stats, row)
		label := ""
		if g%max(every, 1) == 0 {
			label = strings.Join(pt.Values, ", ")
			if label == "" {
				label = "as written"
			}
		}
		ticks = append(ticks, plot.Tick{Value: float64(g), Label: label})
	}
	xLabel := "grid point"
	if len(s.Params) > 0 {
		xLabel = strings.Join(s.Params, ", ")
	}
	p := newPlot(xLabel, metricUnit(metric))
	p.Add(grid(false), b)
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	// One worst run of 1.9M over medians of hundreds flattens a linear
	// axis; valueAxis puts such a spread on a log one.
	var drawn []float64
	for _, row := range b.stats {
		for _, st := range row {
			if finite(st.P10) && finite(st.Max) {
				drawn = append(drawn, float64(st.P10), float64(st.Max))
			}
		}
	}
	valueAxis(p, drawn)
	legend := []legendItem{{name: "protocol"}}
	for i, name := range s.Protocols {
		legend = append(legend, legendItem{name: name, thumb: swatch(fillLook{fill: lighten(looks[i].color, 0.55)})})
	}
	subtitle := orUnknownName(s.Scenario.Name) + ": " + itoa(s.Seeds) + " seeds per box; box p25 to p75, bar median, whiskers p10 to p90, marker the worst run"
	if len(points) < len(s.Points) {
		subtitle += " (first " + itoa(len(points)) + " of " + itoa(len(s.Points)) + " points)"
	}
	title := metric + " at each grid point"
	return plotChart("sweep-"+fileSafe(metric)+"-box", title, subtitle,
		"At each grid point, one box per protocol over the seeds: the box holds the middle half of the runs, the dark bar is the median, the whiskers reach the 10th and 90th percentiles, and the marker is the worst run.", legend, p)
}

package report

import (
	"image/color"
	"math"
	"slices"
	"strconv"
	"strings"

	xfont "golang.org/x/image/font"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/rebalsim/rebalsim/sim"
)

// Every chart is a 16:9 slide: 12 × 6.75 inches, so that 12-point text is
// 12 points when the image fills a slide. No text is smaller than that.
const (
	chartWidth  = 12 * vg.Inch
	chartHeight = 6.75 * vg.Inch

	titleSize    = 18
	subtitleSize = 13
	axisSize     = 14
	tickSize     = 12
	legendSize   = 12
	noteSize     = 12
)

// sans is Liberation Sans, which gonum/plot embeds: a chart renders the
// same on every machine, with no system font involved.
func sans(size vg.Length) font.Font {
	return font.Font{Typeface: "Liberation", Variant: "Sans", Size: size}
}

func textStyle(size vg.Length) text.Style {
	return text.Style{
		Color:   rgb(inkHex),
		Font:    sans(size),
		Handler: plot.DefaultTextHandler,
	}
}

// legendItem is one line of a side legend: a name with a sample of its
// look, or a heading when thumb is nil.
type legendItem struct {
	name  string
	thumb plot.Thumbnailer
}

// figure lays out a chart: title and subtitle across the top, a legend in
// a column on the right (outside the data, so it never hides any), and the
// body in the rest.
type figure struct {
	title    string
	subtitle string
	legend   []legendItem
	body     func(c draw.Canvas)
}

func (f figure) draw(c draw.Canvas) {
	c.SetColor(color.White)
	c.Fill(c.Rectangle.Path())
	c = draw.Crop(c, vg.Points(10), -vg.Points(10), vg.Points(8), -vg.Points(10))

	title := textStyle(titleSize)
	title.Font.Weight = xfont.WeightBold
	title.XAlign, title.YAlign = draw.XCenter, draw.YTop
	c.FillText(title, vg.Point{X: c.Center().X, Y: c.Max.Y}, f.title)
	c.Max.Y -= title.Height(f.title) + vg.Points(4)
	if f.subtitle != "" {
		sub := textStyle(subtitleSize)
		sub.Color = rgb(0x444444)
		sub.XAlign, sub.YAlign = draw.XCenter, draw.YTop
		c.FillText(sub, vg.Point{X: c.Center().X, Y: c.Max.Y}, f.subtitle)
		c.Max.Y -= sub.Height(f.subtitle)
	}
	c.Max.Y -= vg.Points(8)

	if len(f.legend) > 0 {
		leg := plot.NewLegend()
		leg.TextStyle = textStyle(legendSize)
		leg.Top, leg.Left = true, true
		leg.ThumbnailWidth = vg.Points(26)
		leg.Padding = vg.Points(5)
		width := vg.Length(0)
		for _, it := range f.legend {
			width = max(width, leg.TextStyle.Width(it.name))
			if it.thumb == nil {
				leg.Add(it.name)
			} else {
				leg.Add(it.name, it.thumb)
			}
		}
		width += leg.ThumbnailWidth + leg.TextStyle.Width(" ") + vg.Points(6)
		width = min(width, (c.Max.X-c.Min.X)*0.3)
		legC := c
		legC.Min.X = c.Max.X - width
		legC.Max.Y -= vg.Points(12)
		leg.Draw(legC)
		c.Max.X = legC.Min.X - vg.Points(12)
	}
	f.body(c)
}

// fitLegend keeps a legend within what a chart's height can show: items
// past the limit become one "… and N more" line.
func fitLegend(items []legendItem, limit int, what string) []legendItem {
	if len(items) <= limit {
		return items
	}
	rest := len(items) - (limit - 1)
	return append(items[:limit-1:limit-1], legendItem{name: "… and " + itoa(rest) + " more " + what})
}

// newPlot returns a plot styled for slides: no title (the figure has one),
// large axis labels and tick labels, and a light grid.
func newPlot(xLabel, yLabel string) *plot.Plot {
	p := plot.New()
	p.BackgroundColor = nil // the figure paints the background once
	for _, ax := range []*plot.Axis{&p.X, &p.Y} {
		ax.Label.TextStyle.Font = sans(axisSize)
		ax.Label.TextStyle.Color = rgb(inkHex)
		ax.Tick.Label.Font = sans(tickSize)
		ax.Tick.Label.Color = rgb(inkHex)
		ax.Label.Padding = vg.Points(4)
	}
	p.X.Label.Text = xLabel
	p.Y.Label.Text = yLabel
	return p
}

// grid draws light reference lines behind the data.
func grid(vertical bool) *plotter.Grid {
	g := plotter.NewGrid()
	g.Horizontal.Color = rgb(0xDDDDDD)
	g.Horizontal.Width = vg.Points(0.6)
	g.Vertical.Color = rgb(0xDDDDDD)
	g.Vertical.Width = vg.Points(0.6)
	if !vertical {
		g.Vertical.Color = nil // gonum draws no line without a colour
	}
	return g
}

// countTicks labels an axis of counts or records compactly (12k, 1.5M):
// gonum's default would print 1.5e+06, which nobody reads at a glance. A
// log axis gets its ticks at powers of ten (logTicks), and bottom, when
// set, labels its lowest one instead (valueAxis: "0" where zeros are
// drawn).
type countTicks struct {
	log    bool
	bottom string
}

func (ct countTicks) Ticks(lo, hi float64) []plot.Tick {
	if ct.log {
		ticks := logTicks(lo, hi)
		if ct.bottom != "" && len(ticks) > 0 && math.Abs(ticks[0].Value-lo) <= 1e-9*lo {
			ticks[0].Label = ct.bottom
		}
		return ticks
	}
	ticks := plot.DefaultTicks{}.Ticks(lo, hi)
	for i := range ticks {
		if ticks[i].Label != "" {
			ticks[i].Label = compactNumber(ticks[i].Value)
		}
	}
	return ticks
}

func compactNumber(v float64) string {
	a := math.Abs(v)
	switch {
	case a > 0 && a < 0.01:
		// A log axis of latency reaches milliseconds and below, which
		// two decimals would print as 0.
		return strconv.FormatFloat(v, 'g', 3, 64)
	case a >= 1e9:
		return trimFloat(v/1e9) + "G"
	case a >= 1e6:
		return trimFloat(v/1e6) + "M"
	case a >= 1e4:
		return trimFloat(v/1e3) + "k"
	}
	return trimFloat(v)
}

func trimFloat(v float64) string {
	s := formatFixed(v, 2)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

func itoa(n int) string { return formatFixed(float64(n), 0) }

// fillRect paints r with look: the colour, then the hatching, then the
// outline. Hatch lines sit on a grid fixed to the canvas origin, so two
// adjacent rectangles continue each other's pattern.
func fillRect(c *draw.Canvas, r vg.Rectangle, look fillLook) {
	if r.Max.X <= r.Min.X || r.Max.Y <= r.Min.Y {
		return
	}
	c.FillPolygon(look.fill, rectPoints(r))
	if look.hatch != hatchNone {
		sty := draw.LineStyle{Color: look.hatchColor, Width: vg.Points(0.9)}
		if look.hatch == hatchDiagonal || look.hatch == hatchCross {
			hatchLines(c, r, sty, +1)
		}
		if look.hatch == hatchBackDiagonal || look.hatch == hatchCross {
			hatchLines(c, r, sty, -1)
		}
	}
	if look.outline {
		c.StrokeLines(draw.LineStyle{Color: rgb(0x999999), Width: vg.Points(0.5)},
			append(rectPoints(r), r.Min))
	}
}

func rectPoints(r vg.Rectangle) []vg.Point {
	return []vg.Point{r.Min, {X: r.Max.X, Y: r.Min.Y}, r.Max, {X: r.Min.X, Y: r.Max.Y}}
}

// hatchLines draws the 45° lines x - dir·y = k·spacing that cross r.
func hatchLines(c *draw.Canvas, r vg.Rectangle, sty draw.LineStyle, dir float64) {
	const spacing = 6.0
	x0, x1 := float64(r.Min.X), float64(r.Max.X)
	y0, y1 := float64(r.Min.Y), float64(r.Max.Y)
	// Range of x - dir·y over the rectangle.
	lo, hi := x0-dir*y1, x1-dir*y0
	if dir < 0 {
		lo, hi = x0+y0, x1+y1
	}
	for k := math.Ceil(lo / spacing); k*spacing <= hi; k++ {
		off := k * spacing
		// x = off + dir·y, clipped to x0 ≤ x ≤ x1 and y0 ≤ y ≤ y1.
		ya, yb := (x0-off)/dir, (x1-off)/dir
		if ya > yb {
			ya, yb = yb, ya
		}
		ya, yb = max(ya, y0), min(yb, y1)
		if yb <= ya {
			continue
		}
		c.StrokeLine2(sty, vg.Length(off+dir*ya), vg.Length(ya), vg.Length(off+dir*yb), vg.Length(yb))
	}
}

// swatch is a legend thumbnail for a filled area.
type swatch fillLook

func (s swatch) Thumbnail(c *draw.Canvas) {
	r := c.Rectangle
	h := r.Max.Y - r.Min.Y
	r.Min.Y += h * 0.1
	r.Max.Y -= h * 0.1
	look := fillLook(s)
	look.outline = true
	fillRect(c, r, look)
}

// lineThumb is a legend thumbnail for a line style, drawn thick enough to
// show its dash pattern.
type lineThumb draw.LineStyle

func (l lineThumb) Thumbnail(c *draw.Canvas) {
	y := c.Center().Y
	c.StrokeLine2(draw.LineStyle(l), c.Min.X, y, c.Max.X, y)
}

// Disturbances are drawn in two layers: shaded bands for those that last
// (a pause, a restart's downtime) under the data, and dashed lines with
// labels at their start over it.

type disturbanceBands []sim.Disturbance

func (ds disturbanceBands) Plot(c draw.Canvas, p *plot.Plot) {
	xf, _ := p.Transforms(&c)
	shade := color.NRGBA{R: 0x80, G: 0x80, B: 0x80, A: 0x30}
	for _, d := range ds {
		if d.End <= d.Start {
			continue
		}
		r := vg.Rectangle{Min: vg.Point{X: max(xf(d.Start), c.Min.X), Y: c.Min.Y}, Max: vg.Point{X: min(xf(d.End), c.Max.X), Y: c.Max.Y}}
		if r.Max.X > r.Min.X {
			c.FillPolygon(shade, rectPoints(r))
		}
	}
}

type disturbanceLines struct {
	ds []sim.Disturbance
}

// disturbanceMarks marks when each disturbance began.
func disturbanceMarks(ds []sim.Disturbance) disturbanceLines { return disturbanceLines{ds: ds} }

// markSpacing is the least distance between two disturbance marks: ten
// pixels of the PNG. Closer starts share one mark of a rug.
const markSpacing = vg.Length(10 * 72.0 / pngDPI)

// rugMark is one mark of the disturbance rug: the starts that fall in one
// markSpacing-wide bin of the time axis.
type rugMark struct {
	x     vg.Length
	count int
}

// disturbanceRug bins the starts at xs (ascending or not) into bins of
// markSpacing from x0 to x1: at most one mark per ten pixels, each with its
// count, so that a rolling restart of 200 members is a rug, not a barcode.
// It returns nil when every start is already a mark's width from the next
// (few disturbances: each gets its own dashed line).
func disturbanceRug(xs []vg.Length, x0, x1 vg.Length) []rugMark {
	bins := map[int]int{}
	var order []int
	spread := true
	sorted := slices.Clone(xs)
	slices.Sort(sorted)
	for i, x := range sorted {
		if x < x0 || x > x1 {
			continue
		}
		if i > 0 && x-sorted[i-1] < markSpacing {
			spread = false
		}
		b := int((x - x0) / markSpacing)
		if bins[b] == 0 {
			order = append(order, b)
		}
		bins[b]++
	}
	if spread {
		return nil
	}
	marks := make([]rugMark, 0, len(order))
	for _, b := range order {
		marks = append(marks, rugMark{x: x0 + (vg.Length(b)+0.5)*markSpacing, count: bins[b]})
	}
	return marks
}

func (m disturbanceLines) Plot(c draw.Canvas, p *plot.Plot) {
	xf, _ := p.Transforms(&c)
	line := draw.LineStyle{Color: rgb(0x333333), Width: vg.Points(1.2), Dashes: []vg.Length{vg.Points(5), vg.Points(3)}}
	xs := make([]vg.Length, len(m.ds))
	for i, d := range m.ds {
		xs[i] = xf(d.Start)
	}
	rug := disturbanceRug(xs, c.Min.X, c.Max.X)
	if rug == nil {
		for _, x := range xs {
			if c.ContainsX(x) {
				c.StrokeLine2(line, x, c.Min.Y, x, c.Max.Y)
			}
		}
	}
	// A rug hangs from the top edge: each mark's length grows with the
	// log of its count, from 5 points for one start.
	most := 1
	for _, r := range rug {
		most = max(most, r.count)
	}
	tick := draw.LineStyle{Color: rgb(0x333333), Width: vg.Points(1.5)}
	for _, r := range rug {
		h := vg.Points(5) + vg.Points(10)*vg.Length(math.Log(float64(r.count))/math.Log(float64(most)+1))
		c.StrokeLine2(tick, r.x, c.Max.Y, r.x, c.Max.Y-h)
	}

	// Labels go in up to three rows along the top; a label that fits in no
	// row is left out and counted, and the count is shown.
	sty := textStyle(noteSize)
	sty.YAlign = draw.YTop
	rowH := sty.Height("Mg") + vg.Points(3)
	if rug != nil {
		// Labels start below the rug.
		c.Max.Y -= vg.Points(16)
	}
	var rowEnd [3]vg.Length
	for i := range rowEnd {
		rowEnd[i] = c.Min.X - 1e6
	}
	omitted := 0
	for _, g := range labelGroups(m.ds) {
		x := xf(g.start)
		if !c.ContainsX(x) {
			continue
		}
		w := sty.Width(g.label)
		left := x + vg.Points(3)
		if left+w > c.Max.X {
			left = x - vg.Points(3) - w
		}
		placed := false
		for row := range rowEnd {
			if left > rowEnd[row]+vg.Points(6) {
				y := c.Max.Y - vg.Points(2) - vg.Length(row)*rowH
				box := vg.Rectangle{Min: vg.Point{X: left - vg.Points(2), Y: y - rowH + vg.Points(2)}, Max: vg.Point{X: left + w + vg.Points(2), Y: y + vg.Points(1)}}
				c.FillPolygon(color.NRGBA{R: 255, G: 255, B: 255, A: 0xD8}, rectPoints(box))
				c.FillText(sty, vg.Point{X: left, Y: y}, g.label)
				rowEnd[row] = left + w
				placed = true
				break
			}
		}
		if !placed {
			omitted++
		}
	}
	if omitted > 0 {
		note := textStyle(noteSize)
		note.XAlign, note.YAlign = draw.XRight, draw.YBottom
		note.Color = rgb(0x555555)
		c.FillText(note, vg.Point{X: c.Max.X - vg.Points(4), Y: c.Min.Y + vg.Points(4)},
			"("+itoa(omitted)+" disturbance labels left out for space)")
	}
	if rug != nil {
		note := textStyle(noteSize)
		note.XAlign, note.YAlign = draw.XRight, draw.YTop
		note.Color = rgb(0x555555)
		txt := itoa(len(m.ds)) + " disturbances: a tick per 10 px in which some began"
		if note.Width(txt) > (c.Max.X-c.Min.X)*0.6 {
			// A half-width panel: the long form would run over the axis.
			txt = itoa(len(m.ds)) + " disturbances, a tick per 10 px"
		}
		w := note.Width(txt)
		at := vg.Point{X: c.Max.X - vg.Points(4), Y: c.Max.Y - vg.Points(2)}
		c.FillPolygon(color.NRGBA{R: 255, G: 255, B: 255, A: 0xD8}, rectPoints(vg.Rectangle{Min: vg.Point{X: at.X - w - vg.Points(2), Y: at.Y - rowH + vg.Points(2)}, Max: vg.Point{X: at.X + vg.Points(2), Y: at.Y + vg.Points(1)}}))
		c.FillText(note, at, txt)
	}
}

// labelGroup is one label for one or more consecutive disturbances.
type labelGroup struct {
	start float64
	label string
}

// labelGroups labels a run of three or more consecutive disturbances of
// one kind once, as "rolling restart ×20", at the first of them: a rolling
// restart of a large group would otherwise be a wall of overlapping names.
func labelGroups(ds []sim.Disturbance) []labelGroup {
	var out []labelGroup
	for i := 0; i < len(ds); {
		j := i + 1
		for j < len(ds) && ds[j].Kind == ds[i].Kind {
			j++
		}
		if j-i >= 3 {
			prefix := commonWordPrefix(ds[i:j])
			if prefix == "" {
				prefix = ds[i].Kind
			}
			out = append(out, labelGroup{start: ds[i].Start, label: prefix + " ×" + itoa(j-i)})
		} else {
			for _, d := range ds[i:j] {
				label := d.Label
				if label == "" {
					label = d.Kind
				}
				out = append(out, labelGroup{start: d.Start, label: label})
			}
		}
		i = j
	}
	return out
}

func commonWordPrefix(ds []sim.Disturbance) string {
	words := strings.Fields(ds[0].Label)
	n := len(words)
	for _, d := range ds[1:] {
		other := strings.Fields(d.Label)
		k := 0
		for k < n && k < len(other) && other[k] == words[k] {
			k++
		}
		n = k
	}
	return strings.Join(words[:n], " ")
}

// plotChart is a slide-sized chart of one plot under a title, a subtitle
// and a legend: the shape of every chart but the multi-panel ones.
func plotChart(name, title, subtitle, caption string, legend []legendItem, p *plot.Plot) Chart {
	return Chart{
		Name: name, Title: title, Caption: caption, Width: chartWidth, Height: chartHeight, Plot: p,
		Render: figure{title: title, subtitle: subtitle, legend: legend, body: func(c draw.Canvas) { p.Draw(c) }}.draw,
	}
}

package report

import (
	"fmt"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// The ownership timeline and the member swim lanes are the same kind of
// picture: rows of coloured bars over virtual time. lanes draws both.

// maxLabelledRows is how many row names fit on the vertical axis of a
// slide at 12 points; with more rows, every k-th row is named.
const maxLabelledRows = 24

// laneBar is one stretch of one row.
type laneBar struct {
	start, end float64
	look       fillLook
	// interruption bars (a partition nobody processes, a member not
	// processing) are drawn over the ordinary ones, so that a stop
	// shorter than a pixel still shows as one pixel.
	interruption bool
	// urgent bars (double ownership, fencing) are drawn last, over the
	// others, and a heatmap paints the whole cell they touch: no scale may
	// hide a safety problem.
	urgent bool
}

// minBarWidth is one pixel of the PNG: a bar shorter than that is drawn a
// pixel wide, as a heatmap would colour the pixel it falls in, and no
// wider, so that nothing is drawn much longer than it lasted.
const minBarWidth = vg.Length(72.0 / pngDPI)

// lanes is a gonum/plot Plotter; row 0 is drawn at the top. Rows become a
// binned heatmap when they outnumber what bars can show (binnedLanes).
// Only the time from start to end (the measurement window) is drawn.
type lanes struct {
	rows       [][]laneBar
	start, end float64
}

func (l lanes) DataRange() (xmin, xmax, ymin, ymax float64) {
	return l.start, l.end, -0.5, float64(len(l.rows)) - 0.5
}

func (l lanes) Plot(c draw.Canvas, p *plot.Plot) {
	if binnedLanes(l.rows) {
		l.plotBinned(c, p)
		return
	}
	xf, yf := p.Transforms(&c)
	n := len(l.rows)
	// Bars fill 84% of a row; thin rows touch, which reads as a band, as
	// it should.
	half := 0.42
	if n > 60 {
		half = 0.5
	}
	// Ordinary bars, then interruptions, then urgent bars.
	layer := func(b laneBar) int {
		switch {
		case b.urgent:
			return 2
		case b.interruption:
			return 1
		}
		return 0
	}
	for want := range 3 {
		for i, row := range l.rows {
			y := float64(n - 1 - i)
			y0, y1 := yf(y-half), yf(y+half)
			for _, b := range row {
				// A zero-length stretch (a rebalance the member went
				// through without stopping) lasted nothing and is not
				// drawn, nor is one outside the window.
				if layer(b) != want || b.end <= b.start || b.end <= l.start || b.start >= l.end {
					continue
				}
				x0, x1 := max(xf(b.start), c.Min.X), min(xf(b.end), c.Max.X)
				if x1-x0 < minBarWidth {
					x1 = x0 + minBarWidth
				}
				fillRect(&c, vg.Rectangle{Min: vg.Point{X: x0, Y: y0}, Max: vg.Point{X: x1, Y: y1}}, b.look)
			}
		}
	}
}

// lanePlot sets up a plot for n rows named by names (top row first), over
// the time from start to end.
func lanePlot(names []string, start, end float64, yLabel string) *plot.Plot {
	p := newPlot("", yLabel)
	n := len(names)
	timeAxis(p, start, end)
	p.Y.Min, p.Y.Max = -0.5, float64(n)-0.5
	p.Y.Padding = 0
	p.X.Padding = 0
	every := (n + maxLabelledRows - 1) / maxLabelledRows
	var ticks []plot.Tick
	for i, name := range names {
		if i%max(every, 1) == 0 {
			ticks = append(ticks, plot.Tick{Value: float64(n - 1 - i), Label: name})
		}
	}
	p.Y.Tick.Marker = plot.ConstantTicks(ticks)
	p.Y.Tick.Length = vg.Points(3)
	return p
}

// lanesNote says what the rows are and how they are drawn.
func lanesNote(total int, noun, how string, binned bool) string {
	if binned {
		return fmt.Sprintf("%d %s%s, binned: shade is the share of time in each state", total, noun, how)
	}
	return fmt.Sprintf("%d %s, one row each%s", total, noun, how)
}

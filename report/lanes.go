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
	// processing) are drawn over the ordinary ones and at least
	// minInterruptionWidth wide: a sub-second stop of every partition is
	// the point of an eager timeline, and must not vanish at the scale of
	// minutes.
	interruption bool
	// urgent bars (double ownership, fencing) are drawn last and at least
	// minUrgentWidth wide, so that no scale can hide a safety problem.
	urgent bool
}

const (
	minInterruptionWidth = 3   // points
	minUrgentWidth       = 2.5 // points
)

// lanes is a gonum/plot Plotter; row 0 is drawn at the top.
type lanes struct {
	rows [][]laneBar
	end  float64
}

func (l lanes) DataRange() (xmin, xmax, ymin, ymax float64) {
	return 0, l.end, -0.5, float64(len(l.rows)) - 0.5
}

func (l lanes) Plot(c draw.Canvas, p *plot.Plot) {
	xf, yf := p.Transforms(&c)
	n := len(l.rows)
	// Bars fill 84% of a row; thin rows (sampled hundreds) touch, which
	// reads as a band, as it should.
	half := 0.42
	if n > 60 {
		half = 0.5
	}
	// Three layers: ordinary bars, then interruptions, then urgent bars,
	// each of the last two widened to its minimum if the scale shrinks it.
	layer := func(b laneBar) int {
		switch {
		case b.urgent:
			return 2
		case b.interruption:
			return 1
		}
		return 0
	}
	minWidth := [...]vg.Length{0, vg.Points(minInterruptionWidth), vg.Points(minUrgentWidth)}
	for want := 0; want < 3; want++ {
		for i, row := range l.rows {
			y := float64(n - 1 - i)
			y0, y1 := yf(y-half), yf(y+half)
			for _, b := range row {
				if layer(b) != want {
					continue
				}
				x0, x1 := max(xf(b.start), c.Min.X), min(xf(b.end), c.Max.X)
				if w := minWidth[want]; x1-x0 < w {
					mid := (x0 + x1) / 2
					x0, x1 = mid-w/2, mid+w/2
				}
				fillRect(&c, vg.Rectangle{Min: vg.Point{X: x0, Y: y0}, Max: vg.Point{X: x1, Y: y1}}, b.look)
			}
		}
	}
}

// lanePlot sets up a plot for n rows named by names (top row first).
func lanePlot(names []string, end float64, yLabel string) *plot.Plot {
	p := newPlot("virtual time (s)", yLabel)
	n := len(names)
	p.X.Min, p.X.Max = 0, end
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

// sampleRows picks at most limit of n rows, evenly spread, keeping the
// first and last so that the extremes of the order stay visible.
func sampleRows(n, limit int) []int {
	if n <= limit {
		idx := make([]int, n)
		for i := range idx {
			idx[i] = i
		}
		return idx
	}
	idx := make([]int, limit)
	for i := range idx {
		idx[i] = int(float64(i) * float64(n-1) / float64(limit-1))
	}
	return idx
}

func rowsNote(shown, total int, noun, how string) string {
	if shown == total {
		return fmt.Sprintf("%d %s, one row each%s", total, noun, how)
	}
	return fmt.Sprintf("%d of %d %s shown, sampled evenly%s", shown, total, noun, how)
}

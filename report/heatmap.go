package report

import (
	"image"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// When a timeline has more rows or more bars than a chart has pixels,
// drawing every bar lies: each short stop becomes at least a pixel (or,
// worse, a minimum width), and a group of 200 members whose lanes were
// 1.5% rebalancing reads as solid orange. Past these limits the lanes are
// drawn as a binned heatmap instead: one cell per pixel column and pixel
// row, coloured by the mix of states in it, each state weighted by the
// share of the cell's time (and rows) it took. The area of a colour is
// then the share of time in its state, at any size.
const (
	// maxVectorRows is the most rows drawn as bars: at 5 points a row a
	// partition is still a band one can point at.
	maxVectorRows = 96
	// maxVectorBars is the most bars drawn one by one; more would make
	// an SVG of megabytes and bars narrower than a pixel.
	maxVectorBars = 4000
)

// binnedLanes reports whether rows are drawn as a heatmap.
func binnedLanes(rows [][]laneBar) bool {
	if len(rows) > maxVectorRows {
		return true
	}
	bars := 0
	for _, r := range rows {
		bars += len(r)
	}
	return bars > maxVectorBars
}

// solid is the one colour that stands for a look in a heatmap, where
// there is no room for hatching: a hatched look is the mean of its fill
// and its hatch colour (unless the hatch is white, which only marks it).
func (l fillLook) solid() color.RGBA {
	if l.hatch == hatchNone || l.hatchColor == (color.RGBA{R: 255, G: 255, B: 255, A: 255}) {
		return l.fill
	}
	mid := func(a, b uint8) uint8 { return uint8((int(a) + int(b) + 1) / 2) }
	return color.RGBA{R: mid(l.fill.R, l.hatchColor.R), G: mid(l.fill.G, l.hatchColor.G), B: mid(l.fill.B, l.hatchColor.B), A: 255}
}

// dots converts a length to pixels of the PNG rendering (and of the image
// embedded in the SVG).
func dots(l vg.Length) int { return max(1, int(math.Round(l.Dots(pngDPI)))) }

// plotBinned draws rows as a heatmap over [l.start, l.end] on c's data area.
// Time not covered by any bar (before a member starts, an unowned
// partition) counts as white. A cell with any urgent time (two owners, a
// fenced member still processing) is painted wholly in the urgent colour:
// a safety problem must show however short it was, and this is the one
// place where a state is drawn longer than it lasted.
func (l lanes) plotBinned(c draw.Canvas, p *plot.Plot) {
	xf, _ := p.Transforms(&c)
	x0, x1 := max(xf(l.start), c.Min.X), min(xf(l.end), c.Max.X)
	if x1 <= x0 || len(l.rows) == 0 {
		return
	}
	cols, height := dots(x1-x0), dots(c.Max.Y-c.Min.Y)
	n := len(l.rows)
	bins := min(n, height)
	span := (l.end - l.start) / float64(cols)
	type cell struct {
		r, g, b, w float64
		urgent     color.RGBA
		hasUrgent  bool
	}
	grid := make([]cell, bins*cols)
	for i, row := range l.rows {
		b := i * bins / n
		for _, bar := range row {
			s, e := max(bar.start, l.start), min(bar.end, l.end)
			if e <= s {
				continue
			}
			col := bar.look.solid()
			first, last := int((s-l.start)/span), min(int((e-l.start)/span), cols-1)
			for k := first; k <= last; k++ {
				lo, hi := max(s, l.start+float64(k)*span), min(e, l.start+float64(k+1)*span)
				ce := &grid[b*cols+k]
				if bar.urgent {
					ce.urgent, ce.hasUrgent = col, true
				}
				if hi <= lo {
					continue
				}
				w := hi - lo
				ce.r += w * float64(col.R)
				ce.g += w * float64(col.G)
				ce.b += w * float64(col.B)
				ce.w += w
			}
		}
	}
	// Rows per bin differ by one at most; each bin's time is its rows'.
	rowsIn := make([]float64, bins)
	for i := range n {
		rowsIn[i*bins/n]++
	}
	img := image.NewRGBA(image.Rect(0, 0, cols, height))
	for y := range height {
		b := y * bins / height
		total := rowsIn[b] * span
		for x := range cols {
			ce := grid[b*cols+x]
			px := color.RGBA{A: 255}
			if ce.hasUrgent {
				px = ce.urgent
			} else {
				white := max(total-ce.w, 0) * 255
				px.R = uint8(math.Round((ce.r + white) / total))
				px.G = uint8(math.Round((ce.g + white) / total))
				px.B = uint8(math.Round((ce.b + white) / total))
			}
			img.SetRGBA(x, y, px)
		}
	}
	c.DrawImage(vg.Rectangle{Min: vg.Point{X: x0, Y: c.Min.Y}, Max: vg.Point{X: x1, Y: c.Max.Y}}, img)
}

package report

import (
	"math"

	"gonum.org/v1/plot"
)

// The y axis of a chart of levels that cannot be negative (lag in records,
// latency in seconds, a sweep's metric) follows one rule, here: linear
// from zero, unless the values above zero span logAxisFactor or more, when
// it is logarithmic. On a linear axis the start-up lag or one 40 s wait
// flattens everything else into the floor; on a log axis a steady 0.2 s
// and a 40 s stall both read. Cumulative counts (movement), replica
// counts and bars, which are read as lengths from zero, stay linear.
const (
	// logAxisFactor is the ratio of the largest to the smallest value
	// above zero from which a y axis is logarithmic: two orders of
	// magnitude.
	logAxisFactor = 100
	// logAxisDecades bounds a log axis's depth: values more than four
	// orders of magnitude below the largest (the microseconds a record
	// waits when its owner keeps up, the few records left of a drained
	// lag) are drawn on the bottom edge, labelled as at most it.
	logAxisDecades = 4
)

// valueAxis sets p's y axis for the values ys, which are every value p
// draws on it, by the rule above, and says on the axis label when it is
// logarithmic. It must be called after the plotters are added, which
// widen the axis to their data.
func valueAxis(p *plot.Plot, ys []float64) {
	top, low, zero := 0.0, math.Inf(1), false
	for _, y := range ys {
		if math.IsNaN(y) || math.IsInf(y, 0) {
			continue
		}
		top = max(top, y)
		if y > 0 {
			low = min(low, y)
		} else {
			zero = true
		}
	}
	p.Y.Tick.Marker = countTicks{}
	if top <= 0 || top/low < logAxisFactor {
		p.Y.Min, p.Y.Max = 0, top
		headroom(p)
		return
	}
	// The axis begins at a power of ten below every value, so that its
	// bottom edge is a tick; a value on it is zero, or at most it when
	// the depth bound cut values off.
	floor := math.Pow10(int(math.Ceil(math.Log10(low)-1e-9)) - 1)
	bottom := ""
	if zero {
		bottom = "0"
	}
	if deepest := math.Pow10(int(math.Ceil(math.Log10(top)-1e-9)) - logAxisDecades); floor < deepest {
		floor, bottom = deepest, "≤"+compactNumber(deepest)
	}
	p.Y.Scale = logFloorScale{}
	p.Y.Tick.Marker = countTicks{log: true, bottom: bottom}
	// Headroom as on a linear axis: 15% of the axis's length above the top.
	p.Y.Min, p.Y.Max = floor, top*math.Pow(top/floor, 0.15)
	p.Y.Label.Text += " (log scale)"
}

// logTicks are a log axis's ticks from lo to hi: a labelled one at each
// power of ten, unlabelled ones at its multiples. (gonum's LogTicks
// truncates log10(lo) towards zero, which for lo = 0.001 starts at 0.01.)
func logTicks(lo, hi float64) []plot.Tick {
	var ticks []plot.Tick
	for e := int(math.Ceil(math.Log10(lo) - 1e-9)); math.Pow10(e) <= hi*(1+1e-9); e++ {
		v := math.Pow10(e)
		ticks = append(ticks, plot.Tick{Value: v, Label: compactNumber(v)})
		for k := 2.0; k < 10 && k*v <= hi; k++ {
			ticks = append(ticks, plot.Tick{Value: k * v})
		}
	}
	return ticks
}

// logFloorScale is gonum's log scale, except that a value at or below the
// axis's minimum (zero, which a log axis cannot show) is drawn on the
// bottom edge instead of making the plot panic.
type logFloorScale struct{}

func (logFloorScale) Normalize(lo, hi, x float64) float64 {
	return plot.LogScale{}.Normalize(lo, hi, max(x, lo))
}

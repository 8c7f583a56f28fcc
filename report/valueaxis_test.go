package report

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/plot/plotter"
)

// TestValueAxis holds the one rule for the y axis of levels: linear from
// zero below a factor of 100 between the largest and the smallest value
// above zero, logarithmic from it, zeros on the bottom edge, and never
// deeper than six orders of magnitude below the top.
func TestValueAxis(t *testing.T) {
	cases := []struct {
		name     string
		ys       []float64
		log      bool
		min, max float64 // the axis's range
		bottom   string  // the label of the lowest tick of a log axis
	}{
		// 50/1 is under 100: linear from 0, 15% headroom over 50.
		{"narrow", []float64{0, 1, 50}, false, 0, 57.5, ""},
		// 40/0.2 = 200: log, from the power of ten below 0.2; headroom 15%
		// of the axis's length: 40 × (40/0.1)^0.15.
		{"wide", []float64{0.2, 40}, true, 0.1, 40 * math.Pow(400, 0.15), "0.1"},
		// The same with zeros: they are drawn on the bottom edge, "0".
		{"wide with zeros", []float64{0, 0.2, 40}, true, 0.1, 40 * math.Pow(400, 0.15), "0"},
		// 0.1 is a power of ten itself: the axis begins one below, so
		// that 0.1 is not drawn where zeros are.
		{"power of ten", []float64{0, 0.1, 40}, true, 0.01, 40 * math.Pow(4000, 0.15), "0"},
		// The smallest above zero is 1e-12 of the top: the axis stops four
		// orders below the power of ten at or above the top (1), at 1e-4,
		// and its lowest tick says the values on it are at most that.
		{"residue", []float64{1e-12, 1}, true, 1e-4, math.Pow(1e4, 0.15), "≤0.0001"},
		// Nothing above zero: a linear axis from 0 (gonum widens 0 to 0
		// itself when drawing).
		{"all zero", []float64{0, 0}, false, 0, 0, ""},
		// NaN and Inf are not drawn and do not count.
		{"not numbers", []float64{math.NaN(), math.Inf(1), 2, 10}, false, 0, 11.5, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := newPlot("", "latency (s)")
			p.Y.Max = 0
			valueAxis(p, c.ys)
			_, isLog := p.Y.Scale.(logFloorScale)
			if isLog != c.log {
				t.Errorf("log scale %v, want %v", isLog, c.log)
			}
			if math.Abs(p.Y.Min-c.min) > 1e-9*max(1, c.min) || math.Abs(p.Y.Max-c.max) > 1e-9*max(1, c.max) {
				t.Errorf("axis from %g to %g, want %g to %g", p.Y.Min, p.Y.Max, c.min, c.max)
			}
			if got := strings.HasSuffix(p.Y.Label.Text, " (log scale)"); got != c.log {
				t.Errorf("label %q: says log scale %v, want %v", p.Y.Label.Text, got, c.log)
			}
			if c.log {
				if ticks := p.Y.Tick.Marker.Ticks(p.Y.Min, p.Y.Max); len(ticks) == 0 || ticks[0].Label != c.bottom {
					t.Errorf("lowest tick %v, want one labelled %q", ticks[:min(len(ticks), 1)], c.bottom)
				}
			}
		})
	}
}

// TestLogAxisDrawsZeros: a log axis with zeros in its line renders (gonum's
// own log scale panics on them), and its ticks are only those in range,
// labelled in full below 0.01 (milliseconds of latency are not "0").
func TestLogAxisDrawsZeros(t *testing.T) {
	p := newPlot("", "latency (s)")
	l, err := plotter.NewLine(plotter.XYs{{X: 0, Y: 0}, {X: 1, Y: 0.0004}, {X: 2, Y: 0.3}, {X: 3, Y: 0}})
	if err != nil {
		t.Fatal(err)
	}
	p.Add(l)
	valueAxis(p, []float64{0, 0.0004, 0.3, 0})
	ch := plotChart("log", "log", "", "", nil, p)
	var b bytes.Buffer
	if err := ch.WriteSVG(&b); err != nil {
		t.Fatal(err)
	}
	var labels []string
	for _, tk := range p.Y.Tick.Marker.Ticks(p.Y.Min, p.Y.Max) {
		if tk.Value < p.Y.Min || tk.Value > p.Y.Max {
			t.Errorf("tick %g outside the axis %g to %g", tk.Value, p.Y.Min, p.Y.Max)
		}
		if tk.Label != "" {
			labels = append(labels, tk.Label)
		}
	}
	// From 0.0001 (the power of ten below 0.0004, and four orders below
	// 1, the power of ten above the top), labelled 0 for the zeros drawn
	// there, to 0.3 × (0.3/0.0001)^0.15 = 0.996: the powers of ten up to
	// 0.1, written in full.
	if got := strings.Join(labels, " "); got != "0 0.001 0.01 0.1" {
		t.Errorf("tick labels %q, want \"0 0.001 0.01 0.1\"", got)
	}
}

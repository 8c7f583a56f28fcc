package report

import (
	"gonum.org/v1/plot"
)

// timeUnit is the unit a time axis is labelled in: seconds up to five
// minutes, minutes up to five hours, hours beyond, so that a 90-minute
// deploy reads "45 min", not "2700.00".
type timeUnit struct {
	name    string
	seconds float64
}

func timeUnitFor(span float64) timeUnit {
	switch {
	case span > 5*3600:
		return timeUnit{"h", 3600}
	case span > 300:
		return timeUnit{"min", 60}
	}
	return timeUnit{"s", 1}
}

// timeAxis makes p's x axis virtual time from start to end seconds, with
// ticks at round values of the unit that fits the span. Every time chart
// shows the measurement window (start is its beginning), and its axis
// label says so ("virtual time (s), window 30–120 s"), since an axis that
// begins at 1 min looks like any other.
func timeAxis(p *plot.Plot, start, end float64) {
	u := timeUnitFor(end - start)
	p.X.Min, p.X.Max = start, end
	p.X.Padding = 0
	p.X.Label.Text = "virtual time (" + u.name + ")"
	if start > 0 {
		// Short enough for a half-width panel: gonum narrows a plot
		// whose axis label is wider than it.
		p.X.Label.Text += ", window " + trimFloat(start/u.seconds) + "–" + trimFloat(end/u.seconds) + " " + u.name
	}
	p.X.Tick.Marker = timeTicks{u}
}

// timeTicks places gonum's default ticks in the unit and labels them
// without trailing zeros.
type timeTicks struct{ unit timeUnit }

func (t timeTicks) Ticks(lo, hi float64) []plot.Tick {
	ticks := plot.DefaultTicks{}.Ticks(lo/t.unit.seconds, hi/t.unit.seconds)
	for i := range ticks {
		ticks[i].Value *= t.unit.seconds
		if ticks[i].Label != "" {
			ticks[i].Label = trimFloat(ticks[i].Value / t.unit.seconds)
		}
	}
	return ticks
}

// windowStart is where the measurement window of r's runs begins: the
// earliest WindowStart (the runs of one report share a scenario, so they
// agree), or 0 without runs.
func windowStart(r *Report) float64 {
	start := -1.0
	for _, run := range r.Runs {
		if start < 0 || run.WindowStart < start {
			start = run.WindowStart
		}
	}
	return max(start, 0)
}

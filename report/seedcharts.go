package report

import (
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/rebalsim/rebalsim/sim"
)

// SeedCharts draws the time series over seeds: for processing and lag,
// per protocol, the median over the seeds at each sample instant and a
// band from the 5th to the 95th percentile, so that a chart shows the
// spread the table does, not one seed's line.
func SeedCharts(s *Seeds) ([]Chart, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	r := s.Reports[0]
	names := runNames(r)
	looks := runLooks(r)
	end := horizon(r)
	what := itoa(len(s.Reports)) + " seeds: median line, band from p5 to p95"

	proc := timePlot(r, "partitions being processed (%)", end)
	legend := seedBands(proc, s, looks, names, func(x sim.Series) []float64 { return x.Processing }, 100)
	proc.Add(disturbanceMarks(disturbances(r)))
	proc.Y.Min, proc.Y.Max = 0, 112

	lag := timePlot(r, "total consumer lag (records)", end)
	seedBands(lag, s, looks, names, lagPeaks, 1)
	lag.Add(disturbanceMarks(disturbances(r)))
	lag.Y.Min = 0
	headroom(lag)
	lag.Y.Tick.Marker = countTicks{}

	return []Chart{
		plotChart("seeds-processing", "Processing availability over seeds", scenarioName(r)+": "+what,
			"The share of partitions being processed at each instant, per protocol: the line is the median over the seeds, the band holds nine seeds in ten (p5 to p95). Disturbances are the first seed's.", legend, proc),
		plotChart("seeds-lag", "Consumer lag over seeds", scenarioName(r)+": "+what,
			"Total consumer lag (the highest in each sample step), per protocol: the line is the median over the seeds, the band holds nine seeds in ten (p5 to p95). Disturbances are the first seed's.", legend, lag),
	}, nil
}

// seedBands adds, per protocol, the band and median of pick over the
// seeds, on the samples every seed has.
func seedBands(p *plot.Plot, s *Seeds, looks []protocolLook, names []string, pick func(sim.Series) []float64, scale float64) []legendItem {
	legend := []legendItem{{name: "protocol (median)"}}
	for j := range names {
		base := s.Reports[0].Runs[j].Series
		n := len(base.Times)
		for _, rep := range s.Reports {
			n = min(n, len(pick(rep.Runs[j].Series)), len(rep.Runs[j].Series.Times))
		}
		var xs, lo, mid, hi []float64
		vals := make([]float64, len(s.Reports))
		for k := range n {
			t := base.Times[k]
			if t < p.X.Min {
				continue
			}
			for i, rep := range s.Reports {
				vals[i] = pick(rep.Runs[j].Series)[k] * scale
			}
			slices.Sort(vals)
			xs = append(xs, t)
			lo = append(lo, empiricalQuantile(vals, 0.05))
			mid = append(mid, empiricalQuantile(vals, 0.5))
			hi = append(hi, empiricalQuantile(vals, 0.95))
		}
		if len(xs) == 0 {
			continue
		}
		p.Add(band{xs: xs, lo: lo, hi: hi, fill: translucent(looks[j].color, 0x40), edge: looks[j].line(vg.Points(0.6))})
		xys := make(plotter.XYs, len(xs))
		for k := range xs {
			xys[k] = plotter.XY{X: xs[k], Y: mid[k]}
		}
		l, err := plotter.NewLine(xys)
		if err != nil {
			continue
		}
		l.LineStyle = looks[j].line(vg.Points(lineWidth))
		p.Add(l)
		legend = append(legend, legendItem{name: names[j], thumb: lineThumb(l.LineStyle)})
	}
	return append(legend, legendItem{name: "band: p5 to p95", thumb: swatch(fillLook{fill: lighten(rgb(0x777777), 0.7)})})
}

package report

import (
	"slices"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// SeedCharts draws the time series over seeds: every chart over virtual
// time that the report of one seed has (timeCharts), with per protocol
// the median over the seeds at each instant and a band from the 5th to
// the 95th percentile, so that a chart shows the spread the table does,
// not one seed's line.
func SeedCharts(s *Seeds) ([]Chart, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	r := s.Reports[0]
	names := runNames(r)
	looks := runLooks(r)
	end := horizon(r)
	var charts []Chart
	for _, tc := range timeCharts() {
		if tc.only == nil || tc.only(r) {
			charts = append(charts, tc.overSeeds(s, looks, names, end))
		}
	}
	return charts, nil
}

// seedBands adds, per protocol, the band and median of the panel's series
// over the seeds, and returns the legend and the values drawn. The
// instants are the first seed's; at each, a seed's value is its last at or
// before it (the same sample where seeds share their sample instants, the
// count in force for a step series such as replicas). An instant before
// some seed's first value is left out.
func seedBands(p *plot.Plot, s *Seeds, looks []protocolLook, names []string, tp timePanel, end float64) ([]legendItem, []float64) {
	legend := []legendItem{{name: "protocol (median)"}}
	var drawn []float64
	for j := range names {
		seeds := make([]plotter.XYs, len(s.Reports))
		for i, rep := range s.Reports {
			xs, ys := tp.points(rep.Runs[j], end)
			n := min(len(xs), len(ys))
			seeds[i] = drawnSeries(xs[:n], ys[:n], p.X.Min, tp.scale, tp.step)
		}
		var xs, lo, mid, hi []float64
		vals := make([]float64, len(seeds))
	instants:
		for _, at := range seeds[0] {
			for i, xys := range seeds {
				k := sort.Search(len(xys), func(k int) bool { return xys[k].X > at.X })
				if k == 0 {
					continue instants
				}
				vals[i] = xys[k-1].Y
			}
			sorted := slices.Clone(vals)
			slices.Sort(sorted)
			xs = append(xs, at.X)
			lo = append(lo, empiricalQuantile(sorted, 0.05))
			mid = append(mid, empiricalQuantile(sorted, 0.5))
			hi = append(hi, empiricalQuantile(sorted, 0.95))
		}
		if len(xs) == 0 {
			continue
		}
		bx, blo, bhi := xs, lo, hi
		if tp.step {
			bx, blo, bhi = staircase(xs, lo, hi)
		}
		p.Add(band{xs: bx, lo: blo, hi: bhi, fill: translucent(looks[j].color, 0x40), edge: looks[j].line(vg.Points(0.6))})
		xys := make(plotter.XYs, len(xs))
		for k := range xs {
			xys[k] = plotter.XY{X: xs[k], Y: mid[k]}
		}
		l, err := plotter.NewLine(xys)
		if err != nil {
			legend = append(legend, legendItem{name: names[j] + " (invalid data)"})
			continue
		}
		l.LineStyle = looks[j].line(vg.Points(lineWidth))
		if tp.step {
			l.StepStyle = plotter.PostStep
		}
		p.Add(l)
		legend = append(legend, legendItem{name: names[j], thumb: lineThumb(l.LineStyle)})
		drawn = slices.Concat(drawn, lo, mid, hi)
	}
	return append(legend, legendItem{name: "band: p5 to p95", thumb: swatch(fillLook{fill: lighten(rgb(0x777777), 0.7)})}), drawn
}

// staircase turns the band of a step series into the corners of its
// steps: each value holds from its instant to the next.
func staircase(xs, lo, hi []float64) (sx, slo, shi []float64) {
	for k := range xs {
		sx, slo, shi = append(sx, xs[k]), append(slo, lo[k]), append(shi, hi[k])
		if k+1 < len(xs) {
			sx, slo, shi = append(sx, xs[k+1]), append(slo, lo[k]), append(shi, hi[k])
		}
	}
	return sx, slo, shi
}

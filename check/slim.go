package check

import (
	"slices"

	"github.com/rebalsim/rebalsim/sim"
)

// slim cuts the results of one seed down to what judging them reads, so
// that a check's memory grows by a few kilobytes per seed rather than by
// whole results: the chart series (tens of kilobytes a run), the
// per-member metrics and the lanes go. Of the series only the samples
// whereBoundBroke can answer with stay: for every max_ bound of the
// plan on moved partitions, revocations or lag, the first sample in the
// measurement window past its limit. Any other sample kept for another
// bound is either before that one or not past the limit, so the answer
// for every bound is the one the whole series gives.
func (p *plan) slim(runs map[string]*sim.Result) {
	keep := map[string]map[int]bool{}
	for _, x := range p.sc.Expect {
		for _, b := range x.Bounds {
			if !b.IsMax || seriesOf(&sim.Series{}, b.Metric) == nil {
				continue
			}
			for proto, r := range runs {
				if !appliesTo(x, proto) {
					continue
				}
				limit := b.Value
				if b.FractionOf != "" {
					ref := runs[b.FractionOf]
					if ref == nil {
						continue
					}
					rv, _ := ref.Metrics.Value(b.Metric)
					limit *= rv
				}
				for i, v := range seriesOf(&r.Series, b.Metric) {
					if v > limit && i < len(r.Series.Times) && r.Series.Times[i] >= r.WindowStart {
						if keep[proto] == nil {
							keep[proto] = map[int]bool{}
						}
						keep[proto][i] = true
						break
					}
				}
			}
		}
	}
	for proto, r := range runs {
		var idx []int
		for i := range keep[proto] {
			idx = append(idx, i)
		}
		slices.Sort(idx)
		s := sim.Series{Step: r.Series.Step}
		for _, i := range idx {
			s.Times = append(s.Times, r.Series.Times[i])
			s.Lag = append(s.Lag, r.Series.Lag[i])
			s.Moved = append(s.Moved, r.Series.Moved[i])
			s.Revocations = append(s.Revocations, r.Series.Revocations[i])
		}
		r.Series, r.Members, r.MemberTimeline, r.Timeline = s, nil, nil, nil
	}
}

// seriesOf is the cumulative series of a metric, nil for a metric without
// one.
func seriesOf(s *sim.Series, metric string) []float64 {
	switch metric {
	case "moved_partitions":
		return nonNil(s.Moved)
	case "revocations":
		return nonNil(s.Revocations)
	case "peak_lag_records":
		return nonNil(s.Lag)
	}
	return nil
}

func nonNil(xs []float64) []float64 {
	if xs == nil {
		return []float64{}
	}
	return xs
}

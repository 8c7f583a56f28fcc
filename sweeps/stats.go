package sweeps

import (
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/rebalsim/rebalsim/report"
)

// Summarize computes the statistics of a whole sweep: for every grid point
// and protocol, each metric over the seeds (see report.SweepStats). The
// values are taken in seed order, so the sums, and the results, are the
// same bits however the runs were scheduled or sharded.
func Summarize(res *Result) (*report.Sweep, error) {
	m := res.Manifest
	if !m.Shard.Whole() {
		return nil, fmt.Errorf("shard %s holds %d of the sweep's %d runs; merge every shard to summarise it", m.Shard, len(res.Rows), m.Runs)
	}
	if len(res.Rows) != m.Runs {
		return nil, fmt.Errorf("the sweep has %d runs but %d rows", m.Runs, len(res.Rows))
	}
	s := &report.Sweep{
		Version: m.Version, Scenario: m.Scenario, Params: m.Params, Seeds: m.Seeds,
		Protocols: m.Protocols, Metrics: m.Metrics, Runs: m.Runs, Warnings: m.Warnings,
	}
	nproto := len(m.Protocols)
	values := make([]float64, m.Seeds)
	rows := make([]*Row, m.Seeds) // one cell's, in seed order
	for p, mp := range m.Points {
		point := report.SweepPoint{Index: p, Values: mp.Values, FirstSeed: mp.FirstSeed}
		for j, protocol := range m.Protocols {
			cell := report.SweepCell{Protocol: protocol, Runs: m.Seeds}
			for seed := range rows {
				row := &res.Rows[(p*m.Seeds+seed)*nproto+j]
				rows[seed] = row
				if row.Converged {
					cell.Converged++
				}
				if row.SafetyFindings > 0 {
					cell.Unsafe++
				}
			}
			for k, metric := range m.Metrics {
				for seed, row := range rows {
					values[seed] = row.Metrics[k]
				}
				cell.Metrics = append(cell.Metrics, Describe(metric, values))
			}
			point.Protocols = append(point.Protocols, cell)
		}
		s.Points = append(s.Points, point)
	}
	return s, nil
}

// Describe summarises one metric's values: mean, sample standard
// deviation, the 95% confidence interval of the mean, and empirical
// quantiles (the smallest value with at least the given share of values at
// or below it). The interval is Student's t with n-1 degrees of freedom,
// except for a metric that cannot be negative (report.MetricNonNegative):
// there t's symmetric interval goes below zero whenever a few seeds carry
// the whole mean (downtime 0 on most seeds, 14.9 on one), so the interval
// is the bootstrap percentile one instead, which stays within the values
// seen.
func Describe(metric string, values []float64) report.SweepStats {
	n := len(values)
	nan := report.Number(math.NaN())
	st := report.SweepStats{Metric: metric, N: n, Mean: nan, StdDev: nan, CILow: nan, CIHigh: nan,
		Min: nan, P10: nan, P25: nan, Median: nan, P75: nan, P90: nan, P99: nan, Max: nan}
	if n == 0 {
		return st
	}
	sorted := slices.Clone(values)
	slices.Sort(sorted)
	q := func(p float64) report.Number { return report.Number(stat.Quantile(p, stat.Empirical, sorted, nil)) }
	mean := stat.Mean(values, nil)
	st.Mean = report.Number(mean)
	st.Min, st.Max = report.Number(sorted[0]), report.Number(sorted[n-1])
	st.P10, st.P25, st.Median, st.P75, st.P90, st.P99 = q(0.10), q(0.25), q(0.5), q(0.75), q(0.90), q(0.99)
	if n >= 2 {
		sd := stat.StdDev(values, nil)
		t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(n - 1)}.Quantile(0.975)
		half := t * sd / math.Sqrt(float64(n))
		st.StdDev = report.Number(sd)
		st.CILow, st.CIHigh = report.Number(mean-half), report.Number(mean+half)
		if report.MetricNonNegative(metric) {
			lo, hi := bootstrapCI(metric, values)
			st.CILow, st.CIHigh = report.Number(lo), report.Number(hi)
		}
	}
	return st
}

// bootstrapResamples is how many resamples bootstrapCI draws: enough for
// the 2.5th and 97.5th percentiles to settle to about 1% of the spread.
const bootstrapResamples = 1000

// bootstrapCI is the 95% percentile bootstrap interval of the mean of
// values: the 2.5th and 97.5th percentiles of the means of resamples
// drawn with replacement. The resamples come from a PCG stream seeded by
// the metric's name and the values' count, so that the interval is the
// same bits on every machine and in every shard; the values are in seed
// order, so the draws pick the same seeds' values too.
func bootstrapCI(metric string, values []float64) (lo, hi float64) {
	h := fnv.New64a()
	h.Write([]byte(metric))
	rng := rand.New(rand.NewPCG(h.Sum64(), uint64(len(values))))
	n := len(values)
	means := make([]float64, bootstrapResamples)
	for b := range means {
		sum := 0.0
		for range n {
			sum += values[rng.IntN(n)]
		}
		means[b] = sum / float64(n)
	}
	slices.Sort(means)
	return stat.Quantile(0.025, stat.Empirical, means, nil), stat.Quantile(0.975, stat.Empirical, means, nil)
}

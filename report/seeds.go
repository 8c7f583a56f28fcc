package report

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"gonum.org/v1/gonum/stat"

	"github.com/rebalsim/rebalsim/sim"
)

// Seeds is one scenario run on several seeds under each protocol: what
// `compare --seeds N` and `run --seeds N` print. One seed is an anecdote
// (a protocol's luckiest or unluckiest heartbeat phase); the spread over
// seeds is the answer a design review can use.
type Seeds struct {
	// Reports holds one report per seed, in seed order, each with the same
	// protocols in the same order.
	Reports []*Report
	// Chosen says how the number of seeds was chosen, for the reader
	// ("the default for a group of 4 members"); empty when asked for.
	Chosen string
	// Rerun is the command that reruns one run of the scenario, without
	// its --seed, --seeds and --protocol: the worst seed's command is it
	// plus those flags.
	Rerun string
}

// SeedStat is one metric of one protocol over the seeds. Quantiles are
// empirical: the smallest observed value with at least the given share of
// the seeds at or below it, so every number printed was seen in a run
// (and a metric that cannot be negative never gets a negative bound).
type SeedStat struct {
	Metric   string  `json:"metric"`
	Protocol string  `json:"protocol"`
	Median   float64 `json:"median"`
	P5       float64 `json:"p5"`
	P95      float64 `json:"p95"`
	Min      float64 `json:"min"`
	Max      float64 `json:"max"`
	// WorstSeed is the seed of the highest value (the first such seed).
	WorstSeed uint64 `json:"worst_seed"`
	// Best is true when this protocol's p5–p95 range lies below every
	// other protocol's (see seedWinners).
	Best bool `json:"best"`
}

// empiricalQuantile is the smallest value of sorted with at least the
// share p of the values at or below it: gonum's empirical quantile, the
// one a sweep's statistics use too (package sweeps).
func empiricalQuantile(sorted []float64, p float64) float64 {
	return stat.Quantile(p, stat.Empirical, sorted, nil)
}

// seedList is the seeds in order.
func (s *Seeds) seedList() []uint64 {
	out := make([]uint64, len(s.Reports))
	for i, r := range s.Reports {
		out[i] = r.Scenario.Seed
	}
	return out
}

// check reports a Seeds that cannot be summarised.
func (s *Seeds) check() error {
	if s == nil || len(s.Reports) == 0 {
		return errors.New("report: no seeds to summarise")
	}
	n := len(s.Reports[0].Runs)
	for _, r := range s.Reports {
		if len(r.Runs) != n {
			return fmt.Errorf("report: seed %d has %d runs, seed %d has %d", r.Scenario.Seed, len(r.Runs), s.Reports[0].Scenario.Seed, n)
		}
	}
	return nil
}

// Stats summarises every metric of every protocol over the seeds, in the
// order of the comparison table (metric, then protocol).
func (s *Seeds) Stats() []SeedStat {
	if s.check() != nil {
		return nil
	}
	seeds := s.seedList()
	names := runNames(s.Reports[0])
	var out []SeedStat
	for _, metric := range sim.MetricNames() {
		row := make([]SeedStat, len(names))
		for j, name := range names {
			values := make([]float64, len(s.Reports))
			worst := 0
			for i, r := range s.Reports {
				values[i], _ = r.Runs[j].Metrics.Value(metric)
				if values[i] > values[worst] {
					worst = i
				}
			}
			sorted := slices.Clone(values)
			slices.Sort(sorted)
			row[j] = SeedStat{
				Metric: metric, Protocol: name,
				Median: empiricalQuantile(sorted, 0.5),
				P5:     empiricalQuantile(sorted, 0.05), P95: empiricalQuantile(sorted, 0.95),
				Min: sorted[0], Max: sorted[len(sorted)-1],
				WorstSeed: seeds[worst],
			}
		}
		seedWinners(row)
		out = append(out, row...)
	}
	return out
}

// seedWinners marks the protocols whose p5–p95 range lies wholly below
// the range of every other protocol, so that a mark means "better on
// nearly every seed", not "luckier on one". Protocols whose values are the
// same constant on every seed tie, and are marked together when they beat
// the rest. Where the ranges overlap, nothing is marked.
func seedWinners(row []SeedStat) {
	if len(row) < 2 {
		return
	}
	constant := func(a SeedStat) bool { return a.P5 == a.P95 }
	for j, a := range row {
		beatsOne, beatsAll := false, true
		for k, b := range row {
			switch {
			case k == j:
			case a.P95 < b.P5:
				beatsOne = true
			case constant(a) && constant(b) && a.P5 == b.P5:
			default:
				beatsAll = false
			}
		}
		row[j].Best = beatsOne && beatsAll
	}
}

// worstSeed is one protocol's worst seed: the one with a safety finding,
// else one that did not converge, else the one with the most partition
// downtime (the metric an operator feels first).
type worstSeed struct {
	protocol string
	seed     uint64
	why      string
}

func (s *Seeds) worstSeeds() []worstSeed {
	names := runNames(s.Reports[0])
	var out []worstSeed
	for j, name := range names {
		rank := func(r *Report) (int, float64) {
			run := r.Runs[j]
			switch {
			case hasSafetyFinding(run):
				return 2, 0
			case !run.Metrics.Converged:
				return 1, 0
			}
			return 0, run.Metrics.DowntimePartitionSeconds
		}
		worst := s.Reports[0]
		for _, r := range s.Reports[1:] {
			wc, wv := rank(worst)
			rc, rv := rank(r)
			if rc > wc || (rc == wc && rv > wv) {
				worst = r
			}
		}
		c, v := rank(worst)
		why := [...]string{"downtime_partition_seconds " + formatMetric("downtime_partition_seconds", v), "not converged", "safety finding"}[c]
		out = append(out, worstSeed{protocol: name, seed: worst.Scenario.Seed, why: why})
	}
	return out
}

func hasSafetyFinding(run *sim.Result) bool {
	for _, f := range run.Findings {
		if f.Safety {
			return true
		}
	}
	return false
}

// rerunCommand is the command that reruns one protocol on one seed.
func (s *Seeds) rerunCommand(protocol string, seed uint64) string {
	return fmt.Sprintf("%s --seeds 1 --seed %d --protocol %s", s.Rerun, seed, protocol)
}

// seedsHeadline names the scenario, the seeds and how many there are.
func (s *Seeds) headline() string {
	seeds := s.seedList()
	r := s.Reports[0]
	span := fmt.Sprintf("seeds %d–%d", seeds[0], seeds[len(seeds)-1])
	if len(seeds) == 1 {
		span = fmt.Sprintf("seed %d", seeds[0])
	}
	parts := append([]string{span}, runFacts(r)...)
	return fmt.Sprintf("scenario %s (%s)", scenarioName(r), strings.Join(parts, ", "))
}

func (s *Seeds) countLine() string {
	line := fmt.Sprintf("%d seeds per protocol", len(s.Reports))
	if s.Chosen != "" {
		line += " (" + s.Chosen + "; --seeds N for another number)"
	}
	return line
}

// seedGrid is the comparison over seeds as strings: one row per metric,
// per protocol a median and a p5–p95 column.
func (s *Seeds) seedGrid() (header []string, rows [][]string, best [][]bool) {
	names := runNames(s.Reports[0])
	header = []string{"metric"}
	for _, n := range names {
		header = append(header, n, "p5–p95")
	}
	stats := s.Stats()
	for i := 0; i < len(stats); i += len(names) {
		metric := stats[i].Metric
		row := []string{metric}
		marks := make([]bool, len(names))
		for j, st := range stats[i : i+len(names)] {
			row = append(row, formatMetric(metric, st.Median), formatMetric(metric, st.P5)+"–"+formatMetric(metric, st.P95))
			marks[j] = st.Best
		}
		rows = append(rows, row)
		best = append(best, marks)
	}
	return header, rows, best
}

// convergedCounts is, per protocol, how many seeds converged.
func (s *Seeds) convergedCounts() []string {
	names := runNames(s.Reports[0])
	out := make([]string, len(names))
	for j := range names {
		n := 0
		for _, r := range s.Reports {
			if r.Runs[j].Metrics.Converged {
				n++
			}
		}
		out[j] = fmt.Sprintf("%d/%d", n, len(s.Reports))
	}
	return out
}

// findingCounts lists, per protocol and finding kind, the number of seeds
// with such a finding and the first of them.
func (s *Seeds) findingCounts() []string {
	names := runNames(s.Reports[0])
	var out []string
	for j, name := range names {
		var kinds []string
		seeds := map[string][]uint64{}
		for _, r := range s.Reports {
			seen := map[string]bool{}
			for _, f := range r.Runs[j].Findings {
				if seen[f.Kind] {
					continue
				}
				seen[f.Kind] = true
				if seeds[f.Kind] == nil {
					kinds = append(kinds, f.Kind)
				}
				seeds[f.Kind] = append(seeds[f.Kind], r.Scenario.Seed)
			}
		}
		for _, k := range kinds {
			out = append(out, fmt.Sprintf("%s: %s on %d of %d seeds (first: seed %d)", name, k, len(seeds[k]), len(s.Reports), seeds[k][0]))
		}
	}
	return out
}

package report

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"

	"github.com/rebalsim/rebalsim/sim"
)

// The summary is computed once, as strings and marks, and then laid out by
// Table, Markdown and HTML, so the three can never disagree about a value
// or about which run was best.

// summaryTable is the metric comparison: one row per metric, one cell per run.
type summaryTable struct {
	runs []string
	rows []summaryRow
}

type summaryRow struct {
	metric string
	cells  []string
	best   []bool
}

// summaryMetrics are the rows of the comparison: the contract's metrics,
// then converged.
func summaryMetrics() []string {
	return append(sim.MetricNames(), "converged")
}

func summarize(r *Report) summaryTable {
	t := summaryTable{runs: runNames(r)}
	for _, name := range summaryMetrics() {
		row := summaryRow{metric: name, cells: make([]string, len(r.Runs)), best: make([]bool, len(r.Runs))}
		if name == "converged" {
			for i, run := range r.Runs {
				row.cells[i] = yesNo(run.Metrics.Converged)
			}
			markBest(row.best, len(r.Runs), func(i int) (float64, bool) {
				if r.Runs[i].Metrics.Converged {
					return 0, true
				}
				return 1, true
			})
			t.rows = append(t.rows, row)
			continue
		}
		values := make([]float64, len(r.Runs))
		eligible := make([]bool, len(r.Runs))
		for i, run := range r.Runs {
			v, _ := run.Metrics.Value(name)
			row.cells[i] = formatMetric(name, v)
			// Compare what the reader sees: two runs that print the same
			// number are equal, whatever lies beyond the printed digits.
			values[i], _ = strconv.ParseFloat(row.cells[i], 64)
			eligible[i] = true
			if name == "convergence_seconds" && !run.Metrics.Converged {
				// The number is only a lower bound (the time until the
				// horizon); such a run can never be the fastest.
				row.cells[i] = "never"
				eligible[i] = false
			}
		}
		markBest(row.best, len(r.Runs), func(i int) (float64, bool) { return values[i], eligible[i] })
		t.rows = append(t.rows, row)
	}
	return t
}

// markBest marks the runs with the lowest value. It marks nothing when
// there is nothing to choose between: one run, or every run eligible and equal.
func markBest(best []bool, n int, value func(i int) (float64, bool)) {
	if n < 2 {
		return
	}
	lowest, found, all, equal := 0.0, false, true, true
	var first float64
	for i := range n {
		v, ok := value(i)
		if !ok {
			all = false
			continue
		}
		if !found {
			lowest, first, found = v, v, true
		}
		lowest = min(lowest, v)
		equal = equal && v == first
	}
	if !found || (all && equal) {
		return
	}
	for i := range n {
		if v, ok := value(i); ok && v == lowest {
			best[i] = true
		}
	}
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// findingRow is one finding of one run, ready to print.
type findingRow struct {
	run, kind, at, members, partitions, detail string
}

func findingRows(r *Report) []findingRow {
	names := runNames(r)
	var rows []findingRow
	for i, run := range r.Runs {
		for _, f := range run.Findings {
			rows = append(rows, findingRow{
				run:        names[i],
				kind:       f.Kind,
				at:         formatSeconds(f.At),
				members:    abbreviate(f.Members, 6),
				partitions: abbreviate(f.Partitions, 6),
				detail:     f.Detail,
			})
		}
	}
	return rows
}

// maxConvergenceRows bounds the per-disturbance convergence table; beyond
// it (a rolling restart of a large group) the table becomes one summary
// line per run, since nobody reads two hundred rows to compare protocols.
const maxConvergenceRows = 12

// convergenceTable holds convergence per disturbance, either row by row or,
// for many disturbances, as a per-run summary.
type convergenceTable struct {
	runs []string
	// rows, when there are at most maxConvergenceRows disturbances.
	rows []convergenceRow
	// summaries, one per run, otherwise.
	summaries []string
	count     int
	// notReached counts disturbances scheduled at or after the horizon
	// (the same in every run: the scenario schedules them).
	notReached int
}

type convergenceRow struct {
	label string
	at    string
	cells []string
}

func convergence(r *Report) convergenceTable {
	t := convergenceTable{runs: runNames(r)}
	type key struct {
		label string
		at    float64
	}
	var keys []key
	cells := map[key][]string{}
	for i, run := range r.Runs {
		t.notReached = max(t.notReached, run.DisturbancesNotReached)
		for _, c := range run.Convergence {
			k := key{c.Disturbance, c.At}
			if _, ok := cells[k]; !ok {
				keys = append(keys, k)
				cells[k] = make([]string, len(r.Runs))
				for j := range cells[k] {
					cells[k][j] = "-"
				}
			}
			cells[k][i] = convergenceCell(c)
		}
	}
	slices.SortStableFunc(keys, func(a, b key) int { return cmp.Compare(a.at, b.at) })
	t.count = len(keys)
	if len(keys) <= maxConvergenceRows {
		for _, k := range keys {
			t.rows = append(t.rows, convergenceRow{label: k.label, at: formatSeconds(k.at), cells: cells[k]})
		}
		return t
	}
	for _, run := range r.Runs {
		t.summaries = append(t.summaries, convergenceSummary(run.Convergence))
	}
	return t
}

// notReachedNote says how many disturbances the horizon cut off, or is
// empty when none was.
func (t convergenceTable) notReachedNote() string {
	switch t.notReached {
	case 0:
		return ""
	case 1:
		return "1 more disturbance is scheduled at or after the horizon: not reached, not judged"
	}
	return fmt.Sprintf("%d more disturbances are scheduled at or after the horizon: not reached, not judged", t.notReached)
}

func convergenceCell(c sim.Convergence) string {
	if !c.Converged {
		// Seconds runs to the horizon: the group took at least that long.
		return ">" + formatSeconds(c.Seconds)
	}
	return formatSeconds(c.Seconds)
}

// convergenceSummary condenses many disturbances: how many converged, the
// median and the worst, and which disturbance was the worst.
func convergenceSummary(cs []sim.Convergence) string {
	if len(cs) == 0 {
		return "no disturbances"
	}
	converged := 0
	var secs []float64
	worst := cs[0]
	for _, c := range cs {
		if c.Converged {
			converged++
		}
		secs = append(secs, c.Seconds)
		if (!c.Converged && worst.Converged) || (c.Converged == worst.Converged && c.Seconds > worst.Seconds) {
			worst = c
		}
	}
	slices.Sort(secs)
	median := secs[len(secs)/2]
	if len(secs)%2 == 0 {
		median = (secs[len(secs)/2-1] + secs[len(secs)/2]) / 2
	}
	return fmt.Sprintf("%d/%d converged, median %s, worst %s after %q",
		converged, len(cs), formatSeconds(median), convergenceCell(worst), worst.Disturbance)
}

package report

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Sweep summarises a sweep: a scenario run at every point of a grid of
// varied values, on many seeds, under each protocol. It is what stats.json
// holds and what the sweep tables, charts and HTML page show; package sweep
// computes it from the per-run rows.
type Sweep struct {
	// Version is the rebalsim version that produced the runs.
	Version  string        `json:"version"`
	Scenario SweepScenario `json:"scenario"`
	// Params are the varied paths, in grid order (the first changes slowest).
	Params []string `json:"params"`
	// Seeds is the number of seeds run at each grid point.
	Seeds     int      `json:"seeds"`
	Protocols []string `json:"protocols"`
	// Metrics names the summarised metrics (sim.MetricNames), in the order
	// of SweepCell.Metrics.
	Metrics []string `json:"metrics"`
	// Runs is the number of runs summarised: points × seeds × protocols.
	Runs int `json:"runs"`
	// Warnings are things about the grid a reader must know, for example
	// a rolling restart that the horizon cuts short at some points.
	Warnings []string     `json:"warnings"`
	Points   []SweepPoint `json:"points"`
}

// SweepScenario identifies the swept scenario.
type SweepScenario struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Source      string `json:"source,omitempty"`
	// SHA256 is the hash of the scenario file's bytes.
	SHA256 string `json:"sha256"`
}

// SweepPoint is one grid point and its results under each protocol.
type SweepPoint struct {
	Index int `json:"point"`
	// Values are the point's values of Sweep.Params, as written.
	Values []string `json:"values"`
	// FirstSeed is the point's first seed; the others follow it.
	FirstSeed uint64      `json:"first_seed"`
	Protocols []SweepCell `json:"protocols"`
}

// SweepCell is one protocol at one grid point, over the seeds.
type SweepCell struct {
	Protocol string `json:"protocol"`
	Runs     int    `json:"runs"`
	// Converged counts the runs that converged by the horizon.
	Converged int `json:"converged_runs"`
	// Unsafe counts the runs with a safety finding (double ownership).
	Unsafe  int          `json:"runs_with_safety_findings"`
	Metrics []SweepStats `json:"metrics"`
}

// SweepStats describes one metric's values over the seeds of one cell.
// Quantiles are empirical: the smallest observed value with at least the
// given share of the runs at or below it. CILow and CIHigh bound the 95%
// confidence interval of the mean (Student's t); with fewer than two runs
// they, and StdDev, are not defined: NaN here, empty in CSV, null in JSON.
type SweepStats struct {
	Metric string `json:"metric"`
	N      int    `json:"n"`
	Mean   Number `json:"mean"`
	StdDev Number `json:"stddev"`
	CILow  Number `json:"ci95_low"`
	CIHigh Number `json:"ci95_high"`
	Min    Number `json:"min"`
	P10    Number `json:"p10"`
	P25    Number `json:"p25"`
	Median Number `json:"median"`
	P75    Number `json:"p75"`
	P90    Number `json:"p90"`
	P99    Number `json:"p99"`
	Max    Number `json:"max"`
}

// Number is a float64 that is null in JSON when it is not a number.
type Number float64

// MarshalJSON writes NaN and infinities as null.
func (n Number) MarshalJSON() ([]byte, error) {
	v := float64(n)
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return []byte("null"), nil
	}
	return json.Marshal(v)
}

// UnmarshalJSON reads null as NaN.
func (n *Number) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*n = Number(math.NaN())
		return nil
	}
	var v float64
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*n = Number(v)
	return nil
}

// sweepStatColumns are the statistics of SweepStats, in column order.
func sweepStatColumns() []string {
	return []string{"n", "mean", "stddev", "ci95_low", "ci95_high", "min", "p10", "p25", "median", "p75", "p90", "p99", "max"}
}

func (s SweepStats) values() []Number {
	return []Number{s.Mean, s.StdDev, s.CILow, s.CIHigh, s.Min, s.P10, s.P25, s.Median, s.P75, s.P90, s.P99, s.Max}
}

// Stat returns a statistic by its column name (see SweepStatsCSV).
func (s SweepStats) Stat(name string) (float64, bool) {
	if name == "n" {
		return float64(s.N), true
	}
	if i := slices.Index(sweepStatColumns()[1:], name); i >= 0 {
		return float64(s.values()[i]), true
	}
	return 0, false
}

// WriteSweepJSON writes s as indented JSON: stats.json.
func WriteSweepJSON(w io.Writer, s *Sweep) error {
	if s == nil {
		return errors.New("report: no sweep to write")
	}
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return fmt.Errorf("report: encoding stats.json: %w", err)
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// SweepParamColumns names the CSV columns of the varied paths: the path
// itself, or vary.<path> when it would clash with a fixed column (seed).
func SweepParamColumns(params []string, fixed ...string) []string {
	out := make([]string, len(params))
	for i, p := range params {
		out[i] = p
		for _, f := range fixed {
			if p == f {
				out[i] = "vary." + p
			}
		}
	}
	return out
}

// SweepStatsCSV writes stats.csv in long form, one row per (point,
// protocol, metric), with full precision ('f', shortest exact):
//
//	point,members,session_timeout,protocol,metric,n,mean,stddev,ci95_low,ci95_high,min,p10,p25,median,p75,p90,p99,max
//	0,10,10s,eager,rebalances,200,12,...
//
// Undefined statistics (one run: stddev and the interval) are empty.
func SweepStatsCSV(w io.Writer, s *Sweep) error {
	cw := csv.NewWriter(w)
	lead := []string{"point"}
	cell := []string{"protocol", "first_seed", "runs", "converged_runs", "runs_with_safety_findings", "metric"}
	cw.Write(slices.Concat(lead, SweepParamColumns(s.Params, slices.Concat(lead, cell)...), cell, sweepStatColumns()))
	for _, p := range s.Points {
		for _, c := range p.Protocols {
			for _, m := range c.Metrics {
				row := []string{strconv.Itoa(p.Index)}
				row = append(row, p.Values...)
				row = append(row, c.Protocol, strconv.FormatUint(p.FirstSeed, 10), strconv.Itoa(c.Runs),
					strconv.Itoa(c.Converged), strconv.Itoa(c.Unsafe), m.Metric, strconv.Itoa(m.N))
				for _, v := range m.values() {
					row = append(row, CSVNumber(float64(v)))
				}
				cw.Write(row)
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// CSVNumber formats a value for rebalsim's CSV files: the shortest decimal
// that reads back as the same float64, never an exponent; empty for NaN.
func CSVNumber(v float64) string {
	if math.IsNaN(v) {
		return ""
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// sweepTableMetrics are the metrics the sweep's text summary and charts
// show, the headline costs of the summary chart.
func sweepTableMetrics(s *Sweep) []string {
	var out []string
	for _, m := range summaryChartMetrics() {
		if s.metricIndex(m) >= 0 {
			out = append(out, m)
		}
	}
	return out
}

func (s *Sweep) metricIndex(name string) int { return slices.Index(s.Metrics, name) }

// sweepHeadline names the sweep in one line.
func sweepHeadline(s *Sweep) string {
	var grid []string
	for i, p := range s.Params {
		grid = append(grid, fmt.Sprintf("%s (%d)", p, len(sweepParamValues(s, i))))
	}
	dims := "no varied values"
	if len(grid) > 0 {
		dims = strings.Join(grid, " × ")
	}
	return fmt.Sprintf("sweep of %s: %d points [%s] × %d seeds × %d protocols = %d runs (rebalsim %s)",
		orUnknownName(s.Scenario.Name), len(s.Points), dims, s.Seeds, len(s.Protocols), s.Runs, orUnknown(s.Version))
}

func orUnknownName(s string) string {
	if s == "" {
		return "(unnamed scenario)"
	}
	return s
}

// sweepParamValues lists the distinct values of param i, in grid order.
func sweepParamValues(s *Sweep, i int) []string {
	var out []string
	seen := map[string]bool{}
	for _, p := range s.Points {
		if i < len(p.Values) && !seen[p.Values[i]] {
			seen[p.Values[i]] = true
			out = append(out, p.Values[i])
		}
	}
	return out
}

// sweepRows is the body of the text and Markdown summaries of one metric:
// a row per (point, protocol) with the point's values, the protocol, and
// mean, 95% interval, median, p90, p99 and max.
func sweepRows(s *Sweep, metric string) [][]string {
	k := s.metricIndex(metric)
	header := append(append([]string{}, s.Params...), "protocol", "mean", "95% CI of mean", "median", "p90", "p99", "max")
	rows := [][]string{header}
	for _, p := range s.Points {
		for _, c := range p.Protocols {
			if k < 0 || k >= len(c.Metrics) {
				continue
			}
			st := c.Metrics[k]
			f := func(v Number) string { return formatStat(metric, float64(v)) }
			ci := "-"
			if !math.IsNaN(float64(st.CILow)) {
				ci = "[" + f(st.CILow) + ", " + f(st.CIHigh) + "]"
			}
			row := append(append([]string{}, p.Values...), c.Protocol, f(st.Mean), ci, f(st.Median), f(st.P90), f(st.P99), f(st.Max))
			rows = append(rows, row)
		}
	}
	return rows
}

// formatStat prints a statistic: seconds with three decimals, counts and
// records with at most two (a mean of counts is rarely whole).
func formatStat(metric string, v float64) string {
	if math.IsNaN(v) {
		return "-"
	}
	if strings.HasSuffix(metric, "_seconds") {
		return formatFixed(v, 3)
	}
	return trimFloat(v)
}

// SweepTable writes the sweep's summary for a terminal: a headline, the
// warnings, then one table per headline metric with a row per grid point
// and protocol. stats.csv has every metric and statistic.
func SweepTable(w io.Writer, s *Sweep) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "%s\n", sweepHeadline(s))
	for _, warn := range s.Warnings {
		fmt.Fprintf(bw, "warning: %s\n", warn)
	}
	for _, m := range sweepTableMetrics(s) {
		fmt.Fprintf(bw, "\n%s (over %d seeds per row)\n", m, s.Seeds)
		grid := sweepRows(s, m)
		writeAligned(bw, grid, "  ", func(col int) bool { return col > len(s.Params) })
	}
	unsafe := 0
	for _, p := range s.Points {
		for _, c := range p.Protocols {
			unsafe += c.Unsafe
		}
	}
	if unsafe > 0 {
		fmt.Fprintf(bw, "\n%d runs reported a safety finding (double ownership); runs.csv names them (safety_findings > 0)\n", unsafe)
	}
	return bw.Flush()
}

// SweepMarkdown writes the same summary as SweepTable as Markdown, for a
// pull request or a design document.
func SweepMarkdown(w io.Writer, s *Sweep) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "### %s\n\n", mdEscape(sweepHeadline(s)))
	for _, warn := range s.Warnings {
		fmt.Fprintf(bw, "> **warning:** %s\n\n", mdEscape(warn))
	}
	for _, m := range sweepTableMetrics(s) {
		fmt.Fprintf(bw, "#### `%s` (over %d seeds per row)\n\n", m, s.Seeds)
		grid := sweepRows(s, m)
		writeMDRow(bw, mdEscapeAll(grid[0]))
		sep := make([]string, len(grid[0]))
		for i := range sep {
			sep[i] = "---"
			if i > len(s.Params) {
				sep[i] = "---:"
			}
		}
		writeMDRow(bw, sep)
		for _, row := range grid[1:] {
			writeMDRow(bw, mdEscapeAll(row))
		}
		bw.WriteString("\n")
	}
	return bw.Flush()
}

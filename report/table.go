package report

import (
	"bufio"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"
)

// Table writes the comparison for a terminal: a header naming the scenario,
// one row per metric with one column per run and the best value of each
// row marked with *, then the findings and the convergence after each
// disturbance.
func Table(w io.Writer, r *Report) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "%s\n", headline(r))
	bw.WriteString("\n")

	s := summarize(r)
	grid := [][]string{append([]string{"metric"}, s.runs...)}
	for _, row := range s.rows {
		line := []string{row.metric}
		for i, c := range row.cells {
			// Every value gets a mark column, so marked and unmarked
			// numbers stay aligned on their last digit.
			mark := " "
			if row.best[i] {
				mark = "*"
			}
			line = append(line, c+mark)
		}
		grid = append(grid, line)
	}
	writeGrid(bw, grid, "  ")
	bw.WriteString("  * best of the row (every metric is a cost: lower is better)\n\n")

	writeFindingsText(bw, r)
	bw.WriteString("\n")
	writeConvergenceText(bw, r)
	writePartitionsText(bw, r)
	return bw.Flush()
}

// headline names the scenario, seed, horizon, Kafka release and version
// in one line.
func headline(r *Report) string {
	sc := r.Scenario
	parts := append([]string{fmt.Sprintf("seed %d", sc.Seed)}, runFacts(r)...)
	name := sc.Name
	if name == "" && len(r.Runs) > 0 {
		name = r.Runs[0].Scenario
	}
	return fmt.Sprintf("scenario %s (%s)", name, strings.Join(parts, ", "))
}

// runFacts are the headline's facts after the seeds: the horizon, the
// Kafka release and rebalsim's version.
func runFacts(r *Report) []string {
	var parts []string
	if r.Scenario.Duration > 0 {
		parts = append(parts, "horizon "+formatSeconds(r.Scenario.Duration))
	}
	if r.Scenario.KafkaVersion != "" {
		parts = append(parts, "Kafka "+r.Scenario.KafkaVersion)
	}
	if r.Version != "" {
		parts = append(parts, "rebalsim "+r.Version)
	}
	return parts
}

func writeFindingsText(w *bufio.Writer, r *Report) {
	rows := findingRows(r)
	if len(rows) == 0 {
		w.WriteString("findings: none\n")
		return
	}
	fmt.Fprintf(w, "findings: %d\n", len(rows))
	grid := [][]string{{"run", "kind", "at", "members", "partitions", "detail"}}
	for _, f := range rows {
		grid = append(grid, []string{f.run, f.kind, f.at, dash(f.members), dash(f.partitions), f.detail})
	}
	writeGridLeft(w, grid, "  ")
}

func writeConvergenceText(w *bufio.Writer, r *Report) {
	c := convergence(r)
	switch {
	case c.count == 0:
		w.WriteString("convergence: no disturbances\n")
	case c.rows != nil:
		w.WriteString("convergence after each disturbance (>: not converged by the horizon)\n")
		grid := [][]string{append([]string{"disturbance", "at"}, c.runs...)}
		for _, row := range c.rows {
			grid = append(grid, append([]string{row.label, row.at}, row.cells...))
		}
		writeGrid(w, grid, "  ")
	default:
		fmt.Fprintf(w, "convergence after %d disturbances\n", c.count)
		grid := [][]string{}
		for i, s := range c.summaries {
			grid = append(grid, []string{c.runs[i], s})
		}
		writeGridLeft(w, grid, "  ")
	}
	if note := c.notReachedNote(); note != "" {
		w.WriteString("  " + note + "\n")
	}
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// writeGrid lays out rows in columns, indented: the first column left
// aligned (names), the rest right aligned (numbers).
func writeGrid(w *bufio.Writer, grid [][]string, indent string) {
	writeAligned(w, grid, indent, func(col int) bool { return col > 0 })
}

// writeGridLeft lays out rows with every column left aligned (text).
func writeGridLeft(w *bufio.Writer, grid [][]string, indent string) {
	writeAligned(w, grid, indent, func(int) bool { return false })
}

func writeAligned(w *bufio.Writer, grid [][]string, indent string, right func(col int) bool) {
	var widths []int
	for _, row := range grid {
		for i, c := range row {
			if i >= len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], utf8.RuneCountInString(c))
		}
	}
	for _, row := range grid {
		var b strings.Builder
		b.WriteString(indent)
		for i, c := range row {
			pad := strings.Repeat(" ", widths[i]-utf8.RuneCountInString(c))
			if i > 0 {
				b.WriteString("  ")
			}
			if right(i) {
				b.WriteString(pad + c)
			} else if i < len(row)-1 {
				b.WriteString(c + pad)
			} else {
				b.WriteString(c) // no trailing spaces
			}
		}
		w.WriteString(strings.TrimRight(b.String(), " ") + "\n")
	}
}

// MemberMetricsTable writes each member's client metrics (Kafka's
// consumer-coordinator-metrics under their own names, KIP-429) as one block
// per metric: one row per member, one column per run, so that a member's
// rebalance latency under each protocol sits side by side.
func MemberMetricsTable(w io.Writer, r *Report) error {
	bw := bufio.NewWriter(w)
	m := memberMetrics(r)
	if len(m.metrics) == 0 {
		bw.WriteString("member metrics: none recorded\n")
		return bw.Flush()
	}
	for k, name := range m.metrics {
		if k > 0 {
			bw.WriteString("\n")
		}
		bw.WriteString(name + "\n")
		grid := [][]string{append([]string{"member"}, m.runs...)}
		for j, member := range m.members {
			grid = append(grid, append([]string{member}, m.cells[k][j]...))
		}
		writeGrid(bw, grid, "  ")
	}
	return bw.Flush()
}

// memberMetricsGrid is every member metric of every run, as strings:
// cells[metric][member][run].
type memberMetricsGrid struct {
	runs    []string
	metrics []string
	members []string
	cells   [][][]string
}

func memberMetrics(r *Report) memberMetricsGrid {
	g := memberMetricsGrid{runs: runNames(r)}
	order := newMemberOrder(r)
	metricSet := map[string]bool{}
	memberSet := map[string]bool{}
	type key struct{ metric, member string }
	values := map[key][]string{}
	for i, run := range r.Runs {
		for _, mm := range run.Members {
			memberSet[mm.Member] = true
			for _, nm := range mm.Metrics {
				metricSet[nm.Name] = true
				k := key{nm.Name, mm.Member}
				if values[k] == nil {
					values[k] = make([]string, len(r.Runs))
					for j := range values[k] {
						values[k][j] = "-"
					}
				}
				values[k][i] = formatNumber(nm.Value)
			}
		}
	}
	g.metrics = slices.Sorted(maps.Keys(metricSet))
	for _, name := range order.names {
		if memberSet[name] {
			g.members = append(g.members, name)
		}
	}
	for _, metric := range g.metrics {
		var rows [][]string
		for _, member := range g.members {
			v := values[key{metric, member}]
			if v == nil {
				v = make([]string, len(r.Runs))
				for j := range v {
					v[j] = "-"
				}
			}
			rows = append(rows, v)
		}
		g.cells = append(g.cells, rows)
	}
	return g
}

package bench

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/rebalsim/rebalsim/sim"
)

// WriteTable writes the scaling table of one unit as Markdown: the median
// cost at every point of the grid, by protocol and group size (rows) and
// partition count (columns); the local log-log slopes between neighbouring
// points, which show where a growth bends; and each protocol's growth
// fitted over all its points. A point without a measurement is shown as
// "—" and left out of the slopes and the fits.
func WriteTable(w io.Writer, results []Result, unit string) error {
	costs := Medians(results, unit)
	if len(costs) == 0 {
		return fmt.Errorf("no %s measurements of %s in the input", unit, benchmarkName)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Cost of a run with a rolling restart of %d members (%s; the median where a point ran more than once):\n\n", Restarts, unit)
	header(&b, "members", labels(gridPartitions, count))
	rows(&b, gridMembers, len(gridPartitions), func(proto string, m, i int) string {
		if c, ok := costs[Point{proto, m, gridPartitions[i]}]; ok {
			return amount(c, unit)
		}
		return "—"
	})

	b.WriteString("\nGrowth with partitions at each group size: the slope of log(cost) over log(partitions) between neighbouring columns (0 is flat, 1 linear, 2 quadratic):\n\n")
	header(&b, "members", steps(gridPartitions))
	rows(&b, gridMembers, len(gridPartitions)-1, func(proto string, m, i int) string {
		lo, hi := gridPartitions[i], gridPartitions[i+1]
		return slope(costs, Point{proto, m, lo}, Point{proto, m, hi}, lo, hi)
	})

	b.WriteString("\nGrowth with members at each partition count: the slope of log(cost) over log(members) between neighbouring group sizes:\n\n")
	header(&b, "partitions", steps(gridMembers))
	rows(&b, gridPartitions, len(gridMembers)-1, func(proto string, n, i int) string {
		lo, hi := gridMembers[i], gridMembers[i+1]
		return slope(costs, Point{proto, lo, n}, Point{proto, hi, n}, lo, hi)
	})

	b.WriteString("\nFitted growth over every measured point, cost ≈ C × members^a × partitions^b (least squares on the logarithms; R² near 1 when the points lie on one power law):\n\n")
	b.WriteString("| protocol | a (members) | b (partitions) | R² | points |\n| --- | ---: | ---: | ---: | ---: |\n")
	for _, proto := range sim.Protocols() {
		var samples []Sample
		for _, m := range gridMembers {
			for _, n := range gridPartitions {
				if c, ok := costs[Point{proto, m, n}]; ok {
					samples = append(samples, Sample{m, n, c})
				}
			}
		}
		g, err := FitGrowth(samples)
		if err != nil {
			fmt.Fprintf(&b, "| %s | — | — | — | %d: %v |\n", proto, len(samples), err)
			continue
		}
		fmt.Fprintf(&b, "| %s | %.2f | %.2f | %.3f | %d |\n", proto, g.A, g.B, g.R2, g.Points)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// header writes a table's first two lines: protocol, the row key, then
// one right-aligned column per label.
func header(b *strings.Builder, rowKey string, cols []string) {
	fmt.Fprintf(b, "| protocol | %s |", rowKey)
	for _, c := range cols {
		fmt.Fprintf(b, " %s |", c)
	}
	b.WriteString("\n| --- | ---: |" + strings.Repeat(" ---: |", len(cols)) + "\n")
}

// rows writes a table's body: a line per protocol and row size, and in
// it cols cells, the i-th cell(protocol, row size, i).
func rows(b *strings.Builder, sizes []int, cols int, cell func(proto string, size, i int) string) {
	for _, proto := range sim.Protocols() {
		for _, size := range sizes {
			fmt.Fprintf(b, "| %s | %s |", proto, count(size))
			for i := range cols {
				fmt.Fprintf(b, " %s |", cell(proto, size, i))
			}
			b.WriteString("\n")
		}
	}
}

// labels names the columns of sizes.
func labels(sizes []int, label func(int) string) []string {
	out := make([]string, len(sizes))
	for i, s := range sizes {
		out[i] = label(s)
	}
	return out
}

// steps labels the columns between neighbouring sizes: "1k → 10k".
func steps(sizes []int) []string {
	out := make([]string, 0, len(sizes)-1)
	for i := 1; i < len(sizes); i++ {
		out = append(out, count(sizes[i-1])+" → "+count(sizes[i]))
	}
	return out
}

// slope is the log-log slope between two points whose sizes are lo and
// hi along the axis that differs, or "—" when either was not measured.
func slope(costs map[Point]float64, a, b Point, lo, hi int) string {
	ca, okA := costs[a]
	cb, okB := costs[b]
	if !okA || !okB || !(ca > 0) || !(cb > 0) {
		return "—"
	}
	return fmt.Sprintf("%.2f", math.Log(cb/ca)/math.Log(float64(hi)/float64(lo)))
}

// count writes a size as the grid's labels do: 10, 100, 1k, 10k, 1M.
func count(n int) string {
	switch {
	case n >= 1_000_000 && n%1_000_000 == 0:
		return fmt.Sprintf("%dM", n/1_000_000)
	case n >= 1_000 && n%1_000 == 0:
		return fmt.Sprintf("%dk", n/1_000)
	}
	return fmt.Sprint(n)
}

// amount writes a measurement with three significant digits: times
// (units in ns) in s, ms or µs, anything else with an SI prefix.
func amount(v float64, unit string) string {
	prefixes := []string{"", " k", " M", " G"}
	if strings.HasPrefix(unit, "ns/") || strings.Contains(unit, "-ns/") {
		prefixes = []string{" ns", " µs", " ms", " s"}
	}
	i := 0
	for i < len(prefixes)-1 && v >= 1000 {
		v /= 1000
		i++
	}
	return sig3(v) + prefixes[i]
}

// sig3 writes x with three significant digits and no exponent.
func sig3(x float64) string {
	switch {
	case x >= 99.95:
		return fmt.Sprintf("%.0f", x)
	case x >= 9.995:
		return fmt.Sprintf("%.1f", x)
	}
	return fmt.Sprintf("%.2f", x)
}

package report

import (
	"bufio"
	"fmt"
	"strings"
)

// worstShown is how many of a run's worst partitions the text report lists.
const worstShown = 5

// writePartitionsText lists what the metrics table cannot show: which
// partitions were hot, the partitions that waited longest in each run,
// and which rebalance caused the duplicates. Each part is left out when
// it has nothing to say, so a group with even load and no lag prints
// nothing here.
func writePartitionsText(w *bufio.Writer, r *Report) {
	names := runNames(r)
	if hot := hotPartitions(r); len(hot) > 0 {
		fmt.Fprintf(w, "\nhot partitions (at least twice their topic's median rate): %s\n", strings.Join(hot, ", "))
	}
	grid := [][]string{{"run", "partition", "rate", "hot", "moves", "peak lag", "max lag"}}
	for i, run := range r.Runs {
		for _, p := range run.WorstPartitions[:min(len(run.WorstPartitions), worstShown)] {
			if p.MaxLagSeconds <= 0 {
				break
			}
			grid = append(grid, []string{names[i], p.Partition, trimFloat(p.Rate), yesNo(p.Hot), fmt.Sprint(p.Moves),
				fmt.Sprintf("%.0f", p.PeakLagRecords), formatSeconds(p.MaxLagSeconds)})
		}
	}
	if len(grid) > 1 {
		w.WriteString("\npartitions with the largest lag in time\n")
		writeGridLeft(w, grid, "  ")
	}
	grid = [][]string{{"run", "rebalance", "at", "after", "duplicates"}}
	for i, run := range r.Runs {
		for _, d := range run.DuplicatesByRebalance {
			n := "none yet"
			if d.Rebalance > 0 {
				n = fmt.Sprint(d.Rebalance)
			}
			grid = append(grid, []string{names[i], n, formatSeconds(d.At), dash(d.Disturbance), fmt.Sprintf("%.0f", d.Records)})
		}
	}
	if len(grid) > 1 {
		w.WriteString("\nduplicate records by the rebalance that caused them\n")
		writeGridLeft(w, grid, "  ")
	}
}

// hotPartitions names the partitions hot in any run (the same in every
// run of one scenario and seed), in the first run's order.
func hotPartitions(r *Report) []string {
	var out []string
	seen := map[string]bool{}
	for _, run := range r.Runs {
		for _, p := range run.HotPartitions {
			if !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	return out
}

package report

import (
	"bufio"
	"cmp"
	"encoding/csv"
	"io"
	"slices"
	"strconv"

	"github.com/rebalsim/rebalsim/sim"
)

// CSV writes the metrics in long form, one row per (run, metric), with full
// precision so that spreadsheets and scripts see the exact values:
//
//	protocol,metric,value
//	eager,rebalances,1
//	...
//	eager,converged,true
func CSV(w io.Writer, r *Report) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"protocol", "metric", "value"})
	names := runNames(r)
	for i, run := range r.Runs {
		for _, name := range sim.MetricNames() {
			v, _ := run.Metrics.Value(name)
			cw.Write([]string{names[i], name, csvFloat(v)})
		}
		cw.Write([]string{names[i], "converged", strconv.FormatBool(run.Metrics.Converged)})
	}
	cw.Flush()
	return cw.Error()
}

// TimelineCSV writes every run's per-partition ownership history:
//
//	protocol,partition,owner,state,start,end
//
// with rows ordered by run, then partition (natural order), then start.
// owner is empty while a partition is unowned.
func TimelineCSV(w io.Writer, r *Report) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	cw := csv.NewWriter(bw)
	cw.Write([]string{"protocol", "partition", "owner", "state", "start", "end"})
	names := runNames(r)
	for i, run := range r.Runs {
		for _, s := range sortedSegments(run.Timeline) {
			cw.Write([]string{names[i], s.Partition, s.Owner, s.State, csvFloat(s.Start), csvFloat(s.End)})
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return err
	}
	return bw.Flush()
}

// sortedSegments orders a timeline by partition, then start, leaving the
// result itself untouched.
func sortedSegments(segs []sim.Segment) []sim.Segment {
	out := slices.Clone(segs)
	slices.SortStableFunc(out, func(a, b sim.Segment) int {
		if c := naturalCompare(a.Partition, b.Partition); c != 0 {
			return c
		}
		return cmp.Compare(a.Start, b.Start)
	})
	return out
}

// csvFloat prints the shortest decimal that reads back as the same float,
// never in exponent form.
func csvFloat(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

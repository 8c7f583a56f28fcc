package report

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/rebalsim/rebalsim/sim"
)

func render2(t *testing.T, r *Report, fn func(io.Writer, *Report) error) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := fn(&b, r); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestTextOutputsGolden(t *testing.T) {
	lab := labReport()
	large := largeReport(10, 200)
	for _, tc := range []struct {
		name string
		r    *Report
		fn   func(io.Writer, *Report) error
	}{
		{"table_golden.txt", lab, Table},
		{"table_large_golden.txt", large, Table},
		{"markdown_golden.md", lab, Markdown},
		{"markdown_large_golden.md", large, Markdown},
		{"metrics_golden.csv", lab, CSV},
		{"timeline_golden.csv", lab, TimelineCSV},
		{"members_golden.txt", lab, MemberMetricsTable},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkGolden(t, tc.name, render2(t, tc.r, tc.fn))
		})
	}
}

func TestTableListsEveryMetricAndMarksBest(t *testing.T) {
	out := string(render2(t, labReport(), Table))
	for _, name := range summaryMetrics() {
		if !strings.Contains(out, "\n  "+name+" ") {
			t.Errorf("table has no row for %s", name)
		}
	}
	// Cooperative moved 3 and nextgen moved 3: both best; eager's 6 is not.
	row := lineWith(out, "moved_partitions")
	if got := strings.Fields(row); len(got) != 4 || got[1] != "6" || got[2] != "3*" || got[3] != "3*" {
		t.Errorf("moved_partitions row = %q, want 6, 3*, 3*", row)
	}
	// Every run has zero duplicates: nothing to choose, nothing marked.
	if row := lineWith(out, "duplicate_records"); strings.Contains(row, "*") {
		t.Errorf("a row of equal values is marked: %q", row)
	}
	if !strings.Contains(out, "double_ownership") || !strings.Contains(out, "orders-5") {
		t.Errorf("the finding is not listed:\n%s", out)
	}
}

func lineWith(text, prefix string) string {
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), prefix+" ") {
			return strings.TrimSpace(l)
		}
	}
	return ""
}

func TestMarkBest(t *testing.T) {
	vals := func(vs ...float64) func(int) (float64, bool) {
		return func(i int) (float64, bool) { return vs[i], vs[i] >= 0 }
	}
	for _, tc := range []struct {
		name string
		vs   []float64 // negative: not eligible
		want string
	}{
		{"lowest wins", []float64{3, 1, 2}, ".x."},
		{"ties share", []float64{1, 2, 1}, "x.x"},
		{"all equal marks nothing", []float64{4, 4, 4}, "..."},
		{"one run marks nothing", []float64{4}, "."},
		{"ineligible never wins", []float64{-1, 5, 5}, ".xx"},
		{"nothing eligible", []float64{-1, -1}, ".."},
	} {
		best := make([]bool, len(tc.vs))
		markBest(best, len(tc.vs), vals(tc.vs...))
		var got strings.Builder
		for _, b := range best {
			if b {
				got.WriteByte('x')
			} else {
				got.WriteByte('.')
			}
		}
		if got.String() != tc.want {
			t.Errorf("%s: marks %s, want %s", tc.name, got.String(), tc.want)
		}
	}
}

func TestNeverConvergedIsNeverBest(t *testing.T) {
	r := labReport()
	r.Runs[1].Metrics.Converged = false
	r.Runs[1].Metrics.ConvergenceSeconds = 0.1
	s := summarize(r)
	for _, row := range s.rows {
		switch row.metric {
		case "convergence_seconds":
			if row.cells[1] != "never" || row.best[1] || !row.best[2] {
				t.Errorf("convergence row: cells %v best %v", row.cells, row.best)
			}
		case "converged":
			if row.cells[1] != "no" || row.best[1] || !row.best[0] || !row.best[2] {
				t.Errorf("converged row: cells %v best %v", row.cells, row.best)
			}
		}
	}
}

func TestNaturalCompare(t *testing.T) {
	ordered := []string{"c1", "c2", "c10", "orders-2", "orders-10", "orders-100", "t1-0", "t10-0"}
	for i := range ordered {
		for j := range ordered {
			got := naturalCompare(ordered[i], ordered[j])
			want := 0
			if i < j {
				want = -1
			} else if i > j {
				want = 1
			}
			if got != want {
				t.Errorf("naturalCompare(%q, %q) = %d, want %d", ordered[i], ordered[j], got, want)
			}
		}
	}
	if naturalCompare("c01", "c1") == 0 {
		t.Error("distinct names compare equal")
	}
}

// TestManyDisturbancesAreSummarised checks the compact form: a rolling
// restart of a large group is one line per run, not a row per member.
func TestManyDisturbancesAreSummarised(t *testing.T) {
	r := labReport()
	for i, run := range r.Runs {
		run.Convergence = nil
		for k := range 20 {
			run.Convergence = append(run.Convergence, sim.Convergence{
				Disturbance: fmt.Sprintf("rolling restart c%d", k+1), At: float64(10 * k),
				Seconds: float64(k%5 + i), Converged: !(i == 2 && k == 7),
			})
		}
	}
	out := string(render2(t, r, Table))
	for _, want := range []string{
		"convergence after 20 disturbances",
		"eager        20/20 converged, median 2s, worst 4s after \"rolling restart c5\"",
		"nextgen      19/20 converged, median 4s, worst >4s after \"rolling restart c8\"",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	md := string(render2(t, r, Markdown))
	if !strings.Contains(md, "Convergence after 20 disturbances") || strings.Contains(md, "| rolling restart c1 |") {
		t.Errorf("markdown does not summarise:\n%s", md)
	}
}

func TestMarkdownBoldsBest(t *testing.T) {
	md := string(render2(t, labReport(), Markdown))
	if !strings.Contains(md, "| `moved_partitions` | 6 | **3** | **3** |") {
		t.Errorf("markdown row not marked as expected:\n%s", md)
	}
	if !strings.Contains(md, "| ---: |") {
		t.Error("markdown numbers are not right aligned")
	}
}

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rebalsim/rebalsim/bench"
)

// lines are two points' worth of BenchmarkScaling output per protocol
// below: cost 1 ms at 10 × 1k, 10 ms at 100 × 1k and 100 ms at 10 × 100k
// for eager, so a = 1 (ten times the members, ten times the cost) and
// b = 1 (a hundred times the partitions, a hundred times the cost).
const lines = `pkg: github.com/rebalsim/rebalsim/bench
BenchmarkScaling/protocol=eager/members=10/partitions=1000-2 	1000	 2000000 ns/op	 1000000 cpu-ns/op
BenchmarkScaling/protocol=eager/members=100/partitions=1000-2 	100	 20000000 ns/op	 10000000 cpu-ns/op
BenchmarkScaling/protocol=eager/members=10/partitions=100000-2 	10	 200000000 ns/op	 100000000 cpu-ns/op
PASS
`

func TestRun(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "scaling.txt")
	if err := os.WriteFile(file, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errs bytes.Buffer
	if code := run([]string{file}, strings.NewReader(""), &out, &errs); code != 0 {
		t.Fatalf("exit %d: %s", code, errs.String())
	}
	for _, want := range []string{"(cpu-ns/op;", "| eager | 10 | 1.00 ms | — | 100 ms | — |", "| eager | 1.00 | 1.00 | 1.000 | 3 |"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}

	// From standard input, wall time and CPU time: two tables.
	out.Reset()
	if code := run([]string{"--unit", "ns/op", "--unit", "cpu-ns/op"}, strings.NewReader(lines), &out, &errs); code != 0 {
		t.Fatalf("exit %d: %s", code, errs.String())
	}
	if got := strings.Count(out.String(), "| eager | 1.00 | 1.00 | 1.000 | 3 |"); got != 2 || !strings.Contains(out.String(), "| eager | 10 | 2.00 ms |") {
		t.Errorf("want a wall-time table and a CPU table, each fitting a = b = 1:\n%s", out.String())
	}
}

func TestRunBadInput(t *testing.T) {
	for _, tc := range []struct {
		args  []string
		stdin string
		want  string
	}{
		{nil, "BenchmarkScaling/protocol=eager/members=10/partitions=1000-2 1 x ns/op\n", "scalingtable: standard input:1:64: want a number before \"ns/op\""},
		{[]string{"--unit", "B/op"}, lines, "scalingtable: no B/op measurements"},
		{[]string{"no-such-file.txt"}, "", "scalingtable: open no-such-file.txt"},
		{[]string{"--units", "B/op"}, lines, "unknown flag: --units"},
		{[]string{"--scenario", "1000"}, "", "--scenario: want MEMBERSxPARTITIONS"},
		{[]string{"--scenario", "0x1000"}, "", "found \"0x1000\""},
	} {
		var out, errs bytes.Buffer
		if code := run(tc.args, strings.NewReader(tc.stdin), &out, &errs); code != 2 || !strings.Contains(errs.String(), tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, code, errs.String(), tc.want)
		}
	}
}

// TestRunScenario: --scenario prints the point's file, the one
// BenchmarkScaling runs.
func TestRunScenario(t *testing.T) {
	var out, errs bytes.Buffer
	if code := run([]string{"--scenario", "10x1000"}, strings.NewReader(""), &out, &errs); code != 0 {
		t.Fatalf("exit %d: %s", code, errs.String())
	}
	if want := string(bench.Source(10, 1000)); out.String() != want {
		t.Errorf("printed\n%s\nwant\n%s", out.String(), want)
	}
}

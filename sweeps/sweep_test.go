package sweeps

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/rebalsim/rebalsim/internal/atomicfile"
	"github.com/rebalsim/rebalsim/scenarios"
)

// tiny is a sweep small enough to run many times in a test: 2 points × 3
// seeds × 3 protocols, a few milliseconds a run.
const tiny = `name: tiny
description: a small group restarted one member at a time
duration: 90s
topics: [{name: orders, partitions: 6, rate: 50}]
members:
  - {count: 3, id: "c{i}"}
events:
  - {at: 20s, rolling_restart: {members: all, interval: 10s, down: 3s, graceful: true}}
sweep:
  seeds: 3
  vary:
    members: [2, 3]
`

func expand(t *testing.T, src string, spec Spec) *Grid {
	t.Helper()
	g, err := Expand("tiny.yaml", []byte(src), spec)
	if err != nil {
		t.Fatalf("Expand: %v", err)
	}
	return g
}

func TestExpandGrid(t *testing.T) {
	g := expand(t, tiny, Spec{Vary: []scenarios.Variation{{Path: "session_timeout", Values: []string{"10s", "45s", "1m"}}}})
	if g.Seeds != 3 || !slices.Equal(g.Protocols, []string{"eager", "cooperative", "nextgen"}) {
		t.Errorf("seeds %d, protocols %v; want the sweep block's 3 seeds and every protocol", g.Seeds, g.Protocols)
	}
	if !slices.Equal(g.Params, []string{"members", "session_timeout"}) {
		t.Fatalf("params = %v", g.Params)
	}
	// The first path changes slowest.
	var labels []string
	for i := range g.Points {
		labels = append(labels, g.Label(i))
	}
	want := []string{
		"members=2, session_timeout=10s", "members=2, session_timeout=45s", "members=2, session_timeout=1m",
		"members=3, session_timeout=10s", "members=3, session_timeout=45s", "members=3, session_timeout=1m",
	}
	if !slices.Equal(labels, want) {
		t.Errorf("points:\n  %s\nwant\n  %s", strings.Join(labels, "\n  "), strings.Join(want, "\n  "))
	}
	p := g.Points[4].Scenario
	if len(p.Members) != 3 || p.Defaults.SessionTimeout == nil || p.Defaults.SessionTimeout.String() != "45s" {
		t.Errorf("point 4 has %d members, session timeout %v", len(p.Members), p.Defaults.SessionTimeout)
	}
	if g.Runs() != 6*3*3 {
		t.Errorf("runs = %d, want 54", g.Runs())
	}

	// Flags override the block: a --vary of the same path replaces it in
	// place, --seeds and --protocols win.
	g = expand(t, tiny, Spec{Seeds: 5, Protocols: []string{"nextgen", "eager"},
		Vary: []scenarios.Variation{{Path: "latency", Values: []string{"1ms"}}, {Path: "members", Values: []string{"4"}}}})
	if g.Seeds != 5 || !slices.Equal(g.Protocols, []string{"nextgen", "eager"}) || !slices.Equal(g.Params, []string{"members", "latency"}) ||
		len(g.Points) != 1 || g.Label(0) != "members=4, latency=1ms" {
		t.Errorf("seeds %d, protocols %v, params %v, points %d (%s)", g.Seeds, g.Protocols, g.Params, len(g.Points), g.Label(0))
	}
	// The block's path is matched however the flag spells it.
	src := strings.Replace(tiny, "members: [2, 3]", "session_timeout: [10s, 45s]", 1)
	g = expand(t, src, Spec{Vary: []scenarios.Variation{{Path: "defaults.session_timeout", Values: []string{"1m"}}}})
	if !slices.Equal(g.Params, []string{"defaults.session_timeout"}) || len(g.Points) != 1 {
		t.Errorf("params %v, %d points; want the flag's defaults.session_timeout in place of the block's session_timeout", g.Params, len(g.Points))
	}
	// No sweep block, no variations: one point, one seed.
	g = expand(t, strings.Split(tiny, "sweep:")[0], Spec{})
	if len(g.Points) != 1 || g.Seeds != 1 || g.Label(0) != "the scenario as written" {
		t.Errorf("points %d, seeds %d, label %q", len(g.Points), g.Seeds, g.Label(0))
	}
}

func TestExpandFailsOnTheFirstBadPoint(t *testing.T) {
	src := strings.Replace(tiny, "members: [2, 3]", "members: [3, 1]", 1)
	src = strings.Replace(src, "rolling_restart: {members: all", "rolling_restart: {members: [c1, c2]", 1)
	_, err := Expand("tiny.yaml", []byte(src), Spec{})
	want := `grid point 1 (members=1): tiny.yaml:8:47: rolling_restart names unknown member "c2"`
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("err = %v\nwant it to start with %s", err, want)
	}
	_, err = Expand("tiny.yaml", []byte(tiny), Spec{Vary: []scenarios.Variation{{Path: "session_timeout", Values: []string{"10s", "ten"}}}})
	want = `grid point 1 (members=2, session_timeout=ten): tiny.yaml:1:1: session_timeout must be a duration such as 45s, 250ms or 5m, found the string "ten" (set by override session_timeout=ten)`
	if err == nil || err.Error() != want {
		t.Errorf("err = %v\nwant %s", err, want)
	}
}

// TestExpandSeedAndRepeatedPaths: Spec.Seed is every point's first seed;
// a path varied twice by the flags, or a seed both set and varied, is an
// error rather than one of them silently winning.
func TestExpandSeedAndRepeatedPaths(t *testing.T) {
	seed := uint64(0) // a seed like any other, not "unset"
	g := expand(t, tiny, Spec{Seed: &seed})
	for i, p := range g.Points {
		if p.Scenario.Seed != 0 {
			t.Errorf("point %d starts at seed %d, want 0", i, p.Scenario.Seed)
		}
	}
	for _, tc := range []struct {
		spec Spec
		want string
	}{
		{Spec{Vary: []scenarios.Variation{{Path: "members", Values: []string{"1", "2"}}, {Path: "latency", Values: []string{"1ms"}}, {Path: "members", Values: []string{"3"}}}},
			"--vary members is given twice (members=1,2, then members=3): list every value of a path in one --vary"},
		{Spec{Vary: []scenarios.Variation{{Path: "session_timeout", Values: []string{"10s"}}, {Path: "defaults.session_timeout", Values: []string{"45s"}}}},
			"--vary defaults.session_timeout is given twice (session_timeout=10s, then defaults.session_timeout=45s): list every value of a path in one --vary"},
		{Spec{Seed: &seed, Vary: []scenarios.Variation{{Path: "seed", Values: []string{"1", "2"}}}},
			"the seed is both set (--seed 0) and varied (seed=...): give one of them"},
	} {
		if _, err := Expand("tiny.yaml", []byte(tiny), tc.spec); err == nil || err.Error() != tc.want {
			t.Errorf("Expand(%+v) = %v, want %s", tc.spec.Vary, err, tc.want)
		}
	}
}

func TestHorizonWarning(t *testing.T) {
	g := expand(t, tiny, Spec{Vary: []scenarios.Variation{{Path: "members", Values: []string{"3", "9"}}}})
	want := []string{"members=9: the rolling_restart at 20s reaches 7 of its 9 members before the 1m30s horizon (it would need 1m43s); the rest never restart"}
	if !slices.Equal(g.Warnings, want) {
		t.Errorf("warnings = %q\nwant %q", g.Warnings, want)
	}
}

func TestRunIndexing(t *testing.T) {
	g := expand(t, tiny, Spec{})
	seen := map[[3]int]bool{}
	for run := range g.Runs() {
		point, seed, proto := g.Locate(run)
		if got := ((point*g.Seeds)+seed)*len(g.Protocols) + proto; got != run {
			t.Fatalf("run %d locates to (%d, %d, %d), which numbers %d", run, point, seed, proto, got)
		}
		seen[[3]int{point, seed, proto}] = true
	}
	if len(seen) != g.Runs() {
		t.Errorf("%d distinct runs of %d", len(seen), g.Runs())
	}
}

func TestShardsCoverTheSweepExactlyOnce(t *testing.T) {
	for _, total := range []int{0, 1, 7, 54, 100} {
		for n := 1; n <= 9; n++ {
			count := make([]int, total)
			for i := 1; i <= n; i++ {
				sh := Shard{Index: i, Count: n}
				runs := sh.Runs(total)
				if !slices.IsSorted(runs) {
					t.Fatalf("shard %s of %d: runs not ascending", sh, total)
				}
				for _, r := range runs {
					count[r]++
					if !sh.Contains(r) {
						t.Fatalf("shard %s lists run %d but does not contain it", sh, r)
					}
				}
			}
			for r, c := range count {
				if c != 1 {
					t.Fatalf("%d shards of %d runs: run %d is in %d shards", n, total, r, c)
				}
			}
		}
	}
	if !(Shard{}).Whole() || (Shard{}).String() != "1/1" {
		t.Error("the zero Shard is not the whole sweep")
	}
}

func TestParseShard(t *testing.T) {
	if sh, err := ParseShard("3/16"); err != nil || sh != (Shard{Index: 3, Count: 16}) {
		t.Errorf("ParseShard(3/16) = %v, %v", sh, err)
	}
	for _, bad := range []string{"", "3", "0/4", "5/4", "a/b", "-1/2", "1/0"} {
		if _, err := ParseShard(bad); err == nil {
			t.Errorf("ParseShard(%q) accepted it", bad)
		}
	}
}

func TestParseVary(t *testing.T) {
	cases := map[string]scenarios.Variation{
		"members=10,50,100":                                      {Path: "members", Values: []string{"10", "50", "100"}},
		"session_timeout = 10s, 45s":                             {Path: "session_timeout", Values: []string{"10s", "45s"}},
		"defaults.assignors=[range],[cooperative-sticky, range]": {Path: "defaults.assignors", Values: []string{"[range]", "[cooperative-sticky, range]"}},
		"latency={dist: uniform, min: 1ms, max: 5ms},2ms":        {Path: "latency", Values: []string{"{dist: uniform, min: 1ms, max: 5ms}", "2ms"}},
		`description="a, b",c`:                                   {Path: "description", Values: []string{`"a, b"`, "c"}},
	}
	for in, want := range cases {
		got, err := ParseVary(in)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("ParseVary(%q) = %+v, %v; want %+v", in, got, err, want)
		}
	}
	for _, bad := range []string{"members", "members=", "=1,2", "members=1,,2", "members=1,1", "a..b=1"} {
		if _, err := ParseVary(bad); err == nil {
			t.Errorf("ParseVary(%q) accepted it", bad)
		}
	}
}

func TestDescribeAgainstHandComputedValues(t *testing.T) {
	st := Describe("x", []float64{4, 1, 5, 2, 3})
	// mean 3; sample variance (4+1+0+1+4)/4 = 2.5; t(0.975, 4) = 2.7764451051977987.
	half := 2.7764451051977987 * math.Sqrt(2.5) / math.Sqrt(5)
	want := map[string]float64{
		"n": 5, "mean": 3, "stddev": math.Sqrt(2.5), "ci95_low": 3 - half, "ci95_high": 3 + half,
		// Empirical quantiles: the smallest value with at least p of the values at or below it.
		"min": 1, "p10": 1, "p25": 2, "median": 3, "p75": 4, "p90": 5, "p99": 5, "max": 5,
	}
	for name, w := range want {
		got, ok := st.Stat(name)
		if !ok || math.Abs(got-w) > 1e-12 {
			t.Errorf("%s = %v, want %v", name, got, w)
		}
	}
	// 200 values 1..200: p90 is the 180th, p99 the 198th.
	var vs []float64
	for i := 200; i >= 1; i-- {
		vs = append(vs, float64(i))
	}
	st = Describe("x", vs)
	if st.P90 != 180 || st.P99 != 198 || st.Median != 100 || st.Mean != 100.5 {
		t.Errorf("1..200: p90 %v p99 %v median %v mean %v", st.P90, st.P99, st.Median, st.Mean)
	}
	// One value: no spread, no interval.
	st = Describe("x", []float64{7})
	if st.Mean != 7 || st.Max != 7 || !math.IsNaN(float64(st.StdDev)) || !math.IsNaN(float64(st.CILow)) {
		t.Errorf("one value: %+v", st)
	}
	// Equal values: a zero-width interval.
	st = Describe("x", []float64{2, 2, 2})
	if st.CILow != 2 || st.CIHigh != 2 {
		t.Errorf("equal values: interval [%v, %v]", st.CILow, st.CIHigh)
	}
}

// writeSweep runs g (or a shard) and writes it into a new directory.
func writeSweep(t *testing.T, g *Grid, opts Options, wo WriteOptions) string {
	t.Helper()
	res, err := Run(context.Background(), g, opts)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	dir := t.TempDir()
	if _, err := Write(dir, res, wo); err != nil {
		t.Fatalf("Write: %v", err)
	}
	return dir
}

// sameFiles requires two directories to hold the same files, byte for byte.
func sameFiles(t *testing.T, a, b string) {
	t.Helper()
	names := func(dir string) []string {
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range entries {
			out = append(out, e.Name())
		}
		return out
	}
	na, nb := names(a), names(b)
	if !slices.Equal(na, nb) {
		t.Fatalf("files differ:\n  %v\n  %v", na, nb)
	}
	for _, n := range na {
		da, _ := os.ReadFile(filepath.Join(a, n))
		db, _ := os.ReadFile(filepath.Join(b, n))
		if !bytes.Equal(da, db) {
			t.Errorf("%s differs", n)
		}
	}
}

func TestParallelRunsGiveIdenticalBytes(t *testing.T) {
	g := expand(t, tiny, Spec{})
	one := writeSweep(t, g, Options{Parallel: 1}, WriteOptions{NoCharts: true})
	two := writeSweep(t, g, Options{Parallel: 2}, WriteOptions{NoCharts: true})
	many := writeSweep(t, g, Options{Parallel: 7}, WriteOptions{NoCharts: true})
	sameFiles(t, one, two)
	sameFiles(t, one, many)
}

func TestFourShardsMergeIntoTheSingleMachineSweep(t *testing.T) {
	g := expand(t, tiny, Spec{})
	whole := writeSweep(t, g, Options{Parallel: 2}, WriteOptions{NoSVG: true})
	var parts []*Result
	for i := 1; i <= 4; i++ {
		dir := writeSweep(t, g, Options{Parallel: 2, Shard: Shard{Index: i, Count: 4}}, WriteOptions{})
		entries, _ := os.ReadDir(dir)
		if len(entries) != 3 {
			t.Errorf("shard %d/4 wrote %d files, want runs.csv, manifest.json and the folder's marker", i, len(entries))
		}
		part, err := Read(dir)
		if err != nil {
			t.Fatalf("Read shard %d: %v", i, err)
		}
		parts = append(parts, part)
	}
	// Order of the arguments does not matter.
	parts[0], parts[3] = parts[3], parts[0]
	merged, err := Merge(parts)
	if err != nil {
		t.Fatalf("Merge: %v", err)
	}
	out := t.TempDir()
	if _, err := Write(out, merged, WriteOptions{NoSVG: true}); err != nil {
		t.Fatal(err)
	}
	sameFiles(t, whole, out)

	// A merged sweep read back and merged alone is itself again.
	again, err := Read(out)
	if err != nil {
		t.Fatal(err)
	}
	if m, err := Merge([]*Result{again}); err != nil || !reflect.DeepEqual(m.Rows, merged.Rows) {
		t.Errorf("re-merging the whole sweep: %v", err)
	}
}

func TestMergeRejects(t *testing.T) {
	g := expand(t, tiny, Spec{})
	shard := func(g *Grid, i, n int) *Result {
		res, err := Run(context.Background(), g, Options{Shard: Shard{Index: i, Count: n}})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	other := expand(t, tiny, Spec{Seeds: 4})
	cases := []struct {
		name  string
		parts []*Result
		want  string
	}{
		{"missing", []*Result{shard(g, 1, 3), shard(g, 3, 3)}, "shards 2/3 are missing"},
		{"twice", []*Result{shard(g, 1, 2), shard(g, 1, 2), shard(g, 2, 2)}, "shard 1/2 is given twice"},
		{"other seeds", []*Result{shard(g, 1, 2), shard(other, 2, 2)}, "they run 3 and 4 seeds per point"},
		{"other split", []*Result{shard(g, 1, 2), shard(g, 2, 3)}, "one of 3 shards"},
		{"none", nil, "no shards"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Merge(tc.parts)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

func TestReadChecksRunsAgainstTheManifest(t *testing.T) {
	g := expand(t, tiny, Spec{})
	dir := writeSweep(t, g, Options{Shard: Shard{Index: 2, Count: 3}}, WriteOptions{})
	path := filepath.Join(dir, "runs.csv")
	data, _ := os.ReadFile(path)
	lines := strings.Split(string(data), "\n")
	cases := map[string]struct {
		edit func(lines []string) []string
		want string
	}{
		"a row missing": {func(l []string) []string { return append(l[:2:2], l[3:]...) }, "runs.csv:3: run 7, want 4"},
		"cut short":     {func(l []string) []string { return l[:3] }, "the file ends after 2 of the 6 runs of shard 2/3"},
		"a changed seed": {func(l []string) []string {
			f := strings.Split(l[1], ",")
			f[3] = "9" // run,point,members,seed,...
			l[1] = strings.Join(f, ",")
			return l
		}, "runs.csv:2: run 1 is point 0 (members=2), seed 1, protocol cooperative in manifest.json"},
		"a changed header": {func(l []string) []string { l[0] = strings.Replace(l[0], "rebalances", "rebalance", 1); return l }, "runs.csv:1: the header does not match"},
		// Every metric is an amount: NaN, infinities, values past float64
		// and negative values are out of range, not numbers to average.
		"a NaN metric":       {metricIs("NaN"), "rebalances: \"NaN\" is out of range"},
		"an infinite one":    {metricIs("+Inf"), "rebalances: \"+Inf\" is out of range"},
		"an overflowing one": {metricIs("1e400"), "rebalances: \"1e400\" is out of range"},
		"a negative one":     {metricIs("-1"), "rebalances: \"-1\" is out of range"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			edited := tc.edit(slices.Clone(lines))
			if err := os.WriteFile(path, []byte(strings.Join(edited, "\n")), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := Read(dir)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v\nwant %q", err, tc.want)
			}
		})
	}
}

// TestReadRefusesAFolderARerunLeftHalfWritten: a sweep killed while
// rewriting a folder leaves its marker saying so, and merge's Read refuses
// the folder instead of mixing the files of two sweeps.
func TestReadRefusesAFolderARerunLeftHalfWritten(t *testing.T) {
	g := expand(t, tiny, Spec{})
	dir := writeSweep(t, g, Options{Shard: Shard{Index: 1, Count: 2}}, WriteOptions{})
	if _, err := Read(dir); err != nil {
		t.Fatal(err)
	}
	// What a re-run does first, before it replaces any file.
	if _, err := atomicfile.BeginFolder(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(dir); err == nil || !strings.Contains(err.Error(), "did not finish") {
		t.Errorf("Read of a half-rewritten folder: %v, want 'did not finish'", err)
	}
}

// metricIs sets the first metric (rebalances) of the first row to v.
func metricIs(v string) func(l []string) []string {
	return func(l []string) []string {
		header := strings.Split(l[0], ",")
		f := strings.Split(l[1], ",")
		f[slices.Index(header, "rebalances")] = v
		l[1] = strings.Join(f, ",")
		return l
	}
}

// TestReadRejectsAnOversizedManifest: a manifest that claims more runs
// than a sweep may have is an error, not an allocation of that size (it
// used to panic in makeslice).
func TestReadRejectsAnOversizedManifest(t *testing.T) {
	g := expand(t, tiny, Spec{})
	dir := writeSweep(t, g, Options{}, WriteOptions{NoCharts: true})
	path := filepath.Join(dir, "manifest.json")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	huge := 1_000_000_000_000_000
	m["seeds"], m["runs"], m["shard_runs"] = huge, huge*len(g.Points)*len(g.Protocols), huge*len(g.Points)*len(g.Protocols)
	data, _ = json.Marshal(m)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Read(dir)
	if want := fmt.Sprintf("make more than %d runs", MaxRuns); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("err = %v, want %q", err, want)
	}
}

func TestSummarizeGroupsRunsBySeed(t *testing.T) {
	g := expand(t, tiny, Spec{})
	res, err := Run(context.Background(), g, Options{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := Summarize(res)
	if err != nil {
		t.Fatal(err)
	}
	// Recompute one cell by hand from the rows: point 1, cooperative,
	// downtime.
	k := slices.Index(s.Metrics, "downtime_partition_seconds")
	var vs []float64
	for _, r := range res.Rows {
		if r.Point == 1 && r.Protocol == "cooperative" {
			vs = append(vs, r.Metrics[k])
		}
	}
	cell := s.Points[1].Protocols[1]
	if cell.Protocol != "cooperative" || cell.Runs != 3 || len(vs) != 3 {
		t.Fatalf("cell %+v, %d rows", cell, len(vs))
	}
	if got, want := float64(cell.Metrics[k].Mean), (vs[0]+vs[1]+vs[2])/3; math.Abs(got-want) > 1e-9 {
		t.Errorf("mean %v, want %v", got, want)
	}
	if got := float64(cell.Metrics[k].Max); got != slices.Max(vs) {
		t.Errorf("max %v, want %v", got, slices.Max(vs))
	}
	shard, _ := Run(context.Background(), g, Options{Shard: Shard{Index: 1, Count: 2}})
	if _, err := Summarize(shard); err == nil {
		t.Error("Summarize accepted one shard of two")
	}
}

// TestNonNegativeIntervalsStayNonNegative: downtime 0 on nine seeds and
// 14.9 on one has mean 1.49 and sample sd 4.71, so Student's t interval is
// 1.49 ± 2.262·4.71/√10 = [-1.88, 4.86], below what downtime can be. The
// bootstrap interval of a non-negative metric lies within the values seen
// ([0, 14.9]) and still holds the mean.
func TestNonNegativeIntervalsStayNonNegative(t *testing.T) {
	values := []float64{0, 0, 0, 0, 14.9, 0, 0, 0, 0, 0}
	if st := Describe("x", values); st.CILow >= 0 {
		t.Fatalf("a metric of unknown sign keeps Student's t: low %v, want below 0", st.CILow)
	}
	st := Describe("downtime_partition_seconds", values)
	if st.CILow < 0 || st.CIHigh > 14.9 || st.CILow > st.Mean || st.CIHigh < st.Mean {
		t.Errorf("interval [%v, %v] for mean %v: want within [0, 14.9] around the mean", st.CILow, st.CIHigh, st.Mean)
	}
	// The same values give the same interval: it is drawn from a fixed stream.
	if again := Describe("downtime_partition_seconds", values); again.CILow != st.CILow || again.CIHigh != st.CIHigh {
		t.Error("the bootstrap interval differs between two calls")
	}
}

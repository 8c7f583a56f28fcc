package check

import (
	"bytes"
	"encoding/xml"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rebalsim/rebalsim"
	"github.com/rebalsim/rebalsim/scenarios"
)

// lab is the 12-partition lab of DESIGN.md: c4 joins three consumers and
// leaves again.
const lab = `name: lab
description: c4 joins three consumers that share 12 partitions, then leaves
duration: 3m
topics:
  - {name: orders, partitions: 12, rate: 200}
network:
  latency: {dist: lognormal, median: 2ms, p99: 20ms}
members:
  - {count: 3, id: "c{i}"}
  - {id: c4, start: 30s}
events:
  - {at: 90s, leave: c4}
expect:
  - {converged_within: 30s}
  - {protocols: [cooperative, nextgen], max_moved_partitions: 6}
  - {protocols: [nextgen], max_member_idle_seconds: {fraction_of: eager, value: 0.5}}
`

func parse(t *testing.T, name, src string) *scenarios.File {
	t.Helper()
	sc, err := scenarios.Parse(name, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

func mustCheck(t *testing.T, scs []*scenarios.File, opts Options) *Summary {
	t.Helper()
	sum, err := Check(scs, opts)
	if err != nil {
		t.Fatal(err)
	}
	return sum
}

func TestCheckPasses(t *testing.T) {
	sum := mustCheck(t, []*scenarios.File{parse(t, "lab.yaml", lab)}, Options{})
	var text bytes.Buffer
	sum.WriteText(&text, false)
	if sum.Verdict() != Pass {
		t.Fatalf("verdict %s:\n%s", sum.Verdict(), text.String())
	}
	// 3 converged_within + 2 bounds + 1 comparison + 3 implicit safety.
	if pass, _, _ := sum.Count(); pass != 9 {
		t.Errorf("%d cases; want 9:\n%s", pass, text.String())
	}
	if !strings.HasSuffix(text.String(), "PASS: 9 passed, 0 failed, 0 undecided\n") {
		t.Errorf("summary line:\n%s", text.String())
	}
}

// TestImpossibleBoundFailsOneCase is the CI promise: editing one bound to
// something impossible fails exactly that case, and the failure says
// where, what was expected, what was measured and how to trace it.
func TestImpossibleBoundFailsOneCase(t *testing.T) {
	src := strings.Replace(lab, "max_moved_partitions: 6", "max_moved_partitions: 1", 1)
	sum := mustCheck(t, []*scenarios.File{parse(t, "lab.yaml", src)}, Options{})
	if sum.Verdict() != Fail {
		t.Fatalf("verdict %s", sum.Verdict())
	}
	var failed []Case
	for _, c := range sum.Scenarios[0].Cases {
		if c.Status == Fail {
			failed = append(failed, c)
		}
	}
	if len(failed) != 2 {
		t.Fatalf("%d failed cases; want cooperative's and nextgen's", len(failed))
	}
	c := failed[0]
	if c.Scenario != "lab" || c.Protocol != "cooperative" || c.Check != "max_moved_partitions: 1" || c.Bound != "≤ 1" ||
		c.Line != 15 || c.Seed != 1 || !c.HasAt || c.AtLabel != "start c4" || c.Measured == "" {
		t.Errorf("failed case: %+v", c)
	}
	if want := "rebalsim run lab.yaml --protocol cooperative --seed 1 --trace --out rebalsim-trace/lab-cooperative-1"; c.Trace != want {
		t.Errorf("trace %q\nwant  %q", c.Trace, want)
	}

	var junit bytes.Buffer
	if err := sum.WriteJUnit(&junit); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Suites   []struct {
			Name  string `xml:"name,attr"`
			Cases []struct {
				Name    string `xml:"name,attr"`
				Line    int    `xml:"line,attr"`
				Failure *struct {
					Message string `xml:"message,attr"`
					Text    string `xml:",chardata"`
				} `xml:"failure"`
			} `xml:"testcase"`
			Properties []struct {
				Name  string `xml:"name,attr"`
				Value string `xml:"value,attr"`
			} `xml:"properties>property"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(junit.Bytes(), &doc); err != nil {
		t.Fatalf("JUnit is not well-formed XML: %v\n%s", err, junit.String())
	}
	if doc.Tests != 9 || doc.Failures != 2 || len(doc.Suites) != 1 || len(doc.Suites[0].Cases) != 9 {
		t.Fatalf("JUnit: %d tests, %d failures, %d suites", doc.Tests, doc.Failures, len(doc.Suites))
	}
	var failures []string
	for _, jc := range doc.Suites[0].Cases {
		if jc.Failure != nil {
			failures = append(failures, jc.Name)
			if !strings.Contains(jc.Failure.Message, "expected ≤ 1, measured") || !strings.Contains(jc.Failure.Text, "trace: rebalsim run lab.yaml") || jc.Line != 15 {
				t.Errorf("failure of %s: %q\n%s", jc.Name, jc.Failure.Message, jc.Failure.Text)
			}
		}
	}
	if !slices.Equal(failures, []string{"cooperative: max_moved_partitions: 1", "nextgen: max_moved_partitions: 1"}) {
		t.Errorf("failing testcases %v", failures)
	}
	if !slices.ContainsFunc(doc.Suites[0].Properties, func(p struct {
		Name  string `xml:"name,attr"`
		Value string `xml:"value,attr"`
	}) bool {
		return p.Name == "seed" && p.Value == "1"
	}) {
		t.Errorf("no seed property: %+v", doc.Suites[0].Properties)
	}
}

// TestHorizonTooShortIsUndecided: c2 crashes 20s before the horizon, and
// the session timeout alone is 45s.
func TestHorizonTooShortIsUndecided(t *testing.T) {
	src := `name: short
duration: 50s
topics: [{name: orders, partitions: 12}]
members: [{count: 3, id: "c{i}"}]
events: [{at: 30s, crash: c2}]
expect: [{converged_within: 1m}]
`
	sum := mustCheck(t, []*scenarios.File{parse(t, "short.yaml", src)}, Options{Protocols: []string{"eager"}})
	if sum.Verdict() != Undecided {
		t.Fatalf("verdict %s", sum.Verdict())
	}
	c := sum.Scenarios[0].Cases[0]
	if c.Status != Undecided || !strings.Contains(c.Measured, "cannot decide") || c.AtLabel != "crash c2" {
		t.Errorf("case %+v", c)
	}
	var md bytes.Buffer
	sum.WriteMarkdown(&md)
	if !strings.Contains(md.String(), "### rebalsim check UNDECIDED") || !strings.Contains(md.String(), "| **undecided** | `short` | eager |") {
		t.Errorf("markdown:\n%s", md.String())
	}
}

// TestCorpus finds the seeds on which a bound set at seed 1's value fails,
// records them, and replays them in a later check without --seeds.
func TestCorpus(t *testing.T) {
	base := parse(t, "lab.yaml", lab)
	var values []float64
	for seed := uint64(1); seed <= 8; seed++ {
		res, err := rebalsim.Run(base.Scenario, rebalsim.Options{Protocols: []string{"eager"}, Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		values = append(values, res.Runs[0].Metrics.DowntimePartitionSeconds)
	}
	var want []uint64
	for i, v := range values {
		if v > values[0] {
			want = append(want, uint64(i+1))
		}
	}
	if len(want) == 0 {
		t.Skipf("downtime no longer varies with the seed (%v); pick another metric", values)
	}
	src := lab + "  - {protocols: [eager], max_downtime_partition_seconds: " + fmtNum(values[0]+0.0005) + "}\n"
	dir := t.TempDir()
	sum := mustCheck(t, []*scenarios.File{parse(t, "lab.yaml", src)}, Options{Seeds: 8, CorpusDir: dir, Protocols: []string{"eager"}})
	if sum.Verdict() != Fail || len(sum.Corpus) != 1 || !slices.Equal(sum.Corpus[0].Seeds, want) {
		t.Fatalf("verdict %s, corpus updates %+v; want seeds %v", sum.Verdict(), sum.Corpus, want)
	}
	data, err := os.ReadFile(filepath.Join(dir, "lab.seeds"))
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, s := range want {
		lines = append(lines, fmtNum(float64(s)))
	}
	if string(data) != strings.Join(lines, "\n")+"\n" {
		t.Errorf("corpus file %q; want seeds %v one per line", data, want)
	}

	// Without --seeds only seed 1 would run; the corpus brings the
	// failing seeds back, first, and nothing new is recorded.
	sum = mustCheck(t, []*scenarios.File{parse(t, "lab.yaml", src)}, Options{CorpusDir: dir, Protocols: []string{"eager"}})
	if sum.Verdict() != Fail || len(sum.Corpus) != 0 {
		t.Fatalf("replay: verdict %s, corpus updates %+v", sum.Verdict(), sum.Corpus)
	}
	if got := sum.Scenarios[0].Seeds; !slices.Equal(got, append(slices.Clone(want), 1)) {
		t.Errorf("replayed seeds %v; want the corpus %v first, then 1", got, want)
	}
	// A corpus seed counts for the every-seed checks only: the bound
	// still fails, the others pass on every seed.
	for _, c := range sum.Scenarios[0].Cases {
		if c.Check == "converged_within: 30s" && (c.Status != Pass || c.Seeds != len(want)+1) {
			t.Errorf("converged_within over the corpus: %+v", c)
		}
	}

	if err := os.WriteFile(filepath.Join(dir, "lab.seeds"), []byte("3\nseven\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Check([]*scenarios.File{parse(t, "lab.yaml", src)}, Options{CorpusDir: dir}); err == nil ||
		!strings.Contains(err.Error(), "lab.seeds:2: a corpus file holds one seed (a whole number) per line") {
		t.Errorf("bad corpus: %v", err)
	}
}

// TestDeterministic: the same check gives the same bytes, however many
// simulations run at once.
func TestDeterministic(t *testing.T) {
	scs, err := Load("library/gc-pause-zombie", "library/scale-out-from-zero")
	if err != nil {
		t.Fatal(err)
	}
	render := func(parallel int) string {
		sum := mustCheck(t, scs, Options{Parallel: parallel, ShuffleTies: true, Seeds: 3})
		var b bytes.Buffer
		sum.WriteText(&b, true)
		sum.WriteJUnit(&b)
		sum.WriteMarkdown(&b)
		return b.String()
	}
	one, again, many := render(1), render(1), render(4)
	if one != again || one != many {
		t.Error("the same check gave different output")
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, name string) {
		path := filepath.Join(dir, rel)
		os.MkdirAll(filepath.Dir(path), 0o755)
		src := strings.Replace(lab, "name: lab", "name: "+name, 1)
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("b.yaml", "b")
	write("a/z.yml", "z")
	write("a/notes.txt", "ignored")
	write("c/d/e.yaml", "e")
	scs, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, sc := range scs {
		names = append(names, sc.Name)
	}
	if !slices.Equal(names, []string{"z", "b", "e"}) {
		t.Errorf("loaded %v; want a/z.yml, b.yaml, c/d/e.yaml in path order", names)
	}

	lib, err := Load("library")
	if err != nil || len(lib) != len(scenarios.LibraryNames()) {
		t.Errorf("library: %d scenarios, %v", len(lib), err)
	}
	if one, err := Load("library/crash-without-leave"); err != nil || len(one) != 1 || one[0].Source != "library/crash-without-leave.yaml" {
		t.Errorf("library/crash-without-leave: %v", err)
	}
	if _, err := Load("library/crash-without-leaf"); err == nil || !strings.Contains(err.Error(), `did you mean "crash-without-leave"?`) {
		t.Errorf("near miss: %v", err)
	}

	write("again/b.yaml", "b")
	if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), `scenario name "b" is also the name of`) {
		t.Errorf("duplicate names: %v", err)
	}
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte(strings.Replace(lab, "max_moved_partitions", "max_moved_partition", 1)), 0o644)
	if _, err := Load(bad); err == nil || !strings.Contains(err.Error(), `bad.yaml:15:41: unknown key "max_moved_partition" in expectation; did you mean "max_moved_partitions"?`) {
		t.Errorf("unknown metric: %v", err)
	}
}

// A declared hazard (no_double_ownership: false) replaces the safety case
// of its protocols with its bounds; without the declaration the same runs
// fail on safety. The scenario is the library's static-member-misses-join,
// on its own seed.
func TestDeclaredHazardReplacesSafety(t *testing.T) {
	src, err := scenarios.LibrarySource("static-member-misses-join")
	if err != nil {
		t.Fatal(err)
	}
	declared := strings.Replace(string(src), "seeds: 20}", "seeds: 1}", 1)
	sum := mustCheck(t, []*scenarios.File{parse(t, "hazard.yaml", declared)}, Options{})
	var text bytes.Buffer
	sum.WriteText(&text, false)
	// eager and cooperative: min and max double ownership; all three:
	// converged_within; nextgen: its implicit safety case.
	if pass, fail, undecided := sum.Count(); pass != 8 || fail != 0 || undecided != 0 {
		t.Errorf("declared: %d passed, %d failed, %d undecided; want 8, 0, 0:\n%s", pass, fail, undecided, text.String())
	}

	undeclared := strings.Replace(declared, "no_double_ownership: false, ", "", 1)
	sum = mustCheck(t, []*scenarios.File{parse(t, "hazard.yaml", undeclared)}, Options{})
	text.Reset()
	sum.WriteText(&text, false)
	var failed []string
	for _, c := range sum.Scenarios[0].Cases {
		if c.Status == Fail {
			failed = append(failed, c.Protocol+": "+c.Check)
		}
	}
	if want := []string{"eager: no_double_ownership (implicit)", "cooperative: no_double_ownership (implicit)"}; !slices.Equal(failed, want) {
		t.Errorf("undeclared: failed %v, want %v:\n%s", failed, want, text.String())
	}
}

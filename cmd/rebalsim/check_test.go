package main

import (
	"encoding/xml"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const libraryDir = "../../scenarios/library"

func TestCheckLibraryPasses(t *testing.T) {
	for _, args := range [][]string{
		{"check", libraryDir, "--corpus", ""},
		{"check", "library", "--corpus", "", "--shuffle-ties"},
	} {
		code, out, errOut := runCLI(t, args...)
		if code != exitOK {
			t.Errorf("%v: exit %d\n%s%s", args, code, out, errOut)
		}
		if !strings.Contains(out, "PASS: ") || !strings.Contains(out, "rolling-restart-static") {
			t.Errorf("%v: summary:\n%s", args, out)
		}
	}
}

// TestCheckImpossibleBound edits one expectation of a library scenario to
// an impossible bound: exit 1, a message naming the scenario, protocol,
// bound and measured value, and a JUnit file with that one failing case.
func TestCheckImpossibleBound(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(libraryDir, "crash-without-leave.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(src), "{protocols: [nextgen], min_convergence_seconds: 40}", "{protocols: [nextgen], min_convergence_seconds: 4000}", 1)
	if edited == string(src) {
		t.Fatal("the bound to edit is gone from crash-without-leave.yaml")
	}
	line := 1 + strings.Count(edited[:strings.Index(edited, "min_convergence_seconds: 4000")], "\n")
	dir := t.TempDir()
	file := filepath.Join(dir, "crash-without-leave.yaml")
	if err := os.WriteFile(file, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	junit, md := filepath.Join(dir, "report.xml"), filepath.Join(dir, "summary.md")
	code, out, errOut := runCLI(t, "check", file, "--junit", junit, "--markdown", md, "--corpus", filepath.Join(dir, "corpus"))
	if code != exitFinding {
		t.Fatalf("exit %d, want 1\n%s%s", code, out, errOut)
	}
	for _, want := range []string{
		"FAIL  crash-without-leave  nextgen  min_convergence_seconds: 4000",
		"expected  ≥ 4000",
		"measured  40.",
		"on seed 1",
		"at        t=30s (crash c3)",
		"crash-without-leave.yaml:" + strconv.Itoa(line),
		"trace     rebalsim run " + file + " --protocol nextgen --seed 1 --trace --out rebalsim-trace/crash-without-leave-nextgen-1",
		"FAIL: ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	data, err := os.ReadFile(junit)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Failures int `xml:"failures,attr"`
		Suites   []struct {
			Cases []struct {
				Name    string    `xml:"name,attr"`
				Failure *struct{} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(data, &doc); err != nil {
		t.Fatalf("JUnit: %v", err)
	}
	var failing []string
	for _, c := range doc.Suites[0].Cases {
		if c.Failure != nil {
			failing = append(failing, c.Name)
		}
	}
	if doc.Failures != 1 || len(failing) != 1 || failing[0] != "nextgen: min_convergence_seconds: 4000" {
		t.Errorf("JUnit failures %d: %v", doc.Failures, failing)
	}
	if m, err := os.ReadFile(md); err != nil || !strings.Contains(string(m), "### rebalsim check FAILED") {
		t.Errorf("markdown: %v\n%s", err, m)
	}
}

func TestCheckUnknownMetricExitsTwo(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "group.yaml")
	src := "name: group\nduration: 2m\ntopics: [{name: orders, partitions: 12}]\nmembers: [{count: 3, id: \"c{i}\"}]\nexpect:\n  - {max_moved_partiton: 3}\n"
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, "check", file, "--corpus", "")
	if code != exitBadInput {
		t.Fatalf("exit %d, want 2\n%s%s", code, out, errOut)
	}
	if want := `group.yaml:6:6: unknown key "max_moved_partiton" in expectation; did you mean "max_moved_partitions"?`; !strings.Contains(errOut, want) {
		t.Errorf("stderr %q\nwant %q", errOut, want)
	}
}

func TestCheckUndecidedExitsTwo(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "short.yaml")
	src := "name: short\nduration: 50s\ntopics: [{name: orders, partitions: 12}]\nmembers: [{count: 3, id: \"c{i}\"}]\nevents: [{at: 30s, crash: c2}]\nexpect: [{converged_within: 1m}]\n"
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ := runCLI(t, "check", file, "--corpus", "")
	if code != exitBadInput || !strings.Contains(out, "UNDECIDED  short") || !strings.Contains(out, "cannot decide") {
		t.Errorf("exit %d\n%s", code, out)
	}
}

func TestCheckUsage(t *testing.T) {
	code, out, _ := runCLI(t, "check", "--help")
	if code != exitOK || !strings.Contains(out, "Exit codes:") || !strings.Contains(out, "--shuffle-ties") {
		t.Errorf("--help: exit %d\n%s", code, out)
	}
	for _, args := range [][]string{{"check"}, {"check", "nowhere.yaml"}, {"check", "library", "--seeds", "0"}, {"check", "library", "--protocols", "kraft"}} {
		if code, _, _ := runCLI(t, args...); code != exitBadInput {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
}

// TestRunLibraryScenario: the trace commands of `check library` name
// scenarios as library/NAME.yaml, which run understands.
func TestRunLibraryScenario(t *testing.T) {
	code, out, errOut := runCLI(t, "run", "library/graceful-leave.yaml", "--protocol", "nextgen")
	if code != exitOK || !strings.Contains(out, "graceful-leave") {
		t.Errorf("exit %d\n%s%s", code, out, errOut)
	}
}

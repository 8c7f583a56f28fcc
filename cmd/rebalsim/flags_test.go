package main

import (
	"encoding/json"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rebalsim/rebalsim"
)

// runsScenarios says of every command whether it runs scenarios: those
// that do have --protocols (also spelt --protocol) and --seed, the others
// neither. A new command goes here too; the tests below fail until it does.
var runsScenarios = map[string]bool{
	"run": true, "compare": true, "check": true, "sweep": true,
	"validate": false, "examples": false, "conformance": false, "report": false, "merge": false, "version": false,
	// swarm generates its scenarios (and their protocols and seeds) from
	// generator seeds, --from up: it runs no scenario the user names.
	"swarm": false,
}

// scenarioCommands are the commands runsScenarios marks, in their order.
func scenarioCommands() []string {
	var out []string
	for _, c := range commands() {
		if runsScenarios[c.name] {
			out = append(out, c.name)
		}
	}
	return out
}

// helpOf is a command's usage text.
func helpOf(t *testing.T, name string) string {
	t.Helper()
	_, usage, _ := runCLI(t, name, "--help")
	return usage
}

// lists says whether usage lists flag among the flags.
func lists(usage, flag string) bool { return strings.Contains(usage, "      "+flag+" ") }

// TestEveryCommandPrintsItsUsage: --help, -h and 'rebalsim help CMD' print
// the command's usage on stdout and exit 0, for every command, doing
// nothing else (examples --help printed the list of examples once).
func TestEveryCommandPrintsItsUsage(t *testing.T) {
	for _, c := range commands() {
		for _, args := range [][]string{{c.name, "--help"}, {c.name, "-h"}, {"help", c.name}} {
			code, out, errOut := runCLI(t, args...)
			if code != exitOK || errOut != "" {
				t.Errorf("%v: exit %d, stderr %q; want exit 0 and nothing on stderr", args, code, errOut)
			}
			if want := "Usage: rebalsim " + c.name; !strings.HasPrefix(out, want) {
				t.Errorf("%v: stdout starts %q, want %q", args, firstLine(out), want)
			}
		}
	}
	for _, args := range [][]string{{"--help"}, {"-h"}, {"help"}, {"help", "help"}} {
		if code, out, _ := runCLI(t, args...); code != exitOK || !strings.HasPrefix(out, "rebalsim: a deterministic simulator") {
			t.Errorf("%v: exit %d, stdout starts %q; want the list of commands", args, code, firstLine(out))
		}
	}
	if _, out, _ := runCLI(t, "examples", "--help"); strings.Contains(out, "scale-out") {
		t.Errorf("examples --help lists the examples:\n%s", out)
	}
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// TestSharedFlagsAreRegisteredWhereScenariosRun is the table of commands ×
// shared flags: every command that runs scenarios has --protocols and
// --seed and no other command has them; the counts and --format are where
// the README says.
func TestSharedFlagsAreRegisteredWhereScenariosRun(t *testing.T) {
	required := map[string][]string{
		"--seeds":    {"check", "sweep"},
		"--parallel": {"check", "sweep"},
		"--format":   {"run", "compare", "report", "sweep", "merge"},
	}
	for _, c := range commands() {
		scenariosRun, known := runsScenarios[c.name]
		if !known {
			t.Errorf("command %s is not in runsScenarios: say whether it runs scenarios", c.name)
			continue
		}
		usage := helpOf(t, c.name)
		for _, flag := range []string{"--protocols", "--seed"} {
			if got := lists(usage, flag); got != scenariosRun {
				t.Errorf("%s --help lists %s: %v, want %v", c.name, flag, got, scenariosRun)
			}
		}
		for flag, where := range required {
			if slices.Contains(where, c.name) && !lists(usage, flag) {
				t.Errorf("%s --help does not list %s", c.name, flag)
			}
		}
	}
}

// TestEnumeratedValuesAreChecked: a value outside a flag's list is a
// usage error naming the values allowed, before any file is read (the
// file arguments here do not exist).
func TestEnumeratedValuesAreChecked(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"run", "--format", "yaml"}, `invalid argument "yaml" for "--format" flag: want table, json, csv or markdown`},
		{[]string{"compare", "--format", "yaml"}, `want table, json, csv or markdown`},
		{[]string{"report", "nowhere.json", "--format", "yaml"}, `invalid argument "yaml" for "--format" flag: want table, json, csv or markdown`},
		{[]string{"sweep", "nowhere.yaml", "--out", "x", "--format", "yaml"}, `invalid argument "yaml" for "--format" flag: want table, markdown, csv, json or none`},
		{[]string{"merge", "nowhere", "--out", "x", "--format", "html"}, `want table, markdown, csv, json or none`},
		{[]string{"run", "--protocols", "eager,zookeeper"}, `unknown protocol "zookeeper": want eager, cooperative or nextgen`},
		{[]string{"run", "--protocols", "eager", "--protocol", "eager"}, `protocol eager is given twice`},
	}
	for _, cmd := range scenarioCommands() {
		cases = append(cases, struct {
			args []string
			want string
		}{[]string{cmd, "nowhere.yaml", "--protocol", "kraft"}, `invalid argument "kraft" for "--protocols" flag: unknown protocol "kraft"`})
	}
	for _, tc := range cases {
		code, _, errOut := runCLI(t, tc.args...)
		if code != exitBadInput || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 saying %q", tc.args, code, errOut, tc.want)
		}
	}
}

// TestCountsAreAtLeastOne: --seeds and --parallel follow one rule on
// every command that has them: given, they are at least 1; left out, they
// take the default. (sweep --seeds 0 once ran one seed while check refused
// it; check --parallel 0 once meant every core while sweep refused it.)
// The flags are checked as they are parsed, before any argument is read.
func TestCountsAreAtLeastOne(t *testing.T) {
	tested := 0
	for _, c := range commands() {
		usage := helpOf(t, c.name)
		for _, flag := range []string{"--seeds", "--parallel"} {
			if !lists(usage, flag) {
				continue
			}
			tested++
			for _, v := range []string{"0", "-1", "many"} {
				code, _, errOut := runCLI(t, c.name, flag, v)
				want := `invalid argument "` + v + `" for "` + flag + `" flag: want a whole number of at least 1`
				if v != "many" {
					want = `invalid argument "` + v + `" for "` + flag + `" flag: must be at least 1 (leave the flag out for its default)`
				}
				if code != exitBadInput || !strings.Contains(errOut, want) {
					t.Errorf("%s %s %s: exit %d, stderr %q; want exit 2 saying %q", c.name, flag, v, code, errOut, want)
				}
			}
		}
	}
	if tested < 4 {
		t.Errorf("tested %d count flags, want at least check's and sweep's --seeds and --parallel", tested)
	}
}

// TestProtocolAndSeedMeanTheSameEverywhere runs each scenario command
// with --protocol (the other name of --protocols) and --seed, and reads
// back which protocols ran on which seed.
func TestProtocolAndSeedMeanTheSameEverywhere(t *testing.T) {
	dir := t.TempDir()
	scenario := writeScenario(t, dir, tinySweep) // seed 1, every protocol
	for _, cmd := range []string{"run", "compare"} {
		// Seed 0 is a seed like any other: --seed 0 is not "no --seed".
		for _, seed := range []uint64{0, 7} {
			code, out, errOut := runCLI(t, cmd, scenario, "--protocol", "nextgen", "--protocols", "eager", "--seed", strconv.FormatUint(seed, 10), "--format", "json")
			if code != exitOK {
				t.Fatalf("%s: exit %d: %s", cmd, code, errOut)
			}
			var doc struct {
				Scenario struct {
					Seed      uint64   `json:"seed"`
					Protocols []string `json:"protocols"`
				} `json:"scenario"`
			}
			if err := json.Unmarshal([]byte(out), &doc); err != nil {
				t.Fatalf("%s: %v", cmd, err)
			}
			if doc.Scenario.Seed != seed || !slices.Equal(doc.Scenario.Protocols, []string{"nextgen", "eager"}) {
				t.Errorf("%s --seed %d: ran %v on seed %d, want [nextgen eager] on seed %d", cmd, seed, doc.Scenario.Protocols, doc.Scenario.Seed, seed)
			}
		}
	}

	code, out, errOut := runCLI(t, "sweep", scenario, "--protocol", "cooperative", "--seed", "7", "--seeds", "2", "--out", filepath.Join(dir, "sweep"), "--format", "json", "--no-charts")
	if code != exitOK {
		t.Fatalf("sweep: exit %d: %s", code, errOut)
	}
	var stats struct {
		Protocols []string `json:"protocols"`
		Runs      int      `json:"runs"`
		Points    []struct {
			FirstSeed uint64 `json:"first_seed"`
		} `json:"points"`
	}
	if err := json.Unmarshal([]byte(out), &stats); err != nil {
		t.Fatal(err)
	}
	// One grid point × 2 seeds (7 and 8) × 1 protocol = 2 runs.
	if !slices.Equal(stats.Protocols, []string{"cooperative"}) || stats.Runs != 2 || len(stats.Points) != 1 || stats.Points[0].FirstSeed != 7 {
		t.Errorf("sweep: %+v, want cooperative, 2 runs, one point from seed 7", stats)
	}

	// check prints the seed its verdict is shown for; -v lists passing
	// checks. The expectation holds on any seed: nothing is moved twice
	// in a graceful rolling restart of three members.
	checked := strings.Replace(tinySweep, "sweep:\n  seeds: 2\n", "expect:\n  - {no_double_ownership: true}\n", 1)
	checkFile := filepath.Join(dir, "checked.yaml")
	if err := os.WriteFile(checkFile, []byte(checked), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = runCLI(t, "check", checkFile, "--protocol", "eager", "--seed", "7", "--corpus", "", "-v")
	if code != exitOK {
		t.Fatalf("check: exit %d\n%s%s", code, out, errOut)
	}
	if !strings.Contains(out, "on seed 7") || !strings.Contains(out, "eager") || strings.Contains(out, "nextgen") {
		t.Errorf("check --protocol eager --seed 7 -v:\n%s", out)
	}
}

// TestSweepFlagConflicts: a path varied twice, and a seed both set and
// varied, are refused rather than one of them silently winning.
func TestSweepFlagConflicts(t *testing.T) {
	dir := t.TempDir()
	scenario := writeScenario(t, dir, tinySweep)
	out := filepath.Join(dir, "out")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--vary", "members=1,2", "--vary", "members=3"}, "--vary members is given twice (members=1,2, then members=3): list every value of a path in one --vary"},
		{[]string{"--seed", "3", "--vary", "seed=1,2"}, "the seed is both set (--seed 3) and varied (seed=...)"},
	} {
		code, _, errOut := runCLI(t, append([]string{"sweep", scenario, "--out", out}, tc.args...)...)
		if code != exitBadInput || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 saying %q", tc.args, code, errOut, tc.want)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a refused sweep wrote its output directory")
	}
}

func TestVersion(t *testing.T) {
	want := "rebalsim " + rebalsim.Version + "\n"
	for _, args := range [][]string{{"--version"}, {"version"}} {
		if code, out, _ := runCLI(t, args...); code != exitOK || out != want {
			t.Errorf("%v: exit %d, %q; want %q", args, code, out, want)
		}
	}
	if code, _, _ := runCLI(t, "version", "extra"); code != exitBadInput {
		t.Errorf("version extra: exit %d, want 2", code)
	}
}

// TestEveryCommandIsDocumented: the package comment (go doc's page for the
// command) and the README's table of commands name every command.
func TestEveryCommandIsDocumented(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "main.go", nil, parser.ParseComments|parser.PackageClauseOnly)
	if err != nil {
		t.Fatal(err)
	}
	doc := f.Doc.Text()
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range commands() {
		if !strings.Contains(doc, "\trebalsim "+c.name) {
			t.Errorf("the package comment lists no 'rebalsim %s'", c.name)
		}
		if !strings.Contains(string(readme), "| `rebalsim "+c.name) {
			t.Errorf("README.md's table of commands has no row for rebalsim %s", c.name)
		}
	}
}

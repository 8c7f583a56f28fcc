package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const tinySweep = `name: tiny
duration: 90s
topics: [{name: orders, partitions: 6, rate: 50}]
members:
  - {count: 3, id: "c{i}"}
events:
  - {at: 20s, rolling_restart: {members: all, interval: 10s, down: 3s, graceful: true}}
sweep:
  seeds: 2
`

func writeScenario(t *testing.T, dir, src string) string {
	t.Helper()
	path := filepath.Join(dir, "tiny.yaml")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func sameDirs(t *testing.T, a, b string) {
	t.Helper()
	ea, _ := os.ReadDir(a)
	eb, _ := os.ReadDir(b)
	var na, nb []string
	for _, e := range ea {
		na = append(na, e.Name())
	}
	for _, e := range eb {
		nb = append(nb, e.Name())
	}
	if !slices.Equal(na, nb) {
		t.Fatalf("%s has %v, %s has %v", a, na, b, nb)
	}
	for _, n := range na {
		da, _ := os.ReadFile(filepath.Join(a, n))
		db, _ := os.ReadFile(filepath.Join(b, n))
		if !bytes.Equal(da, db) {
			t.Errorf("%s differs between %s and %s", n, a, b)
		}
	}
}

func TestSweepThenShardsAndMerge(t *testing.T) {
	dir := t.TempDir()
	scenario := writeScenario(t, dir, tinySweep)
	whole := filepath.Join(dir, "sweep")
	code, out, errOut := runCLI(t, "sweep", scenario, "--vary", "members=2,3", "--parallel", "2", "--out", whole, "--format", "json", "--no-charts")
	if code != exitOK {
		t.Fatalf("sweep: exit %d: %s", code, errOut)
	}
	if strings.Contains(errOut, "\r") {
		t.Error("a progress bar was drawn on a stderr that is not a terminal")
	}
	var stats struct {
		Params []string `json:"params"`
		Runs   int      `json:"runs"`
		Points []struct {
			Values []string `json:"values"`
		} `json:"points"`
	}
	if err := json.Unmarshal([]byte(out), &stats); err != nil {
		t.Fatalf("--format json is not JSON: %v", err)
	}
	if stats.Runs != 12 || len(stats.Points) != 2 || stats.Points[1].Values[0] != "3" {
		t.Errorf("stats: %+v", stats)
	}
	for _, f := range []string{"runs.csv", "stats.csv", "stats.json", "manifest.json", "report.html"} {
		if _, err := os.Stat(filepath.Join(whole, f)); err != nil {
			t.Errorf("sweep wrote no %s", f)
		}
	}

	var shards []string
	for _, i := range []string{"1", "2", "3"} {
		sd := filepath.Join(dir, "part-"+i)
		code, out, errOut := runCLI(t, "sweep", scenario, "--vary", "members=2,3", "--shard", i+"/3", "--out", sd, "--parallel", "1")
		if code != exitOK || out != "" {
			t.Fatalf("shard %s/3: exit %d, stdout %q: %s", i, code, out, errOut)
		}
		shards = append(shards, sd)
	}
	merged := filepath.Join(dir, "merged")
	code, out, errOut = runCLI(t, append(append([]string{"merge"}, shards...), "--out", merged, "--no-charts")...)
	if code != exitOK {
		t.Fatalf("merge: exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "downtime_partition_seconds") {
		t.Errorf("merge printed no summary table:\n%s", out)
	}
	sameDirs(t, whole, merged)

	code, _, errOut = runCLI(t, "merge", shards[0], shards[2], "--out", filepath.Join(dir, "bad"))
	if code != exitBadInput || !strings.Contains(errOut, "shards 2/3 are missing") {
		t.Errorf("merge without shard 2: exit %d: %s", code, errOut)
	}
}

func TestSweepRejectsBadInput(t *testing.T) {
	dir := t.TempDir()
	scenario := writeScenario(t, dir, tinySweep)
	out := filepath.Join(dir, "out")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"sweep", scenario}, "--out DIR is required"},
		{[]string{"sweep", scenario, "--out", out, "--vary", "sesion_timeout=10s"}, `unknown path "sesion_timeout"; did you mean "session_timeout"?`},
		{[]string{"sweep", scenario, "--out", out, "--vary", "session_timeout=10s,ten"}, "grid point 1 (session_timeout=ten): " + scenario + ":1:1: session_timeout must be a duration"},
		{[]string{"sweep", scenario, "--out", out, "--vary", "members=3,0"}, "grid point 1 (members=0): " + scenario + ":5:3: override members=0: members must be a whole number"},
		{[]string{"sweep", scenario, "--out", out, "--shard", "4/3"}, "--shard \"4/3\""},
		{[]string{"sweep", scenario, "--out", out, "--protocols", "lazy"}, `invalid argument "lazy" for "--protocols" flag: unknown protocol "lazy"`},
		{[]string{"sweep", scenario, "--out", out, "--format", "xml"}, `invalid argument "xml" for "--format" flag`},
		{[]string{"merge", "--out", out}, "no shard directories"},
		{[]string{"merge", dir, "--out", out}, "not a sweep output"},
	}
	for _, tc := range cases {
		code, _, errOut := runCLI(t, tc.args...)
		if code != exitBadInput || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 saying %q", tc.args[1:], code, errOut, tc.want)
		}
	}
}

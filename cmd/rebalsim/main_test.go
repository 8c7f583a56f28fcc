package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rebalsim/rebalsim/sim"
)

func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

func TestRunDefaultExamplePrintsEveryMetricAsJSON(t *testing.T) {
	code, out, errOut := runCLI(t, "run", "--protocol", "eager", "--format", "json", "--seeds", "1")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var doc struct {
		Runs []struct {
			Protocol string                     `json:"protocol"`
			Metrics  map[string]json.RawMessage `json:"metrics"`
			Members  []struct {
				Metrics []struct{ Name string } `json:"metrics"`
			} `json:"members"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("stdout is not JSON: %v", err)
	}
	if len(doc.Runs) != 1 || doc.Runs[0].Protocol != "eager" {
		t.Fatalf("runs = %+v, want one eager run", doc.Runs)
	}
	for _, name := range append(sim.MetricNames(), "converged") {
		if _, ok := doc.Runs[0].Metrics[name]; !ok {
			t.Errorf("result has no %s", name)
		}
	}
	if len(doc.Runs[0].Members) == 0 || len(doc.Runs[0].Members[0].Metrics) == 0 {
		t.Fatal("no per-member client metrics")
	}
	found := false
	for _, m := range doc.Runs[0].Members[0].Metrics {
		found = found || m.Name == "rebalance-latency-avg"
	}
	if !found {
		t.Error("no rebalance-latency-avg among the member metrics")
	}
}

func TestBadScenarioExitsTwoNamingTheLine(t *testing.T) {
	dir := t.TempDir()
	cases := map[string]string{
		"unknown-key.yaml":    "name: x\nduration: 1m\ntopics: [{name: t, partitions: 1}]\nmembers: [{id: c1}]\ndefaults:\n  sesion_timeout: 45s\n",
		"bad-duration.yaml":   "name: x\nduration: 1m\ntopics: [{name: t, partitions: 1}]\nmembers: [{id: c1, session_timeout: forty}]\n",
		"unknown-member.yaml": "name: x\nduration: 1m\ntopics: [{name: t, partitions: 1}]\nmembers: [{id: c1}]\nevents:\n  - {at: 10s, crash: c9}\n",
		"bad-yaml.yaml":       "name: x\nduration: [1m\n",
	}
	for name, body := range cases {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, cmd := range []string{"run", "validate"} {
			code, _, errOut := runCLI(t, cmd, path)
			if code != exitBadInput {
				t.Errorf("%s %s: exit %d, want 2", cmd, name, code)
			}
			if !strings.Contains(errOut, name+":") || strings.Contains(errOut, "goroutine") {
				t.Errorf("%s %s: message should name the file and line, without a stack trace: %q", cmd, name, errOut)
			}
		}
	}
}

func TestUsageErrorsExitTwo(t *testing.T) {
	for _, args := range [][]string{{}, {"frobnicate"}, {"run", "--format", "yaml"}, {"run", "--trace"}, {"run", "--protocol", "zookeeper"}, {"conformance"}} {
		if code, _, _ := runCLI(t, args...); code != exitBadInput {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
}

func TestRunWritesOutputsAndReportReRendersThem(t *testing.T) {
	dir := t.TempDir()
	// One seed: result.json holds one run, which is all report re-renders
	// (over seeds, report.html also has the charts over every seed).
	code, _, errOut := runCLI(t, "run", "scale-out", "--seeds", "1", "--out", dir, "--trace", "--format", "csv")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, f := range []string{"result.json", "timeline.csv", "report.html", "trace-eager.jsonl", "trace-nextgen.jsonl"} {
		if fi, err := os.Stat(filepath.Join(dir, f)); err != nil || fi.Size() == 0 {
			t.Errorf("%s missing or empty: %v", f, err)
		}
	}
	before, _ := os.ReadFile(filepath.Join(dir, "report.html"))
	again := t.TempDir()
	if code, _, errOut := runCLI(t, "report", filepath.Join(dir, "result.json"), "--out", again); code != exitOK {
		t.Fatalf("report: exit %d: %s", code, errOut)
	}
	after, _ := os.ReadFile(filepath.Join(again, "report.html"))
	if !bytes.Equal(before, after) {
		t.Error("report.html re-rendered from result.json differs from the original")
	}
}

func TestConformanceOnKafkaVectorsPasses(t *testing.T) {
	code, out, errOut := runCLI(t, "conformance", "--vectors", "../../conformance/testdata/kafka-vectors.yaml")
	if code != exitOK {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	if !strings.Contains(out, " 0 failed") {
		t.Errorf("summary line missing: %q", out)
	}
}

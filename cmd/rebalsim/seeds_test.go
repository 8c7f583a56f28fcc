package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/rebalsim/rebalsim"
	"github.com/rebalsim/rebalsim/report"
)

// TestCompareDefaultShowsTheSpreadOverSeeds runs the README's first
// command and checks that it answers over seeds: it says how many, shows
// a range per protocol, and names no winner where the ranges overlap.
func TestCompareDefaultShowsTheSpreadOverSeeds(t *testing.T) {
	code, out, errOut := runCLI(t, "compare")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	// scale-out has 4 members: the default is 20 seeds, from its seed 1.
	for _, want := range []string{
		"seeds 1–20", "20 seeds per protocol (the default for a group of 4 members",
		"p5–p95", "rebalsim run scale-out --seeds 1 --seed",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	rows := metricRows(out)
	// Moved partitions: 6 for eager on every seed, 3 for the incremental
	// protocols (the minimum): both of those are marked, eager is not.
	if row := rows["moved_partitions"]; strings.Count(row, "*") != 2 {
		t.Errorf("moved_partitions row %q: want cooperative and nextgen marked", row)
	}

	// scale-out's members are caught up and its latency constant, so its
	// seeds agree; graceful-leave's lognormal latency spreads the members'
	// heartbeat phases, which decide when they learn of the leave.
	code, out, errOut = runCLI(t, "compare", "library/graceful-leave")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	rows = metricRows(out)
	// Downtime: each protocol's seeds range from well under a second (the
	// others heartbeat just after the leave) to a heartbeat interval's
	// worth (measured p5-p95: eager 0.6-48.5, cooperative 0.1-12.2,
	// nextgen 0.06-15.1 partition-seconds), so the ranges overlap and no
	// protocol wins.
	if row := rows["downtime_partition_seconds"]; row == "" || strings.Contains(row, "*") {
		t.Errorf("downtime row %q: want a row and no winner (the ranges overlap)", row)
	}
}

// metricRows maps each line of a metrics table to its first word.
func metricRows(out string) map[string]string {
	rows := map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) > 0 {
			rows[f[0]] = line
		}
	}
	return rows
}

// TestOneSeedIsTodaysSingleRun checks that --seeds 1 prints exactly what
// one rebalsim.Run renders.
func TestOneSeedIsTodaysSingleRun(t *testing.T) {
	code, out, errOut := runCLI(t, "compare", "--seeds", "1", "--seed", "3")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	sc, err := loadScenario("")
	if err != nil {
		t.Fatal(err)
	}
	res, err := rebalsim.Run(sc.Scenario, rebalsim.Options{Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	rep := res.Report()
	var want bytes.Buffer
	if err := report.Table(&want, rep); err != nil {
		t.Fatal(err)
	}
	if out != want.String() {
		t.Errorf("--seeds 1 printed\n%s\nwant\n%s", out, want.String())
	}
	// And its JSON is the run's whole result, timelines included.
	code, out, errOut = runCLI(t, "run", "--seeds", "1", "--seed", "3", "--format", "json")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	res, err = rebalsim.Run(sc.Scenario, rebalsim.Options{Seed: 3, Timeline: true})
	if err != nil {
		t.Fatal(err)
	}
	rep = res.Report()
	want.Reset()
	if err := report.WriteJSON(&want, rep); err != nil {
		t.Fatal(err)
	}
	if out != want.String() {
		t.Error("run --seeds 1 --format json differs from the single run's result")
	}
}

// TestSeedsJSONHoldsEveryRun checks the machine-readable form: seeds 5-7
// under one protocol are three runs, with statistics over them.
func TestSeedsJSONHoldsEveryRun(t *testing.T) {
	code, out, errOut := runCLI(t, "run", "--seeds", "3", "--seed", "5", "--protocol", "nextgen", "--format", "json")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var doc struct {
		Seeds []uint64
		Stats []report.SeedStat
		Runs  []struct{ Seed uint64 }
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if len(doc.Seeds) != 3 || doc.Seeds[0] != 5 || doc.Seeds[2] != 7 || len(doc.Runs) != 3 {
		t.Errorf("seeds %v, %d runs: want seeds 5-7, three runs", doc.Seeds, len(doc.Runs))
	}
	for _, st := range doc.Stats {
		if !(st.Min <= st.P5 && st.P5 <= st.Median && st.Median <= st.P95 && st.P95 <= st.Max) {
			t.Errorf("%s: min %v p5 %v median %v p95 %v max %v out of order", st.Metric, st.Min, st.P5, st.Median, st.P95, st.Max)
		}
	}
}

func TestBadSeedsIsUsage(t *testing.T) {
	if code, _, _ := runCLI(t, "run", "--seeds", "-1"); code != exitBadInput {
		t.Errorf("--seeds -1: exit %d, want %d", code, exitBadInput)
	}
}

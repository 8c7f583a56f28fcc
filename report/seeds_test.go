package report

import (
	"slices"
	"strings"
	"testing"

	"github.com/rebalsim/rebalsim/sim"
)

func TestEmpiricalQuantile(t *testing.T) {
	sorted := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20}
	cases := []struct {
		p    float64
		want float64
	}{
		{0.05, 1},  // ceil(0.05·20) = 1: the first value has 5% at or below it
		{0.5, 10},  // ceil(0.5·20) = 10
		{0.95, 19}, // ceil(0.95·20) = 19: the worst seed is beyond p95
		{1, 20},
		{0, 1}, // clamped to the first value
	}
	for _, c := range cases {
		if got := empiricalQuantile(sorted, c.p); got != c.want {
			t.Errorf("q(%v) = %v, want %v", c.p, got, c.want)
		}
	}
	// With five seeds p5 is the least and p95 the greatest value.
	five := []float64{0.1, 0.2, 0.3, 0.4, 14.9}
	if lo, hi := empiricalQuantile(five, 0.05), empiricalQuantile(five, 0.95); lo != 0.1 || hi != 14.9 {
		t.Errorf("five seeds: p5 %v, p95 %v; want 0.1 and 14.9", lo, hi)
	}
}

func TestSeedWinners(t *testing.T) {
	type r struct{ lo, hi float64 }
	cases := []struct {
		name   string
		ranges []r
		want   []bool
	}{
		{"separated", []r{{0.2, 1}, {9, 10}, {3, 4}}, []bool{true, false, false}},
		// nextgen's range contains the others: no winner.
		{"overlap", []r{{0.25, 1.0}, {9.1, 9.7}, {0.1, 14.9}}, []bool{false, false, false}},
		// Two protocols at the same constant beat the third together.
		{"tied constants", []r{{3, 3}, {6, 6}, {3, 3}}, []bool{true, false, true}},
		// Everyone equal: nothing to choose.
		{"all equal", []r{{0, 0}, {0, 0}}, []bool{false, false}},
		// Touching ranges do not separate.
		{"touching", []r{{1, 2}, {2, 3}}, []bool{false, false}},
		{"one protocol", []r{{1, 2}}, []bool{false}},
	}
	for _, c := range cases {
		row := make([]SeedStat, len(c.ranges))
		for i, x := range c.ranges {
			row[i] = SeedStat{P5: x.lo, P95: x.hi}
		}
		seedWinners(row)
		got := make([]bool, len(row))
		for i := range row {
			got[i] = row[i].Best
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: best = %v, want %v", c.name, got, c.want)
		}
	}
}

// TestSeedsOutputs renders the outputs over seeds of three copies of the
// lab report (seeds 1-3): the table says how many seeds and marks
// nothing where every protocol's values are equal on every seed, and the
// band charts exist.
func TestSeedsOutputs(t *testing.T) {
	var s Seeds
	for seed := uint64(1); seed <= 3; seed++ {
		r := labReport()
		r.Scenario.Seed = seed
		s.Reports = append(s.Reports, r)
	}
	s.Rerun = "rebalsim run lab"
	var b strings.Builder
	if err := SeedsTable(&b, &s); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"seeds 1–3", "3 seeds per protocol", "rebalsim run lab --seeds 1 --seed 1 --protocol eager"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	charts, err := SeedCharts(&s)
	if err != nil {
		t.Fatal(err)
	}
	// Every chart over time of one seed's report has its band chart.
	var got, want []string
	for _, ch := range charts {
		got = append(got, ch.Name)
	}
	for _, tc := range timeCharts() {
		if tc.only == nil || tc.only(s.Reports[0]) {
			want = append(want, "seeds-"+tc.name)
		}
	}
	if !slices.Equal(got, want) || len(want) < 4 {
		t.Errorf("seed charts %v, want %v", got, want)
	}
	for _, ch := range charts {
		pngOf(t, ch)
	}
	var page strings.Builder
	if err := writeHTML(&page, s.Reports[0], nil, &s); err != nil {
		t.Fatal(err)
	}
	checkWellFormed(t, page.String())
	checkSelfContained(t, page.String())
	if !strings.Contains(page.String(), "<h2>Over seeds</h2>") || !strings.Contains(page.String(), "rebalsim run lab --seeds 1 --seed 1 --protocol eager") {
		t.Error("report.html over seeds lacks the seeds section or the rerun command")
	}
}

// TestSeedBandsOfReplicas: the replica counts of three seeds (4, 6 and 8
// from 30 s) band from the smallest to the largest with the middle one as
// median (the empirical p5 and p95 of three values are the first and the
// last), and the seed charts gain a replicas chart once there is an
// autoscaler.
func TestSeedBandsOfReplicas(t *testing.T) {
	var s Seeds
	for seed := uint64(1); seed <= 3; seed++ {
		r := labReport()
		r.Scenario.Seed = seed
		for _, run := range r.Runs {
			run.Autoscaler = &sim.AutoscalerResult{Decisions: []sim.ScaleDecision{{At: 30, Replicas: 2 + 2*int(seed)}}}
		}
		s.Reports = append(s.Reports, r)
	}
	charts, err := SeedCharts(&s)
	if err != nil {
		t.Fatal(err)
	}
	if last := charts[len(charts)-1].Name; last != "seeds-replicas" {
		t.Errorf("the last seed chart is %s, want seeds-replicas", last)
	}
	r := s.Reports[0]
	p := timePlot(r, "replicas", horizon(r))
	_, drawn := seedBands(p, &s, runLooks(r), runNames(r), timeChartNamed(t, "replicas").panels[0], horizon(r))
	// Per protocol: p5, median and p95 at each of the two instants of the
	// step line (30 s and the horizon), in that order.
	want := []float64{4, 4, 6, 6, 8, 8}
	if len(drawn) < len(want) || !slices.Equal(drawn[:len(want)], want) {
		t.Errorf("replica bands %v, want %v first", drawn, want)
	}
}

package report

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/rebalsim/rebalsim/sim"
)

// sweepFixture is a sweep as package sweeps would summarise it, with made-up
// numbers: downtime grows with members, most for eager, and the tail (p90,
// max) grows faster than the mean.
func sweepFixture() *Sweep {
	s := &Sweep{
		Version:   "v0.1.0",
		Scenario:  SweepScenario{Name: "rolling-restart", Description: "A deployment restarts every instance one at a time.", Source: "rolling-restart.yaml", SHA256: strings.Repeat("ab", 32)},
		Params:    []string{"members", "session_timeout"},
		Seeds:     200,
		Protocols: []string{"eager", "cooperative", "nextgen"},
		Metrics:   sim.MetricNames(),
		Warnings:  []string{"members=500, session_timeout=10s: the rolling_restart at 30s reaches 14 of its 500 members before the 5m horizon"},
	}
	scale := []float64{1.0, 0.55, 0.35}
	for i, members := range []float64{10, 50, 100, 500} {
		for j, st := range []string{"10s", "45s"} {
			p := SweepPoint{Index: 2*i + j, Values: []string{formatNumber(members), st}, FirstSeed: 1}
			for k, proto := range s.Protocols {
				c := SweepCell{Protocol: proto, Runs: 200, Converged: 200}
				if proto == "eager" && members == 500 {
					c.Converged = 190
				}
				for m, metric := range s.Metrics {
					base := (float64(m) + 1) * math.Log(members) * scale[k] * (1 + 0.2*float64(j))
					stat := SweepStats{Metric: metric, N: 200, Mean: Number(base), StdDev: Number(base * 0.2),
						CILow: Number(base * 0.97), CIHigh: Number(base * 1.03), Min: Number(base * 0.5),
						P10: Number(base * 0.75), P25: Number(base * 0.88), Median: Number(base * 0.98),
						P75: Number(base * 1.1), P90: Number(base * 1.3), P99: Number(base * 1.7), Max: Number(base * 2)}
					c.Metrics = append(c.Metrics, stat)
				}
				p.Protocols = append(p.Protocols, c)
			}
			s.Points = append(s.Points, p)
		}
	}
	s.Runs = len(s.Points) * s.Seeds * len(s.Protocols)
	return s
}

func TestSweepChartsAreTheHeadlineMetricsAgainstEachPath(t *testing.T) {
	charts, err := SweepCharts(sweepFixture())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range charts {
		names = append(names, c.Name)
	}
	want := []string{}
	for _, m := range []string{"downtime_partition_seconds", "moved_partitions", "rebalances", "convergence_seconds", "duplicate_records"} {
		want = append(want, "sweep-"+m+"-vs-members", "sweep-"+m+"-vs-session_timeout", "sweep-"+m+"-box")
	}
	if !slices.Equal(names, want) {
		t.Errorf("charts:\n  %v\nwant\n  %v", names, want)
	}
}

func TestSweepChartGoldens(t *testing.T) {
	charts, err := SweepCharts(sweepFixture())
	if err != nil {
		t.Fatal(err)
	}
	checkGoldenPNG(t, "sweep_lines_golden.png", pngOf(t, chartByName(t, charts, "sweep-downtime_partition_seconds-vs-members")))
	checkGoldenPNG(t, "sweep_box_golden.png", pngOf(t, chartByName(t, charts, "sweep-downtime_partition_seconds-box")))
}

func TestSweepChartsRenderDeterministically(t *testing.T) {
	render := func() [][]byte {
		charts, err := SweepCharts(sweepFixture())
		if err != nil {
			t.Fatal(err)
		}
		var out [][]byte
		for _, c := range charts[:3] {
			out = append(out, pngOf(t, c), svgOf(t, c))
		}
		return out
	}
	a, b := render(), render()
	for i := range a {
		if !bytes.Equal(a[i], b[i]) {
			t.Errorf("rendering %d differs between two renderings of the same sweep", i)
		}
	}
}

func TestSweepChartsSurviveOddSweeps(t *testing.T) {
	s := sweepFixture()
	// Non-numeric values, a single point, NaN statistics (one seed).
	s.Params = []string{"defaults.assignors"}
	s.Points = s.Points[:2]
	s.Points[0].Values = []string{"[range]"}
	s.Points[1].Values = []string{"[cooperative-sticky]"}
	for i := range s.Points[1].Protocols[0].Metrics {
		s.Points[1].Protocols[0].Metrics[i] = SweepStats{Metric: s.Metrics[i], N: 1, Mean: 3, StdDev: Number(math.NaN()), CILow: Number(math.NaN()), CIHigh: Number(math.NaN()),
			Min: 3, P10: 3, P25: 3, Median: 3, P75: 3, P90: 3, P99: 3, Max: 3}
	}
	charts, err := SweepCharts(s)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range charts {
		pngOf(t, c)
	}
	s.Params, s.Points = nil, s.Points[:1]
	s.Points[0].Values = nil
	charts, err = SweepCharts(s)
	if err != nil || len(charts) != 5 {
		t.Fatalf("no varied values: %d charts, %v; want the five box plots", len(charts), err)
	}
	pngOf(t, charts[0])
}

func TestSweepHTML(t *testing.T) {
	s := sweepFixture()
	charts, err := SweepCharts(s)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := SweepHTML(&b, s, charts[:2]...); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	checkWellFormed(t, page)
	checkSelfContained(t, page)
	for _, want := range []string{
		"<h1>rebalsim sweep: rolling-restart</h1>",
		"<th>varied: members</th><td>10, 50, 100, 500</td>",
		"<th>seeds</th><td>200 per point (1 to 200)</td>",
		"reaches 14 of its 500 members",
		"<h3><code>downtime_partition_seconds</code></h3>",
		`id="chart-sweep-downtime_partition_seconds-vs-members"`,
		"<td>eager</td><td class=\"num\">190 of 200</td>",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
}

func TestSweepTable(t *testing.T) {
	var b bytes.Buffer
	if err := SweepTable(&b, sweepFixture()); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "sweep_table_golden.txt", b.Bytes())
	b.Reset()
	if err := SweepMarkdown(&b, sweepFixture()); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "| members | session\\_timeout | protocol | mean |") {
		t.Errorf("markdown header missing:\n%s", b.String()[:400])
	}
}

func TestSweepStatsFiles(t *testing.T) {
	s := sweepFixture()
	s.Points = s.Points[:1]
	s.Points[0].Protocols = s.Points[0].Protocols[:1]
	c := &s.Points[0].Protocols[0]
	c.Metrics = c.Metrics[:1]
	c.Metrics[0] = SweepStats{Metric: "rebalances", N: 1, Mean: 2, StdDev: Number(math.NaN()), CILow: Number(math.NaN()), CIHigh: Number(math.NaN()),
		Min: 2, P10: 2, P25: 2, Median: 2, P75: 2, P90: 2, P99: 2, Max: 1e21}
	var b bytes.Buffer
	if err := SweepStatsCSV(&b, s); err != nil {
		t.Fatal(err)
	}
	want := "point,members,session_timeout,protocol,first_seed,runs,converged_runs,runs_with_safety_findings,metric,n,mean,stddev,ci95_low,ci95_high,min,p10,p25,median,p75,p90,p99,max\n" +
		"0,10,10s,eager,1,200,200,0,rebalances,1,2,,,,2,2,2,2,2,2,2,1000000000000000000000\n"
	if b.String() != want {
		t.Errorf("stats.csv:\n%s\nwant\n%s", b.String(), want)
	}
	b.Reset()
	if err := WriteSweepJSON(&b, s); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `"stddev": null`) || !strings.Contains(b.String(), `"mean": 2,`) {
		t.Errorf("stats.json:\n%s", b.String())
	}
	var back Sweep
	if err := json.Unmarshal(b.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if got := back.Points[0].Protocols[0].Metrics[0]; !math.IsNaN(float64(got.CILow)) || got.Max != 1e21 {
		t.Errorf("read back %+v", got)
	}
}

// TestSweepAxesFitTheValues: one point whose worst run is 1.9M, over
// values of tens elsewhere, puts the box chart's y axis on a log scale
// (a factor of 100 or more, all above zero); the fixture as it is, within
// a factor of about 40, stays linear. A varied value that is not a number
// (session_timeout's values are durations, which are) would get no line.
func TestSweepAxesFitTheValues(t *testing.T) {
	s := sweepFixture()
	ch := sweepBoxChart(s, protocolLooks(s.Protocols), "downtime_partition_seconds")
	if _, ok := ch.Plot.Y.Scale.(logFloorScale); ok {
		t.Error("the fixture's box chart is on a log scale; its values span less than 100x")
	}
	s.Points[7].Protocols[0].Metrics[s.metricIndex("downtime_partition_seconds")].Max = 1.9e6
	ch = sweepBoxChart(s, protocolLooks(s.Protocols), "downtime_partition_seconds")
	if _, ok := ch.Plot.Y.Scale.(logFloorScale); !ok {
		t.Error("an outlier of 1.9M over values of tens left the box chart's axis linear")
	}
	if !newParamAxis([]string{"10s", "45s"}).numeric || newParamAxis([]string{"true", "false"}).numeric {
		t.Error("durations must be numbers on the axis and booleans must not")
	}
}

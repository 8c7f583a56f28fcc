package report

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/rebalsim/rebalsim/sim"
)

func chartByName(t *testing.T, charts []Chart, name string) Chart {
	t.Helper()
	for _, c := range charts {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no chart named %s", name)
	return Chart{}
}

func pngOf(t *testing.T, c Chart) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := c.WritePNG(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func svgOf(t *testing.T, c Chart) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := c.WriteSVG(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestChartsGolden pins one chart of each kind, plus an ownership timeline
// that has to sample its rows.
func TestChartsGolden(t *testing.T) {
	lab, err := Charts(labReport())
	if err != nil {
		t.Fatal(err)
	}
	large, err := Charts(largeReport(10, 200))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		charts []Chart
		name   string
		golden string
	}{
		{lab, "summary", "summary_golden.png"},
		{lab, "processing", "processing_golden.png"},
		{lab, "lag", "lag_golden.png"},
		{lab, "movement", "movement_golden.png"},
		{lab, "ownership-cooperative", "ownership_golden.png"},
		{lab, "members-eager", "members_golden.png"},
		{large, "ownership-eager", "ownership_sampled_golden.png"},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			checkGoldenPNG(t, tc.golden, pngOf(t, chartByName(t, tc.charts, tc.name)))
		})
	}
	// SVG is text: pin one byte for byte.
	checkGolden(t, "processing_golden.svg", svgOf(t, chartByName(t, lab, "processing")))
}

func TestChartsNamesAndCaptions(t *testing.T) {
	charts, err := Charts(labReport())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range charts {
		names = append(names, c.Name)
		if c.Title == "" || c.Caption == "" || strings.Contains(c.Caption, "\n") {
			t.Errorf("chart %s needs a title and a one-line caption", c.Name)
		}
	}
	want := "summary processing lag movement ownership-eager ownership-cooperative ownership-nextgen members-eager members-cooperative members-nextgen"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("charts = %s\nwant     %s", got, want)
	}
}

// TestChartRenderingIsDeterministic renders every chart twice, in both
// formats: a report rebuilt from result.json must be byte-identical.
func TestChartRenderingIsDeterministic(t *testing.T) {
	for _, r := range []*Report{labReport(), largeReport(10, 200)} {
		first, err := Charts(r)
		if err != nil {
			t.Fatal(err)
		}
		second, err := Charts(r)
		if err != nil {
			t.Fatal(err)
		}
		for i := range first {
			if !bytes.Equal(pngOf(t, first[i]), pngOf(t, second[i])) {
				t.Errorf("%s.png differs between two renderings", first[i].Name)
			}
			// The same Chart drawn twice, too: drawing must not change it.
			if !bytes.Equal(svgOf(t, first[i]), svgOf(t, first[i])) || !bytes.Equal(svgOf(t, first[i]), svgOf(t, second[i])) {
				t.Errorf("%s.svg differs between two renderings", first[i].Name)
			}
		}
	}
}

// TestOwnershipBinningIsSaid: 200 partitions are more rows than bars can
// show (maxVectorRows is 96), so every row is kept and binned, and the
// chart says so.
func TestOwnershipBinningIsSaid(t *testing.T) {
	charts, err := Charts(largeReport(10, 200))
	if err != nil {
		t.Fatal(err)
	}
	svg := string(svgOf(t, chartByName(t, charts, "ownership-eager")))
	if !strings.Contains(svg, "200 partitions, rows sorted by final owner, binned: shade is the share of time in each state") {
		t.Error("a binned ownership chart does not say that it is binned")
	}
}

func TestProtocolLooksAreFixed(t *testing.T) {
	a := protocolLooks([]string{"eager", "cooperative", "nextgen"})
	b := protocolLooks([]string{"nextgen", "eager"})
	if a[0].color != b[1].color || a[2].color != b[0].color {
		t.Error("a protocol's colour depends on the order of the runs")
	}
	c := protocolLooks([]string{"eager", "eager", "custom"})
	if c[0].color == c[1].color || c[1].color == c[2].color {
		t.Error("repeated or unknown protocols share a look")
	}
}

func TestLabelGroups(t *testing.T) {
	r := largeReport(10, 20)
	groups := labelGroups(disturbances(r))
	if len(groups) != 2 || groups[0].label != "crash c1" || groups[1].label != "rolling restart ×5" {
		t.Errorf("label groups = %+v", groups)
	}
}

// TestSparseReports renders reports with nothing to draw: no runs, or runs
// with metrics only (as a hand-written result might have). Charts must
// come out empty, not panic.
func TestSparseReports(t *testing.T) {
	for _, r := range []*Report{
		{Version: "v"},
		{Version: "v", Runs: []*sim.Result{{Protocol: "eager"}}},
		{Version: "v", Runs: []*sim.Result{{Protocol: "eager", Metrics: sim.Metrics{Rebalances: 2}}, {Protocol: "custom"}}},
	} {
		charts, err := Charts(r)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range charts {
			pngOf(t, c)
			svgOf(t, c)
		}
		var b bytes.Buffer
		for _, fn := range []func(io.Writer, *Report) error{Table, Markdown, CSV, TimelineCSV, MemberMetricsTable} {
			if err := fn(&b, r); err != nil {
				t.Fatal(err)
			}
		}
		page := htmlOf(t, r)
		checkWellFormed(t, page)
		checkSelfContained(t, page)
	}
}

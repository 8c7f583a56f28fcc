package report

import (
	"cmp"
	"fmt"
	"image"
	"image/color"
	"io"
	"math"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/rebalsim/rebalsim/protocols"
	"github.com/rebalsim/rebalsim/scenarios"
	"github.com/rebalsim/rebalsim/sim"
)

// scaleScenario is a rolling deploy of members consumers, restarted one
// every interval, each down for 3s: the situation the charts lied about
// at scale (solid orange lanes, a barcode of disturbance lines, a lag
// peak the samples missed, a result.json of hundreds of megabytes).
func scaleScenario(t *testing.T, members, partitions int, interval, duration string) *sim.Scenario {
	t.Helper()
	yaml := fmt.Sprintf(`name: deploy-%d
duration: %s
topics:
  - {name: orders, partitions: %d, rate: 200}
members:
  - {count: %d, id: "c{i}"}
events:
  - {at: 1m, rolling_restart: {members: all, interval: %s, down: 3s, graceful: true}}
`, members, duration, partitions, members, interval)
	sc, err := scenarios.Parse(fmt.Sprintf("deploy-%d.yaml", members), []byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	return sc.Scenario
}

func runScale(t *testing.T, sc *sim.Scenario, protocol string) *Report {
	t.Helper()
	res, err := sim.Run(sc, protocols.Default(), sim.RunOptions{Protocol: protocol, Timeline: true})
	if err != nil {
		t.Fatal(err)
	}
	return &Report{Version: "test", Scenario: NewScenarioInfo(sc), Runs: []*sim.Result{res}}
}

// TestReportsAtScale renders the member-activity and lag charts of
// reports for 12, 200 and 1,000 members and checks them against the data.
func TestReportsAtScale(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates groups of up to 1,000 members")
	}
	cases := []struct {
		members, partitions int
		interval, duration  string
		protocol            string
	}{
		// Eager: every bounce stops every member, so rebalancing is
		// spread over every lane in short stops, the case that was drawn
		// as solid orange.
		{12, 36, "20s", "6m", "eager"},
		{200, 600, "5s", "20m", "eager"},
		{1000, 2000, "1s", "25m", "cooperative"},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%d members", c.members), func(t *testing.T) {
			r := runScale(t, scaleScenario(t, c.members, c.partitions, c.interval, c.duration), c.protocol)
			run := r.Runs[0]
			order := newMemberOrder(r)
			end := r.Scenario.Duration

			t.Run("rebalancing pixels", func(t *testing.T) {
				ch := membersChart(r, order, run, run.Protocol, end)
				img, area := renderPlot(t, ch)
				want := memberStateShares(run, ch.Plot.X.Min, ch.Plot.X.Max)
				got := unmix(t, img, area, want)
				t.Logf("rebalancing: %.2f%% of member time, %.2f%% of the chart", 100*want["rebalancing"], 100*got["rebalancing"])
				// The bound: within 5 points of the data's share.
				if d := math.Abs(got["rebalancing"] - want["rebalancing"]); d > 0.05 {
					t.Errorf("rebalancing covers %.1f%% of the lanes but %.1f%% of member time", 100*got["rebalancing"], 100*want["rebalancing"])
				}
			})

			t.Run("lag peak", func(t *testing.T) {
				ch := timeChartNamed(t, "lag").single(r, protocolLooks([]string{run.Protocol}), []string{run.Protocol}, end)
				xys := drawnSeries(run.Series.Times, lagPeaks(run.Series), ch.Plot.X.Min, 1, false)
				top := 0.0
				for _, p := range xys {
					top = max(top, p.Y)
				}
				peak := run.Metrics.PeakLagRecords
				// The bound: the chart's highest point within 1%
				// of peak_lag_records (the lines are drawn through these
				// points, and the axis reaches above them).
				if math.Abs(top-peak) > 0.01*peak || ch.Plot.Y.Max < top {
					t.Errorf("lag chart peaks at %.0f (axis to %.0f), peak_lag_records is %.0f", top, ch.Plot.Y.Max, peak)
				}
			})

			t.Run("markers", func(t *testing.T) {
				ch := membersChart(r, order, run, run.Protocol, end)
				_, area := renderPlot(t, ch)
				// The rug works in points, as the canvas does.
				pt := func(px int) vg.Length { return vg.Length(float64(px) * 72 / pngDPI) }
				x0, x1 := pt(area.Min.X), pt(area.Max.X)
				xs := make([]vg.Length, len(run.Disturbances))
				for i, d := range run.Disturbances {
					xs[i] = x0 + (x1-x0)*vg.Length((d.Start-ch.Plot.X.Min)/(ch.Plot.X.Max-ch.Plot.X.Min))
				}
				marks := len(xs)
				if rug := disturbanceRug(xs, x0, x1); rug != nil {
					marks = len(rug)
					for i := 1; i < len(rug); i++ {
						if rug[i].x-rug[i-1].x < markSpacing {
							t.Errorf("marks %d and %d are %.1f pt apart", i-1, i, float64(rug[i].x-rug[i-1].x))
						}
					}
				}
				// At most one marker per 10 px of time axis (pixels here
				// are the PNG's, as the area is).
				if px := float64(area.Dx()); float64(marks) > px/10+1 {
					t.Errorf("%d disturbance marks on %.0f px of time axis", marks, px)
				}
			})

			t.Run("result.json size", func(t *testing.T) {
				saved, err := forSaving(r, TimelineAuto)
				if err != nil {
					t.Fatal(err)
				}
				var n countingWriter
				if err := WriteJSON(&n, saved); err != nil {
					t.Fatal(err)
				}
				t.Logf("result.json: %d bytes; %d disturbances", n, len(run.Disturbances))
				// The bound, for one protocol here; three
				// protocols stay under it with room (2.1 MB each measured).
				if n > 10<<20/3 {
					t.Errorf("result.json is %d bytes by default", n)
				}
			})
		})
	}
}

// timeChartNamed is the time chart of that name.
func timeChartNamed(t *testing.T, name string) timeChart {
	t.Helper()
	for _, tc := range timeCharts() {
		if tc.name == name {
			return tc
		}
	}
	t.Fatalf("no time chart %q", name)
	return timeChart{}
}

type countingWriter int

func (w *countingWriter) Write(b []byte) (int, error) {
	*w += countingWriter(len(b))
	return len(b), nil
}

var _ io.Writer = (*countingWriter)(nil)

// renderPlot draws a chart's plot alone at PNG resolution and returns the
// image and its data area in pixels (image coordinates, y down).
func renderPlot(t *testing.T, ch Chart) (*image.RGBA, image.Rectangle) {
	t.Helper()
	if ch.Plot == nil {
		t.Fatalf("%s has no plot", ch.Name)
	}
	cv := vgimg.NewWith(vgimg.UseWH(chartWidth, chartHeight), vgimg.UseDPI(pngDPI))
	dc := draw.New(cv)
	ch.Plot.Draw(dc)
	da := ch.Plot.DataCanvas(dc)
	img := cv.Image().(*image.RGBA)
	h := img.Bounds().Dy()
	px := func(l vg.Length) int { return int(math.Round(l.Dots(pngDPI))) }
	// Inset a pixel from every edge: the frame and axis lines are not data.
	return img, image.Rect(px(da.Min.X)+1, h-px(da.Max.Y)+1, px(da.Max.X)-1, h-px(da.Min.Y)-1)
}

// memberStateShares is the share of lane time (members × the window from
// start to end) in each state. Time no segment covers is drawn white, as
// is the background between rows; unmix always solves for white, so it is
// not counted here. The sum runs over the states in a fixed order: over a
// map, float rounding would differ from run to run.
func memberStateShares(run *sim.Result, start, end float64) map[string]float64 {
	seconds := map[string]float64{}
	rows := map[string]bool{}
	for _, s := range run.MemberTimeline {
		rows[s.Member] = true
		if d := min(s.End, end) - max(s.Start, start); d > 0 {
			seconds[s.State] += d
		}
	}
	total := float64(len(rows)) * (end - start)
	shares := map[string]float64{}
	for _, st := range memberStates() {
		if seconds[st] > 0 {
			shares[st] = seconds[st] / total
		}
	}
	return shares
}

// unmix finds the share of each state's colour in the mean colour of the
// area: pixels are mixes of the states' colours weighted by time, so the
// mean is the mix weighted by the shares over the whole chart. White is
// always one of the colours solved for: the plot's background shows
// between the rows of bars, behind the disturbance labels and wherever no
// segment covers the time, whatever the data's shares say. (Leaving white
// out when the data covered every instant made the solver put the
// background's white into the other colours: 17.6% "rebalancing" for
// 2.0% of member time, on the runs where float rounding in a sum over a
// map said the uncovered time was exactly zero.) Three colour channels and
// the shares' sum of one allow four unknowns: white and the three largest
// states of present.
func unmix(t *testing.T, img *image.RGBA, area image.Rectangle, present map[string]float64) map[string]float64 {
	t.Helper()
	var states []string
	for _, st := range memberStates() {
		if present[st] > 0 {
			states = append(states, st)
		}
	}
	// The largest first; ties in the fixed order of memberStates.
	slices.SortStableFunc(states, func(a, b string) int { return cmp.Compare(present[b], present[a]) })
	states = append([]string{""}, states[:min(len(states), 3)]...)
	cols := []color.RGBA{{R: 255, G: 255, B: 255, A: 255}}
	for _, st := range states[1:] {
		cols = append(cols, memberStateLook(st).solid())
	}
	var mean [3]float64
	n := 0.0
	for y := area.Min.Y; y < area.Max.Y; y++ {
		for x := area.Min.X; x < area.Max.X; x++ {
			c := img.RGBAAt(x, y)
			mean[0] += float64(c.R)
			mean[1] += float64(c.G)
			mean[2] += float64(c.B)
			n++
		}
	}
	a := mat.NewDense(4, len(states), nil)
	b := mat.NewVecDense(4, []float64{mean[0] / n, mean[1] / n, mean[2] / n, 1})
	for j, c := range cols {
		a.Set(0, j, float64(c.R))
		a.Set(1, j, float64(c.G))
		a.Set(2, j, float64(c.B))
		a.Set(3, j, 1)
	}
	// The sum row is weighted like a colour channel's range, so that
	// least squares holds it as firmly as the colours.
	for j := range cols {
		a.Set(3, j, 255)
	}
	b.SetVec(3, 255)
	var x mat.VecDense
	if err := x.SolveVec(a, b); err != nil {
		t.Fatalf("unmixing %v: %v", states, err)
	}
	out := map[string]float64{}
	for j, st := range states {
		out[st] = x.AtVec(j)
	}
	return out
}

// TestUnmixSolvesForTheBackground: lanes whose data covers every instant
// still leave white between their rows. On a 100 × 100 image of bars 84
// pixels tall in a 100-pixel row, 90 columns processing and 10
// rebalancing, the shares of the area are 0.84 × 0.9 = 0.756 processing,
// 0.84 × 0.1 = 0.084 rebalancing and 0.16 white, though the data (present)
// has no uncovered time at all.
func TestUnmixSolvesForTheBackground(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 100, 100))
	for y := range 100 {
		for x := range 100 {
			c := color.RGBA{R: 255, G: 255, B: 255, A: 255}
			switch {
			case y >= 84:
			case x < 90:
				c = memberStateLook("processing").solid()
			default:
				c = memberStateLook("rebalancing").solid()
			}
			img.SetRGBA(x, y, c)
		}
	}
	got := unmix(t, img, img.Bounds(), map[string]float64{"processing": 0.9, "rebalancing": 0.1})
	for st, want := range map[string]float64{"processing": 0.756, "rebalancing": 0.084, "": 0.16} {
		if math.Abs(got[st]-want) > 1e-9 {
			t.Errorf("share of %q: got %.4f, want %.4f", st, got[st], want)
		}
	}
}

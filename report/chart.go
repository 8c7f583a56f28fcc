package report

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// pngDPI makes a 12-inch chart 1152 pixels wide: sharp on a projector,
// small enough to embed in HTML.
const pngDPI = 96

// Chart is one picture of a report. Name is its file stem (name.png,
// name.svg); Title and Caption head it in the HTML report, the caption
// saying in one line how to read it. A chart is drawn by Render or, when
// Render is nil, by Plot (for callers who add a plain gonum plot).
type Chart struct {
	Name    string
	Title   string
	Caption string
	Width   vg.Length
	Height  vg.Length
	Plot    *plot.Plot
	Render  func(c draw.Canvas)
}

// Draw draws the chart on c.
func (ch Chart) Draw(c draw.Canvas) {
	if ch.Render != nil {
		ch.Render(c)
		return
	}
	if ch.Plot != nil {
		ch.Plot.Draw(c)
	}
}

func (ch Chart) size() (vg.Length, vg.Length) {
	w, h := ch.Width, ch.Height
	if w <= 0 || h <= 0 {
		w, h = chartWidth, chartHeight
	}
	return w, h
}

// WritePNG renders the chart as a PNG image.
func (ch Chart) WritePNG(w io.Writer) error {
	width, height := ch.size()
	c := vgimg.NewWith(vgimg.UseWH(width, height), vgimg.UseDPI(pngDPI))
	ch.Draw(draw.New(c))
	_, err := vgimg.PngCanvas{Canvas: c}.WriteTo(w)
	return err
}

// WriteSVG renders the chart as an SVG document. Fonts are not embedded
// (viewers substitute Liberation Sans's metric twins), which keeps files
// small and text searchable.
func (ch Chart) WriteSVG(w io.Writer) error {
	width, height := ch.size()
	c := vgsvg.New(width, height)
	ch.Draw(draw.New(c))
	_, err := c.WriteTo(w)
	return err
}

// Charts builds every chart of the report, in the order the HTML report
// shows them:
//
//   - summary: the headline costs, protocols side by side;
//   - processing: share of partitions processed over time, per protocol;
//   - lag: total consumer lag over time, per protocol;
//   - movement: cumulative moved partitions and revocations, per protocol;
//   - latency: record latency (p99 and max) per step of the window;
//   - replicas: the autoscaler's replica count, per protocol, when there is one;
//   - ownership-<protocol>: a row per partition, coloured by owner;
//   - members-<protocol>: a swim lane per member, coloured by state.
//
// The last two need the run's histories and are left out without them.
//
// Charts only build the drawings; nothing is rendered until a Write
// method or WriteCharts is called.
func Charts(r *Report) ([]Chart, error) {
	if r == nil {
		return nil, errors.New("report: no report to chart")
	}
	for i, run := range r.Runs {
		if run == nil {
			return nil, fmt.Errorf("report: run %d is missing", i)
		}
	}
	names := runNames(r)
	looks := runLooks(r)
	order := newMemberOrder(r)
	end := horizon(r)

	charts := []Chart{summaryChart(r, looks, names)}
	for _, tc := range timeCharts() {
		if tc.only == nil || tc.only(r) {
			charts = append(charts, tc.single(r, looks, names, end))
		}
	}
	// A run made without its histories (rebalsim run --no-timeline) has
	// nothing to draw in these two: they are left out rather than drawn
	// empty.
	for i, run := range r.Runs {
		if len(run.Timeline) > 0 {
			charts = append(charts, ownershipChart(r, order, run, names[i], end))
		}
	}
	for i, run := range r.Runs {
		if len(run.MemberTimeline) > 0 {
			charts = append(charts, membersChart(r, order, run, names[i], end))
		}
	}
	return charts, nil
}

// runLooks is the look of each run's protocol, in run order.
func runLooks(r *Report) []protocolLook {
	protocols := make([]string, len(r.Runs))
	for i, run := range r.Runs {
		protocols[i] = run.Protocol
	}
	return protocolLooks(protocols)
}

// renderedChart holds a chart's encoded images, so that one rendering
// serves both the image files and the HTML report.
type renderedChart struct {
	chart    Chart
	png, svg []byte
}

func render(charts []Chart, svg bool) ([]renderedChart, error) {
	out := make([]renderedChart, len(charts))
	for i, ch := range charts {
		var pb bytes.Buffer
		if err := ch.WritePNG(&pb); err != nil {
			return nil, fmt.Errorf("report: rendering %s.png: %w", ch.Name, err)
		}
		out[i] = renderedChart{chart: ch, png: pb.Bytes()}
		if svg {
			var sb bytes.Buffer
			if err := ch.WriteSVG(&sb); err != nil {
				return nil, fmt.Errorf("report: rendering %s.svg: %w", ch.Name, err)
			}
			out[i].svg = sb.Bytes()
		}
	}
	return out, nil
}

// WriteCharts renders every chart of r into dir as name.png and name.svg
// and returns the paths written, in order.
func WriteCharts(dir string, r *Report) ([]string, error) {
	paths, _, err := writeCharts(dir, Options{}, func() ([]Chart, error) { return Charts(r) })
	return paths, err
}

// writeCharts builds the charts, renders them (as PNG, and as SVG unless
// opts.NoSVG) and writes them into dir; with opts.NoCharts it does
// nothing. It returns the paths written and the rendered charts, for the
// HTML page that embeds them.
func writeCharts(dir string, opts Options, charts func() ([]Chart, error)) ([]string, []renderedChart, error) {
	if opts.NoCharts {
		return nil, nil, nil
	}
	built, err := charts()
	if err != nil {
		return nil, nil, err
	}
	rendered, err := render(built, !opts.NoSVG)
	if err != nil {
		return nil, nil, err
	}
	paths, err := writeRendered(dir, rendered)
	return paths, rendered, err
}

func writeRendered(dir string, rendered []renderedChart) ([]string, error) {
	var paths []string
	for _, rc := range rendered {
		for _, f := range []struct {
			ext  string
			data []byte
		}{{".png", rc.png}, {".svg", rc.svg}} {
			if f.data == nil {
				continue
			}
			path := filepath.Join(dir, rc.chart.Name+f.ext)
			if err := writeFileAtomic(path, func(w io.Writer) error {
				_, err := w.Write(f.data)
				return err
			}); err != nil {
				return paths, err
			}
			paths = append(paths, path)
		}
	}
	return paths, nil
}

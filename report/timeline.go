package report

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"image/color"
	"regexp"
	"strings"

	"github.com/rebalsim/rebalsim/sim"
)

// timelineJS draws report.html's interactive timeline. It is written for
// this project (no library, nothing fetched) and embedded in the binary,
// so the page works offline.
//
//go:embed assets/timeline.js
var timelineJS string

// maxTimelineSegments bounds the member segments the page embeds (about
// 20 bytes each): a run whose lanes would pass it is left out of the
// interactive timeline, which says so, and stays in the static charts.
const maxTimelineSegments = 150000

// timelineRun is one run's member lanes for the page: per member the
// segments as flat [state, start, end] triples, times in milliseconds'
// precision, to keep the page small.
type timelineRun struct {
	Protocol string      `json:"protocol"`
	Names    []string    `json:"names"`
	Lanes    [][]float64 `json:"lanes"`
}

type timelineDisturbance struct {
	Label string  `json:"label"`
	Start float64 `json:"start"`
	End   float64 `json:"end"`
}

type timelineData struct {
	Start        float64               `json:"start"`
	End          float64               `json:"end"`
	States       []string              `json:"states"`
	Colours      []string              `json:"colours"`
	Runs         []timelineRun         `json:"runs"`
	Disturbances []timelineDisturbance `json:"disturbances"`
}

func hexColour(c color.RGBA) string { return fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B) }

// ownershipStates are the page's partition states after the member
// states: a partition with its owner when the window began, moved since,
// its owner stalled, two owners; an unowned partition has no segment
// (blank).
var ownershipStates = []string{"with its owner at window start", "moved", "owner stalled", "two owners"}

// timelineFor builds the page's data, and the runs left out for size:
// per run its member lanes, then its partition ownership (coloured owner
// at window start or moved, as the static chart does at scale). Like the
// charts, it shows the measurement window: what ends before it is left
// out.
func timelineFor(r *Report) (timelineData, []string) {
	d := timelineData{Start: windowStart(r), End: r.Scenario.Duration, States: memberStates()}
	index := map[string]int{}
	for i, st := range d.States {
		d.Colours = append(d.Colours, hexColour(memberStateLook(st).solid()))
		index[st] = i
	}
	own := len(d.States)
	for i, st := range ownershipStates {
		d.States = append(d.States, st)
		look, _ := movedLook([]string{"processing", "processing", "stalled", "double"}[i], i == 1)
		d.Colours = append(d.Colours, hexColour(look.solid()))
	}
	order := newMemberOrder(r)
	names := runNames(r)
	var left []string
	budget := maxTimelineSegments
	for i, run := range r.Runs {
		if len(run.MemberTimeline) == 0 {
			continue
		}
		if len(run.MemberTimeline) > budget {
			left = append(left, names[i])
			continue
		}
		budget -= len(run.MemberTimeline)
		byMember := map[string][]float64{}
		for _, s := range run.MemberTimeline {
			st, ok := index[s.State]
			if !ok || s.End <= d.Start {
				continue
			}
			byMember[s.Member] = append(byMember[s.Member], float64(st), roundMillis(s.Start), roundMillis(s.End))
		}
		tr := timelineRun{Protocol: names[i]}
		for _, m := range order.names {
			if segs, ok := byMember[m]; ok {
				tr.Names = append(tr.Names, m)
				tr.Lanes = append(tr.Lanes, segs)
			}
		}
		d.Runs = append(d.Runs, tr)
	}
	for i, run := range r.Runs {
		if len(run.Timeline) == 0 {
			continue
		}
		if len(run.Timeline) > budget {
			left = append(left, names[i]+" ownership")
			continue
		}
		budget -= len(run.Timeline)
		byPart := map[string][]sim.Segment{}
		var parts []string
		for _, s := range sortedSegments(run.Timeline) {
			if _, ok := byPart[s.Partition]; !ok {
				parts = append(parts, s.Partition)
			}
			byPart[s.Partition] = append(byPart[s.Partition], s)
		}
		tr := timelineRun{Protocol: names[i] + " ownership", Names: parts}
		for _, p := range parts {
			first := ownerAt(byPart[p], d.Start)
			lane := []float64{}
			for _, s := range byPart[p] {
				st := -1
				switch s.State {
				case "processing":
					st = own
					if s.Owner != first {
						st = own + 1
					}
				case "stalled":
					st = own + 2
				case "double":
					st = own + 3
				}
				if st >= 0 && s.End > d.Start {
					lane = append(lane, float64(st), roundMillis(s.Start), roundMillis(s.End))
				}
			}
			tr.Lanes = append(tr.Lanes, lane)
		}
		d.Runs = append(d.Runs, tr)
	}
	for _, ds := range disturbances(r) {
		label := ds.Label
		if label == "" {
			label = ds.Kind
		}
		d.Disturbances = append(d.Disturbances, timelineDisturbance{Label: label, Start: ds.Start, End: ds.End})
	}
	return d, left
}

var httpInJSON = regexp.MustCompile(`(?i)http`)

func roundMillis(v float64) float64 {
	return float64(int64(v*1000+0.5)) / 1000
}

// maxListedDisturbances bounds the page's disturbance list.
const maxListedDisturbances = 500

// writeTimelineHTML writes the interactive timeline section: a canvas, the
// data as JSON, the disturbance list it links to, and the script.
func writeTimelineHTML(h htmlWriter, r *Report) error {
	d, left := timelineFor(r)
	if len(d.Runs) == 0 {
		return nil
	}
	data, err := json.Marshal(d)
	if err != nil {
		return fmt.Errorf("report: encoding the timeline: %w", err)
	}
	h.raw("<section id=\"timeline\">\n<h2>Interactive timeline</h2>\n")
	h.raw("<p class=\"note\">Member lanes and partition ownership over the measurement window, from the first disturbance to the horizon (pick a run and what to show). Scroll to zoom around the pointer, drag to pan, double-click to see everything; hover for the member, its state and the time; click a disturbance below to zoom to it. Each pixel mixes the states in it by time, as the charts do.")
	if len(left) > 0 {
		h.text(" Left out for size: " + strings.Join(left, ", ") + " (see the charts).")
	}
	h.raw("</p>\n<div style=\"position: relative\">\n<select aria-label=\"run\">")
	for _, run := range d.Runs {
		h.elem("option", "", run.Protocol)
	}
	h.raw("</select> <span class=\"tl-view note\"></span><br/>\n<span class=\"note\">")
	for i, st := range d.States {
		h.raw("<span style=\"display: inline-block; width: 1.4em; height: 0.8em; border: 1px solid #999; background: " + d.Colours[i] + "\"></span> ")
		h.text(st + "  ")
	}
	h.raw("</span><br/>\n")
	rows := 0
	for _, run := range d.Runs {
		rows = max(rows, len(run.Names))
	}
	h.raw("<canvas width=\"1100\" height=\"" + itoa(min(max(24*rows, 160), 640)+52) + "\" style=\"border: 1px solid #e0e0e0; max-width: 100%\"></canvas>\n")
	h.raw("<div class=\"tl-tip\" hidden=\"hidden\" style=\"position: absolute; background: #fff; border: 1px solid #999; padding: 2px 6px; font-size: 0.85rem; pointer-events: none\"></div>\n</div>\n")
	h.raw("<details open=\"open\"><summary>Disturbances</summary>\n<ol id=\"timeline-disturbances\" style=\"max-height: 14rem; overflow-y: auto; cursor: pointer\">\n")
	for i, ds := range d.Disturbances {
		if i == maxListedDisturbances {
			h.raw("<p class=\"note\">")
			h.text(fmt.Sprintf("… and %d more", len(d.Disturbances)-i))
			h.raw("</p>\n")
			break
		}
		h.raw(fmt.Sprintf("<li data-start=\"%s\" data-end=\"%s\">", formatNumber(ds.Start), formatNumber(ds.End)))
		h.text(formatSeconds(ds.Start) + " " + ds.Label)
		h.raw("</li>\n")
	}
	h.raw("</ol>\n</details>\n")
	// JSON inside a script element: "</" and "]]>" must not appear
	// (encoding/json escapes < and >, so neither can).
	h.raw("<script type=\"application/json\" id=\"timeline-data\">")
	// The page spells no link (see escapeHTML), whatever a label says.
	h.raw(httpInJSON.ReplaceAllStringFunc(string(data), func(m string) string { return m[:2] + `\u0074` + m[3:] }))
	h.raw("</script>\n<script>//<![CDATA[\n")
	h.raw(timelineJS)
	h.raw("//]]>\n</script>\n</section>\n")
	return nil
}

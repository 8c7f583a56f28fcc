package report

import (
	"bufio"
	"encoding/base64"
	"fmt"
	"html"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// HTML writes one self-contained page: what was simulated, the summary with
// the best values marked, the findings, and the given charts (usually
// Charts(r)) embedded as PNG data: URIs, each with a caption saying how to
// read it. The page has inline CSS and nothing else: no scripts, no fonts,
// no links, so it can be mailed, attached to a ticket or opened offline.
//
// The markup is XHTML-style (every element closed, attributes quoted) so
// that it is also well-formed XML, which is how the tests check it.
func HTML(w io.Writer, r *Report, charts ...Chart) error {
	rendered, err := render(charts, false)
	if err != nil {
		return err
	}
	return writeHTML(w, r, rendered)
}

const pageCSS = `
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Liberation Sans", sans-serif; color: #222; margin: 2rem auto; max-width: 76rem; padding: 0 1rem; line-height: 1.45; }
h1 { font-size: 1.7rem; margin-bottom: 0.2rem; }
h2 { font-size: 1.35rem; border-bottom: 1px solid #ccc; padding-bottom: 0.2rem; margin-top: 2.2rem; }
h3 { font-size: 1.1rem; margin-bottom: 0.4rem; }
p.lead { color: #444; margin-top: 0; }
table { border-collapse: collapse; margin: 0.5rem 0 1rem; font-size: 0.95rem; }
th, td { border: 1px solid #d0d0d0; padding: 0.25rem 0.6rem; text-align: left; vertical-align: top; }
th { background: #f2f2f2; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
td.best { background: #e3f4e1; }
td.bad { color: #a50026; }
code { font-family: ui-monospace, "Liberation Mono", monospace; font-size: 0.92em; }
.note { color: #555; font-size: 0.9rem; }
figure { margin: 1.5rem 0 2.5rem; }
figure img { max-width: 100%; height: auto; border: 1px solid #e0e0e0; }
figcaption { color: #333; margin-top: 0.4rem; }
figcaption b { display: block; }
footer { margin-top: 3rem; color: #666; font-size: 0.85rem; border-top: 1px solid #ddd; padding-top: 0.5rem; }
details summary { cursor: pointer; font-weight: 600; }
`

// htmlWriter writes escaped markup.
type htmlWriter struct {
	w *bufio.Writer
}

func (h htmlWriter) raw(s string) { h.w.WriteString(s) }

func (h htmlWriter) text(s string) { h.w.WriteString(escapeHTML(s)) }

// elem writes <tag attrs>text</tag>, text escaped.
func (h htmlWriter) elem(tag, attrs, text string) {
	h.raw("<" + tag + attrs + ">")
	h.text(text)
	h.raw("</" + tag + ">")
}

// escapeHTML escapes text for element content and attribute values, and
// writes the letters "http" with a character reference for the third, so
// that no scenario description can put a link-looking string into a page
// that promises to have none. Browsers render it unchanged.
func escapeHTML(s string) string {
	s = html.EscapeString(s)
	if !strings.Contains(strings.ToLower(s), "http") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if i+4 <= len(s) && strings.EqualFold(s[i:i+4], "http") {
			b.WriteString(s[i : i+2])
			b.WriteString("&#" + strconv.Itoa(int(s[i+2])) + ";")
			b.WriteByte(s[i+3])
			i += 3
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// dataURI encodes an image as a data: URI, broken into lines. URL parsers
// drop newlines, so the lines cost nothing; they keep the page diffable and
// let a break fall inside any "http" that base64 happens to spell.
func dataURI(mime string, data []byte) string {
	enc := base64.StdEncoding.EncodeToString(data)
	var b strings.Builder
	b.Grow(len(enc) + len(enc)/76 + 64)
	b.WriteString("data:" + mime + ";base64,\n")
	line := 0
	for i := 0; i < len(enc); i++ {
		if line == 76 || (line >= 3 && (enc[i]|0x20) == 'p' && strings.EqualFold(enc[i-3:i], "htt")) {
			b.WriteByte('\n')
			line = 0
		}
		b.WriteByte(enc[i])
		line++
	}
	return b.String()
}

func writeHTML(w io.Writer, r *Report, charts []renderedChart) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	h := htmlWriter{bw}
	name := scenarioName(r)

	h.raw("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n")
	h.raw("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n")
	h.elem("title", "", "rebalsim: "+name)
	h.raw("\n<style>" + pageCSS + "</style>\n</head>\n<body>\n")

	h.elem("h1", "", "rebalsim: "+name)
	h.raw("\n")
	if d := r.Scenario.Description; d != "" {
		h.elem("p", ` class="lead"`, d)
		h.raw("\n")
	}

	writeScenarioHTML(h, r)
	writeSummaryHTML(h, r)
	writeFindingsHTML(h, r)
	if len(charts) > 0 {
		h.raw("<section id=\"charts\">\n<h2>Charts</h2>\n")
		for _, rc := range charts {
			h.raw("<figure id=\"chart-" + escapeHTML(rc.chart.Name) + "\">\n")
			width, height := rc.chart.size()
			h.raw(fmt.Sprintf("<img alt=\"%s\" width=\"%d\" height=\"%d\" src=\"%s\"/>\n",
				escapeHTML(rc.chart.Title), int(width.Dots(pngDPI)+0.5), int(height.Dots(pngDPI)+0.5),
				dataURI("image/png", rc.png)))
			h.raw("<figcaption><b>")
			h.text(rc.chart.Title)
			h.raw("</b>")
			h.text(rc.chart.Caption)
			h.raw("</figcaption>\n</figure>\n")
		}
		h.raw("</section>\n")
	}
	writeMemberMetricsHTML(h, r)

	h.raw("<footer>")
	h.text(fmt.Sprintf("Generated by rebalsim %s from scenario %s, seed %d. The same scenario, seed and version give the same report, byte for byte.",
		orUnknown(r.Version), name, r.Scenario.Seed))
	h.raw("</footer>\n</body>\n</html>\n")
	return bw.Flush()
}

func orUnknown(s string) string {
	if s == "" {
		return "(unknown version)"
	}
	return s
}

func writeScenarioHTML(h htmlWriter, r *Report) {
	sc := r.Scenario
	h.raw("<section id=\"scenario\">\n<h2>What was simulated</h2>\n<table>\n")
	fact := func(k, v string) {
		if v == "" {
			return
		}
		h.raw("<tr>")
		h.elem("th", "", k)
		h.elem("td", "", v)
		h.raw("</tr>\n")
	}
	fact("scenario", scenarioName(r))
	fact("source", sc.Source)
	fact("seed", strconv.FormatUint(sc.Seed, 10))
	if sc.Duration > 0 {
		fact("horizon", formatSeconds(sc.Duration)+" of virtual time")
	}
	var protocols []string
	for _, run := range r.Runs {
		protocols = append(protocols, run.Protocol)
	}
	fact("protocols", strings.Join(protocols, ", "))
	if len(r.Runs) > 0 {
		fact("measurement window", formatSeconds(r.Runs[0].WindowStart)+" to "+formatSeconds(r.Runs[0].WindowEnd)+" (from the first disturbance to the horizon)")
	}
	fact("network latency", sc.Network)
	fact("rebalsim version", orUnknown(r.Version))
	h.raw("</table>\n")

	if len(sc.Topics) > 0 {
		h.raw("<h3>Topics</h3>\n<table>\n<tr><th>topic</th><th class=\"num\">partitions</th><th class=\"num\">records/s per partition</th></tr>\n")
		for _, t := range sc.Topics {
			h.raw("<tr>")
			h.elem("td", "", t.Name)
			h.elem("td", ` class="num"`, strconv.Itoa(int(t.Partitions)))
			h.elem("td", ` class="num"`, formatNumber(t.Rate))
			h.raw("</tr>\n")
		}
		h.raw("</table>\n")
	}
	writeSettingsHTML(h, "Group coordinator settings", sc.Group)
	writeSettingsHTML(h, "Consumer defaults", sc.Defaults)

	if len(sc.Members) > 0 {
		h.raw("<h3>Members</h3>\n<table>\n<tr><th>members</th><th class=\"num\">start</th><th>settings beyond the defaults</th></tr>\n")
		for _, g := range groupMembers(sc.Members, sc.Defaults) {
			h.raw("<tr>")
			h.elem("td", "", g.ids)
			h.elem("td", ` class="num"`, formatSeconds(g.start))
			h.elem("td", "", dash(g.settings))
			h.raw("</tr>\n")
		}
		h.raw("</table>\n")
	}

	h.raw("<h3>Disturbances</h3>\n")
	if len(sc.Disturbances) == 0 {
		h.raw("<p>None.</p>\n")
	} else {
		h.raw("<table>\n<tr><th class=\"num\">at</th><th>event</th><th>members</th><th class=\"num\">for</th><th>detail</th></tr>\n")
		for _, d := range sc.Disturbances {
			h.raw("<tr>")
			h.elem("td", ` class="num"`, formatSeconds(d.At))
			h.elem("td", "", d.Kind)
			h.elem("td", "", dash(abbreviate(d.Members, 8)))
			length := "-"
			if d.For > 0 {
				length = formatSeconds(d.For)
			}
			h.elem("td", ` class="num"`, length)
			detail := d.Detail
			if d.Interval > 0 {
				detail = strings.TrimPrefix(detail+"; every "+formatSeconds(d.Interval), "; ")
			}
			h.elem("td", "", dash(detail))
			h.raw("</tr>\n")
		}
		h.raw("</table>\n")
	}
	h.raw("</section>\n")
}

func writeSettingsHTML(h htmlWriter, title string, settings map[string]string) {
	if len(settings) == 0 {
		return
	}
	h.elem("h3", "", title)
	h.raw("\n<table>\n")
	for _, k := range slices.Sorted(maps.Keys(settings)) {
		h.raw("<tr><th><code>")
		h.text(k)
		h.raw("</code></th>")
		h.elem("td", "", settings[k])
		h.raw("</tr>\n")
	}
	h.raw("</table>\n")
}

// memberGroup is consecutive members with the same start and settings,
// shown as one row: a 1,000-member group is usually a handful of rows.
type memberGroup struct {
	ids      string
	start    float64
	settings string
}

func groupMembers(members []MemberInfo, defaults map[string]string) []memberGroup {
	describe := func(m MemberInfo) string {
		var kv []string
		for _, k := range slices.Sorted(maps.Keys(m.Settings)) {
			if d, ok := defaults[k]; !ok || d != m.Settings[k] {
				kv = append(kv, k+"="+m.Settings[k])
			}
		}
		return strings.Join(kv, ", ")
	}
	var out []memberGroup
	for i := 0; i < len(members); {
		s := describe(members[i])
		j := i + 1
		for j < len(members) && members[j].Start == members[i].Start && describe(members[j]) == s {
			j++
		}
		var ids string
		switch n := j - i; {
		case n <= 3:
			var names []string
			for _, m := range members[i:j] {
				names = append(names, m.ID)
			}
			ids = strings.Join(names, ", ")
		default:
			ids = fmt.Sprintf("%s … %s (%d members)", members[i].ID, members[j-1].ID, n)
		}
		out = append(out, memberGroup{ids: ids, start: members[i].Start, settings: s})
		i = j
	}
	return out
}

func writeSummaryHTML(h htmlWriter, r *Report) {
	s := summarize(r)
	h.raw("<section id=\"summary\">\n<h2>Summary</h2>\n")
	h.raw("<p class=\"note\">Every metric is a cost: lower is better. The best value of each row is in bold on green; a row where all runs are equal marks nothing.</p>\n")
	h.raw("<table>\n<tr><th>metric</th>")
	for _, name := range s.runs {
		h.elem("th", ` class="num"`, name)
	}
	h.raw("</tr>\n")
	for _, row := range s.rows {
		h.raw("<tr><th><code>")
		h.text(row.metric)
		h.raw("</code></th>")
		for i, c := range row.cells {
			switch {
			case row.best[i]:
				h.raw("<td class=\"num best\"><strong>")
				h.text(c)
				h.raw("</strong></td>")
			case c == "never" || c == "no":
				h.elem("td", ` class="num bad"`, c)
			default:
				h.elem("td", ` class="num"`, c)
			}
		}
		h.raw("</tr>\n")
	}
	h.raw("</table>\n")

	c := convergence(r)
	h.raw("<h3>Convergence after each disturbance</h3>\n")
	switch {
	case c.count == 0:
		h.raw("<p>No disturbances.</p>\n")
	case c.rows != nil:
		h.raw("<table>\n<tr><th>disturbance</th><th class=\"num\">at</th>")
		for _, name := range c.runs {
			h.elem("th", ` class="num"`, name)
		}
		h.raw("</tr>\n")
		for _, row := range c.rows {
			h.raw("<tr>")
			h.elem("td", "", row.label)
			h.elem("td", ` class="num"`, row.at)
			for _, cell := range row.cells {
				cls := ` class="num"`
				if strings.HasPrefix(cell, ">") {
					cls = ` class="num bad"`
				}
				h.elem("td", cls, cell)
			}
			h.raw("</tr>\n")
		}
		h.raw("</table>\n<p class=\"note\">Seconds until the group was stable again; &gt; marks a disturbance the group had not recovered from by the horizon.</p>\n")
	default:
		h.raw("<table>\n")
		for i, sum := range c.summaries {
			h.raw("<tr>")
			h.elem("th", "", c.runs[i])
			h.elem("td", "", sum)
			h.raw("</tr>\n")
		}
		h.raw("</table>\n")
		h.elem("p", ` class="note"`, fmt.Sprintf("%d disturbances, summarised per run; result.json lists each.", c.count))
		h.raw("\n")
	}
	h.raw("</section>\n")
}

func writeFindingsHTML(h htmlWriter, r *Report) {
	h.raw("<section id=\"findings\">\n<h2>Findings</h2>\n")
	rows := findingRows(r)
	if len(rows) == 0 {
		h.raw("<p>None: no run broke a safety or liveness invariant.</p>\n</section>\n")
		return
	}
	h.raw("<table>\n<tr><th>run</th><th>kind</th><th class=\"num\">at</th><th>members</th><th>partitions</th><th>detail</th></tr>\n")
	for _, f := range rows {
		h.raw("<tr>")
		h.elem("td", "", f.run)
		h.elem("td", ` class="bad"`, f.kind)
		h.elem("td", ` class="num"`, f.at)
		h.elem("td", "", dash(f.members))
		h.elem("td", "", dash(f.partitions))
		h.elem("td", "", f.detail)
		h.raw("</tr>\n")
	}
	h.raw("</table>\n</section>\n")
}

func writeMemberMetricsHTML(h htmlWriter, r *Report) {
	m := memberMetrics(r)
	if len(m.metrics) == 0 {
		return
	}
	h.raw("<section id=\"member-metrics\">\n<h2>Client metrics per member</h2>\n")
	h.raw("<details>\n<summary>Kafka's consumer-coordinator-metrics (KIP-429) for each member, per run</summary>\n")
	for k, metric := range m.metrics {
		h.raw("<h3><code>")
		h.text(metric)
		h.raw("</code></h3>\n<table>\n<tr><th>member</th>")
		for _, name := range m.runs {
			h.elem("th", ` class="num"`, name)
		}
		h.raw("</tr>\n")
		for j, member := range m.members {
			h.raw("<tr>")
			h.elem("td", "", member)
			for _, v := range m.cells[k][j] {
				h.elem("td", ` class="num"`, v)
			}
			h.raw("</tr>\n")
		}
		h.raw("</table>\n")
	}
	h.raw("</details>\n</section>\n")
}

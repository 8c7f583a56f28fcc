package report

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/rebalsim/rebalsim/sim"
)

// The outputs over seeds: a terminal table, Markdown, JSON, CSV and the
// report.html section, all laid out from seedGrid and worstSeeds.

// SeedsTable writes the comparison over seeds for a terminal: per metric
// and protocol the median and the p5–p95 range, a * where one protocol's
// range lies below the others', then each protocol's worst seed with the
// command that reruns it.
func SeedsTable(w io.Writer, s *Seeds) error {
	if err := s.check(); err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "%s\n%s\n\n", s.headline(), s.countLine())
	header, rows, best := s.seedGrid()
	grid := [][]string{header}
	for i, row := range rows {
		line := []string{row[0]}
		for j := range best[i] {
			mark := " "
			if best[i][j] {
				mark = "*"
			}
			line = append(line, row[1+2*j]+mark, row[2+2*j])
		}
		grid = append(grid, line)
	}
	grid = append(grid, converged(s.convergedCounts()))
	writeGrid(bw, grid, "  ")
	bw.WriteString("  each protocol: the median over the seeds, then the range from the 5th to the 95th percentile\n")
	bw.WriteString("  * better on nearly every seed: its range lies below every other protocol's (lower is better);\n")
	bw.WriteString("    no mark where the ranges overlap\n\n")

	if fc := s.findingCounts(); len(fc) == 0 {
		fmt.Fprintf(bw, "findings: none in %d runs\n", len(s.Reports)*len(s.Reports[0].Runs))
	} else {
		bw.WriteString("findings:\n")
		for _, line := range fc {
			bw.WriteString("  " + line + "\n")
		}
	}
	if hot := hotOverSeeds(s); hot != "" {
		bw.WriteString("\n" + hot + "\n")
	}
	bw.WriteString("\nworst seed of each protocol, and the command that reruns it\n")
	var wgrid [][]string
	for _, ws := range s.worstSeeds() {
		wgrid = append(wgrid, []string{ws.protocol, fmt.Sprintf("seed %d", ws.seed), ws.why, s.rerunCommand(ws.protocol, ws.seed)})
	}
	writeGridLeft(bw, wgrid, "  ")
	return bw.Flush()
}

// converged is the table's last row: converged seeds per protocol.
func converged(counts []string) []string {
	row := []string{"converged"}
	for _, c := range counts {
		row = append(row, c+" ", "")
	}
	return row
}

// SeedsMarkdown writes the comparison over seeds as GitHub-flavoured
// Markdown: the rows of SeedsTable, winners in bold.
func SeedsMarkdown(w io.Writer, s *Seeds) error {
	if err := s.check(); err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	r := s.Reports[0]
	fmt.Fprintf(bw, "### rebalsim: %s\n\n", mdEscape(scenarioName(r)))
	if d := r.Scenario.Description; d != "" {
		fmt.Fprintf(bw, "%s\n\n", mdEscape(d))
	}
	fmt.Fprintf(bw, "%s; %s\n\n", mdEscape(strings.TrimPrefix(s.headline(), "scenario ")), mdEscape(s.countLine()))
	header, rows, best := s.seedGrid()
	writeMDRow(bw, header)
	bw.WriteString("| ---" + strings.Repeat(" | ---:", len(header)-1) + " |\n")
	for i, row := range rows {
		line := []string{"`" + row[0] + "`"}
		for j := range best[i] {
			med := row[1+2*j]
			if best[i][j] {
				med = "**" + med + "**"
			}
			line = append(line, med, row[2+2*j])
		}
		writeMDRow(bw, line)
	}
	writeMDRow(bw, converged(s.convergedCounts()))
	bw.WriteString("\nEach protocol: the median over the seeds, then the 5th–95th percentile range. **Bold**: the range lies below every other protocol's (lower is better); nothing is bold where the ranges overlap.\n\n")
	if hot := hotOverSeeds(s); hot != "" {
		bw.WriteString(mdEscape(capitalise(hot)) + ".\n\n")
	}
	bw.WriteString("Worst seed of each protocol:\n\n")
	for _, ws := range s.worstSeeds() {
		fmt.Fprintf(bw, "- %s: seed %d (%s): `%s`\n", ws.protocol, ws.seed, mdEscape(ws.why), s.rerunCommand(ws.protocol, ws.seed))
	}
	return bw.Flush()
}

// seedsDocument is what WriteSeedsJSON writes: the statistics and every
// run's metrics, so that a script can recompute any other statistic.
type seedsDocument struct {
	Version  string       `json:"version"`
	Scenario ScenarioInfo `json:"scenario"`
	Seeds    []uint64     `json:"seeds"`
	Chosen   string       `json:"seeds_chosen,omitempty"`
	Stats    []SeedStat   `json:"stats"`
	Runs     []seedRun    `json:"runs"`
}

type seedRun struct {
	Seed     uint64      `json:"seed"`
	Protocol string      `json:"protocol"`
	Metrics  sim.Metrics `json:"metrics"`
	Findings int         `json:"findings"`
}

// WriteSeedsJSON writes the comparison over seeds as indented JSON
// (seeds.json): per metric and protocol the statistics of SeedStat, then
// every run's metrics in seed and protocol order.
func WriteSeedsJSON(w io.Writer, s *Seeds) error {
	if err := s.check(); err != nil {
		return err
	}
	r := s.Reports[0]
	doc := seedsDocument{Version: r.Version, Scenario: r.Scenario, Seeds: s.seedList(), Chosen: s.Chosen, Stats: s.Stats()}
	names := runNames(r)
	for _, rep := range s.Reports {
		for j, run := range rep.Runs {
			doc.Runs = append(doc.Runs, seedRun{Seed: rep.Scenario.Seed, Protocol: names[j], Metrics: run.Metrics, Findings: len(run.Findings)})
		}
	}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return fmt.Errorf("report: encoding seeds.json: %w", err)
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// SeedsCSV writes every run's metrics in long form, one row per (seed,
// protocol, metric), with full precision:
//
//	seed,protocol,metric,value
//	1,eager,rebalances,1
func SeedsCSV(w io.Writer, s *Seeds) error {
	if err := s.check(); err != nil {
		return err
	}
	cw := csv.NewWriter(w)
	cw.Write([]string{"seed", "protocol", "metric", "value"})
	names := runNames(s.Reports[0])
	for _, rep := range s.Reports {
		seed := strconv.FormatUint(rep.Scenario.Seed, 10)
		for j, run := range rep.Runs {
			for _, name := range sim.MetricNames() {
				v, _ := run.Metrics.Value(name)
				cw.Write([]string{seed, names[j], name, csvFloat(v)})
			}
			cw.Write([]string{seed, names[j], "converged", strconv.FormatBool(run.Metrics.Converged)})
		}
	}
	cw.Flush()
	return cw.Error()
}

// writeSeedsHTML writes the comparison over seeds for report.html: the
// rows of SeedsTable, winners in bold on green, and each protocol's worst
// seed with its command. The rest of the page is the first seed's run.
func writeSeedsHTML(h htmlWriter, s *Seeds) {
	if s == nil || s.check() != nil {
		return
	}
	header, rows, best := s.seedGrid()
	h.raw("<section id=\"seeds\">\n<h2>Over seeds</h2>\n<p class=\"note\">")
	h.text(strings.TrimPrefix(s.headline(), "scenario ") + "; " + s.countLine() + ". Each protocol: the median over the seeds, then the range from the 5th to the 95th percentile. Bold on green: the range lies below every other protocol's (lower is better); nothing is marked where the ranges overlap. The sections after this one show the first seed's run.")
	h.raw("</p>\n<table>\n<tr>")
	for i, c := range header {
		attr := ` class="num"`
		if i == 0 {
			attr = ""
		}
		h.elem("th", attr, c)
	}
	h.raw("</tr>\n")
	for i, row := range rows {
		h.raw("<tr><th><code>")
		h.text(row[0])
		h.raw("</code></th>")
		for j := range best[i] {
			if best[i][j] {
				h.raw("<td class=\"num best\"><strong>")
				h.text(row[1+2*j])
				h.raw("</strong></td>")
			} else {
				h.elem("td", ` class="num"`, row[1+2*j])
			}
			h.elem("td", ` class="num"`, row[2+2*j])
		}
		h.raw("</tr>\n")
	}
	h.raw("</table>\n")
	if hot := hotOverSeeds(s); hot != "" {
		h.elem("p", "", capitalise(hot)+".")
		h.raw("\n")
	}
	h.raw("<h3>Worst seed of each protocol</h3>\n<ul>\n")
	for _, ws := range s.worstSeeds() {
		h.raw("<li>")
		h.text(fmt.Sprintf("%s: seed %d (%s): ", ws.protocol, ws.seed, ws.why))
		h.elem("code", "", s.rerunCommand(ws.protocol, ws.seed))
		h.raw("</li>\n")
	}
	h.raw("</ul>\n</section>\n")
}

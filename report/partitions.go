package report

import (
	"bufio"
	"fmt"
	"strings"
)

// worstShown is how many of a run's worst partitions the reports list.
const worstShown = 5

// What the metrics table cannot show about partitions (which were hot,
// which waited longest in each run, which rebalance caused the
// duplicates) is described once, by partitionsSection, and laid out by
// Table, Markdown and HTML, so that the three always say the same.

// partitionTable is one table of the section: a title, a header, the
// rows, and which columns hold numbers (right-aligned in Markdown and
// HTML).
type partitionTable struct {
	id, title string
	header    []string
	numeric   []bool
	rows      [][]string
}

// partitionsSection is the section's content: the hot partitions and the
// tables that have rows. Each part is left out when it has nothing to
// say, so a group with even load and no lag has no section.
type partitionsSection struct {
	hotNote string // empty without hot partitions
	hot     []string
	tables  []partitionTable
}

func (s partitionsSection) empty() bool { return len(s.hot) == 0 && len(s.tables) == 0 }

func partitionsFor(r *Report) partitionsSection {
	names := runNames(r)
	var s partitionsSection
	if s.hot = hotPartitions(r); len(s.hot) > 0 {
		s.hotNote = "hot partitions (at least twice their topic's median rate)"
	}
	worst := partitionTable{
		id: "worst-partitions", title: "partitions with the largest lag in time",
		header:  []string{"run", "partition", "rate", "hot", "moves", "peak lag", "max lag"},
		numeric: []bool{false, false, true, false, true, true, true},
	}
	for i, run := range r.Runs {
		for _, p := range run.WorstPartitions[:min(len(run.WorstPartitions), worstShown)] {
			if p.MaxLagSeconds <= 0 {
				break
			}
			worst.rows = append(worst.rows, []string{names[i], p.Partition, trimFloat(p.Rate), yesNo(p.Hot), fmt.Sprint(p.Moves),
				fmt.Sprintf("%.0f", p.PeakLagRecords), formatSeconds(p.MaxLagSeconds)})
		}
	}
	dups := partitionTable{
		id: "duplicates-by-rebalance", title: "duplicate records by the rebalance that caused them",
		header:  []string{"run", "rebalance", "at", "after", "duplicates"},
		numeric: []bool{false, true, true, false, true},
	}
	for i, run := range r.Runs {
		for _, d := range run.DuplicatesByRebalance {
			n := "none yet"
			if d.Rebalance > 0 {
				n = fmt.Sprint(d.Rebalance)
			}
			dups.rows = append(dups.rows, []string{names[i], n, formatSeconds(d.At), dash(d.Disturbance), fmt.Sprintf("%.0f", d.Records)})
		}
	}
	for _, t := range []partitionTable{worst, dups} {
		if len(t.rows) > 0 {
			s.tables = append(s.tables, t)
		}
	}
	return s
}

// writePartitionsText lays the section out for a terminal, under the
// convergence table.
func writePartitionsText(w *bufio.Writer, r *Report) {
	s := partitionsFor(r)
	if len(s.hot) > 0 {
		fmt.Fprintf(w, "\n%s: %s\n", s.hotNote, strings.Join(s.hot, ", "))
	}
	for _, t := range s.tables {
		w.WriteString("\n" + t.title + "\n")
		writeGridLeft(w, append([][]string{t.header}, t.rows...), "  ")
	}
}

// writePartitionsMarkdown lays the section out in Markdown, after the
// convergence.
func writePartitionsMarkdown(w *bufio.Writer, r *Report) {
	s := partitionsFor(r)
	if len(s.hot) > 0 {
		fmt.Fprintf(w, "\n**%s:** %s\n", mdEscape(capitalise(s.hotNote)), mdEscape(strings.Join(s.hot, ", ")))
	}
	for _, t := range s.tables {
		fmt.Fprintf(w, "\n**%s**\n\n", mdEscape(capitalise(t.title)))
		writeMDRow(w, mdEscapeAll(t.header))
		align := make([]string, len(t.header))
		for i := range align {
			align[i] = "---"
			if t.numeric[i] {
				align[i] = "---:"
			}
		}
		writeMDRow(w, align)
		for _, row := range t.rows {
			writeMDRow(w, mdEscapeAll(row))
		}
	}
}

// writePartitionsHTML lays the section out for report.html, after the
// summary; nothing when it is empty.
func writePartitionsHTML(h htmlWriter, r *Report) {
	s := partitionsFor(r)
	if s.empty() {
		return
	}
	h.raw("<section id=\"partitions\">\n<h2>Partitions</h2>\n")
	if len(s.hot) > 0 {
		h.raw("<p><strong>")
		h.text(capitalise(s.hotNote) + ":")
		h.raw("</strong> ")
		h.text(strings.Join(s.hot, ", "))
		h.raw("</p>\n")
	}
	for _, t := range s.tables {
		h.elem("h3", ` id="`+t.id+`"`, capitalise(t.title))
		h.raw("\n<table>\n<tr>")
		for i, c := range t.header {
			h.elem("th", numClass(t.numeric[i]), c)
		}
		h.raw("</tr>\n")
		for _, row := range t.rows {
			h.raw("<tr>")
			for i, c := range row {
				h.elem("td", numClass(t.numeric[i]), c)
			}
			h.raw("</tr>\n")
		}
		h.raw("</table>\n")
	}
	h.raw("</section>\n")
}

func numClass(numeric bool) string {
	if numeric {
		return ` class="num"`
	}
	return ""
}

func capitalise(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// hotOverSeeds says which partitions were hot over the seeds, for the
// outputs over seeds (compare --seeds N): one list when every seed had
// the same (rates: or hot: in the scenario), else the list of each seed (a
// skew: is drawn from the seed), the first maxHotSeeds of them. It is
// empty when no seed had a hot partition.
func hotOverSeeds(s *Seeds) string {
	const maxHotSeeds = 5
	lists := make([]string, len(s.Reports))
	same, any := true, false
	for i, r := range s.Reports {
		lists[i] = strings.Join(hotPartitions(r), ", ")
		same = same && lists[i] == lists[0]
		any = any || lists[i] != ""
	}
	if !any {
		return ""
	}
	note := partitionsFor(s.Reports[0]).hotNote
	if note == "" {
		note = "hot partitions (at least twice their topic's median rate)"
	}
	if same {
		return note + ": " + lists[0] + ", on every seed"
	}
	var per []string
	for i, r := range s.Reports[:min(len(s.Reports), maxHotSeeds)] {
		per = append(per, fmt.Sprintf("seed %d: %s", r.Scenario.Seed, dash(lists[i])))
	}
	if len(s.Reports) > maxHotSeeds {
		per = append(per, fmt.Sprintf("… (%d more seeds)", len(s.Reports)-maxHotSeeds))
	}
	return note + ", by seed: " + strings.Join(per, "; ")
}

// hotPartitions names the partitions hot in any run (the same in every
// run of one scenario and seed), in the first run's order.
func hotPartitions(r *Report) []string {
	var out []string
	seen := map[string]bool{}
	for _, run := range r.Runs {
		for _, p := range run.HotPartitions {
			if !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	return out
}

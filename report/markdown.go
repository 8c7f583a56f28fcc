package report

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// Markdown writes the comparison as GitHub-flavoured Markdown for a pull
// request or an issue: the same rows as Table, with the best value of each
// row in bold, then the findings, the convergence after each disturbance
// and the partitions section (hot, worst, duplicates by rebalance).
func Markdown(w io.Writer, r *Report) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "### rebalsim: %s\n\n", mdEscape(scenarioName(r)))
	if d := r.Scenario.Description; d != "" {
		fmt.Fprintf(bw, "%s\n\n", mdEscape(d))
	}
	fmt.Fprintf(bw, "%s\n\n", mdEscape(strings.TrimPrefix(headline(r), "scenario ")))

	s := summarize(r)
	header := append([]string{"metric"}, s.runs...)
	writeMDRow(bw, header)
	align := []string{"---"}
	for range s.runs {
		align = append(align, "---:")
	}
	bw.WriteString("| " + strings.Join(align, " | ") + " |\n")
	for _, row := range s.rows {
		line := []string{"`" + row.metric + "`"}
		for i, c := range row.cells {
			if row.best[i] {
				c = "**" + c + "**"
			}
			line = append(line, c)
		}
		writeMDRow(bw, line)
	}
	bw.WriteString("\nEvery metric is a cost (lower is better); the best value of each row is in **bold**.\n\n")

	rows := findingRows(r)
	if len(rows) == 0 {
		bw.WriteString("**Findings:** none.\n")
	} else {
		fmt.Fprintf(bw, "**Findings:** %d\n\n", len(rows))
		writeMDRow(bw, []string{"run", "kind", "at", "members", "partitions", "detail"})
		bw.WriteString("| --- | --- | ---: | --- | --- | --- |\n")
		for _, f := range rows {
			writeMDRow(bw, []string{f.run, f.kind, f.at, dash(f.members), dash(f.partitions), mdEscape(f.detail)})
		}
	}

	c := convergence(r)
	switch {
	case c.count == 0:
	case c.rows != nil:
		bw.WriteString("\n<details><summary>Convergence after each disturbance</summary>\n\n")
		writeMDRow(bw, append([]string{"disturbance", "at"}, c.runs...))
		bw.WriteString("| --- | ---: |" + strings.Repeat(" ---: |", len(c.runs)) + "\n")
		for _, row := range c.rows {
			writeMDRow(bw, append([]string{mdEscape(row.label), row.at}, mdEscapeAll(row.cells)...))
		}
		bw.WriteString("\n`>`: not converged by the horizon.\n\n</details>\n")
	default:
		fmt.Fprintf(bw, "\n<details><summary>Convergence after %d disturbances</summary>\n\n", c.count)
		for i, s := range c.summaries {
			fmt.Fprintf(bw, "- **%s**: %s\n", mdEscape(c.runs[i]), mdEscape(s))
		}
		bw.WriteString("\n</details>\n")
	}
	if note := c.notReachedNote(); note != "" {
		fmt.Fprintf(bw, "\n%s.\n", mdEscape(note))
	}
	writePartitionsMarkdown(bw, r)
	return bw.Flush()
}

func scenarioName(r *Report) string {
	if r.Scenario.Name != "" {
		return r.Scenario.Name
	}
	if len(r.Runs) > 0 {
		return r.Runs[0].Scenario
	}
	return "unnamed scenario"
}

func writeMDRow(w *bufio.Writer, cells []string) {
	w.WriteString("| " + strings.Join(cells, " | ") + " |\n")
}

// mdEscape keeps text from breaking a table or turning into markup.
func mdEscape(s string) string {
	r := strings.NewReplacer("|", `\|`, "\n", " ", "*", `\*`, "_", `\_`, "<", "&lt;", ">", "&gt;", "`", "\\`")
	return r.Replace(s)
}

func mdEscapeAll(cells []string) []string {
	out := make([]string, len(cells))
	for i, c := range cells {
		out[i] = mdEscape(c)
	}
	return out
}

package check

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// WriteMarkdown writes the summary as GitHub-flavoured Markdown for a
// pull-request comment: the totals, a row per scenario, a row per failed
// or undecided case, and the commands that rerun them with a trace.
func (s *Summary) WriteMarkdown(w io.Writer) error {
	bw := bufio.NewWriter(w)
	pass, fail, undecided := s.Count()
	verdict := "passed"
	switch s.Verdict() {
	case Fail:
		verdict = "FAILED"
	case Undecided:
		verdict = "UNDECIDED"
	}
	fmt.Fprintf(bw, "### rebalsim check %s\n\n", verdict)
	how := ""
	if s.ShuffleTies {
		how = ", each also with ties shuffled"
	}
	fmt.Fprintf(bw, "**%d passed, %d failed, %d undecided** over %s (%s%s).\n\n", pass, fail, undecided, count(len(s.Scenarios), "scenario"), count(s.Runs(), "run"), how)
	bw.WriteString("| scenario | protocols | seeds | passed | failed | undecided |\n| --- | --- | --- | ---: | ---: | ---: |\n")
	for _, sc := range s.Scenarios {
		p, f, u := sc.Count()
		if sc.Skipped != "" {
			fmt.Fprintf(bw, "| %s | skipped: %s | | | | |\n", mdCode(sc.Name), mdText(sc.Skipped))
			continue
		}
		fmt.Fprintf(bw, "| %s | %s | %s | %d | %s | %s |\n", mdCode(sc.Name), strings.Join(sc.Protocols, ", "), seedRanges(sc.Seeds), p, boldIf(f), boldIf(u))
	}
	var bad []Case
	for _, sc := range s.Scenarios {
		for _, c := range sc.Cases {
			if c.Status != Pass {
				bad = append(bad, c)
			}
		}
	}
	if len(bad) > 0 {
		bw.WriteString("\n| status | scenario | protocol | expectation | expected | measured | seed | at |\n| --- | --- | --- | --- | --- | --- | ---: | --- |\n")
		for _, c := range bad {
			where := mdCode(c.Check)
			if c.Line > 0 {
				where += fmt.Sprintf(" (line %d)", c.Line)
			}
			at := ""
			if c.HasAt {
				at = mdText(atText(c))
			}
			measured := mdText(c.Measured)
			if c.Detail != "" {
				measured += "<br>" + mdText(c.Detail)
			}
			fmt.Fprintf(bw, "| **%s** | %s | %s | %s | %s | %s | %d | %s |\n", c.Status, mdCode(c.Scenario), c.Protocol, where, mdText(c.Bound), measured, c.Seed, at)
		}
		bw.WriteString("\n<details><summary>Rerun with a trace</summary>\n\n```sh\n")
		for _, c := range bad {
			bw.WriteString(c.Trace + "\n")
		}
		bw.WriteString("```\n\n</details>\n")
	}
	for _, u := range s.Corpus {
		fmt.Fprintf(bw, "\nCorpus: added %s %s to `%s`.\n", plural(len(u.Seeds), "seed", "seeds"), seedRanges(u.Seeds), u.File)
	}
	return bw.Flush()
}

func boldIf(n int) string {
	if n > 0 {
		return fmt.Sprintf("**%d**", n)
	}
	return "0"
}

// mdText keeps text from breaking a table row or turning into markup.
func mdText(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ", "*", `\*`, "_", `\_`, "<", "&lt;", ">", "&gt;", "`", "\\`").Replace(s)
}

func mdCode(s string) string {
	return "`" + strings.NewReplacer("`", "'", "|", `\|`).Replace(s) + "`"
}

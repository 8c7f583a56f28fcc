package check

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// WriteText writes the compact terminal summary: one line per scenario,
// then every failed and undecided case with its bound, the measured value,
// the seed, where in virtual time it went wrong, the expectation's line
// and the command that reruns it with a trace; then the totals. Verbose
// adds a line per passing case with what it measured (on the worst seed),
// which is what to look at when setting a bound.
func (s *Summary) WriteText(w io.Writer, verbose bool) error {
	bw := bufio.NewWriter(w)
	pass, fail, undecided := s.Count()
	how := ""
	if s.ShuffleTies {
		how = ", each also with ties shuffled"
	}
	fmt.Fprintf(bw, "rebalsim check: %s, %s, %s%s\n", count(len(s.Scenarios), "scenario"), count(pass+fail+undecided, "check"), count(s.Runs(), "run"), how)
	width := 0
	for _, sc := range s.Scenarios {
		width = max(width, len(sc.Name))
	}
	for _, sc := range s.Scenarios {
		p, f, u := sc.Count()
		mark, what := "ok", count(p+f+u, "check")
		switch {
		case sc.Skipped != "":
			mark, what = "skip", sc.Skipped
		case f > 0:
			mark, what = "FAIL", fmt.Sprintf("%d of %d checks failed", f, p+f+u)
			if u > 0 {
				what += fmt.Sprintf(", %d undecided", u)
			}
		case u > 0:
			mark, what = "UNDECIDED", fmt.Sprintf("%d of %d checks undecided", u, p+f+u)
		}
		if n := len(sc.Seeds); n > 1 {
			what += fmt.Sprintf(" (seeds %s)", seedRanges(sc.Seeds))
		}
		fmt.Fprintf(bw, "  %-9s %-*s  %s\n", mark, width, sc.Name, what)
	}
	if verbose {
		for _, sc := range s.Scenarios {
			if len(sc.Cases) > 0 {
				fmt.Fprintf(bw, "\n%s (%s)\n", sc.Name, sc.Source)
			}
			for _, c := range sc.Cases {
				fmt.Fprintf(bw, "  %-9s %-11s %s: %s %s\n", c.Status, c.Protocol, c.Check, c.Measured, seedNote(c))
			}
		}
	}
	for _, sc := range s.Scenarios {
		for _, c := range sc.Cases {
			if c.Status == Pass {
				continue
			}
			bw.WriteString("\n")
			writeCaseText(bw, c)
		}
	}
	for _, u := range s.Corpus {
		fmt.Fprintf(bw, "\ncorpus: added %s %s to %s; later checks replay them first\n", plural(len(u.Seeds), "seed", "seeds"), seedRanges(u.Seeds), u.File)
	}
	verdict := "PASS"
	switch s.Verdict() {
	case Fail:
		verdict = "FAIL"
	case Undecided:
		verdict = "UNDECIDED"
	}
	fmt.Fprintf(bw, "\n%s: %d passed, %d failed, %d undecided\n", verdict, pass, fail, undecided)
	return bw.Flush()
}

func writeCaseText(w *bufio.Writer, c Case) {
	fmt.Fprintf(w, "%s  %s  %s  %s\n", strings.ToUpper(string(c.Status)), c.Scenario, c.Protocol, c.Check)
	row := func(label, text string) {
		if text != "" {
			fmt.Fprintf(w, "    %-9s %s\n", label, text)
		}
	}
	row("expected", c.Bound)
	row("measured", c.Measured+" "+seedNote(c))
	if c.HasAt {
		row("at", atText(c))
	}
	row("detail", c.Detail)
	if c.Line > 0 {
		row("where", fmt.Sprintf("%s:%d", c.Source, c.Line))
	} else {
		row("where", c.Source)
	}
	row("trace", c.Trace)
}

// seedNote says which seed a case shows and how the seeds went.
func seedNote(c Case) string {
	shuffled := ""
	if c.Shuffled {
		shuffled = ", ties shuffled"
	}
	switch {
	case c.Seeds <= 1:
		return fmt.Sprintf("on seed %d%s", c.Seed, shuffled)
	case c.Needed == c.Seeds:
		return fmt.Sprintf("on seed %d%s, the worst of %d seeds (held on %d)", c.Seed, shuffled, c.Seeds, c.Held)
	}
	return fmt.Sprintf("on seed %d%s, the %s best of %d seeds (held on %d, needed %d)", c.Seed, shuffled, ordinal(c.Needed), c.Seeds, c.Held, c.Needed)
}

func atText(c Case) string {
	at := "t=" + fmtSeconds(c.At)
	if c.AtLabel != "" {
		at += " (" + c.AtLabel + ")"
	}
	return at
}

func ordinal(n int) string {
	suffix := "th"
	switch {
	case n%100 >= 11 && n%100 <= 13:
	case n%10 == 1:
		suffix = "st"
	case n%10 == 2:
		suffix = "nd"
	case n%10 == 3:
		suffix = "rd"
	}
	return strconv.Itoa(n) + suffix
}

// count renders n things: "1 check", "3 checks".
func count(n int, thing string) string { return fmt.Sprintf("%d %s", n, plural(n, thing, thing+"s")) }

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// seedRanges renders seeds compactly, consecutive runs as ranges:
// "57, 1-20".
func seedRanges(seeds []uint64) string {
	var parts []string
	for i := 0; i < len(seeds); {
		j := i
		for j+1 < len(seeds) && seeds[j+1] == seeds[j]+1 {
			j++
		}
		if j > i {
			parts = append(parts, fmt.Sprintf("%d-%d", seeds[i], seeds[j]))
		} else {
			parts = append(parts, strconv.FormatUint(seeds[i], 10))
		}
		i = j + 1
	}
	return strings.Join(slices.Clip(parts), ", ")
}

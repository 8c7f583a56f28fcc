package check

import (
	"encoding/xml"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// JUnit XML, as CI systems read it (Jenkins, GitLab, GitHub Actions
// reporters): a testsuite per scenario, a testcase per protocol × check,
// <failure> for a failed case, <error> for an undecided one and <skipped>
// for a scenario the check did not run. Cases carry file and line
// attributes (the expectation's), which annotation tools use; nothing
// depends on the wall clock, so the file is the same every time.

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	File       string          `xml:"file,attr,omitempty"`
	Properties []junitProperty `xml:"properties>property"`
	Cases      []junitCase     `xml:"testcase"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	File      string        `xml:"file,attr,omitempty"`
	Line      int           `xml:"line,attr,omitempty"`
	Failure   *junitMessage `xml:"failure"`
	Error     *junitMessage `xml:"error"`
	Skipped   *junitMessage `xml:"skipped"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Text    string `xml:",cdata"`
}

// WriteJUnit writes the summary as JUnit XML.
func (s *Summary) WriteJUnit(w io.Writer) error {
	doc := junitSuites{Name: "rebalsim check"}
	for _, sc := range s.Scenarios {
		suite := junitSuite{Name: sc.Name, File: sc.Source, Properties: []junitProperty{
			{"source", sc.Source},
			{"seed", strconv.FormatUint(sc.Seed, 10)},
			{"seeds", seedRanges(sc.Seeds)},
			{"protocols", strings.Join(sc.Protocols, ",")},
			{"shuffle_ties", strconv.FormatBool(s.ShuffleTies)},
		}}
		if sc.Skipped != "" {
			suite.Tests, suite.Skipped = 1, 1
			suite.Cases = append(suite.Cases, junitCase{Name: "skipped", Classname: sc.Name, File: sc.Source,
				Skipped: &junitMessage{Message: sc.Skipped}})
		}
		names := map[string]int{}
		for _, c := range sc.Cases {
			name := c.Protocol + ": " + c.Check
			if names[name]++; names[name] > 1 {
				name = fmt.Sprintf("%s (line %d)", name, c.Line)
			}
			jc := junitCase{Name: name, Classname: sc.Name, File: c.Source, Line: c.Line,
				SystemOut: fmt.Sprintf("measured %s %s", c.Measured, seedNote(c))}
			switch c.Status {
			case Fail:
				jc.Failure = &junitMessage{Message: caseMessage(c), Type: "expectation", Text: caseBody(c)}
				suite.Failures++
			case Undecided:
				jc.Error = &junitMessage{Message: caseMessage(c), Type: "undecided", Text: caseBody(c)}
				suite.Errors++
			}
			suite.Tests++
			suite.Cases = append(suite.Cases, jc)
		}
		doc.Tests += suite.Tests
		doc.Failures += suite.Failures
		doc.Errors += suite.Errors
		doc.Skipped += suite.Skipped
		doc.Suites = append(doc.Suites, suite)
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("junit: %w", err)
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// caseMessage is the one-line message of a failed or undecided case.
func caseMessage(c Case) string {
	msg := fmt.Sprintf("%s [%s] %s: expected %s, measured %s %s", c.Scenario, c.Protocol, c.Check, c.Bound, c.Measured, seedNote(c))
	if c.HasAt {
		msg += ", at " + atText(c)
	}
	return msg
}

// caseBody is the full text of a failed or undecided case.
func caseBody(c Case) string {
	var b strings.Builder
	fmt.Fprintf(&b, "expected: %s\nmeasured: %s %s\n", c.Bound, c.Measured, seedNote(c))
	if c.HasAt {
		fmt.Fprintf(&b, "at: %s\n", atText(c))
	}
	if c.Detail != "" {
		fmt.Fprintf(&b, "detail: %s\n", c.Detail)
	}
	if c.Line > 0 {
		fmt.Fprintf(&b, "where: %s:%d\n", c.Source, c.Line)
	}
	fmt.Fprintf(&b, "trace: %s\n", c.Trace)
	return b.String()
}

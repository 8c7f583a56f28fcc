package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/rebalsim/rebalsim"
	"github.com/rebalsim/rebalsim/conformance"
	"github.com/rebalsim/rebalsim/internal/atomicfile"
	"github.com/rebalsim/rebalsim/report"
	"github.com/rebalsim/rebalsim/scenarios"
)

func cmdValidate(args []string, stdout, stderr io.Writer) (int, error) {
	fs := newFlagSet("validate", "validate scenario.yaml...", "Checks scenario files against the schema without running them.", stdout)
	if done, code, err := parseFlags(fs, args); done {
		return code, err
	}
	if fs.NArg() == 0 {
		return exitBadInput, badInput("no scenario files given")
	}
	bad := 0
	for _, path := range fs.Args() {
		sc, err := scenarios.LoadFile(path)
		if err != nil {
			fmt.Fprintln(stderr, err)
			bad++
			continue
		}
		fmt.Fprintf(stdout, "%s: ok (%s: %d members, %d topics, %d events, %s)\n", path, sc.Name, len(sc.Members), len(sc.Topics), len(sc.Events), sc.Duration)
		warn(stderr, sc.Scenario)
	}
	if bad > 0 {
		return exitBadInput, badInput("%d of %d files are invalid", bad, fs.NArg())
	}
	return exitOK, nil
}

func cmdExamples(args []string, stdout, stderr io.Writer) (int, error) {
	fs := newFlagSet("examples", "examples [NAME]", "Lists the embedded example scenarios, or prints one's YAML, to start a\nscenario of one's own from it. Run one with 'rebalsim run NAME'.", stdout)
	if done, code, err := parseFlags(fs, args); done {
		return code, err
	}
	if fs.NArg() > 1 {
		return exitBadInput, badInput("expected at most one example name, got %d", fs.NArg())
	}
	if fs.NArg() == 1 {
		src, err := scenarios.ExampleSource(fs.Arg(0))
		if err != nil {
			return exitBadInput, usageError{err}
		}
		_, err = stdout.Write(src)
		return exitOK, err
	}
	for _, e := range scenarios.Examples() {
		fmt.Fprintf(stdout, "%-32s %s\n", e.Name, firstSentence(e.Description))
	}
	fmt.Fprintf(stdout, "\nRun one with 'rebalsim run NAME'; print its YAML with 'rebalsim examples NAME'.\n")
	return exitOK, nil
}

func cmdConformance(args []string, stdout, stderr io.Writer) (int, error) {
	fs := newFlagSet("conformance", "conformance --vectors FILE", "Runs every vector of FILE against rebalsim's assignors and the KIP-848\nreconciliation state machine; exits 1 if any fails.", stdout)
	vectors := fs.String("vectors", "", "a test-vector file in rebalsim's vector schema (required)")
	verbose := fs.BoolP("verbose", "v", false, "print passing vectors too")
	if done, code, err := parseFlags(fs, args); done {
		return code, err
	}
	if fs.NArg() > 0 {
		return exitBadInput, badInput("conformance takes no arguments, got %q; name the file with --vectors", fs.Args())
	}
	if *vectors == "" {
		return exitBadInput, badInput("--vectors FILE is required")
	}
	file, err := conformance.Load(*vectors)
	if err != nil {
		return exitBadInput, usageError{err}
	}
	outcomes := file.Run(conformance.Options{})
	pass, fail, skip := 0, 0, 0
	for _, o := range outcomes {
		switch o.Status {
		case conformance.Pass:
			pass++
			if *verbose {
				fmt.Fprintf(stdout, "PASS %s [%s]\n", o.Name, o.Assignor)
			}
		case conformance.Fail:
			fail++
			fmt.Fprintf(stdout, "FAIL %s [%s]\n%s\n", o.Name, o.Assignor, indent(o.Detail))
		default:
			skip++
			fmt.Fprintf(stdout, "SKIP %s [%s]: %s\n", o.Name, o.Assignor, o.Detail)
		}
	}
	fmt.Fprintf(stdout, "%d passed, %d failed, %d skipped\n", pass, fail, skip)
	if fail > 0 {
		return exitFinding, nil
	}
	return exitOK, nil
}

func indent(s string) string {
	out := "    "
	for _, r := range s {
		out += string(r)
		if r == '\n' {
			out += "    "
		}
	}
	return out
}

func cmdReport(args []string, stdout, stderr io.Writer) (int, error) {
	fs := newFlagSet("report", "report result.json [--out DIR] [--format F]", "Re-renders everything from a saved result, without re-simulating.", stdout)
	out := fs.String("out", "", "directory for report.html, charts and tables (default: the result's directory)")
	var format string
	addFormatFlag(fs, &format, reportFormats, "what to print")
	if done, code, err := parseFlags(fs, args); done {
		return code, err
	}
	if fs.NArg() != 1 {
		return exitBadInput, badInput("expected one result.json")
	}
	path := fs.Arg(0)
	if err := atomicfile.CheckFolder(filepath.Dir(path)); err != nil {
		return exitBadInput, usageError{err}
	}
	f, err := os.Open(path)
	if err != nil {
		return exitBadInput, usageError{err}
	}
	defer f.Close()
	rep, err := report.ReadJSON(f)
	if err != nil {
		return exitBadInput, usageError{fmt.Errorf("%s: %w", path, err)}
	}
	dir := *out
	if dir == "" {
		dir = filepath.Dir(path)
	}
	files, err := report.WriteAll(dir, rep, report.Options{})
	if err != nil {
		return exitBadInput, err
	}
	fmt.Fprintf(stderr, "wrote %d files to %s\n", len(files), dir)
	if err := printReport(stdout, rep, format); err != nil {
		return exitBadInput, err
	}
	return exitOK, nil
}

func cmdVersion(args []string, stdout, stderr io.Writer) (int, error) {
	fs := newFlagSet("version", "version", "Prints rebalsim's version, the one every result records (also 'rebalsim --version').", stdout)
	if done, code, err := parseFlags(fs, args); done {
		return code, err
	}
	if fs.NArg() > 0 {
		return exitBadInput, badInput("version takes no arguments, got %q", fs.Args())
	}
	fmt.Fprintf(stdout, "rebalsim %s\n", rebalsim.Version)
	return exitOK, nil
}

// firstSentence shortens a description for a one-line listing.
func firstSentence(s string) string {
	for i := 0; i+1 < len(s); i++ {
		if s[i] == '.' && s[i+1] == ' ' {
			return s[:i+1]
		}
	}
	return s
}

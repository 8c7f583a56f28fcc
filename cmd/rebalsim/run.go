package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/rebalsim/rebalsim"
	"github.com/rebalsim/rebalsim/internal/atomicfile"
	"github.com/rebalsim/rebalsim/report"
	"github.com/rebalsim/rebalsim/scenarios"
	"github.com/rebalsim/rebalsim/sim"
)

// defaultExample is what run and compare simulate when given no file, so
// that the README's first command works on a fresh clone.
const defaultExample = "scale-out"

// simulateFlags are the flags run and compare share.
type simulateFlags struct {
	protocols   []string
	seed        uint64
	seeds       int
	out         string
	trace       bool
	format      string
	shuffleTies bool
	noTimeline  bool
	timeline    string
	cpuProfile  string
}

func (f *simulateFlags) register(fs *pflag.FlagSet, protocolFlag, protocolHelp string) {
	fs.StringSliceVar(&f.protocols, protocolFlag, nil, protocolHelp)
	fs.Uint64Var(&f.seed, "seed", 0, "seed for every random stream (default: the scenario's seed)")
	fs.IntVar(&f.seeds, "seeds", 0, seedsHelp)
	fs.StringVar(&f.out, "out", "", "directory for result.json, timeline.csv, report.html and charts")
	fs.BoolVar(&f.trace, "trace", false, "also write a JSONL trace of every message and state change per protocol (needs --out)")
	fs.StringVar(&f.format, "format", "table", "what to print: table, json, csv or markdown")
	fs.BoolVar(&f.shuffleTies, "shuffle-ties", false, "order simultaneous events randomly (from the seed)")
	fs.BoolVar(&f.noTimeline, "no-timeline", false, "skip the per-partition ownership timeline and the member lanes (much smaller results for big groups; their charts are left out)")
	fs.StringVar(&f.timeline, "timeline", report.TimelineAuto, "how result.json and timeline.csv keep the per-partition and per-member history: auto (whole up to 20,000 segments, else summarised), full, or summary; the charts always show all of it")
	fs.StringVar(&f.cpuProfile, "cpuprofile", "", cpuProfileHelp)
}

func cmdRun(args []string, stdout, stderr io.Writer) (int, error) {
	fs := pflag.NewFlagSet("run", pflag.ContinueOnError)
	var f simulateFlags
	f.register(fs, "protocol", "protocol(s) to run: eager, cooperative, nextgen (default: the scenario's list)")
	return simulate(fs, &f, args, stdout, stderr, "run [scenario.yaml | example-name]")
}

func cmdCompare(args []string, stdout, stderr io.Writer) (int, error) {
	fs := pflag.NewFlagSet("compare", pflag.ContinueOnError)
	var f simulateFlags
	f.register(fs, "protocols", "protocols to compare (default: the scenario's list, else every implemented one)")
	return simulate(fs, &f, args, stdout, stderr, "compare [scenario.yaml | example-name]")
}

func simulate(fs *pflag.FlagSet, f *simulateFlags, args []string, stdout, stderr io.Writer, synopsis string) (code int, err error) {
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: rebalsim %s [flags]\n\nWith no file, the embedded %q example runs.\n\nFlags:\n%s", synopsis, defaultExample, fs.FlagUsages())
	}
	if done, code, err := parseFlags(fs, args); done {
		return code, err
	}
	if fs.NArg() > 1 {
		return exitBadInput, badInput("expected at most one scenario, got %d", fs.NArg())
	}
	switch f.format {
	case "table", "json", "csv", "markdown":
	default:
		return exitBadInput, badInput("--format %q: want table, json, csv or markdown", f.format)
	}
	if !slices.Contains(report.TimelineModes(), f.timeline) {
		return exitBadInput, badInput("--timeline %q: want one of %s", f.timeline, strings.Join(report.TimelineModes(), ", "))
	}
	if f.seeds < 0 {
		return exitBadInput, badInput("--seeds %d: want 1 or more (or 0 for the default)", f.seeds)
	}
	if f.trace && f.out == "" {
		return exitBadInput, badInput("--trace writes trace files into the --out directory; give --out too")
	}
	sc, err := loadScenario(fs.Arg(0))
	if err != nil {
		return exitBadInput, usageError{err}
	}
	warn(stderr, sc)
	profile, err := startCPUProfile(f.cpuProfile)
	if err != nil {
		return exitBadInput, err
	}
	defer profile.stopInto(&code, &err)
	opts := rebalsim.Options{Protocols: f.protocols, Seed: f.seed, Timeline: !f.noTimeline, ShuffleTies: f.shuffleTies}
	var traces []*atomicfile.File
	if f.trace {
		opts.Trace = func(protocol string) (io.Writer, error) {
			tf, err := atomicfile.Create(filepath.Join(f.out, "trace-"+protocol+".jsonl"))
			if err != nil {
				return nil, err
			}
			traces = append(traces, tf)
			return tf, nil
		}
	}
	seeds := &report.Seeds{Rerun: rerunPrefix(fs.Arg(0), f)}
	n := f.seeds
	if n == 0 {
		n, seeds.Chosen = defaultSeeds(sc)
	}
	first := f.seed
	if first == 0 {
		first = sc.Seed
	}
	seeds.Reports, err = runSeeds(sc, opts, first, n, f.out != "" || n == 1)
	if err != nil {
		for _, tf := range traces {
			tf.Abort()
		}
		if strings.Contains(err.Error(), "not implemented") {
			return exitBadInput, usageError{err}
		}
		return exitBadInput, err
	}
	for _, tf := range traces {
		if err := tf.Commit(); err != nil {
			return exitBadInput, err
		}
	}
	rep := seeds.Reports[0]
	if n == 1 {
		seeds = nil // one run: today's outputs, nothing over seeds
	}
	if f.out != "" {
		files, err := report.WriteAll(f.out, rep, report.Options{Seeds: seeds, Timeline: f.timeline})
		if err != nil {
			return exitBadInput, err
		}
		fmt.Fprintf(stderr, "wrote %d files to %s\n", len(files)+len(traces), f.out)
	}
	if seeds != nil {
		err = seedPrinters()[f.format](stdout, seeds)
	} else {
		err = printReport(stdout, rep, f.format)
	}
	if err != nil {
		return exitBadInput, err
	}
	all := []*report.Report{rep}
	if seeds != nil {
		all = seeds.Reports
	}
	code = exitOK
	for _, r := range all {
		code = max(code, exitCodeFor(r))
	}
	return code, nil
}

// loadScenario reads a file, or an embedded example by name, or an
// embedded library scenario as library/NAME (the Source that `rebalsim
// check library` prints in its trace commands), or the default example
// when arg is empty.
func loadScenario(arg string) (*sim.Scenario, error) {
	if arg == "" {
		return scenarios.Example(defaultExample)
	}
	if _, err := os.Stat(arg); err != nil {
		if !strings.ContainsAny(arg, "/.") {
			if sc, exErr := scenarios.Example(arg); exErr == nil {
				return sc, nil
			}
		}
		if name, ok := strings.CutPrefix(arg, "library/"); ok {
			return scenarios.LibraryScenario(strings.TrimSuffix(name, ".yaml"))
		}
	}
	return scenarios.LoadFile(arg)
}

func printReport(w io.Writer, rep *report.Report, format string) error {
	switch format {
	case "json":
		return report.WriteJSON(w, rep)
	case "csv":
		return report.CSV(w, rep)
	case "markdown":
		return report.Markdown(w, rep)
	default:
		return report.Table(w, rep)
	}
}

// exitCodeFor is 1 when any run found a safety violation.
func exitCodeFor(rep *report.Report) int {
	for _, r := range rep.Runs {
		for _, f := range r.Findings {
			if f.Safety {
				return exitFinding
			}
		}
	}
	return exitOK
}

// warn prints the scenario's warnings (legal but probably unintended).
func warn(w io.Writer, sc *sim.Scenario) {
	for _, msg := range scenarios.Warnings(sc) {
		fmt.Fprintf(w, "warning: %s: %s\n", sc.Name, msg)
	}
}

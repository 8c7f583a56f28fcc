package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
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
	seed        seedFlag
	seeds       int
	out         string
	trace       bool
	format      string
	shuffleTies bool
	noTimeline  bool
	timeline    string
	cpuProfile  string
}

func (f *simulateFlags) register(fs *pflag.FlagSet, protocolHelp string) {
	addProtocolsFlag(fs, &f.protocols, protocolHelp, everyProtocolByDefault)
	addSeedFlag(fs, &f.seed, "seed for every random stream")
	addCountFlag(fs, &f.seeds, "seeds", seedsHelp)
	fs.StringVar(&f.out, "out", "", "directory for result.json, timeline.csv, report.html and charts")
	fs.BoolVar(&f.trace, "trace", false, "also write a JSONL trace of every message and state change per protocol (needs --out)")
	addFormatFlag(fs, &f.format, reportFormats, "what to print")
	fs.BoolVar(&f.shuffleTies, "shuffle-ties", false, "order simultaneous events randomly (from the seed)")
	fs.BoolVar(&f.noTimeline, "no-timeline", false, "skip the per-partition ownership timeline and the member lanes (much smaller results for big groups; their charts are left out)")
	f.timeline = report.TimelineAuto
	fs.Var(&enumValue{p: &f.timeline, allowed: report.TimelineModes()}, "timeline",
		"how result.json and timeline.csv keep the per-partition and per-member history: "+orList(report.TimelineModes())+
			" (auto: whole up to 20,000 segments, else summarised); the charts always show all of it")
	fs.StringVar(&f.cpuProfile, "cpuprofile", "", cpuProfileHelp)
}

func cmdRun(args []string, stdout, stderr io.Writer) (int, error) {
	return simulate("run", "protocols to run", args, stdout, stderr)
}

func cmdCompare(args []string, stdout, stderr io.Writer) (int, error) {
	return simulate("compare", "protocols to compare", args, stdout, stderr)
}

func simulate(name, protocolHelp string, args []string, stdout, stderr io.Writer) (code int, err error) {
	fs := newFlagSet(name, name+" [scenario.yaml | example-name] [flags]",
		fmt.Sprintf("With no file, the embedded %q example runs.", defaultExample), stdout)
	var f simulateFlags
	f.register(fs, protocolHelp)
	if done, code, err := parseFlags(fs, args); done {
		return code, err
	}
	if fs.NArg() > 1 {
		return exitBadInput, badInput("expected at most one scenario, got %d", fs.NArg())
	}
	if f.trace && f.out == "" {
		return exitBadInput, badInput("--trace writes trace files into the --out directory; give --out too")
	}
	file, err := loadScenario(fs.Arg(0))
	if err != nil {
		return exitBadInput, usageError{err}
	}
	sc := file.Scenario
	f.seed.apply(sc)
	warn(stderr, sc)
	profile, err := startCPUProfile(f.cpuProfile)
	if err != nil {
		return exitBadInput, err
	}
	defer profile.stopInto(&code, &err)
	opts := rebalsim.Options{Protocols: f.protocols, Timeline: !f.noTimeline, ShuffleTies: f.shuffleTies}
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
	seeds := &report.Seeds{Rerun: rerunPrefix(fs.Arg(0), &f)}
	n := f.seeds
	if n == 0 {
		n, seeds.Chosen = defaultSeeds(sc)
	}
	seeds.Reports, err = runSeeds(sc, opts, sc.Seed, n, f.out != "" || n == 1)
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
func loadScenario(arg string) (*scenarios.File, error) {
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

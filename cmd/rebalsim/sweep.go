package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rebalsim/rebalsim/report"
	"github.com/rebalsim/rebalsim/scenarios"
	"github.com/rebalsim/rebalsim/sweeps"
)

func cmdSweep(args []string, stdout, stderr io.Writer) (code int, err error) {
	fs := newFlagSet("sweep", "sweep [scenario.yaml | example-name] --out DIR [flags]", `Runs the scenario at every point of a grid of varied values, on many seeds,
under each protocol, in parallel, and summarises every metric per grid point
and protocol (mean with its 95% confidence interval, median, p90, p99, max).
The grid comes from the scenario's sweep: block and --vary. A path names a
value of the scenario file (defaults.session_timeout, group.heartbeat_interval,
topics.orders.partitions, topics[0].rate, events[1].pause.for, duration, seed)
or is a shorthand: members=N (the group's size), partitions=N (every topic),
latency=V (network.latency), or a consumer setting such as session_timeout
(defaults.<key>). Each path is varied by one --vary. A bad value stops the
sweep before any run, naming the grid point and file:line:col.

With --shard i/n only that slice runs (runs.csv and manifest.json); 'rebalsim
merge' combines the n slices into the files a whole sweep writes.`, stdout)
	var seed seedFlag
	addSeedFlag(fs, &seed, "every grid point's first seed")
	var seeds, parallel int
	addCountFlag(fs, &seeds, "seeds", "seeds per grid point, from the scenario's seed up (default: the sweep: block's seeds, else 1)")
	vary := fs.StringArray("vary", nil, "vary a scenario value: path=v1,v2,... (repeatable, one path each; the grid is the product); e.g. members=10,50 or defaults.session_timeout=10s,45s")
	var protocols []string
	addProtocolsFlag(fs, &protocols, "protocols to run", everyProtocolByDefault)
	addCountFlag(fs, &parallel, "parallel", "runs at once, one goroutine each (default: GOMAXPROCS)")
	shardFlag := fs.String("shard", "", "run one slice of the sweep, i/n (shards count from 1); merge the n outputs with 'rebalsim merge'")
	out := fs.String("out", "", "directory for runs.csv, stats.csv, stats.json, manifest.json, report.html and charts (required)")
	var format string
	addFormatFlag(fs, &format, sweepFormats, "summary on stdout (csv is stats.csv, json stats.json)")
	noCharts := fs.Bool("no-charts", false, "leave the charts out of the output (faster for huge grids)")
	cpuProfilePath := fs.String("cpuprofile", "", cpuProfileHelp)
	if done, code, err := parseFlags(fs, args); done {
		return code, err
	}
	if fs.NArg() > 1 {
		return exitBadInput, badInput("expected at most one scenario, got %d", fs.NArg())
	}
	if *out == "" {
		return exitBadInput, badInput("--out DIR is required: a sweep writes several files")
	}
	if parallel == 0 {
		parallel = runtime.GOMAXPROCS(0)
	}
	var shard sweeps.Shard
	if *shardFlag != "" {
		var err error
		if shard, err = sweeps.ParseShard(*shardFlag); err != nil {
			return exitBadInput, usageError{err}
		}
	}
	spec := sweeps.Spec{Seeds: seeds, Protocols: protocols}
	if seed.set {
		spec.Seed = &seed.seed
	}
	for _, v := range *vary {
		variation, err := sweeps.ParseVary(v)
		if err != nil {
			return exitBadInput, usageError{err}
		}
		spec.Vary = append(spec.Vary, variation)
	}
	source, data, err := scenarioSource(fs.Arg(0))
	if err != nil {
		return exitBadInput, usageError{err}
	}
	g, err := sweeps.Expand(source, data, spec)
	if err != nil {
		return exitBadInput, usageError{err}
	}
	for _, w := range g.Warnings {
		fmt.Fprintf(stderr, "warning: %s\n", w)
	}

	// Runs allocate briskly and keep little: trading memory for fewer
	// collections makes big groups run faster (see BENCHMARKS.md,
	// "Sweeps"). A soft memory limit keeps groups with large live heaps
	// from growing ninefold. An explicit GOGC or GOMEMLIMIT wins.
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(sweepGCPercent)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(sweepMemoryLimit)
	}
	profile, err := startCPUProfile(*cpuProfilePath)
	if err != nil {
		return exitBadInput, err
	}
	defer profile.stopInto(&code, &err)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	opts := sweeps.Options{Parallel: parallel, Shard: shard}
	bar := newProgressBar(stderr)
	if bar != nil {
		opts.Progress = bar.update
		defer bar.finish()
	}
	start := time.Now()
	res, err := sweeps.Run(ctx, g, opts)
	if bar != nil {
		bar.finish()
	}
	if err != nil {
		return exitBadInput, err
	}
	elapsed := time.Since(start)
	files, err := sweeps.Write(*out, res, sweeps.WriteOptions{NoCharts: *noCharts})
	if err != nil {
		return exitBadInput, err
	}
	fmt.Fprintf(stderr, "ran %d runs (shard %s of %d) in %s on %d workers (%.1f runs/s); wrote %d files to %s\n",
		len(res.Rows), res.Manifest.Shard, res.Manifest.Runs, elapsed.Round(time.Millisecond), min(parallel, max(len(res.Rows), 1)),
		float64(len(res.Rows))/max(elapsed.Seconds(), 1e-9), len(files), *out)
	return finishSweep(res, format, stdout)
}

// sweepGCPercent is the garbage collector's target during a sweep (Go's
// default is 100), and sweepMemoryLimit its soft memory limit. A sweep of
// 500-member groups on two workers peaks near 120 MB at 800.
const (
	sweepGCPercent   = 800
	sweepMemoryLimit = 1 << 30
)

func cmdMerge(args []string, stdout, stderr io.Writer) (int, error) {
	fs := newFlagSet("merge", "merge SHARD_DIR... --out DIR [flags]", `Combines the outputs of 'rebalsim sweep --shard i/n' for i = 1..n into the
files one 'rebalsim sweep' writes, byte for byte. The shards must come from
the same scenario file, grid, seeds, protocols and rebalsim version, and
every shard must be given exactly once.`, stdout)
	out := fs.String("out", "", "directory for the merged sweep's files (required)")
	var format string
	addFormatFlag(fs, &format, sweepFormats, "summary on stdout (csv is stats.csv, json stats.json)")
	noCharts := fs.Bool("no-charts", false, "leave the charts out of the output")
	if done, code, err := parseFlags(fs, args); done {
		return code, err
	}
	if fs.NArg() == 0 {
		return exitBadInput, badInput("no shard directories given")
	}
	if *out == "" {
		return exitBadInput, badInput("--out DIR is required")
	}
	var parts []*sweeps.Result
	for _, dir := range fs.Args() {
		part, err := sweeps.Read(dir)
		if err != nil {
			return exitBadInput, usageError{err}
		}
		parts = append(parts, part)
	}
	res, err := sweeps.Merge(parts)
	if err != nil {
		return exitBadInput, usageError{err}
	}
	files, err := sweeps.Write(*out, res, sweeps.WriteOptions{NoCharts: *noCharts})
	if err != nil {
		return exitBadInput, err
	}
	fmt.Fprintf(stderr, "merged %d shards (%d runs); wrote %d files to %s\n", len(parts), len(res.Rows), len(files), *out)
	return finishSweep(res, format, stdout)
}

// finishSweep prints the summary of a whole sweep and returns the exit
// code: 1 when a run reported a safety finding.
func finishSweep(res *sweeps.Result, format string, stdout io.Writer) (int, error) {
	code := exitOK
	for _, r := range res.Rows {
		if r.SafetyFindings > 0 {
			code = exitFinding
		}
	}
	if !res.Manifest.Shard.Whole() || format == "none" {
		return code, nil
	}
	s, err := sweeps.Summarize(res)
	if err != nil {
		return exitBadInput, err
	}
	switch format {
	case "markdown":
		err = report.SweepMarkdown(stdout, s)
	case "csv":
		err = report.SweepStatsCSV(stdout, s)
	case "json":
		err = report.WriteSweepJSON(stdout, s)
	default:
		err = report.SweepTable(stdout, s)
	}
	if err != nil {
		return exitBadInput, err
	}
	return code, nil
}

// scenarioSource returns a scenario file's name and bytes, or an embedded
// example's; a sweep needs the YAML itself, to put its values in place.
func scenarioSource(arg string) (string, []byte, error) {
	if arg == "" {
		arg = defaultExample
	}
	if _, err := os.Stat(arg); err != nil && !strings.ContainsAny(arg, "/.") {
		if data, exErr := scenarios.ExampleSource(arg); exErr == nil {
			return "examples/" + arg + ".yaml", data, nil
		}
	}
	if _, err := scenarios.LoadFile(arg); err != nil {
		return "", nil, err // the loader's message: a missing file, too large, ...
	}
	data, err := os.ReadFile(arg)
	return arg, data, err
}

// progressBar draws "runs done, runs/s, ETA" on a terminal's stderr,
// at most five times a second.
type progressBar struct {
	w     io.Writer
	start time.Time
	mu    sync.Mutex
	last  time.Time
	done  atomic.Int64
	total int
	drawn bool
}

// newProgressBar returns a bar when w is a terminal, else nil: logs of
// batch jobs get no carriage returns.
func newProgressBar(w io.Writer) *progressBar {
	f, ok := w.(*os.File)
	if !ok {
		return nil
	}
	info, err := f.Stat()
	if err != nil || info.Mode()&os.ModeCharDevice == 0 {
		return nil
	}
	return &progressBar{w: w, start: time.Now()}
}

func (b *progressBar) update(done, total int) {
	b.done.Store(int64(done))
	now := time.Now()
	b.mu.Lock()
	defer b.mu.Unlock()
	b.total = total
	if done < total && now.Sub(b.last) < 200*time.Millisecond {
		return
	}
	b.last = now
	b.draw(now)
}

func (b *progressBar) draw(now time.Time) {
	done := int(b.done.Load())
	if b.total == 0 {
		return
	}
	const width = 30
	filled := width * done / b.total
	elapsed := now.Sub(b.start).Seconds()
	rate := float64(done) / max(elapsed, 1e-9)
	eta := "--"
	if done > 0 && done < b.total {
		eta = time.Duration(float64(b.total-done) / rate * float64(time.Second)).Round(time.Second).String()
	} else if done == b.total {
		eta = "0s"
	}
	fmt.Fprintf(b.w, "\r[%s%s] %d/%d runs  %.1f runs/s  ETA %s   ", strings.Repeat("#", filled), strings.Repeat(".", width-filled), done, b.total, rate, eta)
	b.drawn = true
}

func (b *progressBar) finish() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.drawn {
		b.draw(time.Now())
		fmt.Fprintln(b.w)
		b.drawn = false
	}
}

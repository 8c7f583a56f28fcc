package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"strings"
	"time"

	"github.com/rebalsim/rebalsim/swarm"
	"github.com/rebalsim/rebalsim/sweeps"
)

// swarmAbout is what swarm --help says the command does.
const swarmAbout = `Generates a scenario per seed (a group of 2 to a few hundred members under
every protocol or a mixed group, settings inside Kafka's ranges, a storm of
every kind of disturbance on a jittery network, then a healing period),
runs it, and checks safety (no double ownership), liveness (stable again
within a bound derived from the settings once the storm has healed) and
the data plane (every subscribed partition processed at the end, every
metric a finite amount). A failure that is a documented Kafka hazard is
listed as such; any other is a defect, shrunk to a small scenario file
that reproduces it ('rebalsim check FILE' replays its safety and liveness
expectations). A defect with the signature of a known, open one is marked
"known". Exit 1 when a new defect was found (with --strict, any defect).`

func cmdSwarm(args []string, stdout, stderr io.Writer) (int, error) {
	fs := newFlagSet("swarm", "swarm [--seeds N] [--from S] [--corpus DIR] [flags]", swarmAbout, stdout)
	seeds, parallel, shrinkRuns := 100, runtime.GOMAXPROCS(0), 300
	addCountFlag(fs, &seeds, "seeds", "how many swarm seeds to run, from --from up (default 100)")
	from := fs.Uint64("from", 1, "the first swarm seed (a generator seed: each one draws a whole scenario, its own seeds included)")
	addCountFlag(fs, &parallel, "parallel", "seeds at once, one goroutine each (default: every core)")
	shardFlag := fs.String("shard", "", "run one slice of the seeds, i/n (shards count from 1), like sweep")
	corpus := fs.String("corpus", "", "directory for the shrunk reproducer of each defect (<class>-<protocol>-seed<N>.yaml)")
	addCountFlag(fs, &shrinkRuns, "shrink-runs", "candidates the shrinker may try per defect (default 300)")
	strict := fs.Bool("strict", false, "fail on known defects too (see swarm.KnownDefect), not only on new ones")
	show := fs.Uint64("show", 0, "print the scenario file of this swarm seed and stop")
	if done, code, err := parseFlags(fs, args); done {
		return code, err
	}
	if fs.NArg() > 0 {
		return exitBadInput, badInput("swarm takes no arguments, found %q", strings.Join(fs.Args(), " "))
	}
	if *from == 0 {
		return exitBadInput, badInput("--from must be at least 1 (seeds count from 1)")
	}
	if *show > 0 {
		f, err := swarm.Build(swarm.Generate(*show))
		if err != nil {
			return exitBadInput, fmt.Errorf("seed %d: %w", *show, err)
		}
		_, err = stdout.Write(f.YAML)
		return exitOK, err
	}
	// Known defects are shrunk when their reproducers are wanted: into a
	// corpus, or when they fail the run.
	opts := swarm.Options{From: *from, Seeds: seeds, Parallel: parallel, Corpus: *corpus, ShrinkRuns: shrinkRuns,
		ShrinkKnown: *corpus != "" || *strict}
	if *shardFlag != "" {
		sh, err := sweeps.ParseShard(*shardFlag)
		if err != nil {
			return exitBadInput, usageError{err}
		}
		opts.Shard = sh
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	bar := newProgressBar(stderr)
	if bar != nil {
		opts.Progress = bar.update
		defer bar.finish()
	}
	start := time.Now()
	rep, err := swarm.Run(ctx, opts)
	if bar != nil {
		bar.finish()
	}
	if err != nil {
		return exitBadInput, err
	}
	for _, h := range rep.Hazards {
		fmt.Fprintf(stdout, "hazard  seed %d: %s\n", h.Seed, h.Failure)
	}
	for _, d := range rep.Defects {
		word := "DEFECT"
		if d.Known != "" {
			word = "known "
		}
		fmt.Fprintf(stdout, "%s  seed %d: %s\n", word, d.Seed, d.Failure)
		if d.File != "" {
			fmt.Fprintf(stdout, "        reproducer: %s\n", d.File)
		} else if len(d.Shrunk) > 0 {
			fmt.Fprintf(stdout, "        reproducer (give --corpus DIR to keep it):\n%s", strings.TrimSuffix(indent(string(d.Shrunk)), "    "))
		}
	}
	fmt.Fprintf(stdout, "swarm: %d seeds from %d (shard %s): %d defects (%d of them known), %d hazards\n", rep.Seeds, *from, opts.Shard, len(rep.Defects), rep.Known, len(rep.Hazards))
	fmt.Fprintf(stderr, "ran %d seeds in %s on %d workers\n", rep.Seeds, time.Since(start).Round(time.Millisecond), parallel)
	if len(rep.Defects) > rep.Known || (*strict && len(rep.Defects) > 0) {
		return exitFinding, nil
	}
	return exitOK, nil
}

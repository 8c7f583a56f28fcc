package main

import (
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync"

	"github.com/rebalsim/rebalsim"
	"github.com/rebalsim/rebalsim/report"
	"github.com/rebalsim/rebalsim/sim"
)

// seedsHelp documents --seeds and its default in one place.
const seedsHelp = "seeds to run, from --seed (or the scenario's seed) up; 1 is a single run (default: 20 for groups of up to 50 members, fewer for bigger ones, at least 3)"

// defaultSeeds is how many seeds run and compare run when not told: enough
// to show the spread of a small group in well under a second, and about
// the same simulated work for a big group (the cost of a run grows with
// the number of members), but never fewer than 3, the least that shows a
// spread at all. It depends on the scenario alone, so that the output does
// too. The second result says how it was chosen, for the output.
func defaultSeeds(sc *sim.Scenario) (int, string) {
	members := len(sc.Members)
	n := min(20, max(3, 1000/max(members, 1)))
	return n, fmt.Sprintf("the default for a group of %d members", members)
}

// runSeeds runs sc on n seeds from first up, in parallel (each run stays
// single-threaded and deterministic; reports are kept in seed order, so
// the output does not depend on scheduling). Only the first seed keeps
// its timeline (and trace), when keepFirst is set: the others feed the
// statistics.
func runSeeds(sc *sim.Scenario, opts rebalsim.Options, first uint64, n int, keepFirst bool) ([]*report.Report, error) {
	reports := make([]*report.Report, n)
	errs := make([]error, n)
	work := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				o := opts
				o.Seed = first + uint64(i)
				if i > 0 || !keepFirst {
					o.Timeline, o.Trace = false, nil
				}
				var res *rebalsim.Results
				if res, errs[i] = rebalsim.Run(sc, o); errs[i] == nil {
					reports[i] = res.Report()
				}
			}
		}()
	}
	for i := range n {
		work <- i
	}
	close(work)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("seed %d: %w", first+uint64(i), err)
		}
	}
	return reports, nil
}

// rerunPrefix is the command that reruns the scenario as it was given.
func rerunPrefix(arg string, f *simulateFlags) string {
	if arg == "" {
		arg = defaultExample
	}
	cmd := "rebalsim run " + shellQuote(arg)
	if f.shuffleTies {
		cmd += " --shuffle-ties"
	}
	return cmd
}

func shellQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"\\$`!*?[]{}()<>|&;#~") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// seedPrinters are the outputs over seeds by --format name.
func seedPrinters() map[string]func(io.Writer, *report.Seeds) error {
	return map[string]func(io.Writer, *report.Seeds) error{
		"json": report.WriteSeedsJSON, "csv": report.SeedsCSV, "markdown": report.SeedsMarkdown, "table": report.SeedsTable,
	}
}

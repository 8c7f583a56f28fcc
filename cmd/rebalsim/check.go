package main

import (
	"io"

	"github.com/rebalsim/rebalsim/check"
	"github.com/rebalsim/rebalsim/internal/atomicfile"
)

const checkHelp = `Runs every scenario under each of its protocols, on the seeds its
expectations ask for, and checks the expectations of its expect: section.
Directories are searched recursively for *.yaml and *.yml files; "library"
(or scenarios/library/ outside the repository) is the embedded scenario
library. Every run is also checked for safety (no partition owned by two
members), whether or not the scenario says so. Seeds recorded in the
corpus (--corpus) are replayed first; failing seeds that a search over
several seeds finds are added to it.

Exit codes:
  0  every expectation holds
  1  an expectation failed, or a run reported a safety finding
  2  bad input or usage, or a check that could not decide (the horizon
     ended before a convergence bound had elapsed); failures take
     precedence over undecided checks`

func cmdCheck(args []string, stdout, stderr io.Writer) (int, error) {
	fs := newFlagSet("check", "check [FILE | DIR | library | library/NAME]... [flags]", checkHelp, stdout)
	junit := fs.String("junit", "", "also write JUnit XML to FILE (a testsuite per scenario, a testcase per protocol × check)")
	markdown := fs.String("markdown", "", "also write a Markdown summary to FILE, for a pull-request comment")
	var seed seedFlag
	addSeedFlag(fs, &seed, "every scenario's first seed")
	var seeds, parallel int
	addCountFlag(fs, &seeds, "seeds", "check every expectation on N seeds (the scenario's seed and the N-1 after it), overriding seeds:")
	shuffle := fs.Bool("shuffle-ties", false, "also run each seed with simultaneous events shuffled; a safety or convergence verdict that changes fails")
	corpus := fs.String("corpus", check.DefaultCorpusDir, "directory of failing seeds to replay first and to add to (\"\" for none)")
	var protocols []string
	addProtocolsFlag(fs, &protocols, "check only these protocols", "each scenario's")
	addCountFlag(fs, &parallel, "parallel", "simulations to run at once (default: GOMAXPROCS)")
	verbose := fs.BoolP("verbose", "v", false, "also list every passing check with what it measured on its worst seed")
	if done, code, err := parseFlags(fs, args); done {
		return code, err
	}
	if fs.NArg() == 0 {
		return exitBadInput, badInput("no scenarios given; try 'rebalsim check library' or 'rebalsim check scenarios/'")
	}
	scs, err := check.Load(fs.Args()...)
	if err != nil {
		return exitBadInput, usageError{err}
	}
	for _, sc := range scs {
		seed.apply(sc.Scenario)
	}
	sum, err := check.Check(scs, check.Options{Seeds: seeds, ShuffleTies: *shuffle, CorpusDir: *corpus, Protocols: protocols, Parallel: parallel})
	if err != nil {
		return exitBadInput, usageError{err}
	}
	if *junit != "" {
		if err := atomicfile.Write(*junit, sum.WriteJUnit); err != nil {
			return exitBadInput, err
		}
	}
	if *markdown != "" {
		if err := atomicfile.Write(*markdown, sum.WriteMarkdown); err != nil {
			return exitBadInput, err
		}
	}
	if err := sum.WriteText(stdout, *verbose); err != nil {
		return exitBadInput, err
	}
	switch sum.Verdict() {
	case check.Fail:
		return exitFinding, nil
	case check.Undecided:
		return exitBadInput, nil
	}
	return exitOK, nil
}

// Command rebalsim simulates Kafka consumer-group rebalances under the
// classic eager, classic cooperative (KIP-429) and next-generation
// (KIP-848) protocols, deterministically, on a virtual clock.
//
// Usage:
//
//	rebalsim run [scenario.yaml | example] [--protocols P,Q] [--seed N] [--out DIR] [--trace] [--format F]
//	rebalsim compare [scenario.yaml | example] [--protocols P,Q] [--seed N] [--out DIR] [--format F]
//	rebalsim validate scenario.yaml...
//	rebalsim check [FILE | DIR | library | library/NAME]... [--protocols P,Q] [--seed N] [--seeds N] [--junit FILE]
//	rebalsim examples [NAME]
//	rebalsim conformance --vectors FILE
//	rebalsim report result.json [--out DIR] [--format F]
//	rebalsim sweep [scenario.yaml | example] --out DIR [--vary path=v1,v2]... [--protocols P,Q] [--seed N] [--seeds N] [--shard i/n]
//	rebalsim merge SHARD_DIR... --out DIR [--format F]
//	rebalsim swarm [--seeds N] [--from S] [--corpus DIR] [--strict] [--shard i/n]
//	rebalsim version
//
// Every command prints its usage with --help (or 'rebalsim help CMD');
// 'rebalsim --version' is 'rebalsim version'. A flag that several commands
// share means the same on each: --protocols (also spelt --protocol) and
// --seed on every command that runs scenarios; counts such as --seeds and
// --parallel at least 1 when given (left out, they take their default);
// enumerated values such as --format checked before anything runs.
//
// Exit codes: 0 ok; 1 a run reported a safety finding, a conformance
// vector failed, or (check) an expectation failed; 2 bad input or usage,
// or (check) an expectation the run could not decide.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// Exit codes, documented in the usage text and the README.
const (
	exitOK       = 0
	exitFinding  = 1
	exitBadInput = 2
)

// usageError marks errors that are the caller's: bad flags, bad files.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func badInput(format string, args ...any) error {
	return usageError{fmt.Errorf(format, args...)}
}

// command is one subcommand.
type command struct {
	name    string
	summary string
	run     func(args []string, stdout, stderr io.Writer) (int, error)
}

func commands() []command {
	return []command{
		{"run", "run a scenario under one or more protocols and print its metrics", cmdRun},
		{"compare", "run a scenario under every protocol on the same seed, side by side", cmdCompare},
		{"validate", "check scenario files without running them", cmdValidate},
		{"check", "check scenarios' expectations (CI regression mode): exit 1 on a failure, JUnit and Markdown", cmdCheck},
		{"examples", "list the embedded example scenarios", cmdExamples},
		{"conformance", "run Kafka's test vectors against rebalsim's assignors and reconciliation", cmdConformance},
		{"report", "re-render tables, charts and HTML from a saved result.json", cmdReport},
		{"sweep", "run a scenario over a grid of values × seeds × protocols, in parallel, with statistics", cmdSweep},
		{"merge", "combine the shards of a sweep into the files one sweep writes", cmdMerge},
		{"swarm", "generate and run random fault storms, check safety and liveness, shrink what fails", cmdSwarm},
		{"version", "print rebalsim's version", cmdVersion},
	}
}

func usage(w io.Writer) {
	fmt.Fprintf(w, "rebalsim: a deterministic simulator of Kafka consumer-group rebalance protocols\n\nUsage: rebalsim <command> [arguments]\n\nCommands:\n")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-12s %s\n", c.name, c.summary)
	}
	fmt.Fprintf(w, "\nRun 'rebalsim <command> --help' for a command's flags, 'rebalsim --version' for the version.\n\nExit codes:\n  0  ok\n  1  a run reported a safety finding, or a conformance vector failed\n  2  bad input or usage\n")
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	switch {
	case len(args) == 0:
		usage(stderr)
		return exitBadInput
	case args[0] == "-h" || args[0] == "--help" || (args[0] == "help" && (len(args) == 1 || args[1] == "help")):
		usage(stdout)
		return exitOK
	case args[0] == "--version":
		args = []string{"version"}
	case args[0] == "help":
		// rebalsim help CMD is rebalsim CMD --help.
		args = []string{args[1], "--help"}
	}
	for _, c := range commands() {
		if c.name != args[0] {
			continue
		}
		code, err := c.run(args[1:], stdout, stderr)
		if err != nil {
			fmt.Fprintf(stderr, "rebalsim %s: %v\n", c.name, err)
			var ue usageError
			if errors.As(err, &ue) || code == exitOK {
				return exitBadInput
			}
		}
		return code
	}
	fmt.Fprintf(stderr, "rebalsim: unknown command %q\n\n", args[0])
	usage(stderr)
	return exitBadInput
}

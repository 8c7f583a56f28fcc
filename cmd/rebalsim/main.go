// Command rebalsim simulates Kafka consumer-group rebalances under the
// classic eager, classic cooperative (KIP-429) and next-generation
// (KIP-848) protocols, deterministically, on a virtual clock.
//
// Usage:
//
//	rebalsim run [scenario.yaml] [--protocol P] [--seed N] [--out DIR] [--trace] [--format F]
//	rebalsim compare [scenario.yaml] [--protocols P,Q] [--out DIR] [--format F]
//	rebalsim validate scenario.yaml...
//	rebalsim examples
//	rebalsim conformance --vectors FILE
//	rebalsim report result.json --out DIR
//
// Exit codes: 0 ok; 1 a run reported a safety finding (or a conformance
// vector failed); 2 bad input or usage.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/pflag"
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

// parseFlags parses a subcommand's args into fs. done says the command
// should stop and return code and err: asked for help (printed by
// fs.Usage, a success), or given bad flags.
func parseFlags(fs *pflag.FlagSet, args []string) (done bool, code int, err error) {
	switch err := fs.Parse(args); {
	case err == pflag.ErrHelp:
		return true, exitOK, nil
	case err != nil:
		return true, exitBadInput, usageError{err}
	}
	return false, 0, nil
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
	fmt.Fprintf(w, "\nRun 'rebalsim <command> --help' for a command's flags.\n\nExit codes:\n  0  ok\n  1  a run reported a safety finding, or a conformance vector failed\n  2  bad input or usage\n")
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stdout)
		if len(args) == 0 {
			return exitBadInput
		}
		return exitOK
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

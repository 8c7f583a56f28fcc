package main

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/rebalsim/rebalsim/protocols"
	"github.com/rebalsim/rebalsim/sim"
)

// This file is the one place where the flags that several commands share
// are registered, so that a flag means the same on every command that has
// it. The rules, which the usage texts and the README repeat:
//
//   - An enumerated value (--format, --protocols) is checked while the
//     flags are parsed: anything else is a usage error naming the values
//     allowed.
//   - A count (--seeds, --parallel) given on the command line is at least
//     1. Leaving the flag out is how to ask for its default; 0 is never a
//     stand-in for it.
//   - --protocols takes a comma-separated list and may be repeated;
//     --protocol is another name for the same flag.
//   - --seed N replaces the scenario's seed: the first of the seeds a
//     command runs. Any whole number is a seed, 0 included.

// newFlagSet returns a subcommand's flag set. Parse errors are returned,
// not printed (run prints each error once, after the command's name), and
// --help or -h prints the usage to stdout: the synopsis, the about text
// and the flags.
func newFlagSet(name, synopsis, about string, stdout io.Writer) *pflag.FlagSet {
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {
		fmt.Fprintf(stdout, "Usage: rebalsim %s\n", synopsis)
		if about != "" {
			fmt.Fprintf(stdout, "\n%s\n", strings.TrimRight(about, "\n"))
		}
		if fs.HasFlags() {
			fmt.Fprintf(stdout, "\nFlags:\n%s", fs.FlagUsages())
		}
	}
	return fs
}

// parseFlags parses a subcommand's args into fs. done says the command
// should stop and return code and err: asked for help (printed by
// fs.Usage, a success), or given bad flags.
func parseFlags(fs *pflag.FlagSet, args []string) (done bool, code int, err error) {
	switch err := fs.Parse(args); {
	case err == pflag.ErrHelp:
		return true, exitOK, nil
	case err != nil:
		return true, exitBadInput, badInput("%v (see 'rebalsim %s --help')", err, fs.Name())
	}
	return false, 0, nil
}

// The values of --format: what run, compare and report print, and what
// sweep and merge print (a sweep's output is files; none prints nothing).
var (
	reportFormats = []string{"table", "json", "csv", "markdown"}
	sweepFormats  = []string{"table", "markdown", "csv", "json", "none"}
)

// addFormatFlag registers --format, one of formats, the first the default.
func addFormatFlag(fs *pflag.FlagSet, p *string, formats []string, help string) {
	*p = formats[0]
	fs.Var(&enumValue{p: p, allowed: formats}, "format", fmt.Sprintf("%s: %s", help, orList(formats)))
}

// addProtocolsFlag registers --protocols and its other name, --protocol;
// help says what the protocols are for and dflt what an absent flag means.
// The names are checked against the protocols rebalsim implements, and a
// protocol given twice is an error: it would run the same thing twice.
func addProtocolsFlag(fs *pflag.FlagSet, p *[]string, help, dflt string) {
	fs.Var(&protocolsValue{p: p}, "protocols", fmt.Sprintf("%s, of %s: comma-separated or repeated; --protocol is the same flag (default: %s)",
		help, strings.Join(protocols.Implemented(), ", "), dflt))
	fs.SetNormalizeFunc(func(_ *pflag.FlagSet, name string) pflag.NormalizedName {
		if name == "protocol" {
			name = "protocols"
		}
		return pflag.NormalizedName(name)
	})
}

// everyProtocolByDefault is what run, compare and sweep do without
// --protocols (rebalsim.ProtocolsFor).
const everyProtocolByDefault = "the scenario's protocols: list, else every one"

// seedFlag is --seed: a seed that replaces the scenario's when given.
type seedFlag struct {
	seed uint64
	set  bool
}

// addSeedFlag registers --seed; what the seed is the first of is the
// command's to say (help).
func addSeedFlag(fs *pflag.FlagSet, s *seedFlag, help string) {
	fs.Var(s, "seed", help+" (default: the scenario's seed)")
}

// apply puts the flag's seed into sc, when the flag was given.
func (s *seedFlag) apply(sc *sim.Scenario) {
	if s.set {
		sc.Seed = s.seed
	}
}

func (s *seedFlag) Set(v string) error {
	n, err := strconv.ParseUint(v, 10, 64)
	if err != nil {
		return fmt.Errorf("want a whole number from 0 to %d", uint64(1<<64-1))
	}
	s.seed, s.set = n, true
	return nil
}

func (s *seedFlag) String() string {
	if !s.set {
		return ""
	}
	return strconv.FormatUint(s.seed, 10)
}

func (s *seedFlag) Type() string { return "N" }

// addCountFlag registers a count flag, such as --seeds or --parallel: a
// whole number of at least 1, or left out for the command's default
// (which the help says, and *p holds as 0).
func addCountFlag(fs *pflag.FlagSet, p *int, name, help string) {
	fs.Var(&countValue{p: p}, name, help)
}

type countValue struct{ p *int }

func (c *countValue) Set(v string) error {
	n, err := strconv.Atoi(v)
	if err != nil {
		return fmt.Errorf("want a whole number of at least 1")
	}
	if n < 1 {
		return fmt.Errorf("must be at least 1 (leave the flag out for its default)")
	}
	*c.p = n
	return nil
}

func (c *countValue) String() string {
	if *c.p == 0 {
		return ""
	}
	return strconv.Itoa(*c.p)
}

func (c *countValue) Type() string { return "N" }

// enumValue is a string flag that takes one of a fixed list of values.
type enumValue struct {
	p       *string
	allowed []string
}

func (e *enumValue) Set(v string) error {
	if !slices.Contains(e.allowed, v) {
		return fmt.Errorf("want %s", orList(e.allowed))
	}
	*e.p = v
	return nil
}

func (e *enumValue) String() string { return *e.p }
func (e *enumValue) Type() string   { return "string" }

// protocolsValue is the list of --protocols, checked as it is read.
type protocolsValue struct{ p *[]string }

func (v *protocolsValue) Set(s string) error {
	for _, name := range strings.Split(s, ",") {
		name = strings.TrimSpace(name)
		switch {
		case !slices.Contains(protocols.Implemented(), name):
			return fmt.Errorf("unknown protocol %q: want %s", name, orList(protocols.Implemented()))
		case slices.Contains(*v.p, name):
			return fmt.Errorf("protocol %s is given twice", name)
		}
		*v.p = append(*v.p, name)
	}
	return nil
}

func (v *protocolsValue) String() string { return strings.Join(*v.p, ",") }
func (v *protocolsValue) Type() string   { return "list" }

// orList writes values as "a, b or c".
func orList(values []string) string {
	if len(values) < 2 {
		return strings.Join(values, "")
	}
	return strings.Join(values[:len(values)-1], ", ") + " or " + values[len(values)-1]
}

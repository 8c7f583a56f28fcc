// Command scalingtable prints the scaling table of BENCHMARKS.md from the
// output of BenchmarkScaling (package bench): the cost of every point,
// the log-log slopes between neighbouring points, and each protocol's
// fitted growth, cost ≈ C × members^a × partitions^b, as Markdown.
//
// Usage:
//
//	go test -run '^$' -bench Scaling -benchmem -timeout 30m ./bench | tee scaling.txt
//	go run ./bench/scalingtable [--unit U]... [scaling.txt | -]...
//
// With no file, or "-", it reads standard input. --unit picks the
// measurement (default cpu-ns/op, the process's CPU time per run; ns/op is
// wall time; B/op, allocs/op, events/run and rebalances/run fit as well)
// and may be given more than once, for one table each.
//
// --scenario MEMBERSxPARTITIONS prints a point's scenario file instead,
// to run it with the CLI (peak memory with /usr/bin/time, a profile with
// --cpuprofile):
//
//	go run ./bench/scalingtable --scenario 1000x1000000 > scaling-1000x1000000.yaml
//	rebalsim run scaling-1000x1000000.yaml --protocol cooperative --no-timeline --format json
//
// Exit codes: 0 ok, 2 bad input or usage.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/rebalsim/rebalsim/bench"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet("scalingtable", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	units := fs.StringArray("unit", []string{"cpu-ns/op"}, "the measurement to tabulate and fit (repeatable)")
	scenario := fs.String("scenario", "", "print the scenario file of the point MEMBERSxPARTITIONS (1000x1000000) instead")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: scalingtable [--unit U]... [scaling.txt | -]...\n       scalingtable --scenario MEMBERSxPARTITIONS")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); errors.Is(err, pflag.ErrHelp) {
		return 0
	} else if err != nil {
		fmt.Fprintln(stderr, "scalingtable:", err)
		return 2
	}
	if *scenario != "" {
		src, err := source(*scenario)
		if err == nil {
			_, err = stdout.Write(src)
		}
		if err != nil {
			fmt.Fprintln(stderr, "scalingtable:", err)
			return 2
		}
		return 0
	}
	if err := table(fs.Args(), *units, stdin, stdout); err != nil {
		fmt.Fprintln(stderr, "scalingtable:", err)
		return 2
	}
	return 0
}

// source is the scenario file of a point written MEMBERSxPARTITIONS.
func source(point string) ([]byte, error) {
	m, n, ok := strings.Cut(point, "x")
	members, errM := strconv.Atoi(m)
	partitions, errN := strconv.Atoi(n)
	if !ok || errM != nil || errN != nil || members <= 0 || partitions <= 0 {
		return nil, fmt.Errorf("--scenario: want MEMBERSxPARTITIONS, two positive integers such as 1000x1000000, found %q", point)
	}
	return bench.Source(members, partitions), nil
}

func table(files, units []string, stdin io.Reader, stdout io.Writer) error {
	if len(files) == 0 {
		files = []string{"-"}
	}
	var results []bench.Result
	for _, name := range files {
		rs, err := read(name, stdin)
		if err != nil {
			return err
		}
		results = append(results, rs...)
	}
	for i, unit := range units {
		if i > 0 {
			if _, err := io.WriteString(stdout, "\n"); err != nil {
				return err
			}
		}
		if err := bench.WriteTable(stdout, results, unit); err != nil {
			return err
		}
	}
	return nil
}

func read(name string, stdin io.Reader) ([]bench.Result, error) {
	if name == "-" {
		return bench.ParseResults("standard input", stdin)
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return bench.ParseResults(name, f)
}

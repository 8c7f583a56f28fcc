package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rebalsim/rebalsim/scenarios"
)

// TestSwarmFlags: bad flags exit 2 with the flag named; --show prints a
// scenario file the normal loader reads.
func TestSwarmFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		// Counts follow every command's rule (flags.go, addCountFlag).
		{[]string{"swarm", "--seeds", "0"}, `invalid argument "0" for "--seeds" flag: must be at least 1`},
		{[]string{"swarm", "--parallel", "0"}, `invalid argument "0" for "--parallel" flag: must be at least 1`},
		{[]string{"swarm", "--shrink-runs", "0"}, `invalid argument "0" for "--shrink-runs" flag: must be at least 1`},
		{[]string{"swarm", "--from", "0"}, "--from must be at least 1"},
		{[]string{"swarm", "--shard", "3/2"}, "want 1 ≤ i ≤ n"},
		{[]string{"swarm", "extra"}, "swarm takes no arguments"},
	} {
		code, _, errOut := runCLI(t, tc.args...)
		if code != exitBadInput || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", tc.args, code, errOut, tc.want)
		}
	}
	code, out, errOut := runCLI(t, "swarm", "--show", "7")
	if code != exitOK {
		t.Fatalf("--show: exit %d: %s", code, errOut)
	}
	path := filepath.Join(t.TempDir(), "swarm-7.yaml")
	if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := scenarios.LoadFile(path); err != nil {
		t.Errorf("--show 7 prints a file the loader refuses: %v", err)
	}
}

// TestSwarmIsTheSameInShards: the two shards of a swarm together report
// what the whole does, line for line, in seed order within each.
func TestSwarmIsTheSameInShards(t *testing.T) {
	lines := func(args ...string) []string {
		code, out, errOut := runCLI(t, append([]string{"swarm", "--seeds", "6", "--shrink-runs", "5"}, args...)...)
		if code != exitOK && code != exitFinding {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		var found []string
		for _, l := range strings.Split(out, "\n") {
			if strings.Contains(l, "seed ") && !strings.HasPrefix(l, "swarm:") {
				found = append(found, l)
			}
		}
		return found
	}
	whole := lines()
	parts := append(lines("--shard", "1/2"), lines("--shard", "2/2")...)
	if len(whole) != len(parts) {
		t.Fatalf("whole swarm found %d, its shards %d:\n%s\n--\n%s", len(whole), len(parts), strings.Join(whole, "\n"), strings.Join(parts, "\n"))
	}
	for _, l := range parts {
		if !strings.Contains(strings.Join(whole, "\n"), l) {
			t.Errorf("shard line not in the whole swarm: %s", l)
		}
	}
}

package swarm

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/rebalsim/rebalsim/protocols"
	"github.com/rebalsim/rebalsim/scenarios"
	"github.com/rebalsim/rebalsim/sim"
)

// TestKnownDefectsStillFail: each reproducer of an open defect in
// testdata/known (written by `rebalsim swarm --corpus`, named
// <class>-<protocol>-seed<N>.yaml) still fails the way its name says
// under the real models. When a fix makes one pass, this test fails:
// remove the file and the KnownDefect entry it stands for.
func TestKnownDefectsStillFail(t *testing.T) {
	files, err := filepath.Glob("testdata/known/*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	// One reproducer per open family of KnownDefect: there is one.
	if len(files) != 1 {
		t.Fatalf("found %d reproducers in testdata/known, want 1", len(files))
	}
	for _, file := range files {
		parts := strings.Split(strings.TrimSuffix(filepath.Base(file), ".yaml"), "-")
		class, protocol := parts[0], parts[1]
		sc, err := scenarios.LoadFile(file)
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		r, err := sim.Run(sc.Scenario, protocols.Default(), sim.RunOptions{Protocol: protocol, Timeline: true})
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		want := map[string]string{"safety": "double_ownership", "liveness": "not_converged"}[class]
		found := false
		for _, f := range r.Findings {
			found = found || f.Kind == want
		}
		if !found {
			t.Errorf("%s: no %s finding under %s any more: the defect looks fixed; remove the file and its KnownDefect entry", file, want, protocol)
		}
	}
}

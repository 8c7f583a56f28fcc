package rebalsim_test

import (
	"bytes"
	"crypto/sha256"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rebalsim/rebalsim"
	"github.com/rebalsim/rebalsim/protocols"
	"github.com/rebalsim/rebalsim/report"
	"github.com/rebalsim/rebalsim/scenarios"
	"github.com/rebalsim/rebalsim/sim"
)

// updateGolden rewrites testdata/golden-results.txt from the current code.
// Run it only for a change that is meant to alter results, and say in the
// commit which scenarios moved and why.
var updateGolden = flag.Bool("update-golden", false, "rewrite testdata/golden-results.txt")

const goldenResultsPath = "testdata/golden-results.txt"

// TestGoldenResults pins the behaviour of every embedded example and
// library scenario under every implemented protocol: the SHA-256 of its
// result.json (with the version string blanked, so a release bump alone
// changes nothing), of its timeline CSV and of each protocol's JSONL
// trace. A refactor must leave every line as it is; a model change that
// moves a line must regenerate the file with -update-golden and say why.
func TestGoldenResults(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every scenario with traces")
	}
	var got strings.Builder
	for _, sc := range goldenScenarios(t) {
		fmt.Fprint(&got, goldenLines(t, sc))
	}
	if *updateGolden {
		if err := os.MkdirAll(filepath.Dir(goldenResultsPath), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(goldenResultsPath, []byte(got.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(goldenResultsPath)
	if err != nil {
		t.Fatalf("%v (run go test -run TestGoldenResults -update-golden . to create it)", err)
	}
	if got.String() != string(want) {
		wantLines := strings.Split(string(want), "\n")
		gotLines := strings.Split(got.String(), "\n")
		for i := 0; i < max(len(wantLines), len(gotLines)); i++ {
			var w, g string
			if i < len(wantLines) {
				w = wantLines[i]
			}
			if i < len(gotLines) {
				g = gotLines[i]
			}
			if w != g {
				t.Errorf("line %d:\n  want %s\n  got  %s", i+1, w, g)
			}
		}
	}
}

// goldenScenario is one scenario to pin, named by where it comes from.
type goldenScenario struct {
	source string
	sc     *sim.Scenario
}

func goldenScenarios(t *testing.T) []goldenScenario {
	t.Helper()
	var out []goldenScenario
	for _, ex := range scenarios.Examples() {
		sc, err := scenarios.Example(ex.Name)
		if err != nil {
			t.Fatalf("example %s: %v", ex.Name, err)
		}
		out = append(out, goldenScenario{"examples/" + ex.Name, sc.Scenario})
	}
	for _, name := range scenarios.LibraryNames() {
		sc, err := scenarios.LibraryScenario(name)
		if err != nil {
			t.Fatalf("library %s: %v", name, err)
		}
		out = append(out, goldenScenario{"library/" + name, sc.Scenario})
	}
	return out
}

// goldenLines runs one scenario under every implemented protocol and
// returns one line per output file: source, protocol, file, digest.
func goldenLines(t *testing.T, g goldenScenario) string {
	t.Helper()
	var lines strings.Builder
	for _, p := range protocols.Implemented() {
		var trace bytes.Buffer
		res, err := rebalsim.Run(g.sc, rebalsim.Options{
			Protocols: []string{p},
			Timeline:  true,
			Trace:     func(string) (io.Writer, error) { return &trace, nil },
		})
		if err != nil {
			t.Fatalf("%s under %s: %v", g.source, p, err)
		}
		rep := res.Report()
		rep.Version = "golden"
		var js, csv bytes.Buffer
		if err := report.WriteJSON(&js, rep); err != nil {
			t.Fatalf("%s under %s: %v", g.source, p, err)
		}
		if err := report.CSV(&csv, rep); err != nil {
			t.Fatalf("%s under %s: %v", g.source, p, err)
		}
		for _, f := range []struct {
			name string
			data []byte
		}{{"result.json", js.Bytes()}, {"result.csv", csv.Bytes()}, {"trace.jsonl", trace.Bytes()}} {
			fmt.Fprintf(&lines, "%s %s %s %x\n", g.source, p, f.name, sha256.Sum256(f.data))
		}
	}
	return lines.String()
}

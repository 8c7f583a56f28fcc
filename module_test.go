package rebalsim_test

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// anotherModule is a program in a module of its own that uses rebalsim
// the way a team's repository would: it registers its own client assignor
// through protocols.Models, loads a scenario that names it, runs it and
// prints who owns each partition at the end.
const anotherModule = `package main

import (
	"fmt"
	"log"
	"slices"

	"github.com/rebalsim/rebalsim"
	"github.com/rebalsim/rebalsim/kafka"
	"github.com/rebalsim/rebalsim/protocols"
	"github.com/rebalsim/rebalsim/protocols/classic/assignor"
	"github.com/rebalsim/rebalsim/scenarios"
)

// solo gives every partition to the member with the smallest id.
type solo struct{}

func (solo) Name() string                         { return "solo" }
func (solo) Protocols() []kafka.RebalanceProtocol { return []kafka.RebalanceProtocol{kafka.Eager} }
func (solo) Assign(in assignor.Input) assignor.Result {
	res := assignor.Result{Assignment: map[string]kafka.Assignment{}}
	var ids []string
	for _, m := range in.Members {
		ids = append(ids, m.MemberID)
		res.Assignment[m.MemberID] = kafka.Assignment{}
	}
	first := slices.Min(ids)
	for _, t := range in.Topics {
		for p := int32(0); p < t.Partitions; p++ {
			res.Assignment[first][t.Name] = append(res.Assignment[first][t.Name], p)
		}
	}
	return res
}

const scenario = ` + "`" + `
name: solo
duration: 1m
protocols: [eager]
topics: [{name: orders, partitions: 4}]
defaults: {assignors: [solo]}
members: [{id: c1}, {id: c2}]
` + "`" + `

func main() {
	models := protocols.Models{ClientAssignors: []assignor.Assignor{solo{}}}
	sc, err := scenarios.Loader{Models: models}.Parse("solo.yaml", []byte(scenario))
	if err != nil {
		log.Fatal(err)
	}
	rep, err := rebalsim.Run(sc.Scenario, rebalsim.Options{Models: models, Timeline: true})
	if err != nil {
		log.Fatal(err)
	}
	last := map[string]string{}
	for _, s := range rep.Runs[0].Timeline {
		last[s.Partition] = s.Owner
	}
	for p := 0; p < 4; p++ {
		name := fmt.Sprintf("orders-%d", p)
		fmt.Println(name, last[name])
	}
}
`

// TestAnotherModuleRegistersAnAssignor builds anotherModule in a temporary
// module whose go.mod replaces github.com/rebalsim/rebalsim with this
// checkout, as a developer depending on a local clone would, and runs it.
// Its dependencies come from the module cache, or from the module proxy
// where the cache lacks one: a build of this checkout fills the cache
// with the modules it compiles, but resolving another module's graph also
// reads the go.mod of modules nothing compiles (svgo's requirements), so
// on a fresh machine the cache alone is not enough.
func TestAnotherModuleRegistersAnAssignor(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program in another module")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	checkout, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	goMod := "module example.com/solo\n\n" + goDirective(t, filepath.Join(checkout, "go.mod")) + "\n\n" +
		"require github.com/rebalsim/rebalsim v0.0.0\n\n" +
		"replace github.com/rebalsim/rebalsim => " + strconv.Quote(checkout) + "\n" // quoted: a path may hold spaces
	sum, err := os.ReadFile(filepath.Join(checkout, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"go.mod": []byte(goMod), "go.sum": sum, "main.go": []byte(anotherModule)} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(goTool, "run", ".")
	cmd.Dir = dir
	// -mod=mod lets go record the indirect requirements the checkout
	// brings; GOWORK=off ignores any workspace around the temporary
	// directory. The checkout's go.sum verifies whatever is fetched.
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go run in the other module: %v\n%s", err, out)
	}
	// solo gives all four partitions to c1, whose member id is the
	// smaller of the two; under range c2 would own orders-2 and orders-3.
	want := "orders-0 c1\norders-1 c1\norders-2 c1\norders-3 c1\n"
	if string(out) != want {
		t.Errorf("the other module printed\n%s\nwant\n%s", out, want)
	}
}

// goDirective returns the go line of the go.mod at path, so that the other
// module asks for the Go version this checkout needs.
func goDirective(t *testing.T, path string) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if line := strings.TrimSpace(sc.Text()); strings.HasPrefix(line, "go ") {
			return line
		}
	}
	t.Fatalf("%s has no go directive", path)
	return ""
}

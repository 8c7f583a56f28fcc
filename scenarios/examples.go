package scenarios

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

	"rebalsim/sim"
)

// examples holds the example library: one scenario per file, named after
// the file. Each describes a situation operators meet in production.
//
//go:embed examples/*.yaml
var examples embed.FS

// ExampleInfo describes one example scenario.
type ExampleInfo struct {
	Name        string
	Description string
}

// exampleNames lists the examples, sorted by name.
func exampleNames() []string {
	entries, err := fs.ReadDir(examples, "examples")
	if err != nil {
		panic(fmt.Sprintf("scenarios: embedded examples unreadable: %v", err))
	}
	var names []string
	for _, e := range entries {
		if name, ok := strings.CutSuffix(e.Name(), ".yaml"); ok {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}

// Examples lists the example scenarios, sorted by name.
func Examples() []ExampleInfo {
	var out []ExampleInfo
	for _, name := range exampleNames() {
		s, err := Example(name)
		if err != nil {
			// The tests load every example; reaching this is a bug in
			// rebalsim, not in anyone's input.
			panic(fmt.Sprintf("scenarios: example %s does not load: %v", name, err))
		}
		out = append(out, ExampleInfo{Name: name, Description: s.Description})
	}
	return out
}

// ExampleSource returns the YAML of the named example, to print or to copy
// as the start of a new scenario.
func ExampleSource(name string) ([]byte, error) {
	names := exampleNames()
	if !slices.Contains(names, name) {
		return nil, fmt.Errorf("no example named %q%s (examples: %s)", name, didYouMean(name, names), strings.Join(names, ", "))
	}
	return examples.ReadFile(examplePath(name))
}

// Example loads the named example scenario.
func Example(name string) (*sim.Scenario, error) {
	data, err := ExampleSource(name)
	if err != nil {
		return nil, err
	}
	return Parse(examplePath(name), data)
}

func examplePath(name string) string { return path.Join("examples", name+".yaml") }

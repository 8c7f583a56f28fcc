package scenarios

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
)

// examples holds the example library: one scenario per file, named after
// the file. Each describes a situation operators meet in production.
//
//go:embed examples/*.yaml
var examples embed.FS

// exampleSet is the example library as a collection.
var exampleSet = collection{files: examples, dir: "examples", noun: "example", plural: "examples"}

// ExampleInfo describes one embedded scenario: an example or a library
// scenario.
type ExampleInfo struct {
	Name        string
	Description string
}

// Examples lists the example scenarios, sorted by name.
func Examples() []ExampleInfo { return exampleSet.list() }

// ExampleSource returns the YAML of the named example, to print or to copy
// as the start of a new scenario.
func ExampleSource(name string) ([]byte, error) { return exampleSet.source(name) }

// Example loads the named example scenario.
func Example(name string) (*File, error) { return exampleSet.load(name) }

func exampleNames() []string { return exampleSet.names() }

// collection is a set of embedded scenario files in one directory, each
// named after its file. The examples and the scenario library are two.
type collection struct {
	files embed.FS
	dir   string
	// noun and plural name the collection in messages ("example", "examples").
	noun, plural string
}

// names lists the scenarios, sorted by name.
func (c collection) names() []string {
	entries, err := fs.ReadDir(c.files, c.dir)
	if err != nil {
		panic(fmt.Sprintf("scenarios: embedded %s unreadable: %v", c.plural, err))
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

// list describes every scenario of the collection, sorted by name.
func (c collection) list() []ExampleInfo {
	var out []ExampleInfo
	for _, name := range c.names() {
		s, err := c.load(name)
		if err != nil {
			// The tests load every embedded scenario; reaching this is a
			// bug in rebalsim, not in anyone's input.
			panic(fmt.Sprintf("scenarios: %s %s does not load: %v", c.noun, name, err))
		}
		out = append(out, ExampleInfo{Name: name, Description: s.Description})
	}
	return out
}

// source returns the YAML of the named scenario.
func (c collection) source(name string) ([]byte, error) {
	names := c.names()
	if !slices.Contains(names, name) {
		return nil, fmt.Errorf("no %s named %q%s (%s: %s)", c.noun, name, didYouMean(name, names), c.plural, strings.Join(names, ", "))
	}
	return c.files.ReadFile(c.path(name))
}

// load parses the named scenario; its Source is dir/name.yaml.
func (c collection) load(name string) (*File, error) {
	data, err := c.source(name)
	if err != nil {
		return nil, err
	}
	return Parse(c.path(name), data)
}

func (c collection) path(name string) string { return path.Join(c.dir, name+".yaml") }

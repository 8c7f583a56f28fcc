package scenarios

import (
	"embed"
)

// library holds the scenario library: the situations Kafka users actually
// hit (rolling restarts, crashes, GC pauses, rebalance storms, upgrades,
// autoscaling), each with expectations that encode the known behaviour of
// every protocol. `rebalsim check library` runs them all, so a change to a
// protocol model that breaks a known behaviour fails the build.
//
//go:embed library/*.yaml
var library embed.FS

// librarySet is the scenario library as a collection.
var librarySet = collection{files: library, dir: "library", noun: "library scenario", plural: "library"}

// Library lists the library scenarios, sorted by name.
func Library() []ExampleInfo { return librarySet.list() }

// LibraryNames lists the names of the library scenarios, sorted.
func LibraryNames() []string { return librarySet.names() }

// LibrarySource returns the YAML of the named library scenario.
func LibrarySource(name string) ([]byte, error) { return librarySet.source(name) }

// LibraryScenario loads the named library scenario; its Source is
// library/NAME.yaml.
func LibraryScenario(name string) (*File, error) { return librarySet.load(name) }

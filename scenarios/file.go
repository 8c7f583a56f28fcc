package scenarios

import "github.com/rebalsim/rebalsim/sim"

// File is a decoded scenario file: the scenario sim runs, and the file's
// contracts with the tools that read it. sim knows nothing of these: a
// single run ignores them.
type File struct {
	*sim.Scenario
	// Expect lists the file's expectations (the `expect:` section), in
	// file order; `rebalsim check` (package check) evaluates them against
	// the results.
	Expect []Expectation
	// Sweep is the file's `sweep:` block, nil when it has none; only
	// `rebalsim sweep` (package sweeps) reads it.
	Sweep *SweepSpec
}

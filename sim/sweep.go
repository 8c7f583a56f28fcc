package sim

// SweepSpec is a scenario's `sweep:` block: the grid of variations and the
// number of seeds `rebalsim sweep` runs at each grid point. A single run
// (sim.Run, rebalsim run) ignores it.
type SweepSpec struct {
	// Seeds is how many seeds each grid point runs, counting up from the
	// scenario's seed; 0 means the block does not say.
	Seeds int
	// Vary lists the varied values in file order. The grid is their
	// Cartesian product, the first variation changing slowest.
	Vary []Variation
}

// Variation is one varied scenario value: a path into the scenario file,
// as package scenarios' Override understands it ("members",
// "defaults.session_timeout", "topics.orders.partitions",
// "events[1].pause.for"), and the values it takes.
type Variation struct {
	Path string
	// Values are YAML values as they would be written in the file
	// ("10s", "50", "[range]"), in the order the grid visits them.
	Values []string
	// Line is the source line of the entry (0 if unknown).
	Line int
}

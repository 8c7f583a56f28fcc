package report

import (
	"slices"

	"github.com/rebalsim/rebalsim/sim"
)

// MetricNonNegative reports whether a metric can never be below zero, so
// that an interval for it must not be either. Every metric of the
// contract (the registry, sim.MetricTable) is a count, a duration, a
// rate or a number of records, so the answer is whether name is one of
// them. This is the one place the report asks.
func MetricNonNegative(name string) bool {
	return slices.Contains(sim.MetricNames(), name)
}

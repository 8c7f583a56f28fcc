package report

import (
	"slices"

	"github.com/rebalsim/rebalsim/sim"
)

// MetricNonNegative reports whether a metric can never be below zero, so
// that an interval for it must not be either. Every metric of the
// contract (sim.MetricNames) is a count, a duration or a number of
// records. This is the one place the report asks; it is meant to be
// answered from the metric registry once there is one.
func MetricNonNegative(name string) bool {
	return slices.Contains(sim.MetricNames(), name)
}

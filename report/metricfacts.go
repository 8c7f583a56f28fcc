package report

import "slices"

// MetricNonNegative reports whether a metric can never be below zero, so
// that an interval for it must not be either. Every metric of the
// contract (sim.MetricNames) is a count, a duration or a number of
// records. This is the one place the report asks; it is meant to be
// answered from the metric registry once there is one.
func MetricNonNegative(name string) bool {
	return slices.Contains(nonNegativeMetrics(), name)
}

func nonNegativeMetrics() []string {
	return []string{
		"rebalances", "moved_partitions", "revocations",
		"downtime_partition_seconds", "max_partition_gap_seconds",
		"member_idle_seconds", "convergence_seconds",
		"double_ownership_seconds", "zombie_processing_seconds",
		"peak_lag_records", "lag_recovery_seconds", "duplicate_records",
	}
}

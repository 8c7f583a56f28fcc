package sim

import (
	"reflect"
	"slices"
	"testing"
)

// TestMetricTableIsTheContract pins the metric names and their order to
// DESIGN.md's results contract, and checks that every numeric field of
// Metrics has exactly one row (Converged is the only other field).
func TestMetricTableIsTheContract(t *testing.T) {
	want := []string{
		"rebalances", "moved_partitions", "revocations",
		"downtime_partition_seconds", "max_partition_gap_seconds",
		"member_idle_seconds", "convergence_seconds",
		"double_ownership_seconds", "zombie_processing_seconds",
		"peak_lag_records", "lag_recovery_seconds", "duplicate_records",
		"rejected_commits",
		"latency_p50_seconds", "latency_p99_seconds", "latency_p999_seconds",
		"latency_max_seconds", "max_lag_seconds", "peak_partition_lag_records",
		"moved_load_records_per_second",
		"scale_events", "replicas_max", "replicas_mean", "oscillation",
		"rebalances_per_hour", "member_seconds",
	}
	if got := MetricNames(); !slices.Equal(got, want) {
		t.Errorf("MetricNames() = %v\nwant %v", got, want)
	}
	if n := reflect.TypeFor[Metrics]().NumField() - 1; n != len(MetricTable()) {
		t.Errorf("Metrics has %d numeric fields, the table %d rows", n, len(MetricTable()))
	}
	// Each row reads its own field: a Metrics whose fields are 1, 2, 3, ...
	// in field order gives each name the number of its field.
	var m Metrics
	v := reflect.ValueOf(&m).Elem()
	index := map[string]float64{}
	for i := range v.NumField() {
		f := v.Field(i)
		switch f.Kind() {
		case reflect.Int:
			f.SetInt(int64(i + 1))
		case reflect.Float64:
			f.SetFloat(float64(i + 1))
		default:
			continue
		}
		index[v.Type().Field(i).Tag.Get("json")] = float64(i + 1)
	}
	for _, x := range MetricTable() {
		if got, ok := m.Value(x.Name); !ok || got != index[x.Name] {
			t.Errorf("Value(%q) = %v, %v; want %v", x.Name, got, ok, index[x.Name])
		}
		if x.Unit == "" || x.Meaning == "" || (x.Better != LowerIsBetter && x.Better != HigherIsBetter) {
			t.Errorf("%s lacks a unit, a meaning or a direction", x.Name)
		}
	}
	if _, ok := m.Value("converged"); ok {
		t.Error("converged is not a numeric metric")
	}
}

package sim

import (
	"reflect"
	"strings"
	"sync"
)

// Better says which way a metric improves: "lower" or "higher".
type Better string

const (
	LowerIsBetter  Better = "lower"
	HigherIsBetter Better = "higher"
)

// Metric describes one numeric metric of Metrics: the one place its unit,
// direction and meaning are written. Its name is the field's JSON name,
// the contract of result.json.
type Metric struct {
	Name    string
	Unit    string
	Better  Better
	Meaning string
	// field points at the metric in a Metrics: an *int or a *float64.
	field func(m *Metrics) any
}

// Of returns the metric's value in m.
func (x Metric) Of(m *Metrics) float64 {
	switch p := x.field(m).(type) {
	case *int:
		return float64(*p)
	case *float64:
		return *p
	}
	panic("sim: metric " + x.Name + " is neither an int nor a float64")
}

// MetricTable lists the numeric metrics in the order of the contract
// (DESIGN.md, "Results"); expectations, tables, CSV columns, charts and the
// README's table of metrics come from it. The returned slice is the
// caller's.
func MetricTable() []Metric { return append([]Metric(nil), metricTable()...) }

// metricTable names each row once, from the JSON tag of the field it points
// at, so a name is written only in the tag.
var metricTable = sync.OnceValue(func() []Metric {
	rows := []Metric{
		{Better: LowerIsBetter, Unit: "rebalances", Meaning: "classic: generations (join phases completed, synced or not); nextgen: group epoch bumps",
			field: func(m *Metrics) any { return &m.Rebalances }},
		{Better: LowerIsBetter, Unit: "partitions", Meaning: "handoffs where a partition's next owner differs from its previous owner",
			field: func(m *Metrics) any { return &m.MovedPartitions }},
		{Better: LowerIsBetter, Unit: "count", Meaning: "(member, partition) revocations, including eager's revoke-then-get-back",
			field: func(m *Metrics) any { return &m.Revocations }},
		{Better: LowerIsBetter, Unit: "partition-seconds", Meaning: "Σ over partitions of time nobody processed it (unowned, or owner paused/stalled)",
			field: func(m *Metrics) any { return &m.DowntimePartitionSeconds }},
		{Better: LowerIsBetter, Unit: "seconds", Meaning: "longest single stretch one partition went unprocessed",
			field: func(m *Metrics) any { return &m.MaxPartitionGapSeconds }},
		{Better: LowerIsBetter, Unit: "seconds", Meaning: "Σ over live members of time they owned nothing because a rebalance was in progress",
			field: func(m *Metrics) any { return &m.MemberIdleSeconds }},
		{Better: LowerIsBetter, Unit: "seconds", Meaning: "per disturbance, time until the group is stable again (every live process a member that owns exactly its share, nothing pending); the max is reported, `converged: false` if never, or if the disturbance was still in progress at the horizon",
			field: func(m *Metrics) any { return &m.ConvergenceSeconds }},
		{Better: LowerIsBetter, Unit: "seconds", Meaning: "Σ of time a partition had two owners among current group members (safety)",
			field: func(m *Metrics) any { return &m.DoubleOwnershipSeconds }},
		{Better: LowerIsBetter, Unit: "seconds", Meaning: "Σ of time a member the coordinator had fenced or removed went on processing",
			field: func(m *Metrics) any { return &m.ZombieProcessingSeconds }},
		{Better: LowerIsBetter, Unit: "records", Meaning: "the largest total consumer lag (exact: lag is piecewise linear and observed at every change)",
			field: func(m *Metrics) any { return &m.PeakLagRecords }},
		{Better: LowerIsBetter, Unit: "seconds", Meaning: "from the first disturbance until total lag is back to its level just before it (within 1% of the peak, or one record), for good; exact, from the same piecewise-linear lag as the peak, not from the chart's samples",
			field: func(m *Metrics) any { return &m.LagRecoverySeconds }},
		{Better: LowerIsBetter, Unit: "records", Meaning: "records the next owner processes again: those processed since the last successful commit of a partition that was lost (crash, fencing, zombie) or handed over without a commit (see commits below)",
			field: func(m *Metrics) any { return &m.DuplicateRecords }},
		{Better: LowerIsBetter, Unit: "commits", Meaning: "offset commits the coordinator rejected (stale generation or member epoch, unknown member, rebalance in progress; under Kafka 4.3, by each partition's assignment epoch, KIP-1251): their records stay uncommitted",
			field: func(m *Metrics) any { return &m.RejectedCommits }},
		{Better: LowerIsBetter, Unit: "seconds", Meaning: "median end-to-end record latency, production to processing, weighted by records; exact from the lag model (see below)",
			field: func(m *Metrics) any { return &m.LatencyP50Seconds }},
		{Better: LowerIsBetter, Unit: "seconds", Meaning: "99th percentile of end-to-end record latency",
			field: func(m *Metrics) any { return &m.LatencyP99Seconds }},
		{Better: LowerIsBetter, Unit: "seconds", Meaning: "99.9th percentile of end-to-end record latency",
			field: func(m *Metrics) any { return &m.LatencyP999Seconds }},
		{Better: LowerIsBetter, Unit: "seconds", Meaning: "the longest any record of the window waited",
			field: func(m *Metrics) any { return &m.LatencyMaxSeconds }},
		{Better: LowerIsBetter, Unit: "seconds", Meaning: "consumer lag as time: the largest age of the oldest unprocessed record of any partition",
			field: func(m *Metrics) any { return &m.MaxLagSeconds }},
		{Better: LowerIsBetter, Unit: "records", Meaning: "the largest lag of one partition",
			field: func(m *Metrics) any { return &m.PeakPartitionLagRecords }},
		{Better: LowerIsBetter, Unit: "records/s", Meaning: "Σ over moves of the moved partition's rate: a hot partition moved costs more than ten cold ones",
			field: func(m *Metrics) any { return &m.MovedLoadRecordsPerSecond }},
		{Better: LowerIsBetter, Unit: "count", Meaning: "times the autoscaler changed the replica count",
			field: func(m *Metrics) any { return &m.ScaleEvents }},
		{Better: LowerIsBetter, Unit: "replicas", Meaning: "the most live consumer processes at once",
			field: func(m *Metrics) any { return &m.ReplicasMax }},
		{Better: LowerIsBetter, Unit: "replicas", Meaning: "the time-average of live consumer processes",
			field: func(m *Metrics) any { return &m.ReplicasMean }},
		{Better: LowerIsBetter, Unit: "count", Meaning: "direction changes of the autoscaler's replica count",
			field: func(m *Metrics) any { return &m.Oscillation }},
		{Better: LowerIsBetter, Unit: "rebalances/hour", Meaning: "`rebalances` over the window's length",
			field: func(m *Metrics) any { return &m.RebalancesPerHour }},
		{Better: LowerIsBetter, Unit: "member-seconds", Meaning: "Σ of live consumer processes' time: what the pods cost",
			field: func(m *Metrics) any { return &m.MemberSeconds }},
	}
	var probe Metrics
	v := reflect.ValueOf(&probe).Elem()
	for i := range rows {
		p := rows[i].field(&probe)
		for f := range v.NumField() {
			if v.Field(f).Addr().Interface() == p {
				rows[i].Name, _, _ = strings.Cut(v.Type().Field(f).Tag.Get("json"), ",")
			}
		}
		if rows[i].Name == "" {
			panic("sim: a metric row points at no tagged field of Metrics")
		}
	}
	return rows
})

// MetricNames lists the numeric metrics of Metrics by their JSON names, in
// the order of the contract; expectations and reports refer to them so.
func MetricNames() []string {
	var names []string
	for _, x := range metricTable() {
		names = append(names, x.Name)
	}
	return names
}

// Value returns a metric by its JSON name.
func (m Metrics) Value(name string) (float64, bool) {
	for _, x := range metricTable() {
		if x.Name == name {
			return x.Of(&m), true
		}
	}
	return 0, false
}

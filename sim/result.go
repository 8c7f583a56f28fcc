package sim

// Result is the outcome of one run of a scenario under one protocol: the
// machine-readable contract of DESIGN.md ("Results").
type Result struct {
	Scenario string `json:"scenario"`
	Protocol string `json:"protocol"`
	Seed     uint64 `json:"seed"`
	// WindowStart and WindowEnd bound the measurement window (seconds of
	// virtual time): from the first disturbance to the horizon.
	WindowStart float64 `json:"window_start_seconds"`
	WindowEnd   float64 `json:"window_end_seconds"`

	Metrics Metrics `json:"metrics"`
	// Convergence lists, per disturbance, how long the group took to be stable again.
	Convergence []Convergence `json:"convergence"`
	// Members holds per-member KIP-429 client metrics, sorted by member.
	Members []MemberMetrics `json:"members"`
	// LatencyHistogram holds the window's records by latency in fixed
	// log-spaced buckets (only buckets with records are listed).
	LatencyHistogram []LatencyBucket `json:"latency_histogram"`
	// WorstPartitions are the partitions with the largest lag in time,
	// worst first (at most 10).
	WorstPartitions []PartitionMetrics `json:"worst_partitions"`
	// HotPartitions name the partitions producing at least twice their
	// topic's median rate.
	HotPartitions []string `json:"hot_partitions"`
	// DuplicatesByRebalance split duplicate_records by the rebalance that
	// caused them.
	DuplicatesByRebalance []RebalanceDuplicates `json:"duplicates_by_rebalance"`
	// Findings are safety and liveness violations; empty for a healthy run.
	Findings []Finding `json:"findings"`
	// Timeline is the per-partition ownership history (for CSV and charts).
	Timeline []Segment `json:"timeline"`
	// MemberTimeline is the per-member activity history (swim lanes).
	MemberTimeline []MemberSegment `json:"member_timeline"`
	// Series are sampled over virtual time for charts.
	Series Series `json:"series"`
	// Disturbances are the scenario events as they happened.
	Disturbances []Disturbance `json:"disturbances"`
	// DisturbancesNotReached counts scenario events scheduled at or after
	// the horizon: they are neither listed nor judged for convergence.
	DisturbancesNotReached int `json:"disturbances_not_reached,omitempty"`
	// Events counts the kernel events the run executed.
	Events uint64 `json:"events"`
	// Autoscaler is the autoscaler's decisions, when the scenario has one.
	Autoscaler *AutoscalerResult `json:"autoscaler,omitempty"`
}

// Metrics are the protocol-neutral metrics, computed from the ownership
// ledger over the measurement window. JSON names are the contract; each
// numeric metric's unit and meaning are its row of MetricTable.
type Metrics struct {
	Rebalances               int     `json:"rebalances"`
	MovedPartitions          int     `json:"moved_partitions"`
	Revocations              int     `json:"revocations"`
	DowntimePartitionSeconds float64 `json:"downtime_partition_seconds"`
	MaxPartitionGapSeconds   float64 `json:"max_partition_gap_seconds"`
	MemberIdleSeconds        float64 `json:"member_idle_seconds"`
	ConvergenceSeconds       float64 `json:"convergence_seconds"`
	Converged                bool    `json:"converged"`
	DoubleOwnershipSeconds   float64 `json:"double_ownership_seconds"`
	ZombieProcessingSeconds  float64 `json:"zombie_processing_seconds"`
	PeakLagRecords           float64 `json:"peak_lag_records"`
	LagRecoverySeconds       float64 `json:"lag_recovery_seconds"`
	DuplicateRecords         float64 `json:"duplicate_records"`
	// RejectedCommits counts offset commits the coordinator rejected.
	RejectedCommits int `json:"rejected_commits"`
	// End-to-end latency of the records processed in the window, weighted
	// by records (records still waiting at the horizon count with their age).
	LatencyP50Seconds  float64 `json:"latency_p50_seconds"`
	LatencyP99Seconds  float64 `json:"latency_p99_seconds"`
	LatencyP999Seconds float64 `json:"latency_p999_seconds"`
	LatencyMaxSeconds  float64 `json:"latency_max_seconds"`
	// MaxLagSeconds is the largest age of the oldest unprocessed record of
	// any partition: consumer lag as time.
	MaxLagSeconds           float64 `json:"max_lag_seconds"`
	PeakPartitionLagRecords float64 `json:"peak_partition_lag_records"`
	// MovedLoadRecordsPerSecond is Σ over moves of the moved partition's rate.
	MovedLoadRecordsPerSecond float64 `json:"moved_load_records_per_second"`
	// The cost of operations: scale_events and oscillation (direction
	// changes of the replica count) come from the autoscaler; the replicas
	// are the live consumer processes, and member_seconds their time alive,
	// what the pods cost.
	ScaleEvents       int     `json:"scale_events"`
	ReplicasMax       int     `json:"replicas_max"`
	ReplicasMean      float64 `json:"replicas_mean"`
	Oscillation       int     `json:"oscillation"`
	RebalancesPerHour float64 `json:"rebalances_per_hour"`
	MemberSeconds     float64 `json:"member_seconds"`
}

// Convergence is the time the group needed to be stable again after one disturbance.
type Convergence struct {
	Disturbance string  `json:"disturbance"`
	At          float64 `json:"at_seconds"`
	Seconds     float64 `json:"seconds"`
	Converged   bool    `json:"converged"`
	// Latency is over the records processed from this disturbance to the
	// next one (or the horizon).
	Latency LatencyStats `json:"latency"`
}

// MemberMetrics are one member's client metrics under Kafka's names
// (consumer-coordinator-metrics, KIP-429), keyed and sorted by name.
type MemberMetrics struct {
	Member  string        `json:"member"`
	Metrics []NamedMetric `json:"metrics"`
	// Utilisation is the share of its processing capacity the member used
	// over the window.
	Utilisation float64 `json:"utilisation"`
}

// PartitionMetrics are one partition's own measures over the window.
type PartitionMetrics struct {
	Partition string `json:"partition"`
	// Rate is the partition's base production rate (records/s).
	Rate           float64 `json:"rate"`
	Hot            bool    `json:"hot"`
	Moves          int     `json:"moves"`
	PeakLagRecords float64 `json:"peak_lag_records"`
	MaxLagSeconds  float64 `json:"max_lag_seconds"`
}

// RebalanceDuplicates are the duplicate records a rebalance caused: those
// of partitions let go without a commit since the rebalance before it.
type RebalanceDuplicates struct {
	// Rebalance numbers the rebalances of the window from 1; 0 means
	// none completed after the partitions were let go.
	Rebalance   int     `json:"rebalance"`
	At          float64 `json:"at_seconds"`
	Disturbance string  `json:"disturbance"`
	Records     float64 `json:"duplicate_records"`
}

// NamedMetric is one metric with its Kafka name.
type NamedMetric struct {
	Name  string  `json:"name"`
	Value float64 `json:"value"`
}

// Finding is something a reviewer must look at: a safety violation
// (double_ownership: Safety is true), a liveness problem (not_converged,
// join_failure) or a hazard the protocol allows by design
// (zombie_processing: a fenced member that went on processing).
type Finding struct {
	Kind       string   `json:"kind"`
	Safety     bool     `json:"safety"`
	At         float64  `json:"at_seconds"`
	Members    []string `json:"members"`
	Partitions []string `json:"partitions,omitempty"`
	Detail     string   `json:"detail"`
}

// Segment is a stretch of time during which one partition had one owner (or
// none: Owner ""), with that owner's processing state.
type Segment struct {
	Partition string  `json:"partition"`
	Owner     string  `json:"owner"`
	Start     float64 `json:"start"`
	End       float64 `json:"end"`
	// State is processing | stalled | unowned | double.
	State string `json:"state"`
}

// MemberSegment is a stretch of time of one member in one activity state:
// processing | rebalancing | paused | stalled | fenced | down | idle.
type MemberSegment struct {
	Member string  `json:"member"`
	State  string  `json:"state"`
	Start  float64 `json:"start"`
	End    float64 `json:"end"`
}

// Series holds metrics sampled at fixed virtual-time steps for charts.
type Series struct {
	Step float64 `json:"step_seconds"`
	// Times are the sample instants in seconds.
	Times []float64 `json:"times"`
	// Processing is the fraction of partitions being processed.
	Processing []float64 `json:"processing_fraction"`
	// Lag is the total consumer lag in records.
	Lag []float64 `json:"lag_records"`
	// LagMax is the highest total lag in the step that ends at each
	// sample (from the window's start on; before it, the sample): what a
	// chart draws, so that its highest point is peak_lag_records however
	// coarse the sampling.
	LagMax []float64 `json:"lag_max_records"`
	// Moved and Revocations are cumulative counts.
	Moved       []float64 `json:"moved_cumulative"`
	Revocations []float64 `json:"revocations_cumulative"`
	// Latency are latency percentiles over the window, in coarser steps.
	Latency LatencySeries `json:"latency"`
}

// Disturbance is a scenario event as it happened.
type Disturbance struct {
	Kind    string   `json:"kind"`
	Members []string `json:"members,omitempty"`
	Start   float64  `json:"start"`
	End     float64  `json:"end"`
	Label   string   `json:"label"`
}

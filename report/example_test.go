package report_test

import (
	"os"

	"github.com/rebalsim/rebalsim/report"
	"github.com/rebalsim/rebalsim/sim"
)

// A report is built from runs; here two runs are written by hand with a
// few metrics, as a simulator run would fill them.
func ExampleTable() {
	r := &report.Report{
		Version:  "v0.1.0",
		Scenario: report.ScenarioInfo{Name: "scale-out", Seed: 1, Duration: 120},
		Runs: []*sim.Result{
			{Protocol: "eager", Metrics: sim.Metrics{Rebalances: 1, MovedPartitions: 6, Revocations: 12,
				DowntimePartitionSeconds: 37.8, MaxPartitionGapSeconds: 3.15, ConvergenceSeconds: 3.2, Converged: true}},
			{Protocol: "cooperative", Metrics: sim.Metrics{Rebalances: 2, MovedPartitions: 3, Revocations: 3,
				DowntimePartitionSeconds: 0.9, MaxPartitionGapSeconds: 0.3, ConvergenceSeconds: 0.6, Converged: true}},
		},
	}
	report.Table(os.Stdout, r)
	// Output:
	// scenario scale-out (seed 1, horizon 120s, rebalsim v0.1.0)
	//
	//   metric                           eager  cooperative
	//   rebalances                          1*           2
	//   moved_partitions                    6            3*
	//   revocations                        12            3*
	//   downtime_partition_seconds     37.800        0.900*
	//   max_partition_gap_seconds       3.150        0.300*
	//   member_idle_seconds             0.000        0.000
	//   convergence_seconds             3.200        0.600*
	//   double_ownership_seconds        0.000        0.000
	//   zombie_processing_seconds       0.000        0.000
	//   peak_lag_records                    0            0
	//   lag_recovery_seconds            0.000        0.000
	//   duplicate_records                   0            0
	//   rejected_commits                    0            0
	//   latency_p50_seconds             0.000        0.000
	//   latency_p99_seconds             0.000        0.000
	//   latency_p999_seconds            0.000        0.000
	//   latency_max_seconds             0.000        0.000
	//   max_lag_seconds                 0.000        0.000
	//   peak_partition_lag_records          0            0
	//   moved_load_records_per_second       0            0
	//   scale_events                        0            0
	//   replicas_max                        0            0
	//   replicas_mean                       0            0
	//   oscillation                         0            0
	//   rebalances_per_hour                 0            0
	//   member_seconds                  0.000        0.000
	//   converged                         yes          yes
	//   * best of the row (every metric is a cost: lower is better)
	//
	// findings: none
	//
	// convergence: no disturbances
}

// CSV output is long form, one row per run and metric, for scripts.
func ExampleCSV() {
	r := &report.Report{
		Version: "v0.1.0",
		Runs:    []*sim.Result{{Protocol: "nextgen", Metrics: sim.Metrics{Rebalances: 1, MovedPartitions: 3, Converged: true}}},
	}
	report.CSV(os.Stdout, r)
	// Output:
	// protocol,metric,value
	// nextgen,rebalances,1
	// nextgen,moved_partitions,3
	// nextgen,revocations,0
	// nextgen,downtime_partition_seconds,0
	// nextgen,max_partition_gap_seconds,0
	// nextgen,member_idle_seconds,0
	// nextgen,convergence_seconds,0
	// nextgen,double_ownership_seconds,0
	// nextgen,zombie_processing_seconds,0
	// nextgen,peak_lag_records,0
	// nextgen,lag_recovery_seconds,0
	// nextgen,duplicate_records,0
	// nextgen,rejected_commits,0
	// nextgen,latency_p50_seconds,0
	// nextgen,latency_p99_seconds,0
	// nextgen,latency_p999_seconds,0
	// nextgen,latency_max_seconds,0
	// nextgen,max_lag_seconds,0
	// nextgen,peak_partition_lag_records,0
	// nextgen,moved_load_records_per_second,0
	// nextgen,scale_events,0
	// nextgen,replicas_max,0
	// nextgen,replicas_mean,0
	// nextgen,oscillation,0
	// nextgen,rebalances_per_hour,0
	// nextgen,member_seconds,0
	// nextgen,converged,true
}

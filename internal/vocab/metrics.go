package vocab

// metrics are the reports' metrics by name, in the order the reports show
// them: what a workload's expect: predicts, and what chaos compare's
// -threshold and a calibration's thresholds name. Package report defines
// each (its unit, which way is better, how it is read from a summary) in
// the same order; a test of report holds the two lists equal, so that a
// workload naming a metric is checked against the list that defines it.
var metrics = []string{
	"pause_p50_ms",
	"pause_p95_ms",
	"pause_max_ms",
	"target_pause_p50_ms",
	"target_pause_p95_ms",
	"other_pause_p50_ms",
	"other_pause_p95_ms",
	"other_pauses",
	"partition_seconds",
	"take_on_ms",
	"group_stop_ms",
	"kept_stall_ms",
	"recovery_ms",
	"duplicates",
	"lost",
	"committed_ahead",
	"reorders",
	"overlap",
	"output_duplicates",
	"lost_outputs",
	"aborted_reads",
	"work_redone",
	"txn_commit_p95_ms",
	"net_zombie_records",
	"net_zombie_duplicates",
	"net_failed_commits",
	"net_learned_ms",
	"skew_max_over_mean",
	"hottest_share",
	"load_max_over_mean",
	"load_after_max_over_mean",
	"partitions_max_over_mean",
	"partitions_spread",
	"moved",
	"excess_moves",
	"latency_p50_steady_ms",
	"latency_p99_steady_ms",
	"latency_p99_disruption_ms",
	"latency_p99_e2e_ms",
	"throughput",
	"scale_steps",
	"scale_flaps",
	"scale_pause_p50_ms",
	"scale_pause_p95_ms",
	"scale_group_stop_ms",
	"scale_duplicates",
	"scale_lag_over_threshold",
}

// MetricNames returns the reports' metrics by name.
func MetricNames() []string { return append([]string(nil), metrics...) }

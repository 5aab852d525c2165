package report

import (
	"fmt"
	"math"

	"github.com/chaosbench/chaosbench/internal/stat"
	"github.com/chaosbench/chaosbench/internal/summary"
)

// Metric is one number of a summary that reports show and compare tests.
type Metric struct {
	Name  string // snake_case, as on the command line (-threshold NAME=...)
	Label string // for tables
	Unit  string // "ms", "records", "ratio", "s", ""
	// LowerIsBetter says which way a change is a regression.
	LowerIsBetter bool
	// Value extracts the metric; ok is false when the summary has no value
	// for it (no disruption, nothing recovered).
	Value func(*summary.Summary) (v float64, ok bool)
	// Timing: a time the host can distort. A cell timed on a saturated
	// host (its host check) gives no sample of it: its number describes
	// the machine.
	Timing bool
	// Traffic: the workload's own figure, the same for every strategy.
	Traffic bool
	// Network: a figure of network steps, which a table shows only when
	// some cell of it has one.
	Network bool
	// Field is the summary.json field the value is read from: a summary
	// an older analysis wrote without it has no value for the metric
	// (summary.Summary.Has), never a zero.
	Field string
	// Changed is the analysis revision (summary.Revision) in which the
	// metric's definition last changed, or the metric was added: two
	// summaries of revisions on either side of it measured different
	// things (docs/summary.md, "Revisions").
	Changed int
	// ExactlyOnce: a figure of the exactly-once comparison, which the
	// summary table shows only in a run with a transactional cell: the
	// exactly_once section's figures, and the throughput and end-to-end
	// latency every cell has and the transactional policy is weighed by.
	ExactlyOnce bool
}

// Of returns the metric's value in a summary; ok is false when the
// summary has none (no disruption, nothing recovered, or a summary
// written before the metric existed).
func (m Metric) Of(s *summary.Summary) (v float64, ok bool) {
	if !s.Has(m.Field) {
		return 0, false
	}
	return m.Value(s)
}

// ifExactlyOnce reads a figure of the exactly_once section, which only a
// transactional cell has.
func ifExactlyOnce(f func(*summary.ExactlyOnceResult) float64) func(*summary.Summary) (float64, bool) {
	return func(s *summary.Summary) (float64, bool) {
		if s.ExactlyOnce == nil {
			return 0, false
		}
		return f(s.ExactlyOnce), true
	}
}

// ifVerified reads a figure of the output topic, which only a verified
// one has: an output never read shows none, not a clean 0.
func ifVerified(f func(*summary.ExactlyOnceResult) float64) func(*summary.Summary) (float64, bool) {
	return func(s *summary.Summary) (float64, bool) {
		if s.ExactlyOnce == nil || !s.ExactlyOnce.Verified {
			return 0, false
		}
		return f(s.ExactlyOnce), true
	}
}

func always(f func(*summary.Summary) float64) func(*summary.Summary) (float64, bool) {
	return func(s *summary.Summary) (float64, bool) { return f(s), true }
}

func ifPauses(f func(*summary.Summary) float64) func(*summary.Summary) (float64, bool) {
	return func(s *summary.Summary) (float64, bool) { return f(s), s.Pause.Stats.Count > 0 }
}

// Metrics are the figures of the summary table, in order.
var Metrics = []Metric{
	{Name: "pause_p50_ms", Field: "pause.stats", Changed: 1, Label: "partition pause p50", Unit: "ms", LowerIsBetter: true, Timing: true, Value: ifPauses(func(s *summary.Summary) float64 { return s.Pause.Stats.P50 })},
	{Name: "pause_p95_ms", Field: "pause.stats", Changed: 1, Label: "partition pause p95", Unit: "ms", LowerIsBetter: true, Timing: true, Value: ifPauses(func(s *summary.Summary) float64 { return s.Pause.Stats.P95 })},
	{Name: "pause_max_ms", Field: "pause.stats", Changed: 1, Label: "partition pause max", Unit: "ms", LowerIsBetter: true, Timing: true, Value: ifPauses(func(s *summary.Summary) float64 { return s.Pause.Stats.Max })},
	{Name: "target_pause_p50_ms", Field: "pause.target_stats", Changed: 1, Label: "pause p50, the target's partitions", Unit: "ms", LowerIsBetter: true, Timing: true, Value: ifCount(func(s *summary.Summary) summary.Stats { return s.Pause.TargetStats }, func(st summary.Stats) float64 { return st.P50 })},
	{Name: "target_pause_p95_ms", Field: "pause.target_stats", Changed: 1, Label: "pause p95, the target's partitions", Unit: "ms", LowerIsBetter: true, Timing: true, Value: ifCount(func(s *summary.Summary) summary.Stats { return s.Pause.TargetStats }, func(st summary.Stats) float64 { return st.P95 })},
	{Name: "other_pause_p50_ms", Field: "pause.other_stats", Changed: 1, Label: "pause p50, the other partitions", Unit: "ms", LowerIsBetter: true, Timing: true, Value: ifCount(func(s *summary.Summary) summary.Stats { return s.Pause.OtherStats }, func(st summary.Stats) float64 { return st.P50 })},
	{Name: "other_pause_p95_ms", Field: "pause.other_stats", Changed: 1, Label: "pause p95, the other partitions", Unit: "ms", LowerIsBetter: true, Timing: true, Value: ifCount(func(s *summary.Summary) summary.Stats { return s.Pause.OtherStats }, func(st summary.Stats) float64 { return st.P95 })},
	{Name: "other_pauses", Field: "pause.other_stats", Changed: 1, Label: "partitions paused beyond the target's", Unit: "", LowerIsBetter: true, Value: always(func(s *summary.Summary) float64 { return float64(s.Pause.OtherStats.Count) })},
	{Name: "partition_seconds", Field: "pause.partition_seconds", Changed: 1, Label: "partition-seconds without processing", Unit: "s", LowerIsBetter: true, Timing: true, Value: always(func(s *summary.Summary) float64 { return s.Pause.PartitionSeconds })},
	{Name: "take_on_ms", Field: "disruptions", Changed: 1, Label: "time to take on new partitions (longest)", Unit: "ms", LowerIsBetter: true, Timing: true, Value: takeOn},
	{Name: "group_stop_ms", Field: "group_stop.max_ms", Changed: 1, Label: "group stop (longest)", Unit: "ms", LowerIsBetter: true, Timing: true, Value: always(func(s *summary.Summary) float64 { return s.GroupStop.MaxMs })},
	{Name: "kept_stall_ms", Field: "group_stop", Changed: 1, Label: "stall of kept partitions (longest)", Unit: "ms", LowerIsBetter: true, Timing: true, Value: func(s *summary.Summary) (float64, bool) {
		// Summaries written before it was measured have none.
		if s.GroupStop.KeptStallMaxMs == nil {
			return 0, false
		}
		return *s.GroupStop.KeptStallMaxMs, true
	}},
	{Name: "recovery_ms", Field: "recovery.max_ms", Changed: 1, Label: "recovery (longest)", Unit: "ms", LowerIsBetter: true, Timing: true, Value: func(s *summary.Summary) (float64, bool) {
		return s.Recovery.MaxMs, s.Recovery.Recovered > 0 && s.Recovery.NotRecovered == 0
	}},
	{Name: "duplicates", Field: "duplicates.count", Changed: 1, Label: "duplicates", Unit: "records", LowerIsBetter: true, Value: always(func(s *summary.Summary) float64 { return float64(s.Duplicates.Count) })},
	{Name: "lost", Field: "loss.lost", Changed: 1, Label: "lost", Unit: "records", LowerIsBetter: true, Value: always(func(s *summary.Summary) float64 { return float64(s.Loss.Lost) })},
	{Name: "committed_ahead", Field: "loss.committed_ahead", Changed: 1, Label: "lost, committed before processed", Unit: "records", LowerIsBetter: true, Value: always(func(s *summary.Summary) float64 { return float64(s.Loss.CommittedAhead) })},
	{Name: "reorders", Field: "ordering.reorders", Changed: 1, Label: "reorders", Unit: "records", LowerIsBetter: true, Value: always(func(s *summary.Summary) float64 { return float64(s.Ordering.Reorders) })},
	{Name: "overlap", Field: "overlap.events", Changed: 1, Label: "zombie processing", Unit: "records", LowerIsBetter: true, Value: always(func(s *summary.Summary) float64 { return float64(s.Overlap.Events) })},
	{Name: "output_duplicates", ExactlyOnce: true, Field: "exactly_once.output_duplicates", Changed: 2, Label: "output duplicates (read_committed)", Unit: "records", LowerIsBetter: true, Value: ifVerified(func(r *summary.ExactlyOnceResult) float64 { return float64(r.OutputDuplicates) })},
	{Name: "lost_outputs", ExactlyOnce: true, Field: "exactly_once.lost_outputs", Changed: 2, Label: "lost outputs", Unit: "records", LowerIsBetter: true, Value: ifVerified(func(r *summary.ExactlyOnceResult) float64 { return float64(r.LostOutputs) })},
	{Name: "aborted_reads", ExactlyOnce: true, Field: "exactly_once.aborted_reads", Changed: 2, Label: "aborted reads", Unit: "records", LowerIsBetter: true, Value: ifVerified(func(r *summary.ExactlyOnceResult) float64 { return float64(r.AbortedReads) })},
	{Name: "work_redone", ExactlyOnce: true, Field: "exactly_once.work_redone", Changed: 2, Label: "work redone (aborted transactions)", Unit: "records", LowerIsBetter: true, Value: ifExactlyOnce(func(r *summary.ExactlyOnceResult) float64 { return float64(r.WorkRedone) })},
	{Name: "txn_commit_p95_ms", ExactlyOnce: true, Field: "exactly_once.commit_latency", Changed: 2, Label: "transaction commit p95", Unit: "ms", LowerIsBetter: true, Timing: true, Value: func(s *summary.Summary) (float64, bool) {
		if s.ExactlyOnce == nil || s.ExactlyOnce.CommitLatency.Count == 0 {
			return 0, false
		}
		return s.ExactlyOnce.CommitLatency.P95, true
	}},
	{Name: "net_zombie_records", Network: true, Field: "network.zombie_records", Changed: 2, Label: "zombie records after a network cut", Unit: "records", LowerIsBetter: true, Value: ifNetwork(func(s *summary.Summary) float64 { return float64(s.Network.ZombieRecords) })},
	{Name: "net_zombie_duplicates", Network: true, Field: "network.zombie_duplicates", Changed: 2, Label: "duplicates of those zombie records", Unit: "records", LowerIsBetter: true, Value: ifNetwork(func(s *summary.Summary) float64 { return float64(s.Network.ZombieDuplicates) })},
	{Name: "net_failed_commits", Network: true, Field: "network.failed_commits", Changed: 2, Label: "failed commits of a member cut off", Unit: "", LowerIsBetter: true, Value: ifNetwork(func(s *summary.Summary) float64 { return float64(s.Network.FailedCommits) })},
	{Name: "net_learned_ms", Network: true, Field: "network.learned_max_ms", Changed: 2, Label: "time from a heal to the evicted member learning it (longest)", Unit: "ms", LowerIsBetter: true, Timing: true, Value: func(s *summary.Summary) (float64, bool) {
		if s.Network.LearnedMaxMs == nil {
			return 0, false
		}
		return *s.Network.LearnedMaxMs, true
	}},
	{Name: "skew_max_over_mean", Field: "skew.max_over_mean", Changed: 1, Label: "records per partition, max / mean", Unit: "ratio", LowerIsBetter: true, Traffic: true, Value: func(s *summary.Summary) (float64, bool) {
		return s.Skew.MaxOverMean, s.Skew.MaxOverMean > 0
	}},
	{Name: "hottest_share", Field: "skew.hottest_share", Changed: 1, Label: "share of the hottest partition", Unit: "ratio", LowerIsBetter: true, Traffic: true, Value: func(s *summary.Summary) (float64, bool) {
		return s.Skew.HottestShare, s.Skew.HottestShare > 0
	}},
	{Name: "load_max_over_mean", Field: "skew.load_max_over_mean", Changed: 1, Label: "records per member per owned second, max / mean", Unit: "ratio", LowerIsBetter: true, Value: func(s *summary.Summary) (float64, bool) {
		return s.Skew.LoadMaxOverMean, s.Skew.LoadMaxOverMean > 0
	}},
	{Name: "load_after_max_over_mean", Field: "skew.load", Changed: 1, Label: "records per member after a disruption, max / mean (worst)", Unit: "ratio", LowerIsBetter: true, Value: loadAfter},
	{Name: "partitions_max_over_mean", Field: "skew.partitions_max_over_mean", Changed: 1, Label: "partitions per member, max / mean", Unit: "ratio", LowerIsBetter: true, Value: func(s *summary.Summary) (float64, bool) {
		return s.Skew.PartitionsMaxOverMean, s.Skew.PartitionsMaxOverMean > 0
	}},
	{Name: "partitions_spread", Field: "skew.spread", Changed: 1, Label: "partitions per member, max - min", Unit: "", LowerIsBetter: true, Value: always(func(s *summary.Summary) float64 { return float64(s.Skew.Spread) })},
	{Name: "moved", Field: "movement.moved", Changed: 1, Label: "partitions moved", Unit: "", LowerIsBetter: true, Value: always(func(s *summary.Summary) float64 { return float64(s.Movement.Moved) })},
	{Name: "excess_moves", Field: "movement.min_moves", Changed: 1, Label: "moves beyond the minimum", Unit: "", LowerIsBetter: true, Value: always(func(s *summary.Summary) float64 {
		return float64(s.Movement.Moved - s.Movement.MinMoves)
	})},
	{Name: "latency_p50_steady_ms", Field: "latency.steady", Changed: 1, Label: "latency p50, steady", Unit: "ms", LowerIsBetter: true, Timing: true, Value: func(s *summary.Summary) (float64, bool) {
		return s.Latency.Steady.P50, s.Latency.Steady.Count > 0
	}},
	{Name: "latency_p99_steady_ms", Field: "latency.steady", Changed: 1, Label: "latency p99, steady", Unit: "ms", LowerIsBetter: true, Timing: true, Value: func(s *summary.Summary) (float64, bool) {
		return s.Latency.Steady.P99, s.Latency.Steady.Count > 0
	}},
	{Name: "latency_p99_disruption_ms", Field: "latency.disruption", Changed: 1, Label: "latency p99, disruptions", Unit: "ms", LowerIsBetter: true, Timing: true, Value: func(s *summary.Summary) (float64, bool) {
		return s.Latency.Disruption.P99, s.Latency.Disruption.Count > 0
	}},
	{Name: "latency_p99_e2e_ms", ExactlyOnce: true, Field: "latency.overall", Changed: 3, Label: "latency p99, end to end", Unit: "ms", LowerIsBetter: true, Timing: true, Value: endToEndP99},
	{Name: "throughput", ExactlyOnce: true, Field: "throughput", Changed: 3, Label: "throughput", Unit: "records/s", Timing: true, Value: func(s *summary.Summary) (float64, bool) {
		return s.Throughput.PerSecond, s.Throughput.PerSecond > 0
	}},
	{Name: "scale_steps", Field: "autoscale", Changed: 2, Label: "autoscaler's scale steps", Unit: "", LowerIsBetter: true, Value: ifScaled(func(r *summary.AutoscaleResult) float64 { return float64(r.Steps) })},
	{Name: "scale_flaps", Field: "autoscale", Changed: 2, Label: "autoscaler's changes of direction", Unit: "", LowerIsBetter: true, Value: ifScaled(func(r *summary.AutoscaleResult) float64 { return float64(r.Flaps) })},
	{Name: "scale_pause_p50_ms", Field: "autoscale", Changed: 2, Label: "longest pause of a scale step, p50", Unit: "ms", LowerIsBetter: true, Timing: true, Value: ifScaled(func(r *summary.AutoscaleResult) float64 { return r.StepPause.P50 })},
	{Name: "scale_pause_p95_ms", Field: "autoscale", Changed: 2, Label: "longest pause of a scale step, p95", Unit: "ms", LowerIsBetter: true, Timing: true, Value: ifScaled(func(r *summary.AutoscaleResult) float64 { return r.StepPause.P95 })},
	{Name: "scale_group_stop_ms", Field: "autoscale", Changed: 2, Label: "group stop of a scale step (longest)", Unit: "ms", LowerIsBetter: true, Timing: true, Value: ifScaled(func(r *summary.AutoscaleResult) float64 { return r.GroupStopMaxMs })},
	{Name: "scale_duplicates", Field: "autoscale", Changed: 2, Label: "duplicates of scale steps", Unit: "records", LowerIsBetter: true, Value: ifScaled(func(r *summary.AutoscaleResult) float64 { return float64(r.Duplicates) })},
	{Name: "scale_lag_over_threshold", Field: "autoscale", Changed: 2, Label: "highest lag per member / lagThreshold", Unit: "ratio", LowerIsBetter: true, Timing: true, Value: ifScaled(func(r *summary.AutoscaleResult) float64 { return r.MaxLagOverThreshold })},
}

// endToEndP99 is the p99 of the time from a record's intended send to
// when its effect could be seen downstream, after the warmup: its
// output's commit under the transactional policy (exactly_once's
// visible latency), its first processing under the others (latency's
// overall).
func endToEndP99(s *summary.Summary) (float64, bool) {
	if e := s.ExactlyOnce; e != nil {
		return e.VisibleLatency.P99, e.VisibleLatency.Count > 0
	}
	return s.Latency.Overall.P99, s.Latency.Overall.Count > 0
}

// ifScaled gives a figure of the autoscaler's result, when the cell had
// scale steps.
func ifScaled(f func(*summary.AutoscaleResult) float64) func(*summary.Summary) (float64, bool) {
	return func(s *summary.Summary) (float64, bool) {
		if s.Autoscale == nil {
			return 0, false
		}
		return f(s.Autoscale), true
	}
}

// ifNetwork gives a figure of the network steps, when the cell had one
// that cut a member off.
func ifNetwork(f func(*summary.Summary) float64) func(*summary.Summary) (float64, bool) {
	return func(s *summary.Summary) (float64, bool) { return f(s), len(s.Network.Steps) > 0 }
}

// ifCount gives a statistic of a population of pauses, when it has any.
func ifCount(pop func(*summary.Summary) summary.Stats, f func(summary.Stats) float64) func(*summary.Summary) (float64, bool) {
	return func(s *summary.Summary) (float64, bool) {
		st := pop(s)
		return f(st), st.Count > 0
	}
}

// takeOn is the longest time the group took to take on the partitions of
// an add_partitions step (headline disruptions); none when no step added
// partitions, or one's were never all taken on.
func takeOn(s *summary.Summary) (float64, bool) {
	v, ok := 0.0, false
	for _, d := range s.Disruptions {
		if d.NewPartitions == 0 || summary.PreSteady(d.Phase) {
			continue
		}
		if d.TakeOnMs == nil {
			return 0, false
		}
		v, ok = max(v, *d.TakeOnMs), true
	}
	return v, ok
}

// loadAfter is the worst records-per-member max / mean over the settled
// intervals that follow a disruption.
func loadAfter(s *summary.Summary) (float64, bool) {
	v, ok := 0.0, false
	for _, l := range s.Skew.Load {
		if l.After > 0 && l.RecordsMaxOverMean > 0 {
			v, ok = max(v, l.RecordsMaxOverMean), true
		}
	}
	return v, ok
}

// MetricByName finds a metric.
func MetricByName(name string) (Metric, bool) {
	for _, m := range Metrics {
		if m.Name == name {
			return m, true
		}
	}
	return Metric{}, false
}

// Samples returns a metric's values over a group's cells (cells without a
// value are left out, and so are the timings of cells measured on a
// saturated host).
func (m Metric) Samples(g *Group) []float64 {
	var out []float64
	for _, c := range g.Cells {
		if m.Timing && c.S.Host.Saturated {
			continue
		}
		if v, ok := m.Of(c.S); ok {
			out = append(out, v)
		}
	}
	return out
}

// hostBound reports whether the metric is a timing and every cell of g
// that has a value for it was timed on a saturated host.
func (m Metric) hostBound(g *Group) bool {
	if !m.Timing {
		return false
	}
	any := false
	for _, c := range g.Cells {
		if _, ok := m.Of(c.S); ok {
			if !c.S.Host.Saturated {
				return false
			}
			any = true
		}
	}
	return any
}

// Median returns the median of xs (the mean of the middle two for an
// even count), NaN for none: stat.Median, by the name report's files use.
func Median(xs []float64) float64 { return stat.Median(xs) }

// Format renders a metric value for a table.
func (m Metric) Format(v float64) string {
	if math.IsNaN(v) {
		return "–"
	}
	switch m.Unit {
	case "ms":
		return FormatMs(v)
	case "s":
		return fmt.Sprintf("%.1f s", v)
	case "ratio":
		return fmt.Sprintf("%.2f", v)
	case "records/s":
		return formatCount(math.Round(v)) + "/s"
	}
	return formatCount(v)
}

// FormatMs renders milliseconds readably: "850 ms", "12.3 s", "2 min 5 s".
func FormatMs(ms float64) string {
	switch {
	case math.IsNaN(ms):
		return "–"
	case ms == 0:
		return "0"
	case ms < 10:
		return fmt.Sprintf("%.1f ms", ms)
	case ms < 1000:
		return fmt.Sprintf("%.0f ms", ms)
	case ms < 60_000:
		return fmt.Sprintf("%.1f s", ms/1000)
	}
	return fmt.Sprintf("%d min %d s", int(ms/60_000), int(math.Mod(ms, 60_000)/1000))
}

func formatCount(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		n := int64(v)
		s := fmt.Sprint(n)
		if n >= 10_000 || n <= -10_000 {
			// Thin groups of three: 12 345 678.
			neg := n < 0
			if neg {
				s = s[1:]
			}
			var out []byte
			for i := range s {
				if i > 0 && (len(s)-i)%3 == 0 {
					out = append(out, ' ')
				}
				out = append(out, s[i])
			}
			s = string(out)
			if neg {
				s = "-" + s
			}
		}
		return s
	}
	return fmt.Sprintf("%.2f", v)
}

// hostValues are a timing's values over the cells timed on a saturated
// host: shown beside the mark, never as the group's figure.
func (m Metric) hostValues(g *Group) []float64 {
	var out []float64
	for _, c := range g.Cells {
		if !c.S.Host.Saturated {
			continue
		}
		if v, ok := m.Of(c.S); ok {
			out = append(out, v)
		}
	}
	return out
}

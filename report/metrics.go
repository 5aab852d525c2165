package report

import (
	"fmt"
	"math"
	"sort"

	"github.com/chaosbench/chaosbench/internal/check"
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
	Value func(*check.Summary) (v float64, ok bool)
}

func always(f func(*check.Summary) float64) func(*check.Summary) (float64, bool) {
	return func(s *check.Summary) (float64, bool) { return f(s), true }
}

func ifPauses(f func(*check.Summary) float64) func(*check.Summary) (float64, bool) {
	return func(s *check.Summary) (float64, bool) { return f(s), s.Pause.Stats.Count > 0 }
}

// Metrics are the figures of the summary table, in order.
var Metrics = []Metric{
	{"pause_p50_ms", "partition pause p50", "ms", true, ifPauses(func(s *check.Summary) float64 { return s.Pause.Stats.P50 })},
	{"pause_p95_ms", "partition pause p95", "ms", true, ifPauses(func(s *check.Summary) float64 { return s.Pause.Stats.P95 })},
	{"pause_max_ms", "partition pause max", "ms", true, ifPauses(func(s *check.Summary) float64 { return s.Pause.Stats.Max })},
	{"partition_seconds", "partition-seconds without processing", "s", true, always(func(s *check.Summary) float64 { return s.Pause.PartitionSeconds })},
	{"group_stop_ms", "group stop (longest)", "ms", true, always(func(s *check.Summary) float64 { return s.GroupStop.MaxMs })},
	{"kept_stall_ms", "stall of kept partitions (longest)", "ms", true, func(s *check.Summary) (float64, bool) {
		// Summaries written before it was measured have none.
		if s.GroupStop.KeptStallMaxMs == nil {
			return 0, false
		}
		return *s.GroupStop.KeptStallMaxMs, true
	}},
	{"recovery_ms", "recovery (longest)", "ms", true, func(s *check.Summary) (float64, bool) {
		return s.Recovery.MaxMs, s.Recovery.Recovered > 0 && s.Recovery.NotRecovered == 0
	}},
	{"duplicates", "duplicates", "records", true, always(func(s *check.Summary) float64 { return float64(s.Duplicates.Count) })},
	{"lost", "lost", "records", true, always(func(s *check.Summary) float64 { return float64(s.Loss.Lost) })},
	{"reorders", "reorders", "records", true, always(func(s *check.Summary) float64 { return float64(s.Ordering.Reorders) })},
	{"overlap", "zombie processing", "records", true, always(func(s *check.Summary) float64 { return float64(s.Overlap.Events) })},
	{"skew_max_over_mean", "records per partition, max / mean", "ratio", true, func(s *check.Summary) (float64, bool) {
		return s.Skew.MaxOverMean, s.Skew.MaxOverMean > 0
	}},
	{"hottest_share", "share of the hottest partition", "ratio", true, func(s *check.Summary) (float64, bool) {
		return s.Skew.HottestShare, s.Skew.HottestShare > 0
	}},
	{"partitions_spread", "partitions per member, max - min", "", true, always(func(s *check.Summary) float64 { return float64(s.Skew.Spread) })},
	{"moved", "partitions moved", "", true, always(func(s *check.Summary) float64 { return float64(s.Movement.Moved) })},
	{"excess_moves", "moves beyond the minimum", "", true, always(func(s *check.Summary) float64 {
		return float64(s.Movement.Moved - s.Movement.MinMoves)
	})},
	{"latency_p50_steady_ms", "latency p50, steady", "ms", true, func(s *check.Summary) (float64, bool) {
		return s.Latency.Steady.P50, s.Latency.Steady.Count > 0
	}},
	{"latency_p99_steady_ms", "latency p99, steady", "ms", true, func(s *check.Summary) (float64, bool) {
		return s.Latency.Steady.P99, s.Latency.Steady.Count > 0
	}},
	{"latency_p99_disruption_ms", "latency p99, disruptions", "ms", true, func(s *check.Summary) (float64, bool) {
		return s.Latency.Disruption.P99, s.Latency.Disruption.Count > 0
	}},
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
// value are left out).
func (m Metric) Samples(g *Group) []float64 {
	var out []float64
	for _, c := range g.Cells {
		if v, ok := m.Value(c.S); ok {
			out = append(out, v)
		}
	}
	return out
}

// Median returns the median of xs (the mean of the middle two for an
// even count), NaN for none.
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

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

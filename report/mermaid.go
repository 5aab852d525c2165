package report

import (
	"math"
	"strconv"
	"strings"
)

// Mermaid charts are report.md's figures. report.md is meant for a GitHub
// job summary, where a link to a PNG of the results folder is dead (the
// folder is an artifact, not a page), but a ```mermaid block is drawn:
// GitHub renders Mermaid in Markdown. The PNG and SVG figures stay for
// report.html and for readers of the folder itself.
//
// Each chart is an xychart-beta bar chart, one bar per group (the median
// of its iterations), in the grammar Mermaid documents:
//
//	xychart-beta
//	    title "..."
//	    x-axis ["a", "b"]
//	    y-axis "unit" 0 --> max
//	    bar [1.5, 2]
//
// Only what that grammar allows is written: every text quoted, with no
// double quote inside; plain decimal numbers, never NaN, Inf or an
// exponent. A group without a value for a metric is left out of its
// chart rather than drawn as 0.

// mermaidCharts are the metrics report.md draws.
var mermaidCharts = []struct {
	metric, title string
}{
	{"pause_p95_ms", "Partition pause p95 per strategy (ms)"},
	{"group_stop_ms", "Group stop, longest (ms)"},
	{"duplicates", "Duplicates per commit policy (records)"},
	{"latency_p99_disruption_ms", "Latency p99 during disruptions (ms)"},
}

// headlineCharts are the charts of a run's groups, as Mermaid source.
func headlineCharts(gs []*Group) []string {
	labels := groupLabels(gs)
	var out []string
	for _, c := range mermaidCharts {
		m, ok := MetricByName(c.metric)
		if !ok {
			continue
		}
		var xs []string
		var ys []float64
		for i, g := range gs {
			v := Median(m.Samples(g))
			if math.IsNaN(v) || math.IsInf(v, 0) {
				continue
			}
			xs = append(xs, labels[i])
			ys = append(ys, v)
		}
		if len(xs) == 0 {
			continue
		}
		out = append(out, mermaidBar(c.title, m.Unit, xs, ys))
	}
	return out
}

// mermaidBar renders one bar chart.
func mermaidBar(title, unit string, xs []string, ys []float64) string {
	var b strings.Builder
	b.WriteString("xychart-beta\n")
	b.WriteString("    title " + mermaidText(title) + "\n")
	quoted := make([]string, len(xs))
	for i, x := range xs {
		quoted[i] = mermaidText(x)
	}
	b.WriteString("    x-axis [" + strings.Join(quoted, ", ") + "]\n")
	top := 0.0
	for _, y := range ys {
		top = math.Max(top, y)
	}
	if top == 0 {
		top = 1 // an axis from 0 to 0 draws nothing
	}
	b.WriteString("    y-axis " + mermaidText(unit) + " 0 --> " + mermaidNumber(niceCeil(top)) + "\n")
	nums := make([]string, len(ys))
	for i, y := range ys {
		nums[i] = mermaidNumber(y)
	}
	b.WriteString("    bar [" + strings.Join(nums, ", ") + "]\n")
	return b.String()
}

// mermaidText quotes a text for Mermaid; a double quote cannot appear in
// a quoted text, so it becomes a single one.
func mermaidText(s string) string {
	if s == "" {
		s = "count"
	}
	return `"` + strings.ReplaceAll(s, `"`, `'`) + `"`
}

// mermaidNumber writes a number as a plain decimal with at most one
// decimal place (no exponent).
func mermaidNumber(v float64) string {
	return strconv.FormatFloat(math.Round(v*10)/10, 'f', -1, 64)
}

// niceCeil rounds v up to 1, 2 or 5 times a power of ten, so that the
// axis ends on a round value above the tallest bar.
func niceCeil(v float64) float64 {
	if v <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= v {
			return m * p
		}
	}
	return 10 * p
}

// groupLabels names each group by what tells it apart from the others:
// its strategy, policy and client where they vary (the strategy alone
// when nothing does).
func groupLabels(gs []*Group) []string {
	varies := func(get func(Key) string) bool {
		for _, g := range gs {
			if get(g.Key) != get(gs[0].Key) {
				return true
			}
		}
		return false
	}
	byStrategy, byPolicy, byClient := varies(func(k Key) string { return k.Strategy }), varies(func(k Key) string { return k.CommitPolicy }), varies(func(k Key) string { return k.Client })
	out := make([]string, len(gs))
	for i, g := range gs {
		var parts []string
		if byStrategy || (!byPolicy && !byClient) {
			parts = append(parts, g.Key.Strategy)
		}
		if byPolicy {
			parts = append(parts, g.Key.CommitPolicy)
		}
		if byClient {
			parts = append(parts, g.Key.Client)
		}
		out[i] = strings.Join(parts, " / ")
	}
	return out
}

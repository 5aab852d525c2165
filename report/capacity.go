package report

import (
	"fmt"
	"math"

	"github.com/chaosbench/chaosbench/internal/sweep"
)

// The capacity report answers a team's sizing question from a sweep
// (`chaos sweep`, docs/capacity.md): how many partitions and members, and
// which strategy, meet its targets, with the measurements behind each
// number. Package sweep measures the sweep and judges it (sweep.Judge);
// the report renders the judgement and computes nothing of it: the
// judgement in words (capacitytext.go), the Markdown (capacitymd.go), the
// HTML page (capacityhtml.go) and the plots (capacityplot.go).

// capacity is a judged sweep being rendered.
type capacity struct{ *sweep.Judgement }

func pct(f float64) string { return fmt.Sprintf("%.1f%%", 100*f) }

// fmtRate renders records/s: 812, 12 300.
func fmtRate(v float64) string {
	if math.IsNaN(v) {
		return "–"
	}
	if math.IsInf(v, 1) {
		return "∞"
	}
	return formatCount(math.Round(v))
}

// spreadRate renders a spread of rates: the median, with [min – max] when
// there are several samples.
func spreadRate(s Spread) string { return spreadWith(s, fmtRate) }

func spreadCount(s Spread) string {
	return spreadWith(s, func(v float64) string { return formatCount(math.Round(v)) })
}

func spreadMs(s Spread) string { return spreadWith(s, FormatMs) }

func spreadWith(s Spread, f func(float64) string) string {
	switch {
	case s.N == 0:
		return "–"
	case s.N == 1 || s.Min == s.Max:
		return f(s.Median)
	}
	return fmt.Sprintf("%s [%s – %s]", f(s.Median), f(s.Min), f(s.Max))
}

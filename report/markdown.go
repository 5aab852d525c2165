package report

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strings"
	"time"

	"github.com/chaosbench/chaosbench/internal/clip"
	"github.com/chaosbench/chaosbench/internal/summary"
)

// Title returns the report's title.
func (r *Run) Title() string {
	name := filepath.Base(filepath.Clean(r.Dir))
	if r.Meta != nil && r.Meta.Workload != "" {
		return fmt.Sprintf("chaosbench: %s (%s)", r.Meta.Workload, name)
	}
	return "chaosbench: " + name
}

// Subtitle returns the one-line description under the title.
func (r *Run) Subtitle() string {
	parts := []string{clip.Plural(len(r.Cells), "cell")}
	if len(r.Groups) != len(r.Cells) {
		parts[0] += " in " + clip.Plural(len(r.Groups), "group")
	}
	if m := r.Meta; m != nil {
		parts = append(parts, fmt.Sprintf("seed %d", m.Seed))
		if !m.Start.IsZero() {
			s := m.Start.UTC().Format("2006-01-02 15:04 UTC")
			if !m.End.IsZero() {
				s += fmt.Sprintf(", %s", m.End.Sub(m.Start).Round(time.Second))
			}
			parts = append(parts, s)
		}
		if m.Complete {
			parts = append(parts, "complete")
		} else {
			why := m.PartialReason
			if why == "" {
				why = "did not complete"
			}
			parts = append(parts, "partial: "+why)
		}
	}
	return strings.Join(parts, " · ")
}

// VerdictText renders a verdict with a mark.
func VerdictText(v summary.Verdict) string {
	switch v {
	case summary.Valid:
		return "✓ valid"
	case summary.Invalid:
		return "✗ invalid"
	}
	return "? " + string(v)
}

// verdictTag is a verdict's text, with the verdict as its class.
func verdictTag(v summary.Verdict) tag { return tag{VerdictText(v), string(v)} }

// groupVerdict is a group's worst verdict and how many cells had it.
func groupVerdict(g *Group) string {
	v := summary.Valid
	for _, c := range g.Cells {
		v = summary.Worst(v, c.S.Verdict)
	}
	if len(g.Cells) == 1 {
		return VerdictText(v)
	}
	n := 0
	for _, c := range g.Cells {
		if c.S.Verdict == v {
			n++
		}
	}
	return fmt.Sprintf("%s (%d/%d)", VerdictText(v), n, len(g.Cells))
}

// groupValue is a metric over a group: the value, or the median of the
// iterations with their range, "median (min – max)"; when only cells
// timed on a saturated host have it, what they measured marked as no
// figure of the group's, "11.8 s (host-bound)"; "–" when no cell has
// one.
func groupValue(m Metric, g *Group) string {
	xs := m.Samples(g)
	if len(xs) == 0 {
		if m.hostBound(g) {
			return formatSpread(m, SpreadOf(m.hostValues(g))) + " (host-bound)"
		}
		if m.Name == "recovery_ms" {
			for _, c := range g.Cells {
				if c.S.Recovery.NotRecovered > 0 {
					return "not recovered"
				}
			}
		}
		return "–"
	}
	return formatSpread(m, SpreadOf(xs))
}

// hostText is a group's host check: "ok", "saturated", "saturated (2/5)",
// "not measured".
func hostText(g *Group) string {
	sat, measured := 0, 0
	for _, c := range g.Cells {
		if c.S.Host.Measured {
			measured++
		}
		if c.S.Host.Saturated {
			sat++
		}
	}
	switch {
	case measured == 0:
		return "not measured"
	case sat == 0:
		return "ok"
	case len(g.Cells) == 1 || sat == len(g.Cells):
		return "saturated"
	}
	return fmt.Sprintf("saturated (%d/%d)", sat, len(g.Cells))
}

// tableMetrics are the metrics a table of these groups shows: all, except
// the traffic's own figures when every group has the same (they describe
// the workload, not the strategies: trafficNote says them once), and the
// exactly-once figures when no cell has them, the network steps' figures
// when no cell had a network step, and the autoscaler's when no cell had
// one.
func tableMetrics(gs []*Group) []Metric {
	_, same := trafficNote(gs)
	eos, scaled := false, false
	for _, g := range gs {
		for _, c := range g.Cells {
			eos = eos || (c.S != nil && c.S.ExactlyOnce != nil)
			scaled = scaled || (c.S != nil && c.S.Autoscale != nil)
		}
	}
	var out []Metric
	for _, m := range Metrics {
		if (m.Traffic && same) || (m.ExactlyOnce && !eos) || (m.Network && !anyValue(m, gs)) || (m.Field == "autoscale" && !scaled) {
			continue
		}
		out = append(out, m)
	}
	return out
}

// anyValue reports whether some cell of the groups has a value of m.
func anyValue(m Metric, gs []*Group) bool {
	for _, g := range gs {
		for _, c := range g.Cells {
			if _, ok := m.Of(c.S); ok {
				return true
			}
		}
	}
	return false
}

// trafficNote says the traffic's skew once, when it is the same for every
// group (same reports whether it is).
func trafficNote(gs []*Group) (note string, same bool) {
	var parts []string
	for _, m := range Metrics {
		if !m.Traffic {
			continue
		}
		v := ""
		for i, g := range gs {
			x := groupValue(m, g)
			if i == 0 {
				v = x
			} else if x != v {
				return "", false
			}
		}
		parts = append(parts, fmt.Sprintf("%s %s", m.Label, v))
	}
	if len(gs) < 2 || len(parts) == 0 {
		return "", false
	}
	return "Traffic: " + strings.Join(parts, ", ") + ": the workload's own skew, the same for every column (the load the strategies spread is in the rows on members).", true
}

// WriteMarkdown writes report.md: the verdict, the strategies side by
// side, the findings and each cell's disruptions. plotDir is where the
// figures are, relative to the report ("" to leave links out).
func WriteMarkdown(w io.Writer, r *Run, plotDir string) error {
	return runDocument(r, plotDir).markdown(w)
}

func cellName(c *Cell) string {
	s := c.S.Cell
	name := fmt.Sprintf("%s · %s · %s", s.Strategy, s.CommitPolicy, s.Client)
	if s.Iteration > 0 || strings.Contains(c.Rel, "iter") {
		name += fmt.Sprintf(" #%d", s.Iteration)
	}
	return name
}

// DisruptionLabel describes a disruption: "step 2: kill m1", "rebalance:
// lost by m2.0", "step 1: add_partitions 100 → 1,000" (a growth is named
// by what it did, not by the run's long topic name).
func DisruptionLabel(d summary.Disruption) string {
	if d.Cause == "chaos" {
		l := d.Action
		switch {
		case d.PartitionsTo > 0:
			l += fmt.Sprintf(" %s → %s", commas(d.PartitionsFrom), commas(d.PartitionsTo))
		case d.Target != "":
			l += " " + d.Target
		}
		if d.Step > 0 {
			l = fmt.Sprintf("step %d: %s", d.Step, l)
		}
		if d.Err != "" {
			l += " (failed: " + d.Err + ")"
		}
		return l
	}
	if d.Trigger != "" {
		return "rebalance: " + d.Trigger
	}
	return d.Cause
}

// commas renders a count with thousands separated by commas: 1,000.
func commas(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// takeOnText is an add_partitions step's time to take on its new
// partitions: "40.2 s", "not all" when a new partition never got an
// owner, "" for other disruptions.
func takeOnText(d summary.Disruption) string {
	switch {
	case d.NewPartitions == 0:
		return ""
	case d.TakeOnMs == nil:
		return "not all"
	}
	return FormatMs(*d.TakeOnMs)
}

// ExampleText renders an example on one line.
func ExampleText(x summary.Example) string {
	var parts []string
	if x.Proc != "" {
		parts = append(parts, x.Proc)
	}
	if x.Partition != nil {
		p := fmt.Sprintf("p%d", *x.Partition)
		switch {
		case x.Offset != nil:
			p += fmt.Sprintf("@%d", *x.Offset)
		case x.Offsets != "":
			p += "@" + x.Offsets
		}
		parts = append(parts, p)
	}
	if x.Key != "" {
		k := "key " + x.Key
		if x.Seq != nil {
			k += fmt.Sprintf(" seq %d", *x.Seq)
		}
		parts = append(parts, k)
	}
	if x.Other != "" {
		parts = append(parts, "other "+x.Other)
	}
	if x.Disruption > 0 {
		parts = append(parts, fmt.Sprintf("disruption #%d", x.Disruption))
	}
	if x.T != 0 {
		parts = append(parts, "t="+time.Unix(0, x.T).UTC().Format("15:04:05.000"))
	}
	s := strings.Join(parts, ", ")
	if x.Detail != "" {
		s += ": " + x.Detail
	}
	if len(x.Transactions) > 0 {
		s += "; transactions: " + strings.Join(x.Transactions, ", ")
	}
	return s
}

// SummaryTable writes the summary table alone, for a terminal: one row
// per group, the main figures.
func SummaryTable(w io.Writer, r *Run) error {
	e := &ewriter{w: bufio.NewWriter(w)}
	cols := []string{"pause_p95_ms", "partition_seconds", "group_stop_ms", "kept_stall_ms", "duplicates", "lost", "reorders", "skew_max_over_mean", "latency_p99_steady_ms"}
	heads := []string{"pause p95", "part-s", "stop", "kept", "dups", "lost", "reord", "skew", "p99 lat"}
	width := len("cell")
	for _, g := range r.Groups {
		width = max(width, len(g.Key.String()))
	}
	e.printf("%-*s  %-11s", width, "cell", "verdict")
	for _, h := range heads {
		e.printf(" %10s", h)
	}
	e.printf("\n")
	for _, g := range r.Groups {
		e.printf("%-*s  %-11s", width, g.Key.String(), strings.TrimSpace(groupVerdict(g)))
		for _, name := range cols {
			m, _ := MetricByName(name)
			v := groupValue(m, g)
			if name == "partition_seconds" {
				xs := m.Samples(g)
				v = fmt.Sprintf("%.1f", Median(xs))
				if len(xs) == 0 || math.IsNaN(Median(xs)) {
					v = "–"
				}
			}
			e.printf(" %10s", v)
		}
		e.printf("\n")
	}
	e.printf("verdict: %s\n", r.Verdict)
	return e.flush()
}

// disruptionColumns are the columns of a disruption table, in the
// Markdown and the HTML report alike; num: a right-aligned figure.
var disruptionColumns = []struct {
	head string
	num  bool
}{
	{"#", true}, {"cause", false}, {"phase", false}, {"window", true}, {"pause p50 / p95 / max", true},
	{"partitions", true}, {"partition-s", true}, {"group stop", true}, {"kept stall", true},
	{"recovery", true}, {"duplicates (bound)", true}, {"moved / min", true},
}

// disruptionCells are a disruption's row, in disruptionColumns' order.
func disruptionCells(d summary.Disruption) []string {
	window := "unfinished"
	if d.WindowMs != nil {
		window = FormatMs(*d.WindowMs)
	}
	pause := "–"
	if d.Pause.Count > 0 {
		pause = fmt.Sprintf("%s / %s / %s", FormatMs(d.Pause.P50), FormatMs(d.Pause.P95), FormatMs(d.Pause.Max))
	}
	recovery := "–"
	if d.RecoveryMs != nil {
		recovery = FormatMs(*d.RecoveryMs)
	} else if d.RecoveryNote != "" {
		recovery = "not recovered"
	}
	moved := "–"
	switch {
	case d.MovementIn > 0:
		moved = fmt.Sprintf("with #%d", d.MovementIn)
	case d.MovementKnown:
		moved = fmt.Sprintf("%d / %d", d.Moved, d.MinMoves)
	}
	return []string{fmt.Sprint(d.ID), DisruptionLabel(d), d.Phase, window, pause, partitionsText(d),
		fmt.Sprintf("%.2f", d.PartitionSeconds), FormatMs(d.GroupStopMs), keptStallText(d), recovery,
		fmt.Sprintf("%s (%s)", formatCount(float64(d.Duplicates)), formatCount(float64(d.UncommittedBound))), moved}
}

// keptStallText is a disruption's stall of kept partitions: "1.2 s (p3)".
func keptStallText(d summary.Disruption) string {
	if d.KeptStallPartition == nil {
		return "–"
	}
	return fmt.Sprintf("%s (p%d)", FormatMs(d.KeptStallMs), *d.KeptStallPartition)
}

// partitionsText is a disruption's affected partitions: "12", "12 (3
// idle)", "4 (1 unfinished)".
func partitionsText(d summary.Disruption) string {
	var extra []string
	if d.IdlePartitions > 0 {
		extra = append(extra, fmt.Sprintf("%d idle", d.IdlePartitions))
	}
	if d.UnfinishedPartitions > 0 {
		extra = append(extra, fmt.Sprintf("%d unfinished", d.UnfinishedPartitions))
	}
	if len(extra) == 0 {
		return fmt.Sprint(d.Partitions)
	}
	return fmt.Sprintf("%d (%s)", d.Partitions, strings.Join(extra, ", "))
}

// ordered returns the cells in the order of the groups (strategies as
// docs/design.md lists them), iterations in order.
func (r *Run) ordered() []*Cell {
	out := make([]*Cell, 0, len(r.Cells))
	for _, g := range r.Groups {
		out = append(out, g.Cells...)
	}
	return out
}

// HostLine is a cell's host check on one line, for a terminal: "host ok"
// or "host saturated", with its members and its figures; "" when the
// history has no host measurement.
func HostLine(s *summary.Summary) string {
	h := s.Host
	if !h.Measured {
		return ""
	}
	state := "ok"
	if h.Saturated {
		state = "saturated"
	}
	opt := func(p *float64) string {
		if p == nil {
			return "–"
		}
		return FormatMs(*p)
	}
	users := ""
	if u := h.CPUUsers(); u != "" {
		users = "; by process " + u
	}
	return fmt.Sprintf("host %s: %d members (%s); CPU busy p50 %.0f%% (the harness %.0f%%%s), at least %.0f%% in %d of %d s; producer lag p99 %s; drift p99 %s (max %s); poll-loop overrun max %s; GC pause max %s",
		state, s.Cell.Members, s.Cell.Client, h.CPUBusyP50*100, h.CPUHarnessP50*100, users, h.Thresholds.CPUBusy*100, h.CPUSaturatedSeconds, h.CPUSeconds,
		opt(h.ProducerLagP99Ms), opt(h.DriftP99Ms), opt(h.DriftMaxMs), opt(h.OverrunMaxMs), FormatMs(h.GCPauseMaxMs))
}

package report

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/chaosbench/chaosbench/internal/clip"
	"github.com/chaosbench/chaosbench/internal/sweep"
	"github.com/chaosbench/chaosbench/workloads"
)

// Files the capacity report writes into the sweep folder.
const (
	CapacityMarkdownFile = "capacity.md"
	CapacityHTMLFile     = "capacity.html"
)

// title is the capacity report's title.
func (c capacity) title() string {
	return fmt.Sprintf("Capacity: %s (%s)", c.Table.Sweep.Workload, filepath.Base(filepath.Clean(c.Dir)))
}

// subtitle is the line under the title: the grid, the processing cost,
// where and when it ran.
func (c capacity) subtitle() string {
	r := c.Table.Sweep
	var grid []string
	for _, d := range r.Grid {
		grid = append(grid, d.Name+" "+strings.Join(d.Values, ", "))
	}
	parts := []string{strings.Join(grid, " × "), clip.Plural(len(r.Points), "point"),
		fmt.Sprintf("%d iteration(s) per run", r.Repeat), "processing " + c.Table.Processing}
	if env := c.environment(); env != "" {
		parts = append(parts, env)
	}
	if lo, hi, ok := c.loadRange(); ok {
		parts = append(parts, fmt.Sprintf("host load average %.1f – %.1f", lo, hi))
	}
	if !r.Start.IsZero() {
		s := r.Start.UTC().Format("2006-01-02 15:04 UTC")
		if !r.End.IsZero() {
			s += ", " + r.End.Sub(r.Start).Round(time.Second).String()
		}
		parts = append(parts, s)
	}
	if r.Complete {
		parts = append(parts, "complete")
	} else {
		parts = append(parts, "partial: "+cmpOr(r.PartialReason, "did not complete"))
	}
	return strings.Join(parts, " · ")
}

// loadRange is the lowest and highest load average the sweep recorded.
func (c capacity) loadRange() (lo, hi float64, ok bool) {
	for i, rl := range c.Table.Sweep.Load {
		a, b := math.Min(rl.Before, rl.After), math.Max(rl.Before, rl.After)
		if i == 0 || a < lo {
			lo = a
		}
		hi = math.Max(hi, b)
		ok = true
	}
	return lo, hi, ok
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// cpus is the number of CPUs of the host the sweep ran on (0 when
// unknown).
func (c capacity) cpus() int {
	if env := c.Table.Environment; env != nil {
		return env.CPUs
	}
	return 0
}

// environment describes where the sweep ran.
func (c capacity) environment() string {
	env := c.Table.Environment
	if env == nil {
		return ""
	}
	return fmt.Sprintf("Kafka %s (%s, %s), %d CPU(s) %s", env.KafkaVersion, env.Provider,
		clip.Plural(env.Brokers, "broker"), env.CPUs, env.CPUModel)
}

// The report is built once as a document (sections of paragraphs, lists,
// tables and charts: capdoc.go) and written twice: as Markdown with
// Mermaid charts, and as HTML with the plots.

// sections returns the report's sections, in order.
func (c capacity) sections() []*section {
	var out []*section
	for _, f := range []func(*section){c.mdRecommendation, c.mdTargets, c.mdThroughput, c.mdMeasured, c.mdPhysics,
		c.mdAtTarget, c.mdCrash, c.mdPartitionCount, c.mdKEDA, c.mdHotKeys, c.mdGrowth, c.mdModel, c.mdRuns} {
		s := &section{}
		f(s)
		if len(s.blocks) > 0 {
			out = append(out, s)
		}
	}
	return out
}

// WriteCapacityMarkdown writes capacity.md: fit for a CI job summary
// (Mermaid charts, no images).
func WriteCapacityMarkdown(w io.Writer, j *sweep.Judgement) error {
	c := capacity{j}
	e := &ewriter{w: bufio.NewWriter(w)}
	e.printf("# %s\n\n%s\n\n", c.title(), c.subtitle())
	for _, s := range c.sections() {
		s.markdown(e)
	}
	return e.flush()
}

// describeTargets lists the targets in force.
func describeTargets(t workloads.Targets) string {
	var parts []string
	if t.Rate > 0 {
		parts = append(parts, fmt.Sprintf("rate %s records/s (also with one member crashed)", fmtRate(t.Rate)))
	}
	if t.MaxLag > 0 {
		parts = append(parts, fmt.Sprintf("lag at most %s records", formatCount(float64(t.MaxLag))))
	}
	if t.MaxPause > 0 {
		parts = append(parts, "partition pause at most "+FormatMs(float64(t.MaxPause.Milliseconds())))
	}
	if t.MaxCatchUp > 0 {
		parts = append(parts, "catch-up after a crash within "+FormatMs(float64(t.MaxCatchUp.Milliseconds())))
	}
	if len(parts) == 0 {
		return "none (set targets: in the workload, or --rate, --max-lag, --max-pause, --max-catch-up)"
	}
	return strings.Join(parts, "; ")
}

// DescribeTargets is describeTargets for the commands.
func DescribeTargets(t workloads.Targets) string { return describeTargets(t) }

func mark(ok *bool) string {
	switch {
	case ok == nil:
		return "?"
	case *ok:
		return "✓"
	}
	return "✗"
}

// recommendationText is the recommendation in one paragraph.
func (c capacity) recommendationText() (headline string, details []string, basis []string) {
	b := c.Best
	if b == nil {
		return "", nil, nil
	}
	headline = ConfigName(b)
	for _, ch := range b.Checks {
		details = append(details, c.checkText(b, ch))
	}
	basis = append(basis, c.basis(b)...)
	return headline, details, basis
}

// basis lists the runs a configuration's judgement rests on, with their
// iterations.
func (c capacity) basis(cf *sweep.Config) []string {
	var out []string
	add := func(run string, n int, what string) {
		if run != "" {
			out = append(out, fmt.Sprintf("`%s` (%s, %s)", run, what, clip.Plural(n, "iteration")))
		}
	}
	add(cf.Row.CapacityRun, len(cf.Row.Capacity), "capacity")
	if cf.NMinus1 != nil {
		add(cf.NMinus1.Row.CapacityRun, len(cf.NMinus1.Row.Capacity), "capacity with one member fewer")
	}
	add(cf.Row.TargetRun, len(cf.Row.Target), "at the target rate, with the chaos steps")
	return out
}

func (c capacity) mdRecommendation(e *section) {
	e.heading("Recommendation")
	e.para("Targets: %s.", describeTargets(c.Targets))
	if c.Best == nil {
		if cl := c.Closest(); cl != nil {
			var failed []string
			for _, ch := range cl.Checks {
				if ch.OK == nil || !*ch.OK {
					failed = append(failed, ch.Target+": "+c.checkText(cl, ch))
				}
			}
			e.para("**No configuration of the grid meets every target.** The closest, %s, misses %s. Extend the grid (more members, more partitions) or relax the targets.", ConfigName(cl), strings.Join(failed, "; "))
		} else {
			e.para("**No configuration of the grid meets every target.**")
		}
	} else {
		head, details, basis := c.recommendationText()
		e.para("**Recommended: %s.**", head)
		e.list(details)
		if t := idleText(c.Best); t != "" {
			e.para("%s", t)
		}
		if t := sureText(c.Sure()); t != "" {
			e.para("%s", t)
		}
		if c.Best.Idle() {
			if nb := c.BestNoIdle; nb != nil {
				e.para("The smallest configuration without an idle member that meets every target: %s.", ConfigName(nb))
			} else {
				e.para("No configuration of the grid without an idle member meets every target.")
			}
		}
		e.para("Measured on: %s. Values are medians over the iterations, [min – max] beside them.", strings.Join(basis, "; "))
	}
	if len(c.BestBy) > 1 {
		var rows [][]string
		for _, st := range c.Strategies() {
			if b := c.BestBy[st]; b != nil {
				rows = append(rows, []string{st, strconv.Itoa(b.Row.Members), strconv.Itoa(b.Row.Partitions), spreadRate(b.Capacity), spreadMs(b.CrashPause), spreadMs(b.DeployPause)})
			} else {
				rows = append(rows, []string{st, "–", "–", "none meets the targets", "", ""})
			}
		}
		e.para("The smallest configuration that meets the targets, per strategy:")
		e.table("lrrrrr", []string{"strategy", "members", "partitions", "capacity (records/s)", "pause after a crash", "pause in a deploy"}, rows)
	}
}

// targetNames are the checks' columns, in order.
var targetNames = []struct{ name, head string }{
	{"rate", "sustains the rate"}, {"n-1", "…with one member crashed"}, {"valid", "target run valid"},
	{"max_lag", "lag"}, {"max_pause", "pause"}, {"max_catch_up", "catch-up"},
}

func (c capacity) checkColumns() []struct{ name, head string } {
	var out []struct{ name, head string }
	for _, tn := range targetNames {
		for _, cf := range c.Configs {
			if slices.ContainsFunc(cf.Checks, func(ch sweep.TargetCheck) bool { return ch.Target == tn.name }) {
				out = append(out, tn)
				break
			}
		}
	}
	return out
}

func (c capacity) mdTargets(e *section) {
	cols := c.checkColumns()
	if len(cols) == 0 {
		return
	}
	e.heading("Every configuration against the targets")
	head := []string{"configuration"}
	align := "l"
	for _, col := range cols {
		head = append(head, col.head)
		align += "l"
	}
	head = append(head, "meets all")
	align += "l"
	var rows [][]string
	for _, cf := range c.Configs {
		row := []string{ConfigName(cf)}
		for _, col := range cols {
			if ch := cf.Check(col.name); ch != nil {
				row = append(row, mark(ch.OK)+" "+c.checkText(cf, *ch))
			} else {
				row = append(row, "")
			}
		}
		row = append(row, map[bool]string{true: "**✓**", false: "✗"}[cf.Meets])
		rows = append(rows, row)
	}
	e.table(align, head, rows)
	e.para("✓ met, ✗ missed, ? not measured by the grid (a check that cannot be made is not met).")
}

func (c capacity) mdThroughput(e *section) {
	e.heading("Throughput against members")
	e.para("What each group sustained when driven to saturation (bars, measured: the median of its iterations), against an upper bound from physics (line, a model: the members with work, each at 1/cost records/s, never above one member's rate over the hottest partition's predicted share; how the partitions fall to members can lower it).")
	e.figure("capacity-throughput")
	for _, s := range c.Series {
		var xs []string
		var bars, line []float64
		for _, cf := range s.Configs {
			if cf.Capacity.N == 0 {
				continue
			}
			xs = append(xs, strconv.Itoa(cf.Row.Members))
			bars = append(bars, cf.Capacity.Median)
			line = append(line, cf.Row.ModelCapacity)
		}
		if len(xs) == 0 {
			continue
		}
		if slices.ContainsFunc(line, func(v float64) bool { return !(v > 0) }) {
			line = nil
		}
		e.chart(mermaidBarLine(fmt.Sprintf("%s: records/s against members", seriesLabel(s)), "records/s", xs, bars, line))
		switch {
		case s.Knee != nil:
			e.para("**%s:** adding members beyond %d adds less than %.0f%% (%s records/s). What bounds it: %s.",
				seriesLabel(s), s.Knee.Row.Members, 100*sweep.KneeGain, spreadRate(s.Knee.Capacity), c.kneeText(s))
		case len(xs) > 1:
			e.para("**%s:** still scaling at %s members: the grid does not reach the knee.", seriesLabel(s), xs[len(xs)-1])
		}
	}
}

// mermaidBarLine is an xychart-beta chart of bars and, when line is not
// nil, a line over them.
func mermaidBarLine(title, unit string, xs []string, bars, line []float64) string {
	chart := mermaidBar(title, unit, xs, bars)
	if line == nil {
		return chart
	}
	top := 0.0
	for _, v := range append(slices.Clone(bars), line...) {
		top = math.Max(top, v)
	}
	lines := strings.Split(strings.TrimSuffix(chart, "\n"), "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "    y-axis ") {
			lines[i] = "    y-axis " + mermaidText(unit) + " 0 --> " + mermaidNumber(niceCeil(top))
		}
	}
	nums := make([]string, len(line))
	for i, v := range line {
		nums[i] = mermaidNumber(v)
	}
	return strings.Join(lines, "\n") + "\n    line [" + strings.Join(nums, ", ") + "]\n"
}

func (c capacity) mdMeasured(e *section) {
	e.heading("Measured capacity")
	e.para("Each point's capacity run: a backlog far ahead of the group, drained without chaos. Throughput is the records processed over the time from the first to the last; a member's rate is its records over its own busy time; the hottest partition's rate, its records over the time from its first record processed to its last. Every figure here is measured: the physics they are held to is in the throughput charts (a line) and in the physics check below.")
	var rows [][]string
	for _, cf := range c.Configs {
		if cf.Capacity.N == 0 {
			rows = append(rows, []string{ConfigName(cf), "not measured", "", "", "", ""})
			continue
		}
		var hot []float64
		for _, it := range cf.Row.Capacity {
			hot = append(hot, it.HottestRate)
		}
		rows = append(rows, []string{ConfigName(cf), spreadRate(cf.Capacity), spreadRate(cf.MemberRate), pct(cf.HottestShare),
			spreadRate(SpreadOf(hot)), pct(cf.MaxMemberShare)})
	}
	e.table("lrrrrr", []string{"configuration", "throughput (records/s)", "per member", "hottest partition's share", "hottest partition (records/s)", "busiest member's share"}, rows)
}

func (c capacity) mdPhysics(e *section) {
	if len(c.Physics) == 0 {
		return
	}
	e.heading("Physics check")
	e.para("With a processing cost c and one record in flight, a member takes 1/c records/s; a group cannot exceed one member's rate over the share of the records its busiest member processed, nor over the hottest partition's share h (a partition is processed one record at a time, whoever owns it), and when the hottest partition's owner owns nothing else both are (1/c)/h whatever the group's size. Close means within %.0f%%.", 100*sweep.PhysicsTolerance)
	var rows [][]string
	busy := 0.0
	for _, p := range c.Physics {
		load := "–"
		if !math.IsNaN(p.Load) {
			load = fmt.Sprintf("%.1f", p.Load)
			if !p.OK {
				busy = math.Max(busy, p.Load)
			}
		}
		rows = append(rows, []string{c.physicsText(p), fmtRate(p.Measured), fmtRate(p.Expected), fmt.Sprintf("%.2f", p.Ratio), map[bool]string{true: "✓ close", false: "✗ off"}[p.OK], load})
	}
	e.table("lrrrlr", []string{"check", "measured (records/s)", "physics (records/s)", "ratio", "", "host load average"}, rows)
	if cpus := c.cpus(); cpus > 0 && busy > float64(cpus) {
		e.para("**The host was busy**: its load average reached %.1f on %d CPUs around the runs that are off. A member waits for a CPU before each record, so those figures show the host more than Kafka or the client; run the sweep again on a quieter host, or with --repeat for their spread.", busy, cpus)
	}
}

func (c capacity) mdAtTarget(e *section) {
	any := slices.ContainsFunc(c.Configs, func(cf *sweep.Config) bool { return cf.Target })
	if !any {
		return
	}
	e.heading("At the target rate")
	e.para("Each point's target run: the workload at %s records/s with its chaos steps. Lag is the highest of the steady state before the first step; pauses are the longest partition pause of the crash steps (kill, pause) and of the deploy steps (restart, rolling_restart); recovery runs until the rate and the lag are back to their level before.", fmtRate(c.Targets.Rate))
	e.figure("capacity-pauses")
	var rows [][]string
	for _, cf := range c.Configs {
		if !cf.Target {
			continue
		}
		rows = append(rows, []string{ConfigName(cf), spreadRate(cf.Delivered), spreadCount(cf.LagSteady), spreadCount(cf.LagPeak),
			spreadMs(cf.P99Steady), spreadMs(cf.P99Disruption), spreadMs(cf.CrashPause), recovered(cf.CrashRecovery, cf.CrashUnrecovered),
			spreadMs(cf.DeployPause), recovered(cf.DeployRecovery, cf.DeployUnrecovered), pct(medianOf(cf.Row.Target, func(i int) float64 { return cf.Row.Target[i].HottestShare })),
			spreadCount(cf.MemberRecordsMin) + " – " + spreadCount(cf.MemberRecordsMax),
			spreadCount(cf.Moved) + " / " + spreadCount(cf.MinMoves), VerdictText(cf.Verdict)})
	}
	e.table("lrrrrrrrrrrrrl", []string{"configuration", "delivered (records/s)", "lag", "lag, peak", "p99 steady", "p99 disruptions",
		"pause, crash", "recovery, crash", "pause, deploy", "recovery, deploy", "hottest share", "records per member", "moved / minimum", "verdict"}, rows)
}

// recovered is a recovery time, or says that one did not come before the
// end of traffic.
func recovered(s Spread, unrecovered bool) string {
	switch {
	case unrecovered && s.N == 0:
		return "not before the end of traffic"
	case unrecovered:
		return spreadMs(s) + ", one not before the end of traffic"
	}
	return spreadMs(s)
}

func medianOf[T any](xs []T, f func(int) float64) float64 {
	var v []float64
	for i := range xs {
		v = append(v, f(i))
	}
	return Median(v)
}

func (c capacity) mdCrash(e *section) {
	if c.Targets.Rate <= 0 {
		return
	}
	var rows [][]string
	for _, cf := range c.Configs {
		if cf.Crashes == 0 || cf.CrashPause.N == 0 {
			continue
		}
		n1 := "not measured"
		if cf.CrashLeft != nil {
			n1 = fmtRate(cf.CrashLeft.Capacity) + " (" + cf.CrashLeft.Crashed + " crashed; model)"
		} else if cf.NMinus1 != nil && cf.NMinus1.Capacity.N > 0 {
			n1 = spreadRate(cf.NMinus1.Capacity)
		} else if cf.Row.Members == 1 {
			n1 = "0 (no member left)"
		}
		drain := "–"
		switch {
		case math.IsInf(cf.DrainS, 1):
			drain = "**never: the group a crash leaves sustains less than the target rate**"
		case !math.IsNaN(cf.DrainS):
			drain = FormatMs(cf.DrainS * 1000)
		}
		rows = append(rows, []string{ConfigName(cf), spreadMs(cf.CrashPause), formatCount(math.Round(cf.Backlog)), n1, drain, recovered(cf.CrashCatchUp, cf.CrashUnrecovered)})
	}
	if len(rows) == 0 {
		return
	}
	e.heading("After a crash: the backlog and the time to drain it")
	e.para("A crash stops partitions for the pause; at %s records/s that leaves at most rate × pause records behind. The group left drains it at its capacity less the traffic that keeps arriving: backlog / (capacity(left) - rate). The group a crash leaves is not a fresh group of N-1: the survivors keep their partitions and the dead member's go where the assignor puts them, so its capacity is computed from the assignor's model and the measured member rate, for each member that may crash, the worst deciding (without a model: the measured capacity of N-1). The last column is the catch-up measured in the target run (recovery less the pause).", fmtRate(c.Targets.Rate))
	e.table("lrrrrr", []string{"configuration", "pause, crash", "backlog (records)", "capacity after the worst crash (records/s)", "time to drain", "catch-up, measured"}, rows)
}

// mdPartitionCount is the partition count derived for the target rate,
// and the group sizes on it.
func (c capacity) mdPartitionCount(e *section) {
	a := c.AdvisePartitions()
	if a == nil {
		return
	}
	e.heading("A partition count, derived")
	e.para("One partition sustained at most %s records/s in the capacity runs and one member %s: %s records/s with %.0f%% headroom need %.1f partitions and %.1f members, each member a partition of its own, so max(%.1f, %.1f) partitions, rounded up to **%d**, a count with more divisors than any smaller one, so that many group sizes split it evenly. Derived from the measurements, not measured, and assuming the traffic spreads evenly over the partitions.",
		fmtRate(a.PartitionRate), fmtRate(a.MemberRate), fmtRate(a.Rate), (a.Headroom-1)*100, a.NeedPartitions, a.NeedMembers,
		a.NeedPartitions, a.NeedMembers, a.Partitions)
	if a.HottestShare > 0 && a.HotBound < a.Headroom*a.Rate {
		e.para("**It does not spread evenly here**: the hottest partition carried %s of the traffic, so no partition count takes the group past %s records/s (one partition's rate over that share) while its keys stay together; spread the hot keys first.", pct(a.HottestShare), fmtRate(a.HotBound))
	}
	var rows [][]string
	for _, g := range a.Counts {
		each := fmt.Sprintf("%d", a.Partitions/g.Members)
		skew := "1.00 (even)"
		if !g.Divides {
			each = fmt.Sprintf("%d or %d", a.Partitions/g.Members, a.Partitions/g.Members+1)
			skew = fmt.Sprintf("%.2f", g.Skew)
		}
		rows = append(rows, []string{strconv.Itoa(g.Members), each, skew})
		if len(rows) == 24 {
			break
		}
	}
	e.table("rrr", []string{"members", "partitions each", "busiest member / mean"}, rows)
}

// mdKEDA is the KEDA ScaledObject suggested for the recommendation:
// derived, not measured.
func (c capacity) mdKEDA(e *section) {
	ks := c.ScaledObject()
	if len(ks) == 0 {
		return
	}
	e.heading("A KEDA ScaledObject, derived")
	e.para("To autoscale the recommended group on Kubernetes with KEDA's Kafka scaler, these settings follow from the measurements and targets above. **Derived, not measured**: no run of this sweep autoscaled; a workload's `autoscaler` section measures what such settings cost (workloads/README.md).")
	var rows [][]string
	for _, k := range ks {
		rows = append(rows, []string{"`" + k.Name + "`", k.Value, k.From})
	}
	e.table("lrl", []string{"setting", "value", "from"}, rows)
}

func (c capacity) mdHotKeys(e *section) {
	c1 := c.MemberRate.Median
	if c.MemberRate.N == 0 || c1 <= 0 {
		return
	}
	var parts []int
	for _, cf := range c.Configs {
		if !slices.Contains(parts, cf.Row.Partitions) {
			parts = append(parts, cf.Row.Partitions)
		}
	}
	slices.Sort(parts)
	e.heading("The cost of hot keys")
	e.para("A partition is consumed by one member at a time, so it never goes faster than one member (%s records/s measured). A partition with share h of the traffic caps the whole group at that rate over h, whatever the group's size: more members cannot help, only spreading the hot keys can.", spreadRate(c.MemberRate))
	var rows [][]string
	for _, p := range parts {
		var meas []float64
		for _, cf := range c.Configs {
			if cf.Row.Partitions == p && cf.Capacity.N > 0 {
				meas = append(meas, cf.HottestShare)
			}
		}
		pred := math.NaN()
		if l, err := c.Spec.PredictLoad(int32(p)); err == nil {
			_, pred = l.Hottest()
		}
		h := Median(meas)
		ceil := "–"
		if h > 0 {
			ceil = fmtRate(c1 / h)
		}
		rows = append(rows, []string{strconv.Itoa(p), pct(h), pct(pred), fmtRate(c1 / pred), ceil, fmtRate(c1 * float64(p))})
	}
	e.table("rrrrrr", []string{"partitions", "hottest share, measured", "hottest share, predicted", "ceiling from the prediction (records/s)", "ceiling from the measurement", "ceiling with even traffic"}, rows)
}

func (c capacity) mdGrowth(e *section) {
	rows := c.growthRows()
	if len(rows) == 0 {
		return
	}
	e.heading("Growing partitions later")
	e.para("Kafka can add partitions but never remove them, and adding them moves keys: the producer's partitioner (%s here) sends a moved key's new records to another partition while its older ones wait in the old one, so per-key order breaks across the change, and whatever a consumer keeps per partition (state, caches, exactly-once offsets) moves with the keys. Predicted from the workload's keys (loadgen plan):", c.Spec.Producer.Partitioner)
	e.table("rrrr", []string{"from", "to", "keys moved", "traffic moved"}, rows)
	e.para("**Size partitions up front**: choose the count for the peak the topic will see, not for today's rate; members can grow later up to the partition count at no such cost.")
}

// growthRows predicts what growing each partition count of the grid to
// the next (or to twice it) moves.
func (c capacity) growthRows() [][]string {
	var parts []int
	for _, cf := range c.Configs {
		if !slices.Contains(parts, cf.Row.Partitions) {
			parts = append(parts, cf.Row.Partitions)
		}
	}
	slices.Sort(parts)
	var rows [][]string
	for i, p := range parts {
		to := 2 * p
		if i+1 < len(parts) {
			to = parts[i+1]
		}
		m, err := c.Spec.PredictMovement(int32(p), int32(to))
		if err != nil {
			return nil
		}
		rows = append(rows, []string{strconv.Itoa(p), strconv.Itoa(to), pct(m.Keys), pct(m.Traffic)})
	}
	return rows
}

func (c capacity) mdModel(e *section) {
	m := c.Model
	if m == nil {
		return
	}
	e.heading(fmt.Sprintf("Beyond the test cluster: %d members, %d partitions (model)", m.Members, m.Partitions))
	e.para("**Everything in this section is a model, not a measurement.** The assignments come from the assignor models (package assign, exact against Kafka's own); the capacities extrapolate the measured per-member capacity (%s records/s) to them.", fmtRate(m.MemberRate))
	var rows [][]string
	for _, s := range m.Strategies {
		rows = append(rows, []string{s.Strategy + " (model)", strconv.Itoa(s.Spread), pct(s.MaxShare), fmtRate(s.Capacity), fmtRate(s.CapacityNMinus1),
			rebalanceText(s.Crash), rebalanceText(s.Rejoin), rebalanceText(s.Deploy)})
	}
	e.table("lrrrrlll", []string{"strategy", "partitions per member, max - min", "busiest member's share", "capacity (records/s)", "with one member crashed",
		"a crash: moved / minimum, stopped, rounds", "the rejoin", "a rolling deploy"}, rows)
	e.para("Assumptions:")
	e.list(modelAssumptions(m))
}

func rebalanceText(r sweep.Rebalance) string {
	return fmt.Sprintf("%s / %s, %s stopped, %s", formatCount(float64(r.Moves)), formatCount(float64(r.MinMoves)),
		formatCount(float64(r.Revoked)), clip.Plural(r.Rounds, "round"))
}

func (c capacity) mdRuns(e *section) {
	e.heading("Runs")
	var rows [][]string
	for _, cf := range c.Configs {
		rows = append(rows, []string{cf.Row.Point.Name, cmpOr(cf.Row.CapacityRun, "not finished"), cmpOr(cf.Row.TargetRun, c.noTargetRun(cf))})
	}
	e.table("lll", []string{"point", "capacity run", "target run"}, rows)
	e.para("Definitions: docs/capacity.md. Each run folder is a normal run: `chaos report` reads it.")
}

// noTargetRun says why a point has no target run: the sweep skips the
// points whose capacity run sustained less than its target rate (they
// cannot meet it); any other is not finished.
func (c capacity) noTargetRun(cf *sweep.Config) string {
	if sw := c.Table.Sweep; sw != nil && sweep.BelowRate(cf.Capacity, sw.Targets.Rate) {
		return fmt.Sprintf("not run: sustains %s records/s, below the sweep's target rate %s", fmtRate(cf.Capacity.Median), fmtRate(sw.Targets.Rate))
	}
	return "not finished"
}

package report

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/chaosbench/chaosbench/internal/summary"
	"github.com/chaosbench/chaosbench/internal/sweep"
	"github.com/chaosbench/chaosbench/internal/vocab"
	"github.com/chaosbench/chaosbench/workloads"
)

// The capacity report answers a team's sizing question from a sweep
// (`chaos sweep`, docs/capacity.md): how many partitions and members, and
// which strategy, meet its targets, with the measurements behind each
// number. This file judges the sweep's table against the targets; the
// Markdown (capacitymd.go), the HTML page (capacityhtml.go), the plots
// (capacityplot.go) and the models of a larger group (capacitymodel.go)
// present the judgement. Every figure here is a measurement of the sweep
// (a median over its iterations, with the spread beside it) or a sum of
// measurements (a backlog, the time to drain it); the models are apart
// and say so.

// Capacity is the judged sweep.
type Capacity struct {
	Dir     string
	Table   *SweepTable
	Spec    *workloads.Spec // the workload, as the sweep ran it
	Targets workloads.Targets
	Configs []*Config
	Series  []*Series
	// MemberRate is what one member sustained, over every member of
	// every capacity run; the physics says 1/cost.
	MemberRate Spread
	// Best is the smallest configuration that meets every target (nil
	// when none does); BestBy the smallest per strategy.
	Best   *Config
	BestBy map[string]*Config
	// Physics are the checks of the measured capacities against physics.
	Physics []PhysicsCheck
	// Model is the larger group of targets.production, modelled (nil
	// without one).
	Model *ProductionModel
}

// Config is one point of the sweep, judged.
type Config struct {
	Row *SweepRow
	// Capacity is the sustained throughput (records/s) over the
	// iterations; MemberRate what its members sustained.
	Capacity, MemberRate Spread
	HottestShare         float64
	MaxMemberShare       float64
	// NMinus1 is the point with one member fewer and the same other
	// settings, when the sweep has it.
	NMinus1 *Config
	// At the target rate (medians over the iterations).
	Target                                       bool // the point has a finished target run
	Delivered, LagSteady, LagPeak                Spread
	P99Steady, P99Disruption                     Spread
	CrashPause, DeployPause, CrashRecovery       Spread
	CrashCatchUp, DeployRecovery, CrashGroupStop Spread
	Crashes, Deploys                             int
	// CrashUnrecovered and DeployUnrecovered: some crash (deploy) did not
	// recover before the end of traffic in an iteration.
	CrashUnrecovered, DeployUnrecovered bool
	Moved, MinMoves                     Spread
	MemberRecordsMin, MemberRecordsMax  Spread
	Verdict                             summary.Verdict
	// Backlog is the most records a crash leaves behind: the target rate
	// times the longest crash pause; Drain the time to drain it at the
	// measured capacity with one member fewer, less what keeps arriving
	// (+Inf: never).
	Backlog, DrainS float64
	Checks          []TargetCheck
	Meets           bool
}

// TargetCheck is one target judged at one configuration: OK is nil when
// the sweep did not measure what it needs.
type TargetCheck struct {
	Target string // rate, n-1, max_lag, max_pause, max_catch_up, valid
	OK     *bool
	Text   string
}

// Series is the points that differ only in their member count, in member
// order: throughput against members.
type Series struct {
	Key                            string // strategy · policy · client, partitions
	Strategy, CommitPolicy, Client string
	Partitions, MaxPollRecords     int
	Configs                        []*Config
	// Knee is the config after which adding members adds less than
	// KneeGain, and Why says what bounds it; nil when the grid's
	// largest group still scales.
	Knee *Config
	Why  string
}

// KneeGain is the gain in throughput below which adding members is said
// to stop helping.
const KneeGain = 0.10

// PhysicsCheck compares a measured figure with what physics allows.
type PhysicsCheck struct {
	What               string
	Measured, Expected float64
	Ratio              float64
	OK                 bool
	Points             []string // the runs it rests on
	// Load is the host's highest load average around those runs (NaN
	// when not recorded).
	Load float64
}

// PhysicsTolerance is how far a measured capacity may be from physics
// and still be called close.
const PhysicsTolerance = 0.15

// JudgeCapacity judges a sweep's table against targets.
func JudgeCapacity(dir string, t *SweepTable, spec *workloads.Spec, targets workloads.Targets) *Capacity {
	c := &Capacity{Dir: dir, Table: t, Spec: spec, Targets: targets, BestBy: map[string]*Config{}}
	for i := range t.Rows {
		c.Configs = append(c.Configs, newConfig(&t.Rows[i]))
	}
	c.series()
	var rates []float64
	for _, cf := range c.Configs {
		for _, it := range cf.Row.Capacity {
			for _, m := range it.Members {
				if m.Rate > 0 {
					rates = append(rates, m.Rate)
				}
			}
		}
	}
	c.MemberRate = SpreadOf(rates)
	for _, s := range c.Series {
		c.knee(s)
	}
	for _, cf := range c.Configs {
		c.judge(cf)
	}
	c.recommend()
	c.physics()
	if p := targets.Production; p != nil {
		c.Model = ModelProduction(spec, c.strategies(), p.Members, p.Partitions, c.MemberRate.Median)
	}
	return c
}

// strategies are the strategies of the sweep, in the vocabulary's order.
func (c *Capacity) strategies() []string {
	var out []string
	for _, cf := range c.Configs {
		if !slices.Contains(out, cf.Row.Strategy) {
			out = append(out, cf.Row.Strategy)
		}
	}
	slices.SortStableFunc(out, func(a, b string) int { return vocab.StrategyRank(a) - vocab.StrategyRank(b) })
	return out
}

func newConfig(r *SweepRow) *Config {
	cf := &Config{Row: r, Verdict: summary.Valid}
	var thr, mr, hs, ms []float64
	for _, it := range r.Capacity {
		thr = append(thr, it.Throughput)
		mr = append(mr, it.MemberRate)
		hs = append(hs, it.HottestShare)
		ms = append(ms, it.MaxMemberShare)
	}
	cf.Capacity, cf.MemberRate = SpreadOf(thr), SpreadOf(mr)
	cf.HottestShare, cf.MaxMemberShare = Median(hs), Median(ms)
	cf.Target = len(r.Target) > 0
	collect := func(f func(*AtTarget) (float64, bool)) Spread {
		var xs []float64
		for i := range r.Target {
			if v, ok := f(&r.Target[i].AtTarget); ok {
				xs = append(xs, v)
			}
		}
		return SpreadOf(xs)
	}
	val := func(f func(*AtTarget) float64) func(*AtTarget) (float64, bool) {
		return func(a *AtTarget) (float64, bool) { return f(a), true }
	}
	ptr := func(f func(*AtTarget) *float64) func(*AtTarget) (float64, bool) {
		return func(a *AtTarget) (float64, bool) {
			if v := f(a); v != nil {
				return *v, true
			}
			return 0, false
		}
	}
	cf.Delivered = collect(val(func(a *AtTarget) float64 { return a.Delivered }))
	cf.LagSteady = collect(val(func(a *AtTarget) float64 { return float64(a.LagSteady) }))
	cf.LagPeak = collect(val(func(a *AtTarget) float64 { return float64(a.LagPeak) }))
	cf.P99Steady = collect(ptr(func(a *AtTarget) *float64 { return a.LatencyP99Steady }))
	cf.P99Disruption = collect(ptr(func(a *AtTarget) *float64 { return a.LatencyP99Disruption }))
	cf.CrashPause = collect(func(a *AtTarget) (float64, bool) { return a.Crash.PauseMaxMs, a.Crash.Count > 0 })
	cf.DeployPause = collect(func(a *AtTarget) (float64, bool) { return a.Deploy.PauseMaxMs, a.Deploy.Count > 0 })
	cf.CrashGroupStop = collect(func(a *AtTarget) (float64, bool) { return a.Crash.GroupStopMs, a.Crash.Count > 0 })
	cf.CrashRecovery = collect(ptr(func(a *AtTarget) *float64 { return a.Crash.RecoveryMs }))
	cf.DeployRecovery = collect(ptr(func(a *AtTarget) *float64 { return a.Deploy.RecoveryMs }))
	cf.CrashCatchUp = collect(ptr(func(a *AtTarget) *float64 { return a.Crash.CatchUpMs() }))
	cf.Moved = collect(val(func(a *AtTarget) float64 { return float64(a.Moved) }))
	cf.MinMoves = collect(val(func(a *AtTarget) float64 { return float64(a.MinMoves) }))
	cf.MemberRecordsMin = collect(val(func(a *AtTarget) float64 { return float64(a.MemberRecordsMin) }))
	cf.MemberRecordsMax = collect(val(func(a *AtTarget) float64 { return float64(a.MemberRecordsMax) }))
	for _, it := range r.Target {
		cf.CrashUnrecovered = cf.CrashUnrecovered || it.Crash.NotRecovered > 0
		cf.DeployUnrecovered = cf.DeployUnrecovered || it.Deploy.NotRecovered > 0
		cf.Crashes = max(cf.Crashes, it.Crash.Count)
		cf.Deploys = max(cf.Deploys, it.Deploy.Count)
		cf.Verdict = summary.Worst(cf.Verdict, it.Verdict)
	}
	return cf
}

// Name is the configuration for people: "cooperative-sticky, 4 members,
// 12 partitions" (and the policy, client and batch when the sweep varies
// them).
func (cf *Config) Name() string {
	r := cf.Row
	parts := []string{r.Strategy, plural(r.Members, "member"), plural(r.Partitions, "partition")}
	for _, s := range r.Point.Settings {
		switch s.Dim {
		case sweep.DimCommitPolicy:
			parts = append(parts, "policy "+s.Value)
		case sweep.DimClient:
			parts = append(parts, "client "+s.Value)
		case sweep.DimMaxPollRecords:
			parts = append(parts, "max.poll.records "+s.Value)
		}
	}
	return strings.Join(parts, ", ")
}

// seriesKey is what a config shares with the others of its series.
func seriesKey(r *SweepRow) string {
	return fmt.Sprintf("%s · %s · %s, %s, max.poll.records %d", r.Strategy, r.CommitPolicy, r.Client,
		plural(r.Partitions, "partition"), r.MaxPollRecords)
}

// series groups the configs by all but their member count, and links each
// config to the one with a member fewer.
func (c *Capacity) series() {
	byKey := map[string]*Series{}
	for _, cf := range c.Configs {
		r := cf.Row
		k := seriesKey(r)
		s := byKey[k]
		if s == nil {
			s = &Series{Key: k, Strategy: r.Strategy, CommitPolicy: r.CommitPolicy, Client: r.Client,
				Partitions: r.Partitions, MaxPollRecords: r.MaxPollRecords}
			byKey[k] = s
			c.Series = append(c.Series, s)
		}
		s.Configs = append(s.Configs, cf)
	}
	for _, s := range c.Series {
		slices.SortFunc(s.Configs, func(a, b *Config) int { return a.Row.Members - b.Row.Members })
		for i, cf := range s.Configs {
			if i > 0 && s.Configs[i-1].Row.Members == cf.Row.Members-1 {
				cf.NMinus1 = s.Configs[i-1]
			}
		}
	}
	slices.SortStableFunc(c.Series, func(a, b *Series) int {
		return cmp.Or(vocab.StrategyRank(a.Strategy)-vocab.StrategyRank(b.Strategy), a.Partitions-b.Partitions,
			strings.Compare(a.Key, b.Key))
	})
}

// knee finds where adding members stops helping in a series, and why:
// the partition count (members beyond it get nothing), the hottest
// partition (one member's rate over its share bounds the group), or
// neither (the host or the broker).
func (c *Capacity) knee(s *Series) {
	var measured []*Config
	for _, cf := range s.Configs {
		if cf.Capacity.N > 0 {
			measured = append(measured, cf)
		}
	}
	for i, cf := range measured {
		if i == len(measured)-1 {
			return // the largest group still scales, or stands alone
		}
		flat := true
		for _, later := range measured[i+1:] {
			if later.Capacity.Median >= (1+KneeGain)*cf.Capacity.Median {
				flat = false
				break
			}
		}
		if !flat {
			continue
		}
		s.Knee = cf
		c1 := c.MemberRate.Median
		switch {
		case cf.Row.Members >= s.Partitions:
			s.Why = fmt.Sprintf("the partition count: with %s, at most %d members have work; more members stand idle", plural(s.Partitions, "partition"), s.Partitions)
		case cf.HottestShare > 0 && c1 > 0 && c1/cf.HottestShare <= (1+PhysicsTolerance)*cf.Capacity.Median:
			s.Why = fmt.Sprintf("the hottest partition: it carries %s of the records and one member takes %s records/s, so no group can exceed %s records/s (one member's rate over the hottest share)",
				pct(cf.HottestShare), fmtRate(c1), fmtRate(c1/cf.HottestShare))
		case cf.MaxMemberShare > 0 && c1 > 0 && c1/cf.MaxMemberShare <= (1+PhysicsTolerance)*cf.Capacity.Median:
			s.Why = fmt.Sprintf("the busiest member: it processed %s of the records (the assignment put several partitions on it), so the group cannot exceed one member's rate over that share, %s records/s", pct(cf.MaxMemberShare), fmtRate(c1/cf.MaxMemberShare))
		default:
			s.Why = "neither the partition count nor the hottest partition: the members are not the bottleneck (look at the host's CPU and the broker)"
		}
		return
	}
}

// judge checks a config against each target that is set.
func (c *Capacity) judge(cf *Config) {
	t := c.Targets
	yes, no := true, false
	add := func(target string, ok *bool, format string, args ...any) {
		cf.Checks = append(cf.Checks, TargetCheck{Target: target, OK: ok, Text: fmt.Sprintf(format, args...)})
	}
	b := func(v bool) *bool {
		if v {
			return &yes
		}
		return &no
	}
	rate := t.Rate
	if rate > 0 {
		if cf.Capacity.N == 0 {
			add("rate", nil, "capacity not measured")
		} else {
			add("rate", b(cf.Capacity.Median >= rate), "sustains %s records/s (target %s)", spreadRate(cf.Capacity), fmtRate(rate))
		}
		switch {
		case cf.Row.Members == 1:
			add("n-1", &no, "a crash leaves no member")
		case cf.NMinus1 == nil || cf.NMinus1.Capacity.N == 0:
			add("n-1", nil, "not measured: the grid has no point with %d members", cf.Row.Members-1)
		default:
			verb := "sustain"
			if cf.Row.Members-1 == 1 {
				verb = "sustains"
			}
			add("n-1", b(cf.NMinus1.Capacity.Median >= rate), "%s %s %s records/s", plural(cf.Row.Members-1, "member"), verb, spreadRate(cf.NMinus1.Capacity))
		}
	}
	if cf.Target && rate > 0 && cf.Delivered.N > 0 && cf.Delivered.Median < 0.95*rate {
		add("valid", nil, "the producer delivered %s records/s of the %s asked: the target run did not test the target", fmtRate(cf.Delivered.Median), fmtRate(rate))
	} else if cf.Target && cf.Verdict == summary.Invalid {
		add("valid", &no, "the target run's cell is invalid (see its summary)")
	}
	if t.MaxLag > 0 {
		if !cf.Target {
			add("max_lag", nil, "no target run")
		} else {
			add("max_lag", b(cf.LagSteady.Median <= float64(t.MaxLag)), "lag %s records at the target rate (max %d)", spreadCount(cf.LagSteady), t.MaxLag)
		}
	}
	if t.MaxPause > 0 {
		maxMs := float64(t.MaxPause.Milliseconds())
		switch {
		case !cf.Target:
			add("max_pause", nil, "no target run")
		case cf.Crashes == 0 && cf.Deploys == 0:
			add("max_pause", nil, "the workload has no crash (kill, pause) or deploy (restart, rolling_restart) step")
		default:
			worst := math.Max(nanZero(cf.CrashPause.Median), nanZero(cf.DeployPause.Median))
			add("max_pause", b(worst <= maxMs), "longest partition pause %s after a crash, %s in a deploy (max %s)",
				spreadMs(cf.CrashPause), spreadMs(cf.DeployPause), FormatMs(maxMs))
		}
	}
	// The backlog a crash leaves and the time to drain it.
	cf.DrainS = math.NaN()
	if rate > 0 && cf.Crashes > 0 && cf.CrashPause.N > 0 {
		cf.Backlog = rate * cf.CrashPause.Median / 1000
		if cf.NMinus1 != nil && cf.NMinus1.Capacity.N > 0 {
			if spare := cf.NMinus1.Capacity.Median - rate; spare > 0 {
				cf.DrainS = cf.Backlog / spare
			} else {
				cf.DrainS = math.Inf(1)
			}
		} else if cf.Row.Members == 1 {
			cf.DrainS = math.Inf(1)
		}
	}
	if t.MaxCatchUp > 0 {
		maxS := t.MaxCatchUp.Seconds()
		switch {
		case !cf.Target || cf.Crashes == 0:
			add("max_catch_up", nil, "no crash measured at the target rate")
		case math.IsNaN(cf.DrainS):
			add("max_catch_up", nil, "the capacity with one member fewer is not measured")
		case math.IsInf(cf.DrainS, 1):
			add("max_catch_up", &no, "never: with one member fewer the group sustains less than the target rate")
		case cf.CrashUnrecovered:
			add("max_catch_up", &no, "backlog %s records, drained in %s at the capacity with one member fewer, but a crash did not recover before the end of traffic (max %s)",
				formatCount(math.Round(cf.Backlog)), FormatMs(cf.DrainS*1000), FormatMs(maxS*1000))
		default:
			measured := nanZero(cf.CrashCatchUp.Median) / 1000
			worst := math.Max(cf.DrainS, measured)
			add("max_catch_up", b(worst <= maxS), "backlog %s records drained in %s at the capacity with one member fewer (measured catch-up %s; max %s)",
				formatCount(math.Round(cf.Backlog)), FormatMs(cf.DrainS*1000), spreadMs(cf.CrashCatchUp), FormatMs(maxS*1000))
		}
	}
	cf.Meets = len(cf.Checks) > 0
	for _, ch := range cf.Checks {
		if ch.OK == nil || !*ch.OK {
			cf.Meets = false
		}
	}
}

// recommend picks the smallest configuration that meets every target:
// fewest members, then fewest partitions, then the shortest crash pause.
func (c *Capacity) recommend() {
	smaller := func(a, b *Config) bool {
		if a.Row.Members != b.Row.Members {
			return a.Row.Members < b.Row.Members
		}
		if a.Row.Partitions != b.Row.Partitions {
			return a.Row.Partitions < b.Row.Partitions
		}
		return nanInf(a.CrashPause.Median) < nanInf(b.CrashPause.Median)
	}
	for _, cf := range c.Configs {
		if !cf.Meets {
			continue
		}
		if b := c.BestBy[cf.Row.Strategy]; b == nil || smaller(cf, b) {
			c.BestBy[cf.Row.Strategy] = cf
		}
		if c.Best == nil || smaller(cf, c.Best) {
			c.Best = cf
		}
	}
}

// physics checks the measurements against what physics allows: one
// member with one record in flight and processing cost c takes 1/c
// records/s; a group can take no more than one member's rate over the
// share of the records its busiest member processed, nor over the
// hottest partition's share h (a partition is processed one record at a
// time, whoever owns it): when the hottest partition's owner owns
// nothing else, both are (1/c)/h whatever the group's size.
func (c *Capacity) physics() {
	cost := c.Table.ProcessingCostMs / 1000
	if cost <= 0 || c.Spec.Consumer.Processing.Distribution != workloads.CostFixed || c.MemberRate.N == 0 {
		return
	}
	perMember := 1 / cost
	var pts []string
	for _, cf := range c.Configs {
		if cf.Capacity.N > 0 {
			pts = append(pts, cf.Row.CapacityRun)
		}
	}
	c.Physics = append(c.Physics, c.physicsCheck(fmt.Sprintf("one member's rate against 1/cost (cost %s)", FormatMs(cost*1000)),
		c.MemberRate.Median, perMember, pts))
	for _, cf := range c.Configs {
		if cf.Capacity.N == 0 || cf.MaxMemberShare <= 0 {
			continue
		}
		// A partition is processed one record at a time whoever owns it:
		// when it moved between members during the run, the busiest
		// member's share can fall below the hottest partition's, which
		// still bounds the group.
		bound := math.Max(cf.MaxMemberShare, cf.HottestShare)
		what := fmt.Sprintf("%s: the group against (1/cost) / the busiest member's share (%s)", cf.Name(), pct(cf.MaxMemberShare))
		switch {
		case math.Abs(cf.MaxMemberShare-cf.HottestShare) < 0.005:
			what = fmt.Sprintf("%s: the group against (1/cost) / the hottest partition's share h = %s (its owner owns nothing else)", cf.Name(), pct(cf.HottestShare))
		case cf.HottestShare > cf.MaxMemberShare:
			what = fmt.Sprintf("%s: the group against (1/cost) / the hottest partition's share h = %s (it moved between members: the busiest processed %s)", cf.Name(), pct(cf.HottestShare), pct(cf.MaxMemberShare))
		}
		c.Physics = append(c.Physics, c.physicsCheck(what, cf.Capacity.Median, perMember/bound, []string{cf.Row.CapacityRun}))
	}
}

func (c *Capacity) physicsCheck(what string, measured, expected float64, pts []string) PhysicsCheck {
	r := measured / expected
	load := math.NaN()
	for _, pt := range pts {
		if l := c.loadOf(pt); !math.IsNaN(l) {
			load = math.Max(nanZero(load), l)
		}
	}
	return PhysicsCheck{What: what, Measured: measured, Expected: expected, Ratio: r,
		OK: math.Abs(r-1) <= PhysicsTolerance, Points: pts, Load: load}
}

// loadOf is the host's highest load average around a run (NaN when the
// sweep did not record it).
func (c *Capacity) loadOf(run string) float64 {
	l := math.NaN()
	for _, rl := range c.Table.Sweep.Load {
		if rl.Run == run {
			l = math.Max(nanZero(l), math.Max(rl.Before, rl.After))
		}
	}
	return l
}

func nanZero(v float64) float64 {
	if math.IsNaN(v) {
		return 0
	}
	return v
}

func nanInf(v float64) float64 {
	if math.IsNaN(v) {
		return math.Inf(1)
	}
	return v
}

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

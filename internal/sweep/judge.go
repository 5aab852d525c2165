package sweep

import (
	"math"
	"slices"

	"github.com/chaosbench/chaosbench/internal/stat"
	"github.com/chaosbench/chaosbench/internal/summary"
	"github.com/chaosbench/chaosbench/internal/vocab"
	"github.com/chaosbench/chaosbench/workloads"
)

// The capacity report answers a team's sizing question from a sweep
// (docs/capacity.md): how many partitions and members, and which
// strategy, meet its targets, with the measurements behind each number.
// Judge holds the sweep's table to the targets: each point's targets
// (this file), the series of points that differ only in members and
// where adding members stops helping (series.go), the recommendation
// (recommend.go), the measurements against physics (physics.go) and the
// model of a larger group (production.go). Every figure here is a
// measurement of the sweep (a median over its iterations, with the spread
// beside it) or a sum of measurements (a backlog, the time to drain it);
// the models are apart and say so. The judgement holds values and says
// which case each is; package report puts them into words.

// Judgement is the judged sweep.
type Judgement struct {
	Dir     string
	Table   *Table
	Spec    *workloads.Spec // the workload, as the sweep ran it
	Targets workloads.Targets
	Configs []*Config
	Series  []*Series
	// MemberRate is what one member sustained, over every member of
	// every capacity run; the physics says 1/cost.
	MemberRate stat.Spread
	// Best is the smallest configuration that meets every target (nil
	// when none does); BestBy the smallest per strategy.
	Best   *Config
	BestBy map[string]*Config
	// BestNoIdle is the smallest configuration that meets every target
	// with no more members than partitions (nil when none does).
	BestNoIdle *Config
	// Physics are the checks of the measured capacities against physics.
	Physics []PhysicsCheck
	// Model is the larger group of targets.production, modelled (nil
	// without one).
	Model *ProductionModel
}

// Config is one point of the sweep, judged.
type Config struct {
	Row *Row
	// Capacity is the sustained throughput (records/s) over the
	// iterations (Row.Sustained); MemberRate what its members sustained.
	Capacity, MemberRate stat.Spread
	HottestShare         float64
	MaxMemberShare       float64
	// NMinus1 is the point with one member fewer and the same other
	// settings, when the sweep has it.
	NMinus1 *Config
	// CrashLeft is what the worst crash leaves, computed with the
	// assignor models and the measured member rate (crash.go); nil
	// without a model. When set, it decides the n-1 target and the time
	// to drain a crash's backlog.
	CrashLeft *CrashLeft
	// At the target rate (medians over the iterations).
	Target                                       bool // the point has a finished target run
	Delivered, LagSteady, LagPeak                stat.Spread
	P99Steady, P99Disruption                     stat.Spread
	CrashPause, DeployPause, CrashRecovery       stat.Spread
	CrashCatchUp, DeployRecovery, CrashGroupStop stat.Spread
	Crashes, Deploys                             int
	// CrashUnrecovered and DeployUnrecovered: some crash (deploy) did not
	// recover before the end of traffic in an iteration.
	CrashUnrecovered, DeployUnrecovered bool
	Moved, MinMoves                     stat.Spread
	MemberRecordsMin, MemberRecordsMax  stat.Spread
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
// the sweep did not measure what it needs. Case says which of the
// target's cases held; the figures it rests on are the configuration's.
type TargetCheck struct {
	Target string // rate, n-1, max_lag, max_pause, max_catch_up, valid
	OK     *bool
	Case   Case
}

// Case is why a target was judged as it was.
type Case string

const (
	// CaseMeasured: what the target holds is measured; OK says whether
	// it met the target.
	CaseMeasured Case = "measured"
	// CaseNotMeasured: the grid lacks what the target needs: the point's
	// capacity, or the capacity of the point with one member fewer.
	CaseNotMeasured Case = "not measured"
	// CaseNoMemberLeft: a group of one, which a crash leaves empty
	// (n-1; not met).
	CaseNoMemberLeft Case = "no member left"
	// CaseCrashModel: n-1 judged on what the worst crash leaves, computed
	// with the assignor models and the measured member rate.
	CaseCrashModel Case = "crash model"
	// CaseShortDelivery: the producer delivered less than 95% of the
	// target rate, so the target run did not test the target (valid).
	CaseShortDelivery Case = "short delivery"
	// CaseInvalid: the target run's cell is invalid (valid; not met).
	CaseInvalid Case = "invalid"
	// CaseNoTargetRun: the point has no finished target run.
	CaseNoTargetRun Case = "no target run"
	// CaseNoChaosStep: the workload has no crash or deploy step
	// (max_pause).
	CaseNoChaosStep Case = "no chaos step"
	// CaseNoCrash: no crash was measured at the target rate
	// (max_catch_up).
	CaseNoCrash Case = "no crash"
	// CaseNeverDrains: with one member fewer the group sustains less
	// than the target rate, so a crash's backlog never drains
	// (max_catch_up; not met).
	CaseNeverDrains Case = "never drains"
	// CaseUnrecovered: a crash did not recover before the end of traffic
	// (max_catch_up; not met).
	CaseUnrecovered Case = "unrecovered"
)

// Check returns the configuration's check of a target, nil when the
// target was not judged.
func (cf *Config) Check(target string) *TargetCheck {
	for i := range cf.Checks {
		if cf.Checks[i].Target == target {
			return &cf.Checks[i]
		}
	}
	return nil
}

// ModelFunc models the production group of targets.production: members
// and partitions, the sweep's strategies, the measured per-member
// capacity. Package groupmodel's Production is the one the commands
// pass: it computes with the assignor models of package assign, which
// nothing that renders a judgement needs to reach.
type ModelFunc func(spec *workloads.Spec, strategies []string, members, partitions int, memberRate float64) *ProductionModel

// Judge judges a sweep's table against targets; model computes the
// production group when the targets name one (nil: none is modelled).
// The n-1 target is then judged on the measured capacity of the point
// with one member fewer; JudgeCrash judges it on what a crash leaves.
func Judge(dir string, t *Table, spec *workloads.Spec, targets workloads.Targets, model ModelFunc) *Judgement {
	return JudgeCrash(dir, t, spec, targets, model, nil)
}

// JudgeCrash is Judge with crash computing what a crash leaves each
// configuration (nil: nothing is computed).
func JudgeCrash(dir string, t *Table, spec *workloads.Spec, targets workloads.Targets, model ModelFunc, crash CrashFunc) *Judgement {
	j := &Judgement{Dir: dir, Table: t, Spec: spec, Targets: targets, BestBy: map[string]*Config{}}
	for i := range t.Rows {
		j.Configs = append(j.Configs, newConfig(&t.Rows[i]))
	}
	j.series()
	var rates []float64
	for _, cf := range j.Configs {
		for _, it := range cf.Row.Capacity {
			for _, m := range it.Members {
				if m.Rate > 0 {
					rates = append(rates, m.Rate)
				}
			}
		}
	}
	j.MemberRate = stat.SpreadOf(rates)
	for _, s := range j.Series {
		j.knee(s)
	}
	for _, cf := range j.Configs {
		cf.CrashLeft = j.crashLeft(cf, crash)
		j.judge(cf)
	}
	j.recommend()
	j.physics()
	if p := targets.Production; p != nil && model != nil {
		j.Model = model(spec, j.Strategies(), p.Members, p.Partitions, j.MemberRate.Median)
	}
	return j
}

// Strategies are the strategies of the sweep, in the vocabulary's order.
func (j *Judgement) Strategies() []string {
	var out []string
	for _, cf := range j.Configs {
		if !slices.Contains(out, cf.Row.Strategy) {
			out = append(out, cf.Row.Strategy)
		}
	}
	slices.SortStableFunc(out, func(a, b string) int { return vocab.StrategyRank(a) - vocab.StrategyRank(b) })
	return out
}

func newConfig(r *Row) *Config {
	cf := &Config{Row: r, Verdict: summary.Valid}
	var mr, hs, ms []float64
	for _, it := range r.Capacity {
		mr = append(mr, it.MemberRate)
		hs = append(hs, it.HottestShare)
		ms = append(ms, it.MaxMemberShare)
	}
	cf.Capacity, cf.MemberRate = r.Sustained(), stat.SpreadOf(mr)
	cf.HottestShare, cf.MaxMemberShare = stat.Median(hs), stat.Median(ms)
	cf.Target = len(r.Target) > 0
	collect := func(f func(*AtTarget) (float64, bool)) stat.Spread {
		var xs []float64
		for i := range r.Target {
			if v, ok := f(&r.Target[i].AtTarget); ok {
				xs = append(xs, v)
			}
		}
		return stat.SpreadOf(xs)
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

// judge checks a config against each target that is set.
func (j *Judgement) judge(cf *Config) {
	t := j.Targets
	yes, no := true, false
	add := func(target string, ok *bool, c Case) {
		cf.Checks = append(cf.Checks, TargetCheck{Target: target, OK: ok, Case: c})
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
			add("rate", nil, CaseNotMeasured)
		} else {
			add("rate", b(cf.Capacity.Median >= rate), CaseMeasured)
		}
		switch {
		case cf.Row.Members == 1:
			add("n-1", &no, CaseNoMemberLeft)
		case cf.CrashLeft != nil:
			add("n-1", b(cf.CrashLeft.Capacity >= rate), CaseCrashModel)
		case cf.NMinus1 == nil || cf.NMinus1.Capacity.N == 0:
			add("n-1", nil, CaseNotMeasured)
		default:
			add("n-1", b(cf.NMinus1.Capacity.Median >= rate), CaseMeasured)
		}
	}
	if cf.Target && rate > 0 && cf.Delivered.N > 0 && cf.Delivered.Median < 0.95*rate {
		add("valid", nil, CaseShortDelivery)
	} else if cf.Target && cf.Verdict == summary.Invalid {
		add("valid", &no, CaseInvalid)
	}
	if t.MaxLag > 0 {
		if !cf.Target {
			add("max_lag", nil, CaseNoTargetRun)
		} else {
			add("max_lag", b(cf.LagSteady.Median <= float64(t.MaxLag)), CaseMeasured)
		}
	}
	if t.MaxPause > 0 {
		maxMs := float64(t.MaxPause.Milliseconds())
		switch {
		case !cf.Target:
			add("max_pause", nil, CaseNoTargetRun)
		case cf.Crashes == 0 && cf.Deploys == 0:
			add("max_pause", nil, CaseNoChaosStep)
		default:
			worst := math.Max(nanZero(cf.CrashPause.Median), nanZero(cf.DeployPause.Median))
			add("max_pause", b(worst <= maxMs), CaseMeasured)
		}
	}
	// The backlog a crash leaves and the time to drain it.
	cf.DrainS = math.NaN()
	if rate > 0 && cf.Crashes > 0 && cf.CrashPause.N > 0 {
		cf.Backlog = rate * cf.CrashPause.Median / 1000
		if cf.CrashLeft != nil {
			if spare := cf.CrashLeft.Capacity - rate; spare > 0 {
				cf.DrainS = cf.Backlog / spare
			} else {
				cf.DrainS = math.Inf(1)
			}
		} else if cf.NMinus1 != nil && cf.NMinus1.Capacity.N > 0 {
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
			add("max_catch_up", nil, CaseNoCrash)
		case math.IsNaN(cf.DrainS):
			add("max_catch_up", nil, CaseNotMeasured)
		case math.IsInf(cf.DrainS, 1):
			add("max_catch_up", &no, CaseNeverDrains)
		case cf.CrashUnrecovered:
			add("max_catch_up", &no, CaseUnrecovered)
		default:
			measured := nanZero(cf.CrashCatchUp.Median) / 1000
			worst := math.Max(cf.DrainS, measured)
			add("max_catch_up", b(worst <= maxS), CaseMeasured)
		}
	}
	cf.Meets = len(cf.Checks) > 0
	for _, ch := range cf.Checks {
		if ch.OK == nil || !*ch.OK {
			cf.Meets = false
		}
	}
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

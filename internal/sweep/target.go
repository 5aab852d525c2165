package sweep

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"

	"github.com/chaosbench/chaosbench/internal/summary"
	"github.com/chaosbench/chaosbench/internal/vocab"
	"github.com/chaosbench/chaosbench/workloads"
)

// AtTarget is what the group did at the target rate under the workload's
// chaos steps: a target run's cell, from its summary.json (the checkers'
// figures, docs/summary.md) and the run's plan.json (which step each
// disruption came from).
type AtTarget struct {
	// Rate is the rate the producer was asked for; Delivered what it
	// delivered (acknowledged records over the traffic time). A target
	// run whose producer fell short did not test the target.
	Rate      float64 `json:"rate"`
	Delivered float64 `json:"delivered"`
	// LagSteady is the highest lag (records) of the steady state before
	// the first disruption: the lag at the target rate. LagPeak is the
	// highest of the whole traffic, disruptions included.
	LagSteady int64 `json:"lag_steady"`
	LagPeak   int64 `json:"lag_peak"`
	// Latency p99, steady state and disruptions (ms); nil without samples.
	LatencyP99Steady     *float64 `json:"latency_p99_steady_ms"`
	LatencyP99Disruption *float64 `json:"latency_p99_disruption_ms"`
	// Crash sums up the disruptions of the steps that crash or freeze a
	// member (kill, pause); Deploy those of the steps that restart one
	// (restart, rolling_restart, stop).
	Crash  Disruptions `json:"crash"`
	Deploy Disruptions `json:"deploy"`
	// HottestShare is the hottest partition's share of the acknowledged
	// records; MemberRecordsMin and Max the fewest and most records a
	// member processed.
	HottestShare     float64 `json:"hottest_share"`
	MemberRecordsMin int64   `json:"member_records_min"`
	MemberRecordsMax int64   `json:"member_records_max"`
	// Moved and MinMoves: partitions moved over the run, and the fewest
	// any balanced assignment needed.
	Moved    int `json:"moved"`
	MinMoves int `json:"min_moves"`
	// Verdict is the cell's (valid, unknown, invalid); Complete and
	// DrainComplete from its record.
	Verdict        summary.Verdict `json:"verdict"`
	VerdictReasons []string        `json:"verdict_reasons,omitempty"`
	Complete       bool            `json:"complete"`
	DrainComplete  bool            `json:"drain_complete"`
}

// Disruptions sums up the disruptions of one kind of step.
type Disruptions struct {
	Count int `json:"count"`
	// PauseMaxMs is the longest partition pause; GroupStopMs the longest
	// stop of the whole group.
	PauseMaxMs  float64 `json:"pause_max_ms"`
	GroupStopMs float64 `json:"group_stop_ms"`
	// RecoveryMs is the longest recovery (rate and lag back to their
	// level before); nil when none recovered. NotRecovered counts those
	// that did not before the end of traffic.
	RecoveryMs   *float64 `json:"recovery_ms"`
	NotRecovered int      `json:"not_recovered"`
	// PauseOfRecovery is the longest pause of the disruption whose
	// recovery is RecoveryMs: the catch-up is the recovery after it.
	PauseOfRecovery float64 `json:"pause_of_recovery_ms"`
	Moved           int     `json:"moved"`
	MinMoves        int     `json:"min_moves"`
	Duplicates      int64   `json:"duplicates"`
}

// CatchUpMs is the time the group took to drain the backlog after the
// pause of its slowest recovery: recovery minus that pause; nil when
// nothing recovered.
func (d Disruptions) CatchUpMs() *float64 {
	if d.RecoveryMs == nil {
		return nil
	}
	v := math.Max(0, *d.RecoveryMs-d.PauseOfRecovery)
	return &v
}

// kinds of chaos step, for the report's crash and deploy columns.
var (
	crashActions  = map[string]bool{vocab.ActionKill: true, vocab.ActionPause: true}
	deployActions = map[string]bool{vocab.ActionRestart: true, vocab.ActionRollingRestart: true, vocab.ActionStop: true}
)

// MeasureTarget reads a target run's cell: its summary (from summarize,
// which analyses the cell first when it has none) and the run's plan.
func MeasureTarget(runDir, cellDir string, summarize func(cellDir string) (*summary.Summary, error)) (*AtTarget, error) {
	s, err := summarize(cellDir)
	if err != nil {
		return nil, err
	}
	steps, err := planActions(runDir)
	if err != nil {
		return nil, err
	}
	return atTarget(s, steps), nil
}

// planActions maps each step number of a run's plan.json to its action.
func planActions(runDir string) (map[int]string, error) {
	path := filepath.Join(runDir, "plan.json")
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var plan struct {
		Steps []workloads.PlannedStep `json:"steps"`
	}
	if err := json.Unmarshal(b, &plan); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	out := map[int]string{}
	for _, st := range plan.Steps {
		out[st.Step] = st.Action
	}
	return out, nil
}

// atTarget sums a summary up; steps gives each step's action.
func atTarget(s *summary.Summary, steps map[int]string) *AtTarget {
	a := &AtTarget{Verdict: s.Verdict, VerdictReasons: s.VerdictReasons, Complete: s.Cell.Complete,
		DrainComplete: s.Cell.DrainComplete, HottestShare: s.Skew.HottestShare,
		Moved: s.Movement.Moved, MinMoves: s.Movement.MinMoves}
	var warmup, steady int64
	var haveWarmup, haveSteady bool
	for _, ph := range s.History.Phases {
		switch ph.Phase {
		case "warmup":
			warmup, haveWarmup = ph.T, true
		case "steady":
			steady, haveSteady = ph.T, true
		}
	}
	if end := s.Cell.TrafficEndT; end > warmup && haveWarmup {
		a.Delivered = float64(s.History.Acked) / (float64(end-warmup) / 1e9)
	}
	// The steady state before the first disruption of the steady state.
	first := s.Cell.TrafficEndT
	for _, d := range s.Disruptions {
		if d.Phase != "start" && d.Phase != "warmup" && (first == 0 || d.StartT < first) {
			first = d.StartT
		}
	}
	tl := s.Timeline
	for i, lag := range tl.Lag {
		binStart := tl.StartT + int64(float64(i)*tl.BinMs*1e6)
		binEnd := binStart + int64(tl.BinMs*1e6)
		if binStart < warmup || (s.Cell.TrafficEndT > 0 && binStart >= s.Cell.TrafficEndT) {
			continue
		}
		a.LagPeak = max(a.LagPeak, lag)
		if haveSteady && binStart >= steady && (first == 0 || binEnd <= first) {
			a.LagSteady = max(a.LagSteady, lag)
		}
	}
	if l := s.Latency.Steady; l.Count > 0 {
		a.LatencyP99Steady = &l.P99
	}
	if l := s.Latency.Disruption; l.Count > 0 {
		a.LatencyP99Disruption = &l.P99
	}
	for _, d := range s.Disruptions {
		if d.Cause != "chaos" || d.Phase == "start" || d.Phase == "warmup" {
			continue
		}
		var k *Disruptions
		switch {
		case crashActions[steps[d.Step]]:
			k = &a.Crash
		case deployActions[steps[d.Step]]:
			k = &a.Deploy
		default:
			continue
		}
		k.Count++
		k.PauseMaxMs = math.Max(k.PauseMaxMs, d.Pause.Max)
		k.GroupStopMs = math.Max(k.GroupStopMs, d.GroupStopMs)
		if d.RecoveryMs != nil {
			if k.RecoveryMs == nil || *d.RecoveryMs > *k.RecoveryMs {
				v := *d.RecoveryMs
				k.RecoveryMs = &v
				k.PauseOfRecovery = d.Pause.Max
			}
		} else {
			k.NotRecovered++
		}
		k.Moved += d.Moved
		k.MinMoves += d.MinMoves
		k.Duplicates += d.Duplicates
	}
	first2 := true
	for _, m := range s.Skew.Members {
		if first2 || m.Processed < a.MemberRecordsMin {
			a.MemberRecordsMin = m.Processed
		}
		a.MemberRecordsMax = max(a.MemberRecordsMax, m.Processed)
		first2 = false
	}
	return a
}

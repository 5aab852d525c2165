package check

// What the autoscaler's scale steps cost (docs/summary.md, `autoscale`).
//
// A scale step is one decision of the autoscaler: the driver records an
// `add` (scale-up) or `stop` (scale-down) chaos event per member it
// starts or stops, with "autoscaler" in the event's params and the
// decision's step number, so the group model takes each as the
// disruption it is. Over the decisions, in step order:
//
//   - steps, ups and downs; flaps, the decisions whose direction differs
//     from the previous decision's;
//   - each decision's cost from its disruptions: its longest partition
//     pause, its longest group stop, the duplicates attributed to it and
//     the partitions it moved; the decisions' longest pauses summarised
//     with nearest-rank percentiles;
//   - the lag against the threshold: the timeline's lag at the end of each
//     bin over the members the autoscaler had asked for by then (its
//     first decision's "from" before it), at least one, the highest of
//     them, and that over lagThreshold.
//
// Every scale step counts, whichever phase it began in: the autoscaler
// acts from the start of traffic, and its first steps are what it costs.

import (
	"encoding/json"
	"sort"

	"github.com/chaosbench/chaosbench/internal/summary"
	"github.com/chaosbench/chaosbench/internal/vocab"
)

// scaleParams are the decision's params as the driver records them.
type scaleParams struct {
	Autoscaler   bool   `json:"autoscaler"`
	From         int    `json:"from"`
	To           int    `json:"to"`
	Lag          int64  `json:"lag"`
	LagThreshold int64  `json:"lag_threshold"`
	Reason       string `json:"reason"`
}

// autoscaleResult fills s.Autoscale from the disruptions' rows, once every
// checker has written its columns; nil when no scale step was recorded.
func autoscaleResult(s *summary.Summary) {
	byStep := map[int]*summary.ScaleStep{}
	var threshold int64
	for _, d := range s.Disruptions {
		if d.Cause != "chaos" || d.Step <= 0 || len(d.Params) == 0 || d.Err != "" ||
			(d.Action != vocab.ActionAdd && d.Action != vocab.ActionStop) {
			continue
		}
		var p scaleParams
		if json.Unmarshal(d.Params, &p) != nil || !p.Autoscaler {
			continue
		}
		threshold = max(threshold, p.LagThreshold)
		st := byStep[d.Step]
		if st == nil {
			st = &summary.ScaleStep{Step: d.Step, T: d.StartT, Action: d.Action, From: p.From, To: p.To, Lag: p.Lag, Reason: p.Reason}
			byStep[d.Step] = st
		}
		st.T = min(st.T, d.StartT)
		if d.Pause.Count > 0 {
			st.PauseMaxMs = max(st.PauseMaxMs, d.Pause.Max)
		}
		st.GroupStopMs = max(st.GroupStopMs, d.GroupStopMs)
		st.Duplicates += d.Duplicates
		st.Moved += d.Moved
	}
	if len(byStep) == 0 {
		return
	}
	r := &summary.AutoscaleResult{LagThreshold: threshold, Decisions: []summary.ScaleStep{}}
	for _, st := range byStep {
		r.Decisions = append(r.Decisions, *st)
	}
	sort.Slice(r.Decisions, func(i, j int) bool { return r.Decisions[i].Step < r.Decisions[j].Step })
	var pauses []int64
	r.MinMembers, r.MaxMembers = r.Decisions[0].To, r.Decisions[0].To
	for i, st := range r.Decisions {
		r.Steps++
		if st.To > st.From {
			r.Ups++
		} else {
			r.Downs++
		}
		if i > 0 && (st.To > st.From) != (r.Decisions[i-1].To > r.Decisions[i-1].From) {
			r.Flaps++
		}
		r.MinMembers, r.MaxMembers = min(r.MinMembers, st.To), max(r.MaxMembers, st.To)
		pauses = append(pauses, int64(st.PauseMaxMs*1e6))
		r.GroupStopMaxMs = max(r.GroupStopMaxMs, st.GroupStopMs)
		r.Duplicates += st.Duplicates
		r.Moved += st.Moved
	}
	r.StepPause = statsOf(pauses)
	r.MaxLagPerMember = maxLagPerMember(s.Timeline, r.Decisions)
	if threshold > 0 {
		r.MaxLagOverThreshold = r.MaxLagPerMember / float64(threshold)
	}
	s.Autoscale = r
}

// maxLagPerMember is the highest lag of the timeline's bins over the
// members asked for at the bin's end (at least one).
func maxLagPerMember(tl summary.Timeline, ds []summary.ScaleStep) float64 {
	var best float64
	k := 0
	members := ds[0].From
	for i, lag := range tl.Lag {
		end := tl.StartT + int64(float64(i+1)*tl.BinMs*1e6)
		for k < len(ds) && ds[k].T <= end {
			members = ds[k].To
			k++
		}
		best = max(best, float64(lag)/float64(max(members, 1)))
	}
	return best
}

package check

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/chaosbench/chaosbench/internal/summary"
)

// A flapping autoscaler, its costs known by construction: up 1 -> 3
// (two members added: step 1, two disruptions), down 3 -> 1 (step 2, two
// stops), up 1 -> 2 (step 3), and a planned kill (step 4, not the
// autoscaler's) and a rebalance nobody caused, which do not count.
func TestAutoscaleResult(t *testing.T) {
	ms := int64(1e6)
	par := func(from, to int, lag int64) json.RawMessage {
		b, _ := json.Marshal(map[string]any{"autoscaler": true, "from": from, "to": to, "lag": lag, "lag_threshold": 100, "reason": "r"})
		return b
	}
	s := &summary.Summary{
		Disruptions: []summary.Disruption{
			{Cause: "chaos", Action: "add", Target: "m2", Step: 1, StartT: 1000 * ms, Params: par(1, 3, 900),
				Pause: summary.Stats{Count: 2, Max: 400}, GroupStopMs: 350, Duplicates: 5, Moved: 2},
			{Cause: "chaos", Action: "add", Target: "m3", Step: 1, StartT: 1000 * ms, Params: par(1, 3, 900),
				Pause: summary.Stats{Count: 1, Max: 600}, GroupStopMs: 300, Duplicates: 1, Moved: 1},
			{Cause: "chaos", Action: "stop", Target: "m3", Step: 2, StartT: 5000 * ms, Params: par(3, 1, 10),
				Pause: summary.Stats{Count: 1, Max: 200}, Moved: 1},
			{Cause: "chaos", Action: "stop", Target: "m2", Step: 2, StartT: 5001 * ms, Params: par(3, 1, 10),
				Pause: summary.Stats{Count: 1, Max: 250}, Duplicates: 2, Moved: 1},
			{Cause: "chaos", Action: "add", Target: "m4", Step: 3, StartT: 8000 * ms, Params: par(1, 2, 300)},
			{Cause: "chaos", Action: "kill", Target: "m1", Step: 4, StartT: 9000 * ms, Pause: summary.Stats{Count: 3, Max: 9000}},
			{Cause: "rebalance", StartT: 9500 * ms, Pause: summary.Stats{Count: 1, Max: 7000}},
		},
		// Bins of 1 s from t = 0: the lag at the end of each. Members asked
		// for: 1 until 1 s, 3 from 1 s, 1 from 5 s, 2 from 8 s.
		Timeline: summary.Timeline{StartT: 0, BinMs: 1000, Lag: []int64{50, 900, 600, 300, 30, 10, 250, 180, 300, 20}},
	}
	autoscaleResult(s)
	r := s.Autoscale
	if r == nil {
		t.Fatal("no autoscale result")
	}
	want := summary.AutoscaleResult{
		Steps: 3, Ups: 2, Downs: 1, Flaps: 2, MinMembers: 1, MaxMembers: 3,
		// the decisions' longest pauses: 600, 250, 0
		StepPause:      summary.Stats{Count: 3, P50: 250, P95: 600, Max: 600, Sum: 850},
		GroupStopMaxMs: 350, Duplicates: 8, Moved: 5, LagThreshold: 100,
		// bin 1 ends at 2 s, step 1 (at 1 s) having asked for 3: 900/3 = 300;
		// bin 6 ends at 7 s with 1 member asked for: 250; bin 8 (9 s): 300/2.
		MaxLagPerMember: 300, MaxLagOverThreshold: 3,
	}
	got := *r
	got.Decisions = nil
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
	if len(r.Decisions) != 3 || r.Decisions[0].PauseMaxMs != 600 || r.Decisions[0].Duplicates != 6 || r.Decisions[1].T != 5000*ms ||
		r.Decisions[2].Action != "add" || r.Decisions[2].From != 1 || r.Decisions[2].To != 2 {
		t.Errorf("decisions %+v", r.Decisions)
	}

	// No scale step, no result.
	s = &summary.Summary{Disruptions: s.Disruptions[5:]}
	if autoscaleResult(s); s.Autoscale != nil {
		t.Errorf("autoscale result without a scale step: %+v", s.Autoscale)
	}
}

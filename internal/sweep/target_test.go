package sweep

import (
	"testing"

	"github.com/chaosbench/chaosbench/internal/summary"
)

// A target run's figures come from its summary: the steady lag stops at
// the first disruption; each disruption goes to the crash or the deploy
// column by its step's action.
func TestAtTarget(t *testing.T) {
	const s = int64(1e9)
	rec := 9000.0
	sum := &summary.Summary{
		Verdict: summary.Valid,
		Cell:    summary.CellInfo{Complete: true, DrainComplete: true, TrafficEndT: 40 * s},
		History: summary.HistoryStats{Acked: 12000, Phases: []summary.PhaseMark{{Phase: "warmup", T: 0}, {Phase: "steady", T: 5 * s}}},
		Timeline: summary.Timeline{StartT: 0, BinMs: 1000,
			// lag at the end of each second: 50 before the warmup ends, 10
			// in the steady state, 2000 after the kill at 10 s.
			Lag: []int64{50, 50, 50, 50, 50, 10, 12, 9, 11, 10, 2000, 1500, 10}},
		Disruptions: []summary.Disruption{
			{Cause: "chaos", Action: "kill", Step: 1, Phase: "steady", StartT: 10 * s, Pause: summary.Stats{Max: 7000}, RecoveryMs: &rec},
			{Cause: "chaos", Action: "restart", Step: 3, Phase: "steady", StartT: 20 * s, Pause: summary.Stats{Max: 800}},
			{Cause: "chaos", Action: "restart", Step: 3, Phase: "steady", StartT: 22 * s, Pause: summary.Stats{Max: 1200}},
		},
	}
	a := atTarget(sum, map[int]string{1: "kill", 2: "restart", 3: "rolling_restart"})
	if a.LagSteady != 12 || a.LagPeak != 2000 || a.Delivered != 300 {
		t.Errorf("lag %d, peak %d, delivered %v; want 12, 2000, 300", a.LagSteady, a.LagPeak, a.Delivered)
	}
	if a.Crash.Count != 1 || a.Crash.PauseMaxMs != 7000 || *a.Crash.CatchUpMs() != 2000 {
		t.Errorf("crash %+v", a.Crash)
	}
	if a.Deploy.Count != 2 || a.Deploy.PauseMaxMs != 1200 || a.Deploy.RecoveryMs != nil || a.Deploy.NotRecovered != 2 {
		t.Errorf("deploy %+v", a.Deploy)
	}
}

package report

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/chaosbench/chaosbench/internal/summary"
)

// noisyRun is n iterations of each group, every metric of every cell
// drawn around the same values (unchanged code), the pause scaled by
// slower.
func noisyRun(keys []Key, n int, slower float64, seed uint64) *Run {
	rng := rand.New(rand.NewPCG(seed, 7))
	r := &Run{Dir: "unchanged"}
	for _, k := range keys {
		g := &Group{Key: k}
		for i := 0; i < n; i++ {
			s := &summary.Summary{Verdict: summary.Valid}
			s.Cell.Strategy, s.Cell.CommitPolicy, s.Cell.Client, s.Cell.Iteration = k.Strategy, k.CommitPolicy, k.Client, i
			p := (1000 + 100*rng.NormFloat64()) * slower
			s.Pause.Stats = summary.Stats{Count: 8, P50: p / 2, P95: p, Max: p * 1.1}
			s.Duplicates.Count = int64(rng.IntN(20))
			s.Movement.Moved = 3 + rng.IntN(3)
			s.Latency.Steady = summary.LatencySummary{Count: 1000, P50: 5 + rng.Float64(), P99: 40 + 10*rng.Float64()}
			c := &Cell{S: s}
			g.Cells = append(g.Cells, c)
			r.Cells = append(r.Cells, c)
		}
		r.Groups = append(r.Groups, g)
	}
	return r
}

// On unchanged code the nightly's judgement is red on at most alpha of the
// nights, while judging each metric alone turns chance into red nights;
// a pause 60% longer in one group is red every night.
func TestCalibrate(t *testing.T) {
	keys := []Key{{"range", "sync-batch", "confluent"}, {"cooperative-sticky", "sync-batch", "confluent"}}
	unchanged := noisyRun(keys, 18, 1, 1)
	slower := noisyRun(keys[:1], 8, 1.6, 2)
	cal, err := Calibrate(unchanged, []Regression{{Name: "pauses 60% longer", Run: slower}},
		CalibrateOptions{BaselineSize: 10, CandidateSize: 8, Splits: 100, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	if cal.Iterations != 18 || cal.Groups != 2 || cal.Tests == 0 {
		t.Errorf("iterations %d, groups %d, tests %d", cal.Iterations, cal.Groups, cal.Tests)
	}
	byName := map[string]RedCount{}
	for _, r := range cal.FalseRed {
		byName[r.Name] = r
	}
	nightly := cal.FalseRed[len(cal.FalseRed)-1]
	if nightly.Red > 5 || nightly.Of != 100 {
		t.Errorf("the nightly's judgement: %d red nights of %d on unchanged code, want at most 5 (%v)", nightly.Red, nightly.Of, nightly.Examples)
	}
	if holm := cal.FalseRed[1]; holm.Red > 5 {
		t.Errorf("Holm's correction alone: %d red nights of 100", holm.Red)
	}
	if alone := cal.FalseRed[0]; alone.Red < nightly.Red {
		t.Errorf("each metric alone (%d red) is red less often than corrected (%d)", alone.Red, nightly.Red)
	}
	if d := cal.Detected[0]; d.Red != d.Of {
		t.Errorf("a 60%% longer pause in one group: red %d of %d nights, want every night", d.Red, d.Of)
	}
	th := cal.Thresholds.Groups[keys[0].String()]["pause_p95_ms"]
	if th.Absolute <= 0 || th.Absolute > 300 || th.Relative != 0 {
		t.Errorf("pause p95 threshold %+v: want the spread of a 10%% noise on 1000 ms medians (tens of ms)", th)
	}
	var md bytes.Buffer
	if err := WriteCalibration(&md, cal); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Red nights on unchanged code", "pauses 60% longer", "| 100 of 100 |", "partition pause p95"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("calibration.md has no %q:\n%s", want, md.String())
		}
	}
	// Too few iterations for the shape asked.
	if _, err := Calibrate(noisyRun(keys, 12, 1, 1), nil, CalibrateOptions{BaselineSize: 10, CandidateSize: 8, Splits: 1}); err == nil || !strings.Contains(err.Error(), "needs 18 iterations") {
		t.Errorf("12 iterations for 10 + 8: %v", err)
	}
}

func TestParseThresholds(t *testing.T) {
	good := `{"schema_version": 1, "quantile": 0.95, "splits": 10,
		"groups": {"range · sync-batch · confluent": {"pause_p95_ms": {"relative": 0, "absolute": 120}}},
		"metrics": {"pause_p95_ms": {"relative": 0, "absolute": 150}}}`
	c, err := ParseThresholds("t.json", []byte(good))
	if err != nil {
		t.Fatal(err)
	}
	if got := (CompareOptions{GroupThresholds: c.Groups, Thresholds: c.Metrics}).threshold(Key{"range", "sync-batch", "confluent"}, "pause_p95_ms"); got.Absolute != 120 {
		t.Errorf("a group's threshold: %+v", got)
	}
	if got := (CompareOptions{GroupThresholds: c.Groups, Thresholds: c.Metrics}).threshold(Key{"sticky", "sync-batch", "franz"}, "pause_p95_ms"); got.Absolute != 150 {
		t.Errorf("another group takes the metric's: %+v", got)
	}
	for in, want := range map[string]string{
		`{"schema_version": 2}`: `field "schema_version": 2`,
		`{"schema_version": 1, "metrics": {"pause": {"absolute": 1}}}`:     `unknown metric "pause"`,
		`{"schema_version": 1, "metrics": {"moved": {"absolute": -1}}}`:    `expected a number from 0`,
		`{"schema_version": 1, "metrics": {"moved": {"absolute": 1e300}}}`: `expected a number from 0`,
		`{"schema_version": 1, "groups": {"range": {}}}`:                   `expected a group as strategy · commit policy · client`,
		`[1]`: `t.json:`,
	} {
		if _, err := ParseThresholds("t.json", []byte(in)); err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "t.json") {
			t.Errorf("ParseThresholds(%s): %v, want an error naming t.json with %q", in, err, want)
		}
	}
}

package report

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/chaosbench/chaosbench/workloads"
)

// Every prediction of the shipped catalogue names a metric of the
// reports: a misspelt one would only be found after a two-hour run.
func TestScenarioPredictionsNameMetrics(t *testing.T) {
	files, _ := filepath.Glob("../workloads/scenarios/*.yaml")
	files = append(files, "../workloads/partition-growth-1000.yaml")
	if len(files) < 9 {
		t.Fatalf("%d scenarios", len(files))
	}
	for _, f := range files {
		s, err := workloads.Load(f)
		if err != nil {
			t.Fatal(err)
		}
		if len(s.Expect) == 0 {
			t.Errorf("%s: no predictions", f)
		}
		for _, x := range s.Expect {
			if _, ok := MetricByName(x.Metric); !ok {
				t.Errorf("%s: prediction of %q: no such metric", f, x.Metric)
			}
		}
	}
}

// TestJudge: a prediction holds within its bounds, does not outside
// them, and is unknown for a timing measured only on a saturated host
// (shown with what it measured, not judged).
func TestJudge(t *testing.T) {
	max0, min1 := 0.0, 1000.0
	m, _ := MetricByName("other_pause_p95_ms")
	x := workloads.Expectation{Metric: m.Name, Max: &max0, Why: "nothing else pauses"}
	if c := judge(x, m, pauseGroup("cooperative-sticky", false, 0, 0, 0)); c.Outcome != Held {
		t.Errorf("0 <= 0: %s", c.Outcome)
	}
	if c := judge(x, m, pauseGroup("range", false, 100, 120, 90)); c.Outcome != NotHeld || c.Value != 100 {
		t.Errorf("100 > 0: %s %v", c.Outcome, c.Value)
	}
	y := workloads.Expectation{Metric: m.Name, Min: &min1, Why: "x"}
	c := judge(y, m, pauseGroup("range", true, 3000))
	if c.Outcome != Unknown || c.HostValue != 3000 {
		t.Errorf("saturated: %s %v", c.Outcome, c.HostValue)
	}
	sc := &Scenario{Run: &Run{Dir: "crash", Groups: []*Group{pauseGroup("range", true, 3000)}},
		Spec: &workloads.Spec{Strategies: []string{"range"}, Expect: []workloads.Expectation{y}}}
	if err := sc.judge(); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := WriteScenarios(&b, []*Scenario{sc}, "t"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "| pause p95, the other partitions | ≥ 1.0 s | x | ? 3.0 s, timed on a saturated host |") {
		t.Errorf("scenarios.md:\n%s", b.String())
	}
	if ScenariosVerdict([]*Scenario{sc}) != Unknown {
		t.Errorf("verdict %s", ScenariosVerdict([]*Scenario{sc}))
	}
}

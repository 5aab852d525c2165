package report

import (
	"bufio"
	"bytes"
	"strings"
	"testing"

	"github.com/chaosbench/chaosbench/internal/summary"
)

// pauseGroup makes a group of one summary per value of the other partitions'
// pause p95, with the same traffic skew.
func pauseGroup(strategy string, saturated bool, p95s ...float64) *Group {
	g := &Group{Key: Key{strategy, "sync-batch", "confluent"}}
	for i, v := range p95s {
		s := &summary.Summary{}
		s.Cell.Iteration = i
		s.Pause.OtherStats = summary.Stats{Count: 3, P50: v / 2, P95: v, Max: v}
		s.Skew.MaxOverMean, s.Skew.HottestShare = 1.22, 0.1
		s.Host.Measured, s.Host.Saturated = true, saturated
		g.Cells = append(g.Cells, &Cell{S: s})
	}
	return g
}

// TestDifferences: five repeats a side that do not overlap are told apart
// (the smallest p of 5 against 5 is 0.008); overlapping ones are within
// the spread; one run a side cannot tell.
func TestDifferences(t *testing.T) {
	m, _ := MetricByName("other_pause_p95_ms")
	find := func(ds []Differ) Differ {
		for _, d := range ds {
			if d.Metric.Name == m.Name {
				return d
			}
		}
		t.Fatal("no ranking of the other partitions' pause")
		return Differ{}
	}
	d := find(Differences([]*Group{pauseGroup("range", false, 900, 950, 1000, 1100, 1200), pauseGroup("cooperative-sticky", false, 100, 110, 120, 130, 140)}))
	if d.Best.Key.Strategy != "cooperative-sticky" || !d.Beyond || d.Verdict() != "yes (p = 0.008)" {
		t.Errorf("apart: best %s, %s", d.Best.Key, d.Verdict())
	}
	d = find(Differences([]*Group{pauseGroup("range", false, 100, 300, 500, 700, 900), pauseGroup("cooperative-sticky", false, 200, 400, 600, 800, 1000)}))
	if d.Beyond || !strings.HasPrefix(d.Verdict(), "no (p = ") {
		t.Errorf("overlapping: %s", d.Verdict())
	}
	d = find(Differences([]*Group{pauseGroup("range", false, 900), pauseGroup("cooperative-sticky", false, 100)}))
	if d.Beyond || !strings.HasPrefix(d.Verdict(), "cannot tell") {
		t.Errorf("one run each: %s", d.Verdict())
	}
}

// TestSummaryTableSaysTrafficOnceAndHostBound: the traffic's skew, the
// same in every column, is one note, not a row; a timing measured only on
// a saturated host is shown as host-bound; repeats show their range.
func TestSummaryTableSaysTrafficOnceAndHostBound(t *testing.T) {
	gs := []*Group{pauseGroup("range", true, 900), pauseGroup("cooperative-sticky", false, 100, 120, 140)}
	var b bytes.Buffer
	e := &ewriter{w: bufio.NewWriter(&b)}
	strategiesSection(gs).markdown(e)
	if err := e.flush(); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"Traffic: records per partition, max / mean 1.22",
		"| pause p95, the other partitions | 900 ms (host-bound) | 120 ms (100 ms – 140 ms) |",
		"| host | saturated | ok |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("want %q in:\n%s", want, out)
		}
	}
	if strings.Contains(out, "| records per partition, max / mean |") {
		t.Errorf("the traffic's skew is a row:\n%s", out)
	}
}

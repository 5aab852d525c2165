package report

import (
	"bufio"
	"math"
	"strings"
	"testing"

	"github.com/chaosbench/chaosbench/internal/summary"
)

func clientGroup(strategy, client string, p95s ...float64) *Group {
	g := &Group{Key: Key{Strategy: strategy, CommitPolicy: "sync-batch", Client: client}}
	for _, v := range p95s {
		s := &summary.Summary{}
		s.Pause.Stats.Count = 4
		s.Pause.Stats.P50 = 100
		s.Pause.Stats.P95 = v
		g.Cells = append(g.Cells, &Cell{S: s})
	}
	return g
}

// A clients table per strategy run on several clients, columns in the
// vocabulary's order; a difference only where every repeat of one client
// is beyond every repeat of the other by more than 10%.
func TestClientTables(t *testing.T) {
	r := &Run{Groups: []*Group{
		clientGroup("range", "java", 7000, 7100, 6900),
		clientGroup("range", "confluent", 6000, 6200, 6100),
		clientGroup("range", "franz", 6050, 6950, 6500), // overlaps both
		clientGroup("sticky", "franz", 5000, 5000, 5000),
	}}
	ts := ClientTables(r)
	if len(ts) != 1 || ts[0].Strategy != "range" {
		t.Fatalf("tables %+v, want one, for range (sticky ran on one client)", ts)
	}
	tb := ts[0]
	var cols []string
	for _, g := range tb.Groups {
		cols = append(cols, g.Key.Client)
	}
	if strings.Join(cols, ",") != "confluent,franz,java" {
		t.Errorf("columns %v, want the vocabulary's order", cols)
	}
	if len(tb.Differences) != 1 {
		t.Fatalf("differences %+v, want java above confluent on pause p95 only", tb.Differences)
	}
	d := tb.Differences[0]
	if d.Metric.Name != "pause_p95_ms" || d.High.Key.Client != "java" || d.Low.Key.Client != "confluent" || math.Abs(d.P-0.1) > 1e-9 {
		t.Errorf("difference %s (p %v)", d.Text(), d.P)
	}
	if got := d.Text(); !strings.Contains(got, "java 7.0 s (6.9 s–7.1 s), confluent 6.1 s (6.0 s–6.2 s)") {
		t.Errorf("text %q", got)
	}
	var b strings.Builder
	e := &ewriter{w: bufioWriter(&b)}
	clientsSection(r).markdown(e)
	if err := e.flush(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "### range · sync-batch") || !strings.Contains(b.String(), "| confluent (3) | franz (3) | java (3) |") {
		t.Errorf("markdown:\n%s", b.String())
	}
}

func bufioWriter(b *strings.Builder) *bufio.Writer { return bufio.NewWriter(b) }

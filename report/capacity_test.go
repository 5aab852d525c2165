package report

import (
	"bytes"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chaosbench/chaosbench/internal/runfolder"
	"github.com/chaosbench/chaosbench/internal/summary"
	"github.com/chaosbench/chaosbench/internal/sweep"
	"github.com/chaosbench/chaosbench/workloads"
)

// capacityTable is a sweep of members 1 to 4 over 4 partitions at 10 ms a
// record (100 records/s a member), uniform keys: the group scales to 4
// members and stops there (the partition count); 8 partitions give the
// hottest partition a fixed 40% (hot keys), which caps every group at 250.
func capacityTable(t *testing.T) (*SweepTable, *workloads.Spec) {
	t.Helper()
	spec, err := workloads.Parse("w.yaml", []byte(`duration: 30s
topic: {partitions: 4}
consumer: {members: 2, processing: {cost: 10ms}}
strategies: [cooperative-sticky]
producer: {rate: 150}
chaos: {warmup: 5s, steps: [{at: 10s, action: kill, target: random}, {at: 20s, action: rolling_restart, interval: 1s}]}
`))
	if err != nil {
		t.Fatal(err)
	}
	tab := &SweepTable{SchemaVersion: sweep.SchemaVersion, ProcessingCostMs: 10, Processing: "fixed 10ms",
		Sweep: &sweep.Record{Workload: "w", Repeat: 2, Lifecycle: runfolder.Lifecycle{Complete: true},
			Grid: []sweep.Dim{{Name: "members", Values: []string{"1", "2", "3", "4", "6"}}, {Name: "partitions", Values: []string{"4", "8"}}}}}
	row := func(m, p int, thr [2]float64, hot, busiest float64, pauseMs float64) {
		name := "m" + strconv.Itoa(m) + "_p" + strconv.Itoa(p)
		r := SweepRow{Point: sweep.Point{Name: name, Settings: []sweep.Setting{{Dim: "members", Value: strconv.Itoa(m)}, {Dim: "partitions", Value: strconv.Itoa(p)}}},
			Members: m, Partitions: p, Strategy: "cooperative-sticky", CommitPolicy: "sync-batch", Client: "confluent", MaxPollRecords: 500,
			ModelCapacity: math.Min(float64(min(m, p))*100, 100/hot), CapacityRun: name + "/capacity", TargetRun: name + "/target"}
		for i, v := range thr {
			r.Capacity = append(r.Capacity, CapacityCell{Cell: name + "/capacity/x", Iteration: i, Capacity: sweep.Capacity{
				Throughput: v, MemberRate: 98, HottestShare: hot, MaxMemberShare: busiest,
				Members: []sweep.MemberRate{{Member: "m1", Rate: 97 + float64(i)}}}})
			rec := 9000.0 + 1000*float64(i)
			r.Target = append(r.Target, TargetCell{Cell: name + "/target/x", Iteration: i, AtTarget: AtTarget{
				Rate: 150, Delivered: 150, LagSteady: 40, LagPeak: 1200, Verdict: summary.Valid, Complete: true, DrainComplete: true,
				Crash:  Disruptions{Count: 1, PauseMaxMs: pauseMs, RecoveryMs: &rec, PauseOfRecovery: pauseMs},
				Deploy: Disruptions{Count: m, PauseMaxMs: 900}}})
		}
		tab.Rows = append(tab.Rows, r)
	}
	row(1, 4, [2]float64{99, 97}, 0.25, 1, 7000)
	row(2, 4, [2]float64{196, 190}, 0.25, 0.5, 7000)
	row(3, 4, [2]float64{197, 201}, 0.25, 0.5, 7000) // 4 partitions over 3: the busiest member has two
	row(4, 4, [2]float64{395, 380}, 0.25, 0.25, 7000)
	row(6, 4, [2]float64{392, 399}, 0.25, 0.25, 7000)
	row(2, 8, [2]float64{198, 196}, 0.4, 0.55, 7000)
	row(4, 8, [2]float64{245, 250}, 0.4, 0.4, 7000)
	row(6, 8, [2]float64{248, 251}, 0.4, 0.4, 7000)
	return tab, spec
}

func TestJudgeCapacity(t *testing.T) {
	tab, spec := capacityTable(t)
	c := JudgeCapacity(t.TempDir(), tab, spec, workloads.Targets{Rate: 150, MaxLag: 100, MaxPause: 10 * time.Second, MaxCatchUp: time.Minute})
	// 3 members over 4 partitions sustain 199 >= 150, but 2 members (their
	// N-1) only 193: the smallest that meets everything is 3 (N-1 = 2
	// sustains 193 >= 150).
	if c.Best == nil || c.Best.Row.Members != 3 || c.Best.Row.Partitions != 4 {
		t.Fatalf("best %v, want 3 members over 4 partitions", c.Best)
	}
	byName := map[string]*Config{}
	for _, cf := range c.Configs {
		byName[cf.Row.Point.Name] = cf
	}
	// One member: a crash leaves nobody, and the backlog never drains.
	if m1 := byName["m1_p4"]; m1.Meets || !math.IsInf(m1.DrainS, 1) {
		t.Errorf("m1_p4: meets %v, drain %v", m1.Meets, m1.DrainS)
	}
	// Backlog after a crash in m3_p4: 150 records/s x 7 s = 1050, drained
	// at 193 - 150 = 43 records/s spare: 24.4 s.
	m3 := byName["m3_p4"]
	if math.Abs(m3.Backlog-1050) > 1e-9 || math.Abs(m3.DrainS-1050.0/43) > 1e-9 {
		t.Errorf("m3_p4 backlog %v, drain %v s", m3.Backlog, m3.DrainS)
	}
	// m2_p8 has no N-1 point measured: it cannot be judged, so not recommended.
	if ch := byName["m2_p8"].check("n-1"); ch == nil || ch.OK != nil {
		t.Errorf("m2_p8 n-1 check %+v, want unknown", ch)
	}
	// The knees: 4 partitions stop at 4 members (the partition count);
	// 8 partitions at 4 members (the hot partition: 98 / 0.4 = 245).
	for _, s := range c.Series {
		switch s.Partitions {
		case 4:
			if s.Knee == nil || s.Knee.Row.Members != 4 || !strings.Contains(s.Why, "partition count") {
				t.Errorf("4 partitions: knee %v, why %q", s.Knee, s.Why)
			}
		case 8:
			if s.Knee == nil || s.Knee.Row.Members != 4 || !strings.Contains(s.Why, "hottest partition") {
				t.Errorf("8 partitions: knee %v, why %q", s.Knee, s.Why)
			}
		}
	}
	// Physics: one member 98 (median of the members' rates 97, 98) against
	// 100; m6_p8 against (1/c)/h = 250.
	if len(c.Physics) == 0 || !c.Physics[0].OK || math.Abs(c.Physics[0].Expected-100) > 1e-9 {
		t.Errorf("physics %+v", c.Physics)
	}
	// A lag target nobody meets: no recommendation, and the closest named.
	c2 := JudgeCapacity(t.TempDir(), tab, spec, workloads.Targets{Rate: 150, MaxLag: 10})
	if c2.Best != nil {
		t.Errorf("best %v with an impossible lag", c2.Best.Name())
	}
	var md bytes.Buffer
	if err := WriteCapacityMarkdown(&md, c2); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "No configuration of the grid meets every target") {
		t.Errorf("no recommendation is not said:\n%s", md.String())
	}
}

// The report: the recommendation with the runs it rests on, the model
// apart and labelled, every chart in Mermaid's grammar, the HTML page.
func TestCapacityReport(t *testing.T) {
	tab, spec := capacityTable(t)
	targets := workloads.Targets{Rate: 150, MaxPause: 10 * time.Second, Production: &workloads.Production{Members: 40, Partitions: 120}}
	c := JudgeCapacity(t.TempDir(), tab, spec, targets)
	var md bytes.Buffer
	if err := WriteCapacityMarkdown(&md, c); err != nil {
		t.Fatal(err)
	}
	s := md.String()
	for _, want := range []string{
		"**Recommended: cooperative-sticky, 3 members, 4 partitions.**",
		"`m3_p4/capacity` (capacity, 2 iterations)", "`m2_p4/capacity` (capacity with one member fewer, 2 iterations)",
		"sustains 199 [197 – 201] records/s (target 150)",
		"## Beyond the test cluster: 40 members, 120 partitions (model)",
		"**Everything in this section is a model, not a measurement.**",
		"cooperative-sticky (model)",
		"## Growing partitions later", "**Size partitions up front**",
		"## Physics check",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("capacity.md lacks %q", want)
		}
	}
	// A model never sits in a table of measurements: model rows only in
	// the model section.
	before, _, _ := strings.Cut(s, "## Beyond the test cluster")
	if strings.Contains(before, "(model)|") || strings.Contains(before, "(model) |") {
		t.Error("a model row before the model section")
	}
	// Nor a model column: no table before it names a model in its header.
	lines := strings.Split(before, "\n")
	for i := 0; i+1 < len(lines); i++ {
		if strings.HasPrefix(lines[i], "|") && strings.HasPrefix(lines[i+1], "|---") && strings.Contains(lines[i], "model") {
			t.Errorf("a model column before the model section: %s", lines[i])
		}
	}
	charts := mermaidBlocks(s)
	if len(charts) != 2 {
		t.Errorf("%d charts, want one per series (2)", len(charts))
	}
	for _, ch := range charts {
		checkMermaidBarLine(t, ch)
	}
	figs, err := CapacityFigures(c)
	if err != nil || len(figs) != 2 {
		t.Fatalf("%d figures, %v", len(figs), err)
	}
	for _, f := range figs {
		var b bytes.Buffer
		if err := f.PNG(&b); err != nil || b.Len() == 0 {
			t.Errorf("figure %s: %v", f.Name, err)
		}
	}
	emb, err := Embed(figs)
	if err != nil {
		t.Fatal(err)
	}
	var page bytes.Buffer
	if err := WriteCapacityHTML(&page, c, emb); err != nil {
		t.Fatal(err)
	}
	h := page.String()
	for _, want := range []string{"<b>Recommended: cooperative-sticky, 3 members, 4 partitions.</b>", `<img src="data:image/svg+xml;base64,`, `class="good"`, "<code>m3_p4/capacity</code>"} {
		if !strings.Contains(h, want) {
			t.Errorf("capacity.html lacks %q", want)
		}
	}
}

// checkMermaidBarLine checks a capacity chart: report.md's grammar (bars)
// and an optional line of as many values, within the y axis.
func checkMermaidBarLine(t *testing.T, chart string) {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(chart, "\n"), "\n")
	last := lines[len(lines)-1]
	if !strings.HasPrefix(last, "    line ") {
		checkMermaid(t, chart)
		return
	}
	checkMermaid(t, strings.Join(lines[:len(lines)-1], "\n")+"\n")
	m := regexp.MustCompile(`^    line \[(` + mmNumber + `(?:, ` + mmNumber + `)*)\]$`).FindStringSubmatch(last)
	if m == nil {
		t.Errorf("line %q is not a Mermaid line", last)
		return
	}
	bars := regexp.MustCompile(`(?m)^    bar \[(.*)\]$`).FindStringSubmatch(chart)
	axis := regexp.MustCompile(`(?m)^    y-axis "[^"]*" (\S+) --> (\S+)$`).FindStringSubmatch(chart)
	hi, _ := strconv.ParseFloat(axis[2], 64)
	vals := strings.Split(m[1], ", ")
	if len(vals) != len(strings.Split(bars[1], ", ")) {
		t.Errorf("%d line values for %d bars", len(vals), len(strings.Split(bars[1], ", ")))
	}
	for _, v := range vals {
		if f, _ := strconv.ParseFloat(v, 64); f < 0 || f > hi {
			t.Errorf("line value %s outside the axis", v)
		}
	}
}

// A point without a target run says why: skipped by the sweep when its
// capacity is below the sweep's target rate, otherwise not finished.
func TestNoTargetRun(t *testing.T) {
	c := &Capacity{Table: &SweepTable{Sweep: &sweep.Record{Targets: workloads.Targets{Rate: 300}}}}
	below := &Config{Row: &SweepRow{}, Capacity: SpreadOf([]float64{156})}
	if got, want := c.noTargetRun(below), "not run: sustains 156 records/s, below the sweep's target rate 300"; got != want {
		t.Errorf("below the rate: %q, want %q", got, want)
	}
	above := &Config{Row: &SweepRow{}, Capacity: SpreadOf([]float64{387})}
	if got := c.noTargetRun(above); got != "not finished" {
		t.Errorf("above the rate: %q", got)
	}
	if got := c.noTargetRun(&Config{Row: &SweepRow{}}); got != "not finished" {
		t.Errorf("no capacity measured: %q", got)
	}
}

// A hottest partition that moved between members during the capacity
// run leaves the busiest member a smaller share than the partition's; the
// partition, processed one record at a time whoever owns it, still bounds
// the group: the physics check holds the group to (1/c)/h, not to the
// busiest member's share.
func TestPhysicsHottestPartitionMoved(t *testing.T) {
	tab, spec := capacityTable(t)
	last := &tab.Rows[len(tab.Rows)-1] // 6 members, 8 partitions, h = 40%
	for i := range last.Capacity {
		last.Capacity[i].MaxMemberShare = 0.3
	}
	c := JudgeCapacity(t.TempDir(), tab, spec, workloads.Targets{Rate: 150})
	found := false
	for _, p := range c.Physics {
		if !strings.HasPrefix(p.What, "cooperative-sticky, 6 members, 8 partitions") {
			continue
		}
		found = true
		if math.Abs(p.Expected-250) > 1e-9 || !p.OK || !strings.Contains(p.What, "it moved between members: the busiest processed 30.0%") {
			t.Errorf("%s: physics %.1f (want 100 / 0.4 = 250), ok %v", p.What, p.Expected, p.OK)
		}
	}
	if !found {
		t.Error("no physics check of the 6-member point")
	}
}

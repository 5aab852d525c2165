package report

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chaosbench/chaosbench/internal/stat"
	"github.com/chaosbench/chaosbench/internal/sweep"
	"github.com/chaosbench/chaosbench/internal/sweep/groupmodel"
	"github.com/chaosbench/chaosbench/internal/sweep/sweeptest"
	"github.com/chaosbench/chaosbench/workloads"
)

// The judgement in words: a lag target nobody meets leaves no
// recommendation and names the closest; each knee says what bounds it;
// a hottest partition that moved says so in its physics check.
func TestCapacityText(t *testing.T) {
	tab, spec := sweeptest.Table(t)
	c := capacity{sweep.Judge(t.TempDir(), tab, spec, workloads.Targets{Rate: 150, MaxLag: 100, MaxPause: 10 * time.Second, MaxCatchUp: time.Minute}, nil)}
	for _, s := range c.Series {
		want := map[int]string{4: "partition count", 8: "hottest partition"}[s.Partitions]
		if got := c.kneeText(s); !strings.Contains(got, want) {
			t.Errorf("%s: knee %q, want %q", seriesLabel(s), got, want)
		}
	}
	c2 := sweep.Judge(t.TempDir(), tab, spec, workloads.Targets{Rate: 150, MaxLag: 10}, nil)
	var md bytes.Buffer
	if err := WriteCapacityMarkdown(&md, c2); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "No configuration of the grid meets every target") {
		t.Errorf("no recommendation is not said:\n%s", md.String())
	}
	last := &tab.Rows[len(tab.Rows)-1] // 6 members, 8 partitions, h = 40%
	for i := range last.Capacity {
		last.Capacity[i].MaxMemberShare = 0.3
	}
	c3 := capacity{sweep.Judge(t.TempDir(), tab, spec, workloads.Targets{Rate: 150}, nil)}
	found := false
	for _, p := range c3.Physics {
		what := c3.physicsText(p)
		if !strings.HasPrefix(what, "cooperative-sticky, 6 members, 8 partitions") {
			continue
		}
		found = true
		if !strings.Contains(what, "it moved between members: the busiest processed 30.0%") {
			t.Errorf("%s: the move is not said", what)
		}
	}
	if !found {
		t.Error("no physics check of the 6-member point")
	}
}

// The report: the recommendation with the runs it rests on, the model
// apart and labelled, every chart in Mermaid's grammar, the HTML page.
func TestCapacityReport(t *testing.T) {
	tab, spec := sweeptest.Table(t)
	targets := workloads.Targets{Rate: 150, MaxPause: 10 * time.Second, Production: &workloads.Production{Members: 40, Partitions: 120}}
	c := sweep.Judge(t.TempDir(), tab, spec, targets, groupmodel.Production)
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
	c := capacity{&sweep.Judgement{Table: &sweep.Table{Sweep: &sweep.Record{Targets: workloads.Targets{Rate: 300}}}}}
	below := &sweep.Config{Row: &sweep.Row{}, Capacity: SpreadOf([]float64{156})}
	if got, want := c.noTargetRun(below), "not run: sustains 156 records/s, below the sweep's target rate 300"; got != want {
		t.Errorf("below the rate: %q, want %q", got, want)
	}
	above := &sweep.Config{Row: &sweep.Row{}, Capacity: SpreadOf([]float64{387})}
	if got := c.noTargetRun(above); got != "not finished" {
		t.Errorf("above the rate: %q", got)
	}
	if got := c.noTargetRun(&sweep.Config{Row: &sweep.Row{}}); got != "not finished" {
		t.Errorf("no capacity measured: %q", got)
	}
}

// The report explains an idle member as the standby when it is one, and
// says what the worst crash leaves.
func TestCapacityCrashLeftText(t *testing.T) {
	cf := &sweep.Config{Row: &sweep.Row{Members: 4, Partitions: 3, Strategy: "range"}, MemberRate: stat.SpreadOf([]float64{200})}
	cf.CrashLeft = &sweep.CrashLeft{Crashed: "m1", CrashedPartitions: []int32{0}, Busiest: "m2", Partitions: []int32{0},
		MaxShare: 0.51, FreshMaxShare: 0.51, Idle: 1, Capacity: 200 / 0.51}
	if got, want := idleText(cf), "4 members on 3 partitions leaves 1 member without a partition: the standby."; !strings.HasPrefix(got, want) {
		t.Errorf("idle text %q, want it to begin %q", got, want)
	}
	cf.Row.Members = 3
	cf.CrashLeft = &sweep.CrashLeft{Crashed: "m1", CrashedPartitions: []int32{0}, Busiest: "m2", Partitions: []int32{0, 1},
		MaxShare: 0.76, FreshMaxShare: 0.51, Capacity: 200 / 0.76}
	if got := idleText(cf); got != "" {
		t.Errorf("idle text without an idle member: %q", got)
	}
	want := "after the worst crash (m1, owner of p0) m2 holds p0, p1, 76.0% of the traffic: the group left sustains 263 records/s"
	if got := crashLeftText(cf); !strings.HasPrefix(got, want) {
		t.Errorf("crash text %q, want it to begin %q", got, want)
	}
	cf.Row.Members, cf.CrashLeft.Idle = 5, 2
	if got := idleText(cf); !strings.Contains(got, "not a standby") {
		t.Errorf("idle members that are no standby: %q", got)
	}
}

// How sure the recommendation is, in words.
func TestSureText(t *testing.T) {
	tab, spec := sweeptest.Table(t)
	j := sweep.Judge(t.TempDir(), tab, spec, workloads.Targets{Rate: 150, MaxLag: 100, MaxPause: 10 * time.Second, MaxCatchUp: time.Minute}, nil)
	want := "**Not sure**: it rests on 2 iterations of each run (--repeat 3 gives a spread). The runner-up, cooperative-sticky, 2 members, 8 partitions, was decided against by n-1, max_catch_up."
	if got := sureText(j.Sure()); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	if got := sureText(&sweep.Sureness{Iterations: 3, Sure: true}); !strings.HasPrefix(got, "**Sure**") {
		t.Errorf("sure: %q", got)
	}
}

package runner

import (
	"strings"
	"testing"
	"time"

	"github.com/chaosbench/chaosbench/internal/sweep"
	"github.com/chaosbench/chaosbench/workloads"
)

// A sweep's plan: every capacity run before any target run, each
// point's workload derived for its kind; --only keeps one kind; a chaos
// step that a point's group cannot take is refused, naming the point.
func TestPlanSweep(t *testing.T) {
	data := []byte(`duration: 20s
consumer: {members: 2, processing: {cost: 10ms}}
strategies: [range]
chaos: {steps: [{at: 5s, action: kill, target: random}]}
targets: {rate: 150}
`)
	opts := func(src []byte, members ...string) SweepOptions {
		base, err := workloads.Parse("w.yaml", src)
		if err != nil {
			t.Fatal(err)
		}
		d, err := sweep.ParseVary("members=" + strings.Join(members, ","))
		if err != nil {
			t.Fatal(err)
		}
		grid, err := sweep.Grid(base, []sweep.Dim{d})
		if err != nil {
			t.Fatal(err)
		}
		rec := &sweep.Record{SchemaVersion: sweep.SchemaVersion, Workload: base.Name, Grid: grid, Points: sweep.Points(grid),
			Repeat: 1, Saturate: 5 * time.Second, Targets: base.Targets}
		return SweepOptions{Record: rec, Workload: base, File: "w.yaml", Data: src}
	}
	p, err := PlanSweep(opts(data, "1", "2"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range p.Runs {
		got = append(got, r.Point.Name+" "+r.Kind)
	}
	if want := "m1 capacity, m2 capacity, m1 target, m2 target"; strings.Join(got, ", ") != want {
		t.Errorf("runs %q, want %q", strings.Join(got, ", "), want)
	}
	if c, tg := p.Runs[1].Spec, p.Runs[3].Spec; c.Producer.Rate != 0 || len(c.Chaos.Steps) != 0 || tg.Producer.Rate != 150 || len(tg.Chaos.Steps) != 1 {
		t.Errorf("capacity run at %v with %d steps, target run at %v with %d", c.Producer.Rate, len(c.Chaos.Steps), tg.Producer.Rate, len(tg.Chaos.Steps))
	}
	o := opts(data, "1", "2")
	o.Only = sweep.KindTarget
	if p, err := PlanSweep(o); err != nil || len(p.Runs) != 2 || p.Runs[0].Kind != sweep.KindTarget {
		t.Errorf("--only target: %v, %+v", err, p)
	}
	killM2 := []byte(strings.Replace(string(data), "target: random", "target: m2", 1))
	if _, err := PlanSweep(opts(killM2, "1", "2")); err == nil || !strings.Contains(err.Error(), "point members=1") {
		t.Errorf("a kill of m2 in a group of one: %v", err)
	}
}

package sweep

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chaosbench/chaosbench/internal/runfolder"
	"github.com/chaosbench/chaosbench/workloads"
)

func TestParseVary(t *testing.T) {
	for in, want := range map[string]Dim{
		"members=2,4,8":                                {DimMembers, []string{"2", "4", "8"}},
		"consumers=1":                                  {DimMembers, []string{"1"}},
		"Partitions=12, 24":                            {DimPartitions, []string{"12", "24"}},
		"partition.assignment.strategy=range":          {DimStrategy, []string{"range"}},
		"strategy=cooperative-sticky,consumer-uniform": {DimStrategy, []string{"cooperative-sticky", "consumer-uniform"}},
		"max.poll.records=100,500":                     {DimMaxPollRecords, []string{"100", "500"}},
		"client=franz":                                 {DimClient, []string{"franz"}},
		"commit_policy=sync-batch,auto":                {DimCommitPolicy, []string{"sync-batch", "auto"}},
	} {
		got, err := ParseVary(in)
		if err != nil || got.Name != want.Name || !slices.Equal(got.Values, want.Values) {
			t.Errorf("ParseVary(%q) = %+v, %v; want %+v", in, got, err, want)
		}
	}
	for in, want := range map[string]string{
		"members":            "expected NAME=V1,V2",
		"members=":           "expected NAME=V1,V2",
		"brokers=1,3":        `unknown setting "brokers": expected one of members, partitions`,
		"members=2,x":        `"x": expected a number of members, an integer from 1 to 1000`,
		"members=0":          `"0": expected a number of members`,
		"partitions=10001":   `"10001": expected a partition count, an integer from 1 to 10000`,
		"strategy=sticky,rr": `"rr": expected one of range, roundrobin`,
		"members=2,2":        "2 given twice",
	} {
		if _, err := ParseVary(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseVary(%q): %v, want an error with %q", in, err, want)
		}
	}
}

func spec(t *testing.T, src string) *workloads.Spec {
	t.Helper()
	s, err := workloads.Parse("w.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestGridAndPoints(t *testing.T) {
	s := spec(t, "duration: 30s\nstrategies: [range, cooperative-sticky]\n")
	members, _ := ParseVary("members=2,4")
	grid, err := Grid(s, []Dim{members})
	if err != nil {
		t.Fatal(err)
	}
	// The workload's two strategies join the grid: each point is one cell.
	if len(grid) != 2 || grid[1].Name != DimStrategy {
		t.Fatalf("grid %+v", grid)
	}
	pts := Points(grid)
	var names []string
	for _, p := range pts {
		names = append(names, p.Name)
	}
	if want := []string{"m2_range", "m2_cooperative-sticky", "m4_range", "m4_cooperative-sticky"}; !slices.Equal(names, want) {
		t.Errorf("points %v, want %v", names, want)
	}
	if v := pts[3].Variation(); v.Members != 4 || v.Strategy != "cooperative-sticky" || v.Partitions != 0 {
		t.Errorf("variation %+v", v)
	}
	if _, err := Grid(s, []Dim{members, members}); err == nil {
		t.Error("a dimension given twice is accepted")
	}
	one := spec(t, "duration: 30s\nstrategies: [range]\n")
	if _, err := Grid(one, nil); err == nil || !strings.Contains(err.Error(), "nothing to vary") {
		t.Errorf("an empty grid: %v", err)
	}
}

// A point's workloads: the capacity run drains a backlog sized by the
// model, without chaos; the target run keeps the chaos at the target rate;
// a chaos step that a point's group cannot take is refused before anything
// runs.
func TestPointSpecs(t *testing.T) {
	src := []byte(`duration: 30s
topic: {partitions: 6}
producer: {rate: 100, ramp: {from: 10, over: 5s}}
consumer: {members: 2, processing: {cost: 10ms}}
strategies: [range]
chaos:
  warmup: 6s
  steps: [{at: 10s, action: kill, target: m2}]
targets: {rate: 150}
`)
	p := Point{Name: "m3_p6", Settings: []Setting{{DimMembers, "3"}, {DimPartitions, "6"}}}
	cs, err := p.CapacitySpec("w.yaml", src, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	// Three members at 1/10ms each, uniform keys over six partitions.
	if model := ModelCapacity(cs); model < 299 || model > 301 {
		t.Errorf("model capacity %v, want 300", model)
	}
	if cs.Records != 3000 || cs.Producer.Rate != 0 || len(cs.Chaos.Steps) != 0 || cs.Consumer.Members != 3 || cs.Chaos.DrainTimeout < 90*time.Second {
		t.Errorf("capacity spec: records %d, rate %v, steps %d, members %d, drain %v", cs.Records, cs.Producer.Rate, len(cs.Chaos.Steps), cs.Consumer.Members, cs.Chaos.DrainTimeout)
	}
	ts, err := p.TargetSpec("w.yaml", src, workloads.Targets{Rate: 150})
	if err != nil {
		t.Fatal(err)
	}
	if ts.Producer.Rate != 150 || ts.Producer.Ramp != nil || len(ts.Chaos.Steps) != 1 {
		t.Errorf("target spec: rate %v, ramp %v, %d steps", ts.Producer.Rate, ts.Producer.Ramp, len(ts.Chaos.Steps))
	}
	small := Point{Name: "m1", Settings: []Setting{{DimMembers, "1"}}}
	if _, err := small.TargetSpec("w.yaml", src, workloads.Targets{}); err == nil || !strings.Contains(err.Error(), "point members=1") || !strings.Contains(err.Error(), "m2") {
		t.Errorf("a kill of m2 in a group of one: %v", err)
	}
}

// Runs are created, never reused: the next run of a kind goes to the next
// free name, and only a run whose run.json says complete counts as
// finished.
func TestRunFolders(t *testing.T) {
	dir := t.TempDir()
	if next, _ := NextRun(dir, "m2", KindTarget); next != filepath.Join(dir, "m2", "target") {
		t.Errorf("first run %s", next)
	}
	mk := func(name string, complete bool) {
		d := filepath.Join(dir, "m2", name)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := runfolder.WriteJSON(filepath.Join(d, "run.json"), runfolder.Run{SchemaVersion: 1, Lifecycle: runfolder.Lifecycle{Complete: complete}}); err != nil {
			t.Fatal(err)
		}
	}
	mk("target", false)
	mk("target-2", true)
	mk("target-3", false)
	mk("capacity", false)
	if next, _ := NextRun(dir, "m2", KindTarget); next != filepath.Join(dir, "m2", "target-4") {
		t.Errorf("next run %s, want target-4", next)
	}
	if done, _ := Finished(dir, "m2", KindTarget); done != filepath.Join(dir, "m2", "target-2") {
		t.Errorf("finished %q, want target-2", done)
	}
	if done, _ := Finished(dir, "m2", KindCapacity); done != "" {
		t.Errorf("an unfinished capacity run counts as finished: %s", done)
	}
	if next, _ := NextRun(dir, "m2", KindCapacity); next != filepath.Join(dir, "m2", "capacity-2") {
		t.Errorf("next capacity run %s", next)
	}
}

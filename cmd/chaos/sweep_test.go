package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chaosbench/chaosbench/internal/cli"
	"github.com/chaosbench/chaosbench/internal/kafkatest"
	"github.com/chaosbench/chaosbench/internal/runfolder"
	"github.com/chaosbench/chaosbench/internal/sweep"
	"github.com/chaosbench/chaosbench/workloads"
)

// Bad input is refused with status 2 before a results folder exists,
// naming the flag or the point.
func TestSweepBadInput(t *testing.T) {
	results := filepath.Join(t.TempDir(), "results")
	w := "../../workloads/capacity.yaml"
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{w}, "nothing to vary"},
		{[]string{"--vary", "members", w}, "expected NAME=V1,V2"},
		{[]string{"--vary", "brokers=1,3", w}, `unknown setting "brokers"`},
		{[]string{"--vary", "members=0,2", w}, `"0": expected a number of members`},
		{[]string{"--vary", "members=2", "--vary", "members=3", w}, "given twice"},
		{[]string{"--vary", "members=2", "--repeat", "0", w}, "--repeat 0"},
		{[]string{"--vary", "members=2", "--repeat", "5000", w}, "--repeat 5000: expected 1 to 1000"},
		{[]string{"--vary", "members=1,2,3,4,5,6,7,8,9,10,11", "--vary", "partitions=1,2,3,4,5,6,7,8,9,10,11", "--vary", "max_poll_records=1,2,3,4,5,6,7,8,9,10,11", w}, "more than 1000 points"},
		{[]string{"--vary", "members=2", "--rate", "1e12", w}, "--rate 1e+12: expected a rate in records/s > 0 and at most 10000000"},
		{[]string{"--vary", "members=2", "--max-lag", "99999999999999", w}, "--max-lag 99999999999999"},
		{[]string{"--vary", "members=2", "--max-catch-up", "1000h", w}, "--max-catch-up 1000h0m0s"},
		{[]string{"--vary", "members=2", "--saturate", "10ms", w}, "--saturate 10ms"},
		{[]string{"--vary", "members=2", "--only", "both", w}, `--only "both"`},
		{[]string{"--vary", "members=2", "--rate", "-5", w}, "--rate -5"},
		{[]string{"--vary", "members=2", "--max-pause", "0s", w}, "--max-pause 0s"},
		{[]string{"--vary", "members=2", "--production-members", "20000", w}, "--production-members 20000"},
		{[]string{"--vary", "strategy=sticky", "--vary", "client=confluent", w}, "sticky"},
		{[]string{"--vary", "members=2", "--resume", "somewhere"}, "--resume somewhere: takes no workload, --vary"},
		{[]string{"--resume", t.TempDir()}, "not a sweep folder"},
		{[]string{"--vary", "members=2"}, "expected one workload file"},
	} {
		err := runSweep(append(c.args, "--results", results, "--dry-run=false"))
		if exitStatus(err) != cli.ExitUsage || !strings.Contains(err.Error(), c.want) {
			t.Errorf("sweep %v: %v (status %d), want status 2 and %q", c.args, err, exitStatus(err), c.want)
		}
	}
	// A chaos step a point's group cannot take: the point is named.
	dir := t.TempDir()
	f := filepath.Join(dir, "kill-m2.yaml")
	os.WriteFile(f, []byte("duration: 20s\nconsumer: {members: 2}\nstrategies: [range]\nchaos: {steps: [{at: 5s, action: kill, target: m2}]}\n"), 0o644)
	if err := runSweep([]string{"--vary", "members=1,2", "--results", results, f}); exitStatus(err) != cli.ExitUsage || !strings.Contains(err.Error(), "point members=1") {
		t.Errorf("kill m2 in a group of one: %v", err)
	}
	if _, err := os.Stat(results); !os.IsNotExist(err) {
		t.Errorf("bad input left a results folder: %v", err)
	}
	if err := runCapacity([]string{t.TempDir()}); exitStatus(err) != cli.ExitUsage || !strings.Contains(err.Error(), "not a sweep folder") {
		t.Errorf("capacity of a folder that is no sweep: %v", err)
	}
}

// The physics of capacity, on a real broker, through the chaos binary:
// with a processing cost c of 10 ms and one record in flight, one member
// sustains about 1/c = 100 records/s; a hot key puts h = 62.5% of the
// traffic in one of four partitions, and a group whose hottest
// partition's owner owns nothing else saturates near (1/c)/h = 160
// records/s whatever its size: 4 members or 8. Then a resume: a run
// marked unfinished runs again into a new folder, the finished ones are
// kept, the old folder untouched.
func TestSweepPhysicsAndResume(t *testing.T) {
	c := kafkatest.Shared(t)
	chaos, _ := testBinaries(t)
	dir := t.TempDir()
	w := filepath.Join(dir, "physics.yaml")
	if err := os.WriteFile(w, []byte(`name: physics
seed: 3
duration: 10s
topic: {partitions: 4}
keys: {count: 400, distribution: explicit, explicit: [{key: tenant-hot, share: 0.5}]}
producer: {rate: 100}
consumer: {members: 1, processing: {cost: 10ms}, max_poll_records: 50, session_timeout: 6s, heartbeat_interval: 1s}
strategies: [range]
`), 0o644); err != nil {
		t.Fatal(err)
	}
	results := filepath.Join(dir, "results")
	out, errOut, status := runBin(t, chaos, "sweep", "--bootstrap", c.Bootstrap(), "--results", results, "--only", "capacity",
		"--saturate", "8s", "--vary", "members=1,4,8", w)
	if status != 0 {
		t.Fatalf("sweep: status %d\n%s\n%s", status, out, errOut)
	}
	sweeps, _ := filepath.Glob(filepath.Join(results, "*-physics-sweep"))
	if len(sweeps) != 1 {
		t.Fatalf("sweep folders %v", sweeps)
	}
	sd := sweeps[0]
	tab, err := sweep.ReadTable(sd)
	if err != nil {
		t.Fatal(err)
	}
	spec, err := workloads.Load(filepath.Join(sd, sweep.WorkloadFile))
	if err != nil {
		t.Fatal(err)
	}
	cp := sweep.Judge(sd, tab, spec, workloads.Targets{}, nil)
	if len(cp.Physics) != 4 {
		t.Fatalf("%d physics checks, want 4", len(cp.Physics))
	}
	for _, p := range cp.Physics {
		t.Logf("%s against %s: measured %.1f, physics %.1f, ratio %.3f", p.Points, p.Against, p.Measured, p.Expected, p.Ratio)
		if !p.OK {
			t.Errorf("%s against %s: measured %.1f records/s, physics %.1f (ratio %.2f)", p.Points, p.Against, p.Measured, p.Expected, p.Ratio)
		}
	}
	for _, cf := range cp.Configs {
		m, h := cf.Row.Members, cf.HottestShare
		if m >= 4 && math.Abs(cf.Capacity.Median/(100/h)-1) > sweep.PhysicsTolerance {
			t.Errorf("%d members: %.1f records/s, (1/c)/h = %.1f with h = %.3f", m, cf.Capacity.Median, 100/h, h)
		}
	}

	// Resume: mark m8's run unfinished.
	old := filepath.Join(sd, "m8", sweep.KindCapacity)
	rec, err := runfolder.ReadRun(old)
	if err != nil {
		t.Fatal(err)
	}
	rec.Complete = false
	if err := runfolder.WriteJSON(filepath.Join(old, "run.json"), rec); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(filepath.Join(old, "run.json"))
	out, errOut, status = runBin(t, chaos, "sweep", "--resume", sd, "--bootstrap", c.Bootstrap())
	if status != 0 {
		t.Fatalf("resume: status %d\n%s\n%s", status, out, errOut)
	}
	if strings.Count(out, "finished in") != 2 || !strings.Contains(out, "m8 (members=8): capacity run") {
		t.Errorf("resume: m1 and m4 kept, m8 run again, got:\n%s", out)
	}
	if after, _ := os.ReadFile(filepath.Join(old, "run.json")); string(after) != string(before) {
		t.Error("the unfinished run's folder changed")
	}
	if _, err := os.Stat(filepath.Join(sd, "m8", sweep.KindCapacity+"-2", "run.json")); err != nil {
		t.Errorf("no new run: %v", err)
	}
	var r sweep.Record
	b, _ := os.ReadFile(filepath.Join(sd, sweep.RecordFile))
	if err := json.Unmarshal(b, &r); err != nil || len(r.Resumes) != 1 || !r.Complete {
		t.Errorf("sweep.json after the resume: %v, %d resumes, complete %v", err, len(r.Resumes), r.Complete)
	}
	tab, err = sweep.ReadTable(sd)
	if err != nil || tab.Rows[2].CapacityRun != filepath.Join("m8", "capacity-2") {
		t.Errorf("the table measures %q, want the new run (%v)", tab.Rows[2].CapacityRun, err)
	}
}

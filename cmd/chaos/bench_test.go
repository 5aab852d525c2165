package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chaosbench/chaosbench/internal/cli"
)

// TestSaveBaselineThenCompare saves a baseline of a run (its records and
// summaries, no histories) and compares the run against it.
func TestSaveBaselineThenCompare(t *testing.T) {
	run := t.TempDir()
	copyCell(t, "kill-eager", run)
	copyCell(t, "clean-cooperative", run)
	for _, f := range []string{"run.json", "plan.json"} {
		if err := os.WriteFile(filepath.Join(run, f), []byte("{}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := runAnalyze([]string{"-q", run}); err != nil {
		t.Fatal(err)
	}
	base := filepath.Join(t.TempDir(), "baseline")
	if err := saveBaseline(run, base, 0, nil); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"run.json", "plan.json", "kill-eager/cell.json", "kill-eager/summary.json", "clean-cooperative/summary.json"} {
		if _, err := os.Stat(filepath.Join(base, f)); err != nil {
			t.Error(err)
		}
	}
	if _, err := os.Stat(filepath.Join(base, "kill-eager", "history")); !os.IsNotExist(err) {
		t.Errorf("the baseline holds histories: %v", err)
	}
	if _, err := os.Stat(base + ".tmp"); !os.IsNotExist(err) {
		t.Errorf("a temporary folder was left: %v", err)
	}
	out := filepath.Join(run, "compare.md")
	if err := runCompare([]string{"-o", out, base, run}); err != nil {
		t.Fatalf("a run compared with its own baseline: %v", err)
	}
	if b, err := os.ReadFile(out); err != nil || len(b) == 0 {
		t.Errorf("compare.md: %v", err)
	}
}

// TestRunBadFlags: flags the cluster would refuse are rejected with status
// 2 before a results folder exists.
func TestRunBadFlags(t *testing.T) {
	results := filepath.Join(t.TempDir(), "results")
	for _, args := range [][]string{
		{"--brokers", "2"},
		{"--provider", "bogus"},
		{"--repeat", "0"},
		{"--strategies", "nosuch"},
		{"--control", "pipe"},
	} {
		err := runRun(append(args, "--results", results, "../../workloads/default.yaml"))
		if exitStatus(err) != cli.ExitUsage {
			t.Errorf("run %v: %v (status %d), want status 2", args, err, exitStatus(err))
		}
	}
	// What a franz-go member would refuse at start: a consumer property
	// it cannot apply, static membership under the consumer protocol.
	dir := t.TempDir()
	src, err := os.ReadFile("../../workloads/default.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for name, edit := range map[string][2]string{
		"props.yaml":  {"  static_membership: false", "  static_membership: false\n  properties: {isolation.level: read_committed}"},
		"static.yaml": {"  static_membership: false", "  static_membership: true"},
	} {
		f := filepath.Join(dir, name)
		w := strings.Replace(string(src), edit[0], edit[1], 1)
		w = strings.Replace(w, "name: default", "name: "+strings.TrimSuffix(name, ".yaml"), 1)
		w = strings.Replace(w, "commit_policies: [sync-batch]", "commit_policies: [sync-batch]\nclients: [franz]", 1)
		if err := os.WriteFile(f, []byte(w), 0o644); err != nil {
			t.Fatal(err)
		}
		err := runRun([]string{"--results", results, "--strategies", "consumer-uniform", f})
		if exitStatus(err) != cli.ExitUsage || !strings.Contains(err.Error(), f) || !strings.Contains(err.Error(), "consumer-uniform.sync-batch.franz") {
			t.Errorf("%s on franz: %v (status %d), want status 2 naming the file and the cell", name, err, exitStatus(err))
		}
	}
	if _, err := os.Stat(results); !os.IsNotExist(err) {
		t.Errorf("%s exists after rejected runs (%v)", results, err)
	}
}

// TestCalibrateSavesItsBaseline: calibrate --save-baseline keeps the
// first -baseline-iterations iterations of each group of the unchanged run,
// with the thresholds it measured, and refuses a baseline folder that
// exists before writing anything.
func TestCalibrateSavesItsBaseline(t *testing.T) {
	root := t.TempDir()
	run := filepath.Join(root, "unchanged", "20260101T000000Z-nightly")
	for k := 0; k < 4; k++ {
		iter := filepath.Join(run, "clean-cooperative", fmt.Sprintf("iter-%d", k))
		copyCell(t, "clean-cooperative", filepath.Dir(iter))
		if err := os.Rename(filepath.Join(filepath.Dir(iter), "clean-cooperative"), iter); err != nil {
			t.Fatal(err)
		}
		var rec map[string]any
		b, err := os.ReadFile(filepath.Join(iter, "cell.json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &rec); err != nil {
			t.Fatal(err)
		}
		rec["iteration"] = k
		b, _ = json.Marshal(rec)
		if err := os.WriteFile(filepath.Join(iter, "cell.json"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"run.json", "plan.json"} {
		if err := os.WriteFile(filepath.Join(run, f), []byte("{}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	base := filepath.Join(root, "baseline")
	out := filepath.Join(root, "calibration")
	args := []string{"-baseline-iterations", "2", "-candidate-iterations", "2", "-splits", "3", "-o", out, "--save-baseline", base, filepath.Join(root, "unchanged")}
	if err := runCalibrate(args); err != nil {
		t.Fatal(err)
	}
	for k := 0; k < 4; k++ {
		_, err := os.Stat(filepath.Join(base, "clean-cooperative", fmt.Sprintf("iter-%d", k), "summary.json"))
		if kept := k < 2; kept != (err == nil) {
			t.Errorf("iteration %d: in the baseline %v, expected %v (%v)", k, err == nil, kept, err)
		}
	}
	want, err := os.ReadFile(filepath.Join(out, "thresholds.json"))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(filepath.Join(base, "thresholds.json")); err != nil || string(got) != string(want) {
		t.Errorf("the baseline's thresholds.json differs from the calibration's (%v)", err)
	}
	out2 := filepath.Join(root, "calibration-2")
	args[7] = out2
	err = runCalibrate(args)
	if exitStatus(err) != cli.ExitUsage || !strings.Contains(fmt.Sprint(err), "--save-baseline") {
		t.Errorf("an existing baseline folder: %v (status %d), expected a usage error naming --save-baseline", err, exitStatus(err))
	}
	if _, err := os.Stat(out2); !os.IsNotExist(err) {
		t.Errorf("a refused calibration wrote %s", out2)
	}
}

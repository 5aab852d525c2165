package main

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chaosbench/chaosbench/internal/check"
	"github.com/chaosbench/chaosbench/internal/check/synth"
	"github.com/chaosbench/chaosbench/internal/cli"
	"github.com/chaosbench/chaosbench/internal/summary"
)

// copyCell copies a known-answer cell of package check into dir/name.
func copyCell(t *testing.T, name, dir string) string {
	t.Helper()
	src := filepath.Join("..", "..", "internal", "check", "testdata", name)
	dst := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Join(dst, "history"), 0o755); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(src, "history", "*.jsonl"))
	files = append(files, filepath.Join(src, "cell.json"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(src, f)
		if err := os.WriteFile(filepath.Join(dst, rel), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

func exitStatus(err error) int {
	if err == nil {
		return cli.ExitOK
	}
	var ue *cli.UsageError
	if errors.As(err, &ue) {
		return cli.ExitUsage
	}
	var ee *cli.ExitError
	if errors.As(err, &ee) {
		return ee.Status
	}
	return cli.ExitFailure
}

func TestAnalyzeExitStatus(t *testing.T) {
	dir := t.TempDir()
	copyCell(t, "kill-eager", dir)
	if err := runAnalyze([]string{"-q", dir}); err != nil {
		t.Fatalf("a valid run: %v", err)
	}
	copyCell(t, "loss-at-least-once", dir)
	if err := runAnalyze([]string{"-q", dir}); exitStatus(err) != cli.ExitFailure {
		t.Errorf("an invalid cell: %v (status %d), want status 1", err, exitStatus(err))
	}
	if err := runAnalyze([]string{"-q", "-fail-on", "never", dir}); err != nil {
		t.Errorf("-fail-on never: %v", err)
	}
	for _, cell := range []string{"kill-eager", "loss-at-least-once"} {
		if _, err := summary.ReadSummary(filepath.Join(dir, cell)); err != nil {
			t.Errorf("%s: %v", cell, err)
		}
	}
	dir2 := t.TempDir()
	copyCell(t, "partial-run", dir2)
	if err := runAnalyze([]string{"-q", dir2}); err != nil {
		t.Errorf("an unknown cell fails only with -fail-on unknown: %v", err)
	}
	if err := runAnalyze([]string{"-q", "-fail-on", "unknown", dir2}); exitStatus(err) != cli.ExitFailure {
		t.Errorf("-fail-on unknown: %v", err)
	}
}

// TestAnalyzeBadInput: bad input exits 2, names the file and field, and
// nothing is written, not even for the good cells.
func TestAnalyzeBadInput(t *testing.T) {
	dir := t.TempDir()
	good := copyCell(t, "kill-eager", dir)
	bad := copyCell(t, "clean-cooperative", dir)
	cellJSON := filepath.Join(bad, "cell.json")
	b, _ := os.ReadFile(cellJSON)
	if err := os.WriteFile(cellJSON, []byte(strings.Replace(string(b), `"commit_policy": "async-sync-on-revoke",`, "", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	err := runAnalyze([]string{"-q", dir})
	if exitStatus(err) != cli.ExitUsage || !strings.Contains(err.Error(), cellJSON) || !strings.Contains(err.Error(), `"commit_policy"`) {
		t.Errorf("a cell.json without commit_policy: %v (status %d), want status 2 naming %s and the field", err, exitStatus(err), cellJSON)
	}
	if _, err := os.Stat(filepath.Join(good, summary.SummaryFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("summary.json was written for the good cell before the bad input was rejected (%v)", err)
	}

	// A findings file of another checker that does not parse.
	dir = t.TempDir()
	good = copyCell(t, "kill-eager", dir)
	if err := os.MkdirAll(filepath.Join(good, check.FindingsDir), 0o755); err != nil {
		t.Fatal(err)
	}
	ff := filepath.Join(good, check.FindingsDir, "assign.json")
	if err := os.WriteFile(ff, []byte(`[{"checker": "assign", "kind": "mismatch", "verdict": "bad"}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := runAnalyze([]string{"-q", dir}); exitStatus(err) != cli.ExitUsage || !strings.Contains(err.Error(), ff) {
		t.Errorf("a findings file with a bad verdict: %v, want status 2 naming %s", err, ff)
	}
	// A well-formed invalid finding makes the cell invalid.
	if err := os.WriteFile(ff, []byte(`[{"checker": "assign", "kind": "mismatch", "verdict": "invalid", "count": 1, "message": "generation 2 differs from the model"}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := runAnalyze([]string{"-q", dir}); exitStatus(err) != cli.ExitFailure {
		t.Errorf("an invalid external finding: %v, want status 1", err)
	}

	for _, args := range [][]string{{}, {"a", "b"}, {"-grace", "0s", dir}, {filepath.Join(dir, "nothing-here")}} {
		if err := runAnalyze(append([]string{"-q"}, args...)); exitStatus(err) != cli.ExitUsage {
			t.Errorf("analyze %v: %v, want status 2", args, err)
		}
	}
}

func TestReport(t *testing.T) {
	dir := t.TempDir()
	copyCell(t, "kill-eager", dir)
	copyCell(t, "loss-at-least-once", dir)
	if err := runReport([]string{dir}); err != nil {
		t.Fatalf("report: %v", err)
	}
	for _, f := range []string{"report.md", "report.html", "plots/timeline.png", "plots/timeline.svg", "kill-eager/summary.json"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
	if err := runReport([]string{"-fail-on", "invalid", dir}); exitStatus(err) != cli.ExitFailure {
		t.Errorf("report -fail-on invalid on an invalid run: %v", err)
	}
}

// TestReportCompareBadInput: report and compare reject bad input with
// status 2 before they write anything, not even a good cell's summary.
func TestReportCompareBadInput(t *testing.T) {
	dir := t.TempDir()
	good := copyCell(t, "kill-eager", dir)
	bad := copyCell(t, "clean-cooperative", dir)
	if err := os.MkdirAll(filepath.Join(bad, check.FindingsDir), 0o755); err != nil {
		t.Fatal(err)
	}
	ff := filepath.Join(bad, check.FindingsDir, "assign.json")
	if err := os.WriteFile(ff, []byte(`{"not": "a list"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := runReport([]string{dir}); exitStatus(err) != cli.ExitUsage || !strings.Contains(err.Error(), ff) {
		t.Errorf("report with a bad findings file: %v (status %d), want status 2 naming %s", err, exitStatus(err), ff)
	}
	for _, f := range []string{filepath.Join(good, summary.SummaryFile), filepath.Join(dir, "report.md"), filepath.Join(dir, "report.html")} {
		if _, err := os.Stat(f); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("report wrote %s before rejecting the bad input (%v)", f, err)
		}
	}

	base := t.TempDir()
	baseCell := copyCell(t, "kill-eager", base)
	missing := filepath.Join(t.TempDir(), "nothing-here")
	if err := runCompare([]string{base, missing}); exitStatus(err) != cli.ExitUsage || !strings.Contains(err.Error(), "candidate") {
		t.Errorf("compare with a missing candidate: %v (status %d), want status 2 naming the candidate", err, exitStatus(err))
	}
	if _, err := os.Stat(filepath.Join(baseCell, summary.SummaryFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("compare analysed the baseline before rejecting the candidate (%v)", err)
	}
}

// repeated writes n iterations of a synthetic cell whose kills take over
// after takeover, under dir/<strategy>/iter-<k>.
func repeated(t *testing.T, dir string, n int, takeover time.Duration) {
	t.Helper()
	for k := range n {
		cell := filepath.Join(dir, "sticky.sync-batch.synth", "iter-"+strconv.Itoa(k))
		if _, err := synth.Write(cell, synth.Config{Seed: int64(k + 1), Partitions: 6, Members: 3, Keys: 20, Records: 3000, Rate: 500,
			Latency: 5 * time.Millisecond, Takeover: takeover + time.Duration(k)*37*time.Millisecond,
			Kills: []synth.Kill{{At: 2 * time.Second, Member: 1}}, Strategy: "sticky"}); err != nil {
			t.Fatal(err)
		}
	}
}

func TestCompare(t *testing.T) {
	// Eight iterations a side: Holm's correction over the comparison's
	// some thirty tests asks a p below 0.05/30, which the exact test gives
	// a full separation only from seven iterations a side up.
	base, fast, slow := t.TempDir(), t.TempDir(), t.TempDir()
	repeated(t, base, 8, time.Second)
	repeated(t, fast, 8, time.Second)
	repeated(t, slow, 8, 2*time.Second)
	out := filepath.Join(t.TempDir(), "compare.md")
	if err := runCompare([]string{"-o", out, base, fast}); err != nil {
		t.Errorf("the same runs: %v", err)
	}
	// -o never replaces a file: the second comparison gets its own.
	out = filepath.Join(filepath.Dir(out), "compare-slow.md")
	err := runCompare([]string{"-o", out, base, slow})
	if exitStatus(err) != cli.ExitFailure {
		t.Fatalf("a takeover twice as slow: %v, want status 1", err)
	}
	md, _ := os.ReadFile(out)
	if !strings.Contains(string(md), "**regression**") {
		t.Errorf("compare.md does not mark the regression:\n%s", md)
	}
	// A threshold above the change: no regression.
	if err := runCompare([]string{"-threshold", "default=500%", base, slow}); err != nil {
		t.Errorf("within a 500%% threshold: %v", err)
	}
	for _, args := range [][]string{{base}, {"-threshold", "nosuch=5%", base, slow}, {"-threshold", "pause_p95_ms=-5%", base, slow}, {"-alpha", "2", base, slow}} {
		if err := runCompare(args); exitStatus(err) != cli.ExitUsage {
			t.Errorf("compare %v: %v, want status 2", args, err)
		}
	}
}

package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chaosbench/chaosbench/internal/check"
)

// A transactional cell's report shows its exactly_once line (verdict and
// counts) in the cell's details and the exactly-once metrics in the
// table; a run without one shows neither (the golden reports).
func TestExactlyOnceInTheReport(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join("..", "internal", "check", "testdata", "exactly-once-anomalies")
	dst := filepath.Join(dir, "exactly-once-anomalies")
	if err := os.MkdirAll(filepath.Join(dst, "history"), 0o755); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(src, "history", "*.jsonl"))
	for _, f := range append(files, filepath.Join(src, "cell.json")) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(src, f)
		if err := os.WriteFile(filepath.Join(dst, rel), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r, err := Load(dir, LoadOptions{Analyze: &Analyzer{Check: check.CheckCells, Analyze: check.Options{}.AnalyzeInMemory}})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := WriteMarkdown(&b, r, ""); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	for _, want := range []string{
		"**exactly_once** (invalid): output read 17 read_committed, 19 read_uncommitted; output duplicates 4, lost outputs 1, aborted reads 3, reordered 1, invisible commits 1; transactions 9 (committed 6, aborted 2, open at a crash 1); aborts by cause: crash 1, fenced 1, rebalance 1; work redone 5",
		"| output duplicates (read_committed) | 4 |",
		"| aborted reads | 3 |",
		"| work redone (aborted transactions) | 5 |",
		"; end to end (send to commit) p50 170 ms, p99 200 ms",
		// The examples name the transactions that processed their input.
		"m1, p0@2, key a seq 2, t=22:13:27.004: a second committed output, by transaction 3 of m1.0; transactions: m1.0 #2 aborted (rebalance), m1.0 #3 committed",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
	if t.Failed() {
		t.Logf("report.md:\n%s", md)
	}
}

package check

import (
	"encoding/json"
	"iter"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"testing"
	"time"

	"github.com/chaosbench/chaosbench/assign"
	"github.com/chaosbench/chaosbench/internal/history"
	"github.com/chaosbench/chaosbench/internal/summary"
	"github.com/chaosbench/chaosbench/internal/vocab"
)

// Fuzz budgets of the whole-cell analysis: a history of at most
// fuzzMaxInput bytes is analysed, with the assignment oracle in the same
// pass, in well under a second; past these budgets, an input made the
// analysis loop or allocate without bound.
const (
	fuzzMaxInput   = 256 << 10
	fuzzTime       = 10 * time.Second
	fuzzAlloc      = 256 << 20
	fuzzAllocBytes = 2048 // allocation allowed per byte of history
	// fuzzSummary bounds summary.json: its lists are bounded by the
	// partitions, disruptions and examples a history of that size can
	// have.
	fuzzSummary      = 4 << 20
	fuzzSummaryBytes = 64
)

// oracle is the assignment oracle (package assign) as chaos analyze runs
// it: in the analyser's pass, its findings in the summary.
func oracle(cell summary.CellInfo, events iter.Seq[*history.Event]) ([]summary.Finding, error) {
	if _, err := assign.Lookup(cell.Strategy); err != nil {
		return nil, nil
	}
	rep, err := assign.CheckHistory(cell.Strategy, cell.Topic, cell.Partitions, events)
	if err != nil {
		return nil, err
	}
	byKind := map[string]*summary.Finding{}
	var out []summary.Finding
	for _, f := range rep.Findings {
		if byKind[f.Kind] == nil {
			out = append(out, summary.Finding{Checker: "assign", Kind: f.Kind, Verdict: summary.Valid})
			byKind[f.Kind] = &out[len(out)-1]
		}
		byKind[f.Kind].Count++
	}
	return out, nil
}

// FuzzAnalyze: any history of a cell (a small generated one, mutated by
// the fuzzer) is analysed with the assignment oracle in one pass, without
// a panic, within the budgets of time and allocation, and gives a summary
// of a bounded size that encodes. Seeds: the known-answer histories
// (testdata/*/history), each merged into one file and cut to the input
// bound, with its own strategy and commit policy.
func FuzzAnalyze(f *testing.F) {
	addKnownAnswerSeeds(f)
	f.Fuzz(func(t *testing.T, strategy, policy uint8, data []byte) {
		if len(data) > fuzzMaxInput {
			return
		}
		path := filepath.Join(t.TempDir(), "h.0.jsonl")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		strategies, policies := vocab.StrategyNames(), vocab.PolicyNames()
		cell := summary.CellInfo{Cell: "fuzz", Strategy: strategies[int(strategy)%len(strategies)], CommitPolicy: policies[int(policy)%len(policies)],
			Client: vocab.ClientConfluent, Topic: "orders", Partitions: 4, Members: 2, Complete: true, DrainComplete: true}

		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		start := time.Now()
		watchdog := time.AfterFunc(2*fuzzTime, func() {
			debug.SetTraceback("all")
			panic("the analysis is still running after " + (2 * fuzzTime).String())
		})
		src, err := history.OpenMerged(path)
		if err != nil {
			t.Fatal(err)
		}
		s, err := Analyze(src, cell, Options{Also: oracle})
		src.Close()
		watchdog.Stop()
		elapsed := time.Since(start)
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatalf("Analyze: %v", err)
		}
		if elapsed > fuzzTime {
			t.Fatalf("the analysis of %d bytes took %v", len(data), elapsed)
		}
		if grew := after.TotalAlloc - before.TotalAlloc; grew > fuzzAlloc+fuzzAllocBytes*uint64(len(data)) {
			t.Fatalf("the analysis of %d bytes allocated %d bytes", len(data), grew)
		}
		files, err := EncodeCell(s)
		if err != nil {
			t.Fatalf("EncodeCell: %v", err)
		}
		if n := len(files.Summary); n > fuzzSummary+fuzzSummaryBytes*len(data) {
			t.Fatalf("a summary of %d bytes for %d bytes of history", n, len(data))
		}
		var back summary.Summary
		if err := json.Unmarshal(files.Summary, &back); err != nil {
			t.Fatalf("summary.json does not read back: %v", err)
		}
		if !back.Verdict.Known() {
			t.Fatalf("verdict %q", back.Verdict)
		}
	})
}

// addKnownAnswerSeeds adds every known-answer case's history, merged into
// one file in the writer's form, as a seed of FuzzAnalyze.
func addKnownAnswerSeeds(f *testing.F) {
	dirs, err := filepath.Glob(filepath.Join("testdata", "*", "history"))
	if err != nil || len(dirs) == 0 {
		f.Fatalf("no known-answer histories under testdata: %v", err)
	}
	strategies, policies := vocab.StrategyNames(), vocab.PolicyNames()
	for _, dir := range dirs {
		var cell summary.CellInfo
		if b, err := os.ReadFile(filepath.Join(filepath.Dir(dir), "cell.json")); err == nil {
			_ = json.Unmarshal(b, &cell)
		}
		src, err := history.OpenDir(dir)
		if err != nil {
			continue // a case whose history is meant not to read
		}
		var data []byte
		for len(data) < fuzzMaxInput {
			e, err := src.Next()
			if err != nil {
				break
			}
			data = append(history.AppendJSON(data, e), '\n')
		}
		src.Close()
		f.Add(uint8(max(slices.Index(strategies, cell.Strategy), 0)), uint8(max(slices.Index(policies, cell.CommitPolicy), 0)), data[:min(len(data), fuzzMaxInput)])
	}
}

package check

import (
	"iter"
	"testing"

	"github.com/chaosbench/chaosbench/internal/history"
	"github.com/chaosbench/chaosbench/internal/summary"
)

// TestAlso: another checker in the same pass sees every event in time
// order, its findings join the summary, and the analysis is complete even
// when it stops reading early.
func TestAlso(t *testing.T) {
	const dir = "testdata/kill-eager"
	plain, err := AnalyzeCell(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var seen int64
	var last int64
	inOrder := true
	all := func(cell summary.CellInfo, events iter.Seq[*history.Event]) ([]summary.Finding, error) {
		for e := range events {
			seen++
			if e.T < last {
				inOrder = false
			}
			last = e.T
		}
		return []summary.Finding{{Checker: "other", Kind: "something", Verdict: summary.Invalid, Count: 1, Message: "seen"}}, nil
	}
	s, err := AnalyzeCell(dir, Options{Also: all})
	if err != nil {
		t.Fatal(err)
	}
	if seen != plain.History.Events || !inOrder {
		t.Errorf("the other checker saw %d events (in order: %v), the history has %d", seen, inOrder, plain.History.Events)
	}
	if s.Verdict != summary.Invalid || len(s.Findings) != 1 || s.Findings[0].Checker != "other" {
		t.Errorf("verdict %s, findings %+v: want the other checker's invalid finding", s.Verdict, s.Findings)
	}

	early := func(cell summary.CellInfo, events iter.Seq[*history.Event]) ([]summary.Finding, error) {
		n := 0
		for range events {
			if n++; n == 10 {
				break
			}
		}
		return nil, nil
	}
	s, err = AnalyzeCell(dir, Options{Also: early})
	if err != nil {
		t.Fatal(err)
	}
	if s.History.Events != plain.History.Events || s.Duplicates.Count != plain.Duplicates.Count || s.Pause.Stats != plain.Pause.Stats {
		t.Errorf("after a checker that stopped early: %d events, %d duplicates, pauses %+v; without it: %d, %d, %+v",
			s.History.Events, s.Duplicates.Count, s.Pause.Stats, plain.History.Events, plain.Duplicates.Count, plain.Pause.Stats)
	}
}

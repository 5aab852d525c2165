package historytopic_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chaosbench/chaosbench/internal/history"
	"github.com/chaosbench/chaosbench/internal/historytopic"
	"github.com/chaosbench/chaosbench/internal/kafkatest"
	"github.com/chaosbench/chaosbench/internal/runfolder"
)

// A cell's history topic, shared with another cell, split by SplitCell
// (chaos analyze) into the files the file store wrote beside it: the
// other cell's records skipped, a split an interruption left (a file cut
// inside a line, the record partial) carried on, and a complete split
// left as it is.
func TestSplitCellFromABroker(t *testing.T) {
	c := kafkatest.Shared(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cfg := historytopic.Config{Bootstrap: c.Bootstrap(), Topic: kafkatest.Name(t, "history"), Cell: "cell-a"}
	if err := historytopic.Ensure(ctx, cfg, 1); err != nil {
		t.Fatal(err)
	}
	start, err := historytopic.EndOffsets(ctx, cfg)
	if err != nil || len(start) != historytopic.Partitions {
		t.Fatalf("end offsets %v, %v", start, err)
	}

	// Three incarnations of cell-a through the tee, one of cell-b.
	files := t.TempDir()
	var ws []*history.Writer
	for _, p := range []string{"producer-0", "m1", "m2"} {
		w, err := historytopic.NewWriter(runfolder.SinkTee, files, p, 0, cfg)
		if err != nil {
			t.Fatal(err)
		}
		ws = append(ws, w)
	}
	other := cfg
	other.Cell = "cell-b"
	ow, err := historytopic.NewWriter(runfolder.SinkTopic, "", "m1", 0, other)
	if err != nil {
		t.Fatal(err)
	}
	ws = append(ws, ow)
	for i := range 50 {
		for j, w := range ws {
			if err := w.Append(&history.Event{Kind: history.Committed, Partition: int32(j), Offset: int64(i)}); err != nil {
				t.Fatal(err)
			}
			if i%(j+3) == 0 {
				if err := w.Flush(); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	for _, w := range ws {
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}

	cell := t.TempDir()
	rec := runfolder.Cell{SchemaVersion: 1, Cell: "a", Strategy: "range", CommitPolicy: "sync-batch",
		History: &runfolder.HistorySink{Sink: runfolder.SinkTopic, Topic: cfg.Topic, Bootstrap: cfg.Bootstrap, Cell: "cell-a", StartOffsets: start}}
	if err := runfolder.WriteJSON(filepath.Join(cell, runfolder.CellFile), rec); err != nil {
		t.Fatal(err)
	}
	// An interrupted split: m1's file cut inside a line, the record
	// partial.
	if err := os.MkdirAll(runfolder.HistoryDir(cell), 0o755); err != nil {
		t.Fatal(err)
	}
	m1, _ := os.ReadFile(filepath.Join(files, "m1.0.jsonl"))
	if err := os.WriteFile(filepath.Join(runfolder.HistoryDir(cell), "m1.0.jsonl"), m1[:len(m1)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	partial := runfolder.HistorySplit{SchemaVersion: 1, Topic: cfg.Topic, Cell: "cell-a", Dir: "history"}
	partial.Begin(time.Now())
	if err := runfolder.WriteJSON(filepath.Join(cell, runfolder.HistorySplitFile), partial); err != nil {
		t.Fatal(err)
	}

	split, err := historytopic.SplitCell(ctx, cell, historytopic.Config{})
	if err != nil || !split {
		t.Fatalf("SplitCell: %t, %v", split, err)
	}
	s, found, err := runfolder.ReadHistorySplit(cell)
	if err != nil || !found || !s.Complete || s.Records != 150 || s.Skipped != 50 || len(s.Files) != 3 {
		t.Fatalf("history-split.json: %+v, %v", s, err)
	}
	for _, f := range s.Files {
		want, _ := os.ReadFile(filepath.Join(files, f.File))
		got, _ := os.ReadFile(filepath.Join(runfolder.HistoryDir(cell), f.File))
		if !bytes.Equal(got, want) {
			t.Errorf("%s: the split differs from the file:\n%s\nagainst\n%s", f.File, got, want)
		}
		if (f.File == "m1.0.jsonl") != (f.Kept > 0) {
			t.Errorf("%s: kept %d lines", f.File, f.Kept)
		}
	}
	if !s.Start.Equal(partial.Start) {
		t.Errorf("the resumed split's start %v, want the first one's %v", s.Start, partial.Start)
	}

	// Complete: left as it is.
	if split, err := historytopic.SplitCell(ctx, cell, historytopic.Config{}); err != nil || split {
		t.Errorf("SplitCell of a complete split: %t, %v", split, err)
	}
}

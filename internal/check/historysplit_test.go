package check

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chaosbench/chaosbench/internal/runfolder"
)

// A cell whose processes wrote to a history topic is complete only once
// the topic is split into history/ whole: before the split, or with the
// split partial, the analysis takes it as partial, with the reason.
func TestHistoryTopicNotSplitMakesTheCellPartial(t *testing.T) {
	dir := t.TempDir()
	cell := runfolder.Cell{SchemaVersion: 1, Cell: "sticky.sync-batch.franz", Strategy: "sticky", CommitPolicy: "sync-batch", Client: "franz",
		Topic: "t", Partitions: 6, Members: 3,
		History: &runfolder.HistorySink{Sink: runfolder.SinkTopic, Topic: "chaosbench-history", Bootstrap: "b:9092", Cell: "t", StartOffsets: map[int32]int64{0: 5}}}
	cell.Begin(time.Now())
	cell.Finish(time.Now(), nil)
	if err := runfolder.WriteJSON(filepath.Join(dir, runfolder.CellFile), cell); err != nil {
		t.Fatal(err)
	}
	info := func() (bool, string) {
		t.Helper()
		i, err := ReadCellInfo(dir)
		if err != nil {
			t.Fatal(err)
		}
		return i.Complete, i.PartialReason
	}
	if ok, why := info(); ok || !strings.Contains(why, "never split") {
		t.Errorf("no split: complete %t, %q", ok, why)
	}
	split := runfolder.HistorySplit{SchemaVersion: 1, Topic: "chaosbench-history", Cell: "t", Dir: "history"}
	split.Begin(time.Now())
	if err := runfolder.WriteJSON(filepath.Join(dir, runfolder.HistorySplitFile), split); err != nil {
		t.Fatal(err)
	}
	if ok, why := info(); ok || !strings.Contains(why, "is partial: "+runfolder.Unfinished) {
		t.Errorf("split begun: complete %t, %q", ok, why)
	}
	split.Finish(time.Now(), nil)
	if err := runfolder.WriteJSON(filepath.Join(dir, runfolder.HistorySplitFile), split); err != nil {
		t.Fatal(err)
	}
	if ok, why := info(); !ok || why != "" {
		t.Errorf("split complete: complete %t, %q", ok, why)
	}

	// The tee's split is a copy beside the files: the analysis reads
	// the files, whatever became of it.
	cell.History.Sink = runfolder.SinkTee
	split.Begin(time.Now())
	for _, r := range []any{cell, split} {
		name := runfolder.CellFile
		if _, ok := r.(runfolder.HistorySplit); ok {
			name = runfolder.HistorySplitFile
		}
		if err := runfolder.WriteJSON(filepath.Join(dir, name), r); err != nil {
			t.Fatal(err)
		}
	}
	if ok, why := info(); !ok || why != "" {
		t.Errorf("tee, split partial: complete %t, %q", ok, why)
	}

	cell.History.Sink = "kafka"
	if err := runfolder.WriteJSON(filepath.Join(dir, runfolder.CellFile), cell); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadCellInfo(dir); err == nil || !strings.Contains(err.Error(), `"history"."sink"`) {
		t.Errorf("an unknown sink: %v", err)
	}
}

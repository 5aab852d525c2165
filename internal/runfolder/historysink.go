package runfolder

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
)

// The history sinks: where a cell's members and producer write their
// histories (chaos run --history-sink).
const (
	// SinkFile: each process writes its own file in history/ (the
	// default; cell.json has no "history" then).
	SinkFile = "file"
	// SinkTopic: each process appends its lines to a history topic, keyed
	// by its incarnation; the driver splits the topic back into
	// history/, which the analysis reads as it reads files.
	SinkTopic = "topic"
	// SinkTee: both, the files in history/ and the topic, split into
	// history-topic/: a check of the topic sink against the file sink on
	// the same run.
	SinkTee = "tee"
)

// Sinks are the history sinks, as chaos run --history-sink takes them.
var Sinks = []string{SinkFile, SinkTopic, SinkTee}

// TopicHistoryDir is the folder a tee cell's history topic is split
// into, beside history/.
const TopicHistoryDir = "history-topic"

// HistorySink is cell.json's "history": where the cell's processes wrote
// their histories when not to files alone, and what the split of the
// topic back into files needs.
type HistorySink struct {
	Sink string `json:"sink"` // topic or tee
	// Topic is the history topic; Bootstrap the cluster it is on (the
	// cell's own, or another: chaos run --history-bootstrap).
	Topic     string `json:"topic"`
	Bootstrap string `json:"bootstrap"`
	// Cell is the value of the chaosbench-cell header of every record the
	// cell's processes wrote (the cell's own topic, unique to the run,
	// cell and iteration): a topic many cells and runs share is split
	// by it.
	Cell string `json:"cell"`
	// StartOffsets are the topic's end offsets, by partition, before the
	// cell's first process started: its records all come after them.
	StartOffsets map[int32]int64 `json:"start_offsets"`
}

// SplitDir is the cell folder's subfolder the topic is split into:
// history/ for the topic sink, history-topic/ for the tee.
func (h *HistorySink) SplitDir(cellDir string) string {
	if h.Sink == SinkTee {
		return filepath.Join(cellDir, TopicHistoryDir)
	}
	return HistoryDir(cellDir)
}

// HistorySplitFile is the record of the split of a cell's history topic
// into its files: begun partial, finished complete or with the reason.
const HistorySplitFile = "history-split.json"

// HistorySplit is history-split.json. While it is not complete, the files
// it names hold only part of the topic's lines (each file a prefix of its
// incarnation's lines): a split run again goes on from there, and the
// analysis takes the cell as partial.
type HistorySplit struct {
	SchemaVersion int    `json:"schema_version"`
	Topic         string `json:"topic"`
	Cell          string `json:"cell"`
	// Dir is the folder split into, relative to the cell folder.
	Dir string `json:"dir"`
	Lifecycle
	// EndOffsets are the topic's end offsets the split read up to, once
	// every process of the cell had ended.
	EndOffsets map[int32]int64 `json:"end_offsets,omitempty"`
	// Records is how many of the cell's records were split; Skipped how
	// many records of other cells the split read past.
	Records int64 `json:"records"`
	Skipped int64 `json:"skipped"`
	// Files are the files split into, in the order their first line came.
	Files []SplitFile `json:"files"`
}

// SplitFile is one file of a split: its lines and bytes, and how many of
// its lines it already held (a split run again).
type SplitFile struct {
	File  string `json:"file"`
	Lines int64  `json:"lines"`
	Bytes int64  `json:"bytes"`
	Kept  int64  `json:"kept,omitempty"`
}

// ReadHistorySplit reads a cell folder's history-split.json; found is
// false when it has none.
func ReadHistorySplit(cellDir string) (s HistorySplit, found bool, err error) {
	path := filepath.Join(cellDir, HistorySplitFile)
	b, err := ReadFile(path, MaxRecordSize)
	if errors.Is(err, fs.ErrNotExist) {
		return s, false, nil
	}
	if err != nil {
		return s, false, err
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return s, false, fmt.Errorf("%s: %w", path, err)
	}
	return s, true, nil
}

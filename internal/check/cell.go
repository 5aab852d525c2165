package check

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/chaosbench/chaosbench/internal/clip"
	"github.com/chaosbench/chaosbench/internal/history"
	"github.com/chaosbench/chaosbench/internal/runfolder"
	"github.com/chaosbench/chaosbench/internal/summary"
)

// LatencyLog is the file of a cell folder that holds its latency
// histograms (HdrHistogram's log format).
const LatencyLog = "latency.hlog"

// cellRecord is cell.json as this package reads it: the run folder's
// record, plus the producer settings when the driver records them.
type cellRecord struct {
	runfolder.Cell
	// Producer holds the producer's effective settings by Kafka property
	// name; enable.idempotence decides whether a same-partition reorder
	// is a failure.
	Producer map[string]string `json:"producer"`
}

// ReadCellInfo reads a cell folder's cell.json.
func ReadCellInfo(dir string) (summary.CellInfo, error) {
	path := filepath.Join(dir, runfolder.CellFile)
	b, err := runfolder.ReadFile(path, runfolder.MaxRecordSize)
	if err != nil {
		return summary.CellInfo{}, err
	}
	var c cellRecord
	if err := json.Unmarshal(b, &c); err != nil {
		return summary.CellInfo{}, fmt.Errorf("%s: %w", path, err)
	}
	if c.Strategy == "" {
		return summary.CellInfo{}, fmt.Errorf("%s: field \"strategy\": missing (expected a strategy name such as \"sticky\")", path)
	}
	if c.CommitPolicy == "" {
		return summary.CellInfo{}, fmt.Errorf("%s: field \"commit_policy\": missing (expected a commit policy such as \"sync-batch\")", path)
	}
	if err := checkCellBounds(c); err != nil {
		return summary.CellInfo{}, fmt.Errorf("%s: %w", path, err)
	}
	info := summary.CellInfo{
		Cell: c.Cell.Cell, Strategy: c.Strategy, CommitPolicy: c.CommitPolicy, Client: c.Client, Iteration: c.Iteration,
		Topic: c.Topic, Partitions: c.Partitions, Members: c.Members,
		Complete: c.Complete, PartialReason: c.PartialReason, DrainComplete: c.DrainComplete,
	}
	if info.Cell == "" {
		info.Cell = filepath.Base(dir)
	}
	if why, err := historySplitPartial(dir, c.History); err != nil {
		return summary.CellInfo{}, err
	} else if why != "" {
		// The analysis reads history/ alone: a topic not split into it
		// whole leaves the cell partial, whatever its run said.
		info.Complete = false
		info.PartialReason = strings.TrimPrefix(info.PartialReason+"; "+why, "; ")
	}
	if !c.Start.IsZero() {
		info.StartT = c.Start.UnixNano()
	}
	if !c.TrafficEnd.IsZero() {
		info.TrafficEndT = c.TrafficEnd.UnixNano()
	}
	if !c.DrainEnd.IsZero() {
		info.DrainEndT = c.DrainEnd.UnixNano()
	}
	if v, ok := c.Producer["enable.idempotence"]; ok {
		switch strings.ToLower(v) {
		case "true":
			info.IdempotentProducer = ptr(true)
		case "false":
			info.IdempotentProducer = ptr(false)
		default:
			return summary.CellInfo{}, fmt.Errorf("%s: field \"producer\".\"enable.idempotence\": %s (expected true or false)", path, clip.Quote(v))
		}
	}
	return info, nil
}

// historySplitPartial says why a cell whose processes wrote to a history
// topic (runfolder.SinkTopic) does not have all of it in history/: its
// split (history-split.json) never began, or did not complete. Empty
// when the split is complete, or the history is files.
func historySplitPartial(dir string, h *runfolder.HistorySink) (string, error) {
	if h == nil || h.Sink != runfolder.SinkTopic {
		return "", nil
	}
	s, found, err := runfolder.ReadHistorySplit(dir)
	switch {
	case err != nil:
		return "", err
	case !found:
		return fmt.Sprintf("history: the processes wrote to the history topic %s, never split into history/ (chaos analyze splits it while the topic's cluster is reachable)", clip.Quote(h.Topic)), nil
	case !s.Complete:
		return fmt.Sprintf("history: the split of the history topic %s into history/ is partial: %s", clip.Quote(h.Topic), s.PartialReason), nil
	}
	return "", nil
}

// Bounds of cell.json. The analysis keeps state per partition from the
// start, so the count is bounded as the history's partition numbers are;
// a name longer than Kafka's longest topic name is no name of a cell.
const (
	maxCellName      = 255
	maxCellMembers   = 100_000
	maxCellIteration = 1_000_000
	maxPartialReason = 64 << 10
)

// checkCellBounds refuses a cell.json whose numbers, names or times
// are beyond what a cell can have.
func checkCellBounds(c cellRecord) error {
	for _, f := range []struct{ name, v string }{{"cell", c.Cell.Cell}, {"strategy", c.Strategy}, {"commit_policy", c.CommitPolicy}, {"client", c.Client}, {"topic", c.Topic}} {
		if len(f.v) > maxCellName {
			return fmt.Errorf("field %q: %s: expected at most %d bytes", f.name, clip.Quote(f.v), maxCellName)
		}
	}
	if h := c.History; h != nil {
		if !slices.Contains(runfolder.Sinks, h.Sink) {
			return fmt.Errorf("field \"history\".\"sink\": %s, expected one of %s", clip.Quote(h.Sink), strings.Join(runfolder.Sinks, ", "))
		}
		if len(h.Topic) > maxCellName || len(h.Cell) > maxCellName {
			return fmt.Errorf("field \"history\": a topic or cell name of more than %d bytes", maxCellName)
		}
	}
	if len(c.PartialReason) > maxPartialReason {
		return fmt.Errorf("field \"partial_reason\": %d bytes, expected at most %d", len(c.PartialReason), maxPartialReason)
	}
	for _, f := range []struct {
		name    string
		v, most int
	}{{"partitions", c.Partitions, history.MaxPartitions}, {"members", c.Members, maxCellMembers}, {"iteration", c.Iteration, maxCellIteration}} {
		if f.v < 0 || f.v > f.most {
			return fmt.Errorf("field %q: %d, expected 0 to %d", f.name, f.v, f.most)
		}
	}
	// Times a history can hold: Unix nanoseconds in an int64, after 1970.
	lo, hi := time.Unix(0, 0), time.Unix(0, math.MaxInt64)
	for _, f := range []struct {
		name string
		t    time.Time
	}{{"start", c.Start}, {"traffic_end", c.TrafficEnd}, {"drain_end", c.DrainEnd}, {"end", c.End}} {
		if !f.t.IsZero() && (f.t.Before(lo) || f.t.After(hi)) {
			return fmt.Errorf("field %q: %s, expected a time from %s to %s", f.name, f.t.Format(time.RFC3339), lo.UTC().Format(time.RFC3339), hi.UTC().Format(time.RFC3339))
		}
	}
	return nil
}

// AnalyzeCell analyses one cell folder (cell.json and history/*.jsonl) in
// one streaming pass. The result also holds the latency histograms for
// WriteCell.
func AnalyzeCell(dir string, opts Options) (*Analysis, error) {
	info, err := ReadCellInfo(dir)
	if err != nil {
		return nil, err
	}
	paths, err := history.Files(runfolder.HistoryDir(dir))
	if err != nil {
		return nil, err
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("%s: no history files (*.jsonl)", runfolder.HistoryDir(dir))
	}
	src, err := history.OpenMerged(paths...)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	a := newAnalyzer(info, opts)
	a.files = len(paths)
	s, err := a.run(src)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	ext, err := ReadFindings(dir)
	if err != nil {
		return nil, err
	}
	s.AddFindings(ext...)
	return s, nil
}

// FindingsDir is where other checkers leave their findings for a cell:
// <cell>/findings/<checker>.json, each a JSON list of findings.
const FindingsDir = "findings"

// CheckCells reads what analysing the cell folders will read besides the
// history (cell.json and the findings of other checkers), so that a
// command rejects bad input before it writes anything.
func CheckCells(dirs []string) error {
	for _, d := range dirs {
		if _, err := ReadCellInfo(d); err != nil {
			return err
		}
		if _, err := ReadFindings(d); err != nil {
			return err
		}
	}
	return nil
}

// ReadFindings reads the findings other checkers left in a cell folder
// (none when the folder has no findings/). Files are read in name order.
func ReadFindings(dir string) ([]summary.Finding, error) {
	paths, err := filepath.Glob(filepath.Join(dir, FindingsDir, "*.json"))
	if err != nil {
		return nil, err
	}
	sort.Strings(paths)
	var out []summary.Finding
	for _, p := range paths {
		b, err := runfolder.ReadFile(p, runfolder.MaxRecordSize)
		if err != nil {
			return nil, err
		}
		var fs []summary.Finding
		if err := json.Unmarshal(b, &fs); err != nil {
			return nil, fmt.Errorf("%s: %w (expected a JSON list of findings: [{\"checker\", \"kind\", \"verdict\", \"count\", \"message\", \"examples\"}])", p, err)
		}
		for i, f := range fs {
			if f.Checker == "" || f.Kind == "" {
				return nil, fmt.Errorf("%s: finding %d: fields \"checker\" and \"kind\" are required", p, i+1)
			}
			switch f.Verdict {
			case "", summary.Valid, summary.Invalid, summary.Unknown:
			default:
				return nil, fmt.Errorf("%s: finding %d: field \"verdict\": %s (expected valid, invalid or unknown)", p, i+1, clip.Quote(string(f.Verdict)))
			}
		}
		out = append(out, fs...)
	}
	return out, nil
}

// AnalyzeInMemory analyses a cell folder for a command that writes its
// files only once it has read everything it reads (report.Analyzer): the
// summary, and what writes summary.json and latency.hlog into a folder.
func (o Options) AnalyzeInMemory(dir string) (*summary.Summary, func(dir string) error, error) {
	a, err := AnalyzeCell(dir, o)
	if err != nil {
		return nil, nil, err
	}
	f, err := EncodeCell(a)
	if err != nil {
		return nil, nil, err
	}
	return a.Summary, f.Write, nil
}

// Summarize returns a cell folder's summary: its summary.json when this
// build reads it as its own, else the analysis of its history, written
// into the folder first.
func (o Options) Summarize(dir string) (*summary.Summary, error) {
	if s, err := summary.ReadSummary(dir); err == nil {
		return s, nil
	}
	a, err := AnalyzeCell(dir, o)
	if err != nil {
		return nil, err
	}
	if err := WriteCell(dir, a); err != nil {
		return nil, err
	}
	return a.Summary, nil
}

// WriteCell writes summary.json and latency.hlog into a cell folder, each
// atomically (runfolder.WriteFile); both are produced in memory first, so
// a failure to produce either leaves the folder as it was.
func WriteCell(dir string, s *Analysis) error {
	f, err := EncodeCell(s)
	if err != nil {
		return err
	}
	return f.Write(dir)
}

// CellFiles are the files of an analysed cell, in memory: a command that
// analyses many cells holds them until every cell has been read, and
// writes none if one is bad input.
type CellFiles struct {
	Summary, LatencyLog []byte
}

// EncodeCell produces a cell's files.
func EncodeCell(s *Analysis) (*CellFiles, error) {
	sum, err := json.MarshalIndent(s.Summary, "", "  ")
	if err != nil {
		return nil, err
	}
	f := &CellFiles{Summary: append(sum, '\n')}
	if s.latency != nil {
		var hlog bytes.Buffer
		if err := s.latency.writeLatencyLog(&hlog); err != nil {
			return nil, err
		}
		f.LatencyLog = hlog.Bytes()
	}
	return f, nil
}

// Write writes the files into the cell folder, each atomically.
func (f *CellFiles) Write(dir string) error {
	if f.LatencyLog != nil {
		if err := runfolder.WriteFile(filepath.Join(dir, LatencyLog), f.LatencyLog); err != nil {
			return err
		}
	}
	return runfolder.WriteFile(filepath.Join(dir, summary.SummaryFile), f.Summary)
}

// IsNotExist reports whether err means a file is missing.
func IsNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }

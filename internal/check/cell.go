package check

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/chaosbench/chaosbench/internal/clip"
	"github.com/chaosbench/chaosbench/internal/history"
	"github.com/chaosbench/chaosbench/internal/runfolder"
)

// Files a cell folder holds or gets.
const (
	CellFile    = "cell.json"
	SummaryFile = "summary.json"
	LatencyLog  = "latency.hlog"
)

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
func ReadCellInfo(dir string) (CellInfo, error) {
	path := filepath.Join(dir, CellFile)
	b, err := runfolder.ReadFile(path, runfolder.MaxRecordSize)
	if err != nil {
		return CellInfo{}, err
	}
	var c cellRecord
	if err := json.Unmarshal(b, &c); err != nil {
		return CellInfo{}, fmt.Errorf("%s: %w", path, err)
	}
	if c.Strategy == "" {
		return CellInfo{}, fmt.Errorf("%s: field \"strategy\": missing (expected a strategy name such as \"sticky\")", path)
	}
	if c.CommitPolicy == "" {
		return CellInfo{}, fmt.Errorf("%s: field \"commit_policy\": missing (expected a commit policy such as \"sync-batch\")", path)
	}
	if err := checkCellBounds(c); err != nil {
		return CellInfo{}, fmt.Errorf("%s: %w", path, err)
	}
	info := CellInfo{
		Cell: c.Cell.Cell, Strategy: c.Strategy, CommitPolicy: c.CommitPolicy, Client: c.Client, Iteration: c.Iteration,
		Topic: c.Topic, Partitions: c.Partitions, Members: c.Members,
		Complete: c.Complete, PartialReason: c.PartialReason, DrainComplete: c.DrainComplete,
	}
	if info.Cell == "" {
		info.Cell = filepath.Base(dir)
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
			return CellInfo{}, fmt.Errorf("%s: field \"producer\".\"enable.idempotence\": %s (expected true or false)", path, clip.Quote(v))
		}
	}
	return info, nil
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
func AnalyzeCell(dir string, opts Options) (*Summary, error) {
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
func ReadFindings(dir string) ([]Finding, error) {
	paths, err := filepath.Glob(filepath.Join(dir, FindingsDir, "*.json"))
	if err != nil {
		return nil, err
	}
	sort.Strings(paths)
	var out []Finding
	for _, p := range paths {
		b, err := runfolder.ReadFile(p, runfolder.MaxRecordSize)
		if err != nil {
			return nil, err
		}
		var fs []Finding
		if err := json.Unmarshal(b, &fs); err != nil {
			return nil, fmt.Errorf("%s: %w (expected a JSON list of findings: [{\"checker\", \"kind\", \"verdict\", \"count\", \"message\", \"examples\"}])", p, err)
		}
		for i, f := range fs {
			if f.Checker == "" || f.Kind == "" {
				return nil, fmt.Errorf("%s: finding %d: fields \"checker\" and \"kind\" are required", p, i+1)
			}
			switch f.Verdict {
			case "", Valid, Invalid, Unknown:
			default:
				return nil, fmt.Errorf("%s: finding %d: field \"verdict\": %s (expected valid, invalid or unknown)", p, i+1, clip.Quote(string(f.Verdict)))
			}
		}
		out = append(out, fs...)
	}
	return out, nil
}

// WriteCell writes summary.json and latency.hlog into a cell folder, each
// atomically (runfolder.WriteFile); both are produced in memory first, so
// a failure to produce either leaves the folder as it was.
func WriteCell(dir string, s *Summary) error {
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
func EncodeCell(s *Summary) (*CellFiles, error) {
	sum, err := json.MarshalIndent(s, "", "  ")
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
	return runfolder.WriteFile(filepath.Join(dir, SummaryFile), f.Summary)
}

// maxSummarySize bounds a summary.json a reader reads whole: its lists
// (pauses, disruptions, examples) are bounded by the cell's partitions
// and disruptions, far below this.
const maxSummarySize = 256 << 20

func known(v Verdict) bool { return v == Valid || v == Invalid || v == Unknown }

// ReadSummary reads a cell folder's summary.json and refuses one this
// build cannot read as its own: another schema version, a verdict it does
// not know.
func ReadSummary(dir string) (*Summary, error) {
	path := filepath.Join(dir, SummaryFile)
	b, err := runfolder.ReadFile(path, maxSummarySize)
	if err != nil {
		return nil, err
	}
	var s Summary
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if s.SchemaVersion != SchemaVersion {
		return nil, fmt.Errorf("%s: field \"schema_version\": %d (this build reads version %d; re-run chaos analyze)", path, s.SchemaVersion, SchemaVersion)
	}
	// A verdict this build does not know would pass -fail-on and every
	// comparison as if it were none.
	if !known(s.Verdict) {
		return nil, fmt.Errorf("%s: field \"verdict\": %s (expected valid, invalid or unknown; re-run chaos analyze)", path, clip.Quote(string(s.Verdict)))
	}
	for i, f := range s.Findings {
		if f.Verdict != "" && !known(f.Verdict) {
			return nil, fmt.Errorf("%s: field \"findings\"[%d].\"verdict\": %s (expected valid, invalid or unknown; re-run chaos analyze)", path, i, clip.Quote(string(f.Verdict)))
		}
	}
	return &s, nil
}

// FindCells returns every cell folder (a folder with cell.json) under
// root, root included, sorted by path. Cells sit at <run>/<cell>/ or, for
// repeated runs, deeper (<run>/<cell>/iter-<k>/): wherever cell.json is.
func FindCells(root string) ([]string, error) {
	var dirs []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "history" || d.Name() == "logs") && path != root {
			return filepath.SkipDir
		}
		if !d.IsDir() && d.Name() == CellFile {
			dirs = append(dirs, filepath.Dir(path))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(dirs) == 0 {
		return nil, fmt.Errorf("%s: no cell folders (a folder with %s) found", root, CellFile)
	}
	sort.Strings(dirs)
	return dirs, nil
}

// IsNotExist reports whether err means a file is missing.
func IsNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }

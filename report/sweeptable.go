package report

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/chaosbench/chaosbench/internal/runfolder"
	"github.com/chaosbench/chaosbench/internal/summary"
	"github.com/chaosbench/chaosbench/internal/sweep"
	"github.com/chaosbench/chaosbench/workloads"
)

// A sweep (package sweep) leaves a run folder per point and kind of run;
// AnalyzeSweep measures them all into one table, capacity.json: the
// capacity runs from their histories (sweep.MeasureCapacity), the target
// runs from their summaries (MeasureTarget).

// SweepTable is capacity.json: every point of a sweep with what its runs
// measured, one entry per iteration. The capacity report reads nothing
// else; `chaos sweep` writes it when the sweep ends, `chaos capacity`
// again from the saved runs.
type SweepTable struct {
	SchemaVersion int           `json:"schema_version"`
	Sweep         *sweep.Record `json:"sweep"`
	// ProcessingCostMs is the workload's processing cost per record (the
	// mean for a distribution), Processing its description.
	ProcessingCostMs float64    `json:"processing_cost_ms"`
	Processing       string     `json:"processing"`
	Rows             []SweepRow `json:"rows"`
}

// SweepRow is one point and its measurements.
type SweepRow struct {
	Point sweep.Point `json:"point"`
	// The point's effective settings (the grid's, else the workload's).
	Members        int    `json:"members"`
	Partitions     int    `json:"partitions"`
	Strategy       string `json:"strategy"`
	CommitPolicy   string `json:"commit_policy"`
	Client         string `json:"client"`
	MaxPollRecords int    `json:"max_poll_records"`
	// ModelCapacity is the physics the capacity is checked against
	// (sweep.ModelCapacity): a model, not a measurement.
	ModelCapacity float64 `json:"model_capacity"`
	// CapacityRun and TargetRun are the run folders measured (relative to
	// the sweep), "" when no run of the kind finished.
	CapacityRun string         `json:"capacity_run,omitempty"`
	TargetRun   string         `json:"target_run,omitempty"`
	Capacity    []CapacityCell `json:"capacity,omitempty"`
	Target      []TargetCell   `json:"target,omitempty"`
}

// CapacityCell is one iteration of a capacity run.
type CapacityCell struct {
	Cell      string `json:"cell"` // folder, relative to the sweep
	Iteration int    `json:"iteration"`
	sweep.Capacity
}

// TargetCell is one iteration of a target run.
type TargetCell struct {
	Cell      string `json:"cell"`
	Iteration int    `json:"iteration"`
	AtTarget
}

// AnalyzeSweep measures every point of the sweep in dir from the newest run of
// each kind that finished: capacity runs from their histories, target runs
// from their summaries (analysed first where missing, with opts).
func AnalyzeSweep(dir string, summarize func(cellDir string) (*summary.Summary, error)) (*SweepTable, error) {
	rec, err := sweep.ReadRecord(dir)
	if err != nil {
		return nil, err
	}
	file := filepath.Join(dir, sweep.WorkloadFile)
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	base, err := workloads.Parse(file, data)
	if err != nil {
		return nil, err
	}
	t := &SweepTable{SchemaVersion: sweep.SchemaVersion, Sweep: rec,
		ProcessingCostMs: float64(base.Consumer.Processing.Cost) / 1e6, Processing: base.Consumer.Processing.String()}
	for _, p := range rec.Points {
		s, err := p.Spec(file, data)
		if err != nil {
			return nil, err
		}
		cell := s.Cells()[0]
		row := SweepRow{Point: p, Members: s.Consumer.Members, Partitions: s.Topic.Partitions,
			Strategy: cell.Strategy, CommitPolicy: cell.CommitPolicy, Client: cell.Client,
			MaxPollRecords: s.Consumer.MaxPollRecords, ModelCapacity: sweep.ModelCapacity(s)}
		if err := row.measure(dir, summarize); err != nil {
			return nil, fmt.Errorf("point %s: %w", p.Name, err)
		}
		t.Rows = append(t.Rows, row)
	}
	return t, nil
}

// measure fills the row from the point's finished runs.
func (row *SweepRow) measure(dir string, summarize func(cellDir string) (*summary.Summary, error)) error {
	for _, kind := range sweep.Kinds {
		run, err := sweep.Finished(dir, row.Point.Name, kind)
		if err != nil || run == "" {
			continue
		}
		cells, err := runfolder.FindCells(run)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, run)
		for _, c := range cells {
			rec, err := runfolder.ReadCell(c)
			if err != nil {
				return err
			}
			crel, _ := filepath.Rel(dir, c)
			switch kind {
			case sweep.KindCapacity:
				row.CapacityRun = rel
				m, err := sweep.MeasureCapacity(runfolder.HistoryDir(c))
				if err != nil {
					return err
				}
				row.Capacity = append(row.Capacity, CapacityCell{Cell: crel, Iteration: rec.Iteration, Capacity: *m})
			case sweep.KindTarget:
				row.TargetRun = rel
				m, err := MeasureTarget(run, c, summarize)
				if err != nil {
					return err
				}
				m.Rate, _ = strconv.ParseFloat(rec.Producer["rate"], 64)
				row.Target = append(row.Target, TargetCell{Cell: crel, Iteration: rec.Iteration, AtTarget: *m})
			}
		}
	}
	return nil
}

// WriteSweepTable writes dir/capacity.json atomically.
func WriteSweepTable(dir string, t *SweepTable) error {
	return runfolder.WriteJSON(filepath.Join(dir, sweep.TableFile), t)
}

// ReadSweepTable reads dir/capacity.json.
func ReadSweepTable(dir string) (*SweepTable, error) {
	path := filepath.Join(dir, sweep.TableFile)
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var t SweepTable
	if err := json.Unmarshal(b, &t); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if t.SchemaVersion != sweep.SchemaVersion {
		return nil, fmt.Errorf("%s: schema_version %d: expected %d (run chaos capacity again)", path, t.SchemaVersion, sweep.SchemaVersion)
	}
	return &t, nil
}

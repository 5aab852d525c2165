package sweep

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/chaosbench/chaosbench/internal/runfolder"
	"github.com/chaosbench/chaosbench/internal/summary"
	"github.com/chaosbench/chaosbench/workloads"
)

// A sweep leaves a run folder per point and kind of run; Analyze measures
// them all into one table, capacity.json: the capacity runs from their
// histories (MeasureCapacity), the target runs from their summaries
// (MeasureTarget).

// Analyze measures every point of the sweep in dir from the newest run of
// each kind that finished: capacity runs from their histories, target runs
// from their summaries. summarize gives a cell's summary, analysing the
// cell first where it has none: the commands make it from package check,
// which nothing that measures or judges a sweep imports.
func Analyze(dir string, summarize func(cellDir string) (*summary.Summary, error)) (*Table, error) {
	rec, err := ReadRecord(dir)
	if err != nil {
		return nil, err
	}
	file := filepath.Join(dir, WorkloadFile)
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	base, err := workloads.Parse(file, data)
	if err != nil {
		return nil, err
	}
	t := &Table{SchemaVersion: SchemaVersion, Sweep: rec,
		ProcessingCostMs: float64(base.Consumer.Processing.Cost) / 1e6, Processing: base.Consumer.Processing.String()}
	for _, p := range rec.Points {
		s, err := p.Spec(file, data)
		if err != nil {
			return nil, err
		}
		cell := s.Cells()[0]
		row := Row{Point: p, Members: s.Consumer.Members, Partitions: s.Topic.Partitions,
			Strategy: cell.Strategy, CommitPolicy: cell.CommitPolicy, Client: cell.Client,
			MaxPollRecords: s.Consumer.MaxPollRecords, ModelCapacity: ModelCapacity(s)}
		env, err := row.measureCapacity(dir)
		if err == nil {
			err = row.measureTarget(dir, summarize)
		}
		if err != nil {
			return nil, fmt.Errorf("point %s: %w", p.Name, err)
		}
		if t.Environment == nil {
			t.Environment = env
		}
		t.Rows = append(t.Rows, row)
	}
	return t, nil
}

// measureCapacity fills the row's capacity from the point's newest
// finished capacity run, and returns the environment its first cell's
// record gives (nil when no capacity run finished).
func (row *Row) measureCapacity(dir string) (*Environment, error) {
	var env *Environment
	err := row.eachCell(dir, KindCapacity, func(run, cell string, rec runfolder.Cell) error {
		m, err := MeasureCapacity(runfolder.HistoryDir(cell))
		if err != nil {
			return err
		}
		row.CapacityRun = relative(dir, run)
		row.Capacity = append(row.Capacity, CapacityCell{Cell: relative(dir, cell), Iteration: rec.Iteration, Capacity: *m})
		if env == nil {
			env = environmentOf(rec)
		}
		return nil
	})
	return env, err
}

// measureTarget fills the row's figures at the target rate from the
// point's newest finished target run.
func (row *Row) measureTarget(dir string, summarize func(cellDir string) (*summary.Summary, error)) error {
	return row.eachCell(dir, KindTarget, func(run, cell string, rec runfolder.Cell) error {
		m, err := MeasureTarget(run, cell, summarize)
		if err != nil {
			return err
		}
		m.Rate, _ = strconv.ParseFloat(rec.Producer["rate"], 64)
		row.TargetRun = relative(dir, run)
		row.Target = append(row.Target, TargetCell{Cell: relative(dir, cell), Iteration: rec.Iteration, AtTarget: *m})
		return nil
	})
}

// eachCell calls f with every cell of the point's newest finished run of
// a kind, and the cell's record; a point with no such run has none.
func (row *Row) eachCell(dir, kind string, f func(run, cell string, rec runfolder.Cell) error) error {
	run, err := Finished(dir, row.Point.Name, kind)
	if err != nil || run == "" {
		return nil
	}
	cells, err := runfolder.FindCells(run)
	if err != nil {
		return err
	}
	for _, c := range cells {
		rec, err := runfolder.ReadCell(c)
		if err != nil {
			return err
		}
		if err := f(run, c, rec); err != nil {
			return err
		}
	}
	return nil
}

// relative is path relative to the sweep folder dir, as the table names
// runs and cells.
func relative(dir, path string) string {
	rel, _ := filepath.Rel(dir, path)
	return rel
}

package sweep

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/chaosbench/chaosbench/internal/runfolder"
)

// Table is capacity.json: every point of a sweep with what its runs
// measured, one entry per iteration, and where the sweep ran. The
// judgement (Judge) and the capacity report read nothing else: Analyze
// builds it from the sweep folder, `chaos sweep` writes it when the sweep
// ends, `chaos capacity` again from the saved runs.
type Table struct {
	SchemaVersion int     `json:"schema_version"`
	Sweep         *Record `json:"sweep"`
	// ProcessingCostMs is the workload's processing cost per record (the
	// mean for a distribution), Processing its description.
	ProcessingCostMs float64 `json:"processing_cost_ms"`
	Processing       string  `json:"processing"`
	// Environment is where the sweep ran; nil when no capacity run
	// finished.
	Environment *Environment `json:"environment,omitempty"`
	Rows        []Row        `json:"rows"`
}

// Environment is the host and the cluster a sweep ran on, as the record
// (cell.json) of its first capacity cell gives them: every run of a sweep
// runs on one cluster, from one host. The table carries it so that the
// report says where the figures come from without reading a cell's
// record while it renders.
type Environment struct {
	KafkaVersion string `json:"kafka_version"`
	Provider     string `json:"provider"`
	Brokers      int    `json:"brokers"`
	CPUs         int    `json:"cpus"`
	CPUModel     string `json:"cpu_model,omitempty"`
}

// environmentOf is a cell record's environment.
func environmentOf(rec runfolder.Cell) *Environment {
	return &Environment{KafkaVersion: rec.Cluster.KafkaVersion, Provider: rec.Cluster.Provider,
		Brokers: rec.Cluster.Brokers, CPUs: rec.Machine.CPUs, CPUModel: rec.Machine.CPUModel}
}

// Row is one point and its measurements.
type Row struct {
	Point Point `json:"point"`
	// The point's effective settings (the grid's, else the workload's).
	Members        int    `json:"members"`
	Partitions     int    `json:"partitions"`
	Strategy       string `json:"strategy"`
	CommitPolicy   string `json:"commit_policy"`
	Client         string `json:"client"`
	MaxPollRecords int    `json:"max_poll_records"`
	// ModelCapacity is the physics the capacity is checked against
	// (ModelCapacity): a model, not a measurement.
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
	Capacity
}

// TargetCell is one iteration of a target run.
type TargetCell struct {
	Cell      string `json:"cell"`
	Iteration int    `json:"iteration"`
	AtTarget
}

// WriteTable writes dir/capacity.json atomically.
func WriteTable(dir string, t *Table) error {
	return runfolder.WriteJSON(filepath.Join(dir, TableFile), t)
}

// ReadTable reads dir/capacity.json.
func ReadTable(dir string) (*Table, error) {
	path := filepath.Join(dir, TableFile)
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var t Table
	if err := json.Unmarshal(b, &t); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if t.SchemaVersion != SchemaVersion {
		return nil, fmt.Errorf("%s: schema_version %d: expected %d (run chaos capacity again)", path, t.SchemaVersion, SchemaVersion)
	}
	return &t, nil
}

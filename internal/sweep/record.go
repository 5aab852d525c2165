package sweep

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/chaosbench/chaosbench/internal/runfolder"
	"github.com/chaosbench/chaosbench/workloads"
)

// A sweep folder holds the sweep's record, the workload it ran, and one
// folder per point; a point's folder holds one run folder per kind of
// run (a normal run folder: run.json, plan.json, the cell with its
// histories and summary):
//
//	results/<UTC time>-<workload>-sweep/
//	  sweep.json  workload.yaml  cluster-logs/
//	  capacity.json  capacity.md  capacity.html  plots/
//	  m4_p12_cooperative-sticky/
//	    capacity/   the group driven to saturation: what it sustains
//	    target/     the workload at the target rate, under its chaos steps
//	    target-2/   a rerun after an interruption (chaos sweep --resume)
//
// Nothing is overwritten: a run that did not finish stays as it is, and
// --resume runs it again into the next free name.
const (
	RecordFile   = "sweep.json"
	WorkloadFile = "workload.yaml"
	TableFile    = "capacity.json"
)

// The kinds of run a point has.
const (
	// KindCapacity: the producer far ahead of the group (unlimited rate,
	// a backlog of records sized to take about Record.Saturate to drain),
	// no chaos: what the group sustains.
	KindCapacity = "capacity"
	// KindTarget: the workload at the target rate with its chaos steps:
	// lag, latency, pauses, recovery, skew and movement.
	KindTarget = "target"
)

// Kinds are the kinds of run of every point, in the order they run.
var Kinds = []string{KindCapacity, KindTarget}

// SchemaVersion is the version of sweep.json and capacity.json.
const SchemaVersion = 1

// Record is sweep.json: what the sweep is (its grid, points, repeats and
// targets) and whether it finished. It is written before the first point
// runs and again at the end, and by every resume.
type Record struct {
	SchemaVersion int     `json:"schema_version"`
	Workload      string  `json:"workload"`
	WorkloadFile  string  `json:"workload_file"`
	Grid          []Dim   `json:"grid"`
	Points        []Point `json:"points"`
	// Repeat is how many times each run's cell runs (its iterations).
	Repeat int `json:"repeat"`
	// Saturate is how long a capacity run's backlog is sized to take to
	// drain, at the rate the model of the workload predicts.
	Saturate time.Duration `json:"saturate_ns"`
	// Targets are the targets in force: the workload's, with the command
	// line's over them.
	Targets workloads.Targets `json:"targets"`
	runfolder.Lifecycle
	// Command is the command line, secrets masked.
	Command []string `json:"command"`
	// Resumes lists each `chaos sweep --resume` of the sweep.
	Resumes []Resume `json:"resumes,omitempty"`
	// Load is the host's load around each run: on a shared host, the
	// figures of a run that found it busy may say more about the host
	// than about Kafka.
	Load []RunLoad `json:"load,omitempty"`
}

// RunLoad is the host's load average (one minute, /proc/loadavg) when a
// run started and when it ended.
type RunLoad struct {
	Run    string  `json:"run"` // the run folder, relative to the sweep
	Before float64 `json:"before"`
	After  float64 `json:"after"`
}

// LoadAverage reads the host's one-minute load average; ok is false where
// there is none (not Linux).
func LoadAverage() (load float64, ok bool) {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0, false
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0, false
	}
	load, err = strconv.ParseFloat(f[0], 64)
	return load, err == nil
}

// Resume is one resumption of a sweep.
type Resume struct {
	Start   time.Time `json:"start"`
	Command []string  `json:"command"`
}

// ReadRecord reads dir/sweep.json; a folder without one is not a sweep.
func ReadRecord(dir string) (*Record, error) {
	path := filepath.Join(dir, RecordFile)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s: not a sweep folder (no %s)", dir, RecordFile)
	}
	if err != nil {
		return nil, err
	}
	var r Record
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if r.SchemaVersion != SchemaVersion {
		return nil, fmt.Errorf("%s: schema_version %d: expected %d", path, r.SchemaVersion, SchemaVersion)
	}
	if len(r.Points) == 0 || r.Repeat < 1 {
		return nil, fmt.Errorf("%s: expected points and repeat >= 1", path)
	}
	for _, p := range r.Points {
		if p.Name == "" || strings.ContainsAny(p.Name, `/\`) || p.Name == "." || p.Name == ".." {
			return nil, fmt.Errorf("%s: point %q: expected a folder name", path, p.Name)
		}
	}
	return &r, nil
}

// WriteRecord writes dir/sweep.json atomically.
func WriteRecord(dir string, r *Record) error {
	return runfolder.WriteJSON(filepath.Join(dir, RecordFile), r)
}

// Runs lists the run folders of one kind of a point, oldest first: kind,
// kind-2, kind-3, ...
func Runs(sweepDir, point, kind string) ([]string, error) {
	entries, err := os.ReadDir(filepath.Join(sweepDir, point))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	type run struct {
		n   int
		dir string
	}
	var runs []run
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		n := 0
		if e.Name() == kind {
			n = 1
		} else if rest, ok := strings.CutPrefix(e.Name(), kind+"-"); ok {
			if k, err := strconv.Atoi(rest); err == nil && k >= 2 {
				n = k
			}
		}
		if n > 0 {
			runs = append(runs, run{n, filepath.Join(sweepDir, point, e.Name())})
		}
	}
	sort.Slice(runs, func(i, j int) bool { return runs[i].n < runs[j].n })
	out := make([]string, len(runs))
	for i, r := range runs {
		out[i] = r.dir
	}
	return out, nil
}

// NextRun is the folder the next run of a kind of a point goes to: kind,
// then kind-2, kind-3, ... after the last that exists.
func NextRun(sweepDir, point, kind string) (string, error) {
	runs, err := Runs(sweepDir, point, kind)
	if err != nil {
		return "", err
	}
	if len(runs) == 0 {
		return filepath.Join(sweepDir, point, kind), nil
	}
	last := filepath.Base(runs[len(runs)-1])
	n := 1
	if rest, ok := strings.CutPrefix(last, kind+"-"); ok {
		n, _ = strconv.Atoi(rest)
	}
	return filepath.Join(sweepDir, point, fmt.Sprintf("%s-%d", kind, n+1)), nil
}

// Finished returns the newest run of a kind of a point that completed
// (its run.json says so), or "" when none did.
func Finished(sweepDir, point, kind string) (string, error) {
	runs, err := Runs(sweepDir, point, kind)
	if err != nil {
		return "", err
	}
	for i := len(runs) - 1; i >= 0; i-- {
		r, err := runfolder.ReadRun(runs[i])
		if err == nil && r.Complete {
			return runs[i], nil
		}
	}
	return "", nil
}

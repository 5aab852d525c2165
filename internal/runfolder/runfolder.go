// Package runfolder lays out a run's results: results/<UTC time>-<workload>/
// with run.json, and one folder per cell with cell.json and the histories
// (docs/history.md, "A run folder"). Folders are created, never reused:
// results are never overwritten.
package runfolder

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"
)

// SchemaVersion is the version of run.json and cell.json.
const SchemaVersion = 1

// Run is run.json: what a run was and whether it finished.
type Run struct {
	SchemaVersion int      `json:"schema_version"`
	Workload      string   `json:"workload"`      // the workload's name
	WorkloadFile  string   `json:"workload_file"` // the path it was read from
	Seed          int64    `json:"seed"`
	Repeat        int      `json:"repeat"` // how many times each cell ran
	Cells         []string `json:"cells"`  // cell folder names, in run order
	// Warmup is how the run warmed a local cluster's brokers before its
	// first cell; nil when it did not (a cluster whose processes it does
	// not own).
	Warmup *Warmup `json:"warmup,omitempty"`
	// Control is the members' control channel: "stdin" or "network"
	// (empty in a record of a run that could not choose: "stdin").
	Control string `json:"control,omitempty"`
	Lifecycle
	// Command is the command line, with the value of every secret
	// property masked as "***".
	Command []string `json:"command"`
}

// Warmup is the warm-up of a local cluster's brokers before a run's first
// cell: traffic and group rebalances until the brokers' JIT compiler
// threads went quiet (Settled) or the bound passed.
type Warmup struct {
	Seconds float64 `json:"seconds"`
	Settled bool    `json:"settled"`
	// BrokerCPU and JITCPU are the brokers' share of the host's CPU, each
	// second, and their JIT compiler threads' share.
	BrokerCPU []float64 `json:"broker_cpu"`
	JITCPU    []float64 `json:"jit_cpu"`
}

// Cell is cell.json: the environment record of one cell.
type Cell struct {
	SchemaVersion int    `json:"schema_version"`
	Cell          string `json:"cell"`     // folder name
	Strategy      string `json:"strategy"` // range, roundrobin, sticky, cooperative-sticky, consumer-uniform, consumer-range
	CommitPolicy  string `json:"commit_policy"`
	Client        string `json:"client"`    // a client of internal/vocab: confluent, franz, java
	Iteration     int    `json:"iteration"` // 0-based repetition of the cell (chaos run --repeat)

	Topic      string `json:"topic"`
	Partitions int    `json:"partitions"` // at the start; add_partitions steps may grow it
	Group      string `json:"group"`
	Members    int    `json:"members"` // at the start
	Seed       int64  `json:"seed"`

	// Consumer holds the effective member settings (Kafka property names:
	// session.timeout.ms, heartbeat.interval.ms, max.poll.interval.ms, ...).
	Consumer map[string]string `json:"consumer"`
	// Processing describes the simulated per-record cost.
	Processing string `json:"processing"`
	// Producer holds the producer's settings, by Kafka property name where
	// there is one (acks, enable.idempotence, ...), plus its client,
	// partitioner and rate.
	Producer map[string]string `json:"producer"`
	// ClientProperties are the properties every client of the cell got
	// (-X, -F: security settings, mostly), secrets masked as "***".
	ClientProperties map[string]string `json:"client_properties,omitempty"`

	Cluster  ClusterInfo `json:"cluster"`
	Versions Versions    `json:"versions"`
	Machine  Machine     `json:"machine"`

	// History is where the members and the producer wrote their
	// histories when not to files alone (chaos run --history-sink); nil:
	// files, in history/.
	History *HistorySink `json:"history,omitempty"`

	Lifecycle
	// TrafficEnd is when the producer stopped; DrainEnd when every
	// acknowledged record was processed or the drain deadline passed.
	TrafficEnd    time.Time `json:"traffic_end,omitzero"`
	DrainEnd      time.Time `json:"drain_end,omitzero"`
	DrainComplete bool      `json:"drain_complete"`
}

// ClusterInfo is the record of the cluster a cell ran against, as its
// provider describes it (`chaos cluster status --json` prints the same).
type ClusterInfo struct {
	Provider   string `json:"provider"`
	Bootstrap  string `json:"bootstrap"`
	ClusterID  string `json:"cluster_id"`
	Brokers    int    `json:"brokers"`
	BrokerIDs  []int  `json:"broker_ids"`
	Controller int    `json:"controller"`
	// KafkaVersion is the Kafka release: the one the provider runs (the
	// local provider's jars, the docker provider's image), else what the
	// broker reports.
	KafkaVersion string `json:"kafka_version"`
	// BrokerVersion is what the broker itself reports, whatever the
	// provider: its API versions as franz-go reads them ("v4.4", or "at
	// least v4.4" for a release newer than franz-go knows).
	BrokerVersion string `json:"broker_version,omitempty"`
	// BrokerSettings holds the broker configuration that shapes group
	// behaviour (rebalance delay, session bounds, offsets topic), as set by
	// the provider or, for an external cluster, as described by the broker.
	BrokerSettings map[string]string `json:"broker_settings"`
	// Nodes describes the processes of a local cluster.
	Nodes []NodeInfo `json:"nodes,omitempty"`
	// NetPaths are the bootstraps of the processes given a network path
	// of their own (a local cluster, for a workload with network steps),
	// by process: the addresses of the path's proxies, one per broker.
	NetPaths map[string]string `json:"net_paths,omitempty"`
	// BrokerLinks are, for a local cluster whose brokers reach each
	// other through links of their own (a workload with a network step
	// on a broker), the addresses of each link's proxies, by link
	// (link-<from>-<to>, node ids).
	BrokerLinks map[string]string `json:"broker_links,omitempty"`
}

// NodeInfo describes one broker process of a local cluster.
type NodeInfo struct {
	ID      int    `json:"id"`
	PID     int    `json:"pid"`
	Address string `json:"address"`
	Alive   bool   `json:"alive"`
	Log     string `json:"log"`
}

// Versions records the software a cell ran.
type Versions struct {
	Kafka      string `json:"kafka"`
	Librdkafka string `json:"librdkafka"`
	FranzGo    string `json:"franz_go"`
	// KafkaClients and Java: the java client's kafka-clients and JVM
	// (java cells only).
	KafkaClients string `json:"kafka_clients,omitempty"`
	Java         string `json:"java,omitempty"`
	// JavaOptions: the JVM options of the java cells' members
	// (member.JavaOptions).
	JavaOptions []string `json:"java_options,omitempty"`
	Go          string   `json:"go"`
	Chaosbench  string   `json:"chaosbench"`
}

// Machine records where a cell ran. A measurement belongs to its machine:
// chaos compare says when a baseline and a candidate come from different
// ones (cores, CPU model, memory, OS and architecture).
type Machine struct {
	Hostname string `json:"hostname"`
	OS       string `json:"os"`
	Arch     string `json:"arch"`
	CPUs     int    `json:"cpus"`
	// CPUModel is the processor's name as the kernel reports it (Linux:
	// the first "model name" of /proc/cpuinfo); empty where unknown.
	CPUModel string `json:"cpu_model,omitempty"`
	MemBytes uint64 `json:"mem_bytes"`
	Kernel   string `json:"kernel"`
}

// NewRunDir creates results/<UTC time>-<workload> under root. If that name
// is taken (two runs in one second), a suffix -2, -3, ... is added: an
// existing folder is never reused.
func NewRunDir(root, workload string, now time.Time) (string, error) {
	if err := os.MkdirAll(root, 0o755); err != nil {
		return "", err
	}
	base := now.UTC().Format("20060102T150405Z") + "-" + workload
	for i := 1; i < 1000; i++ {
		name := base
		if i > 1 {
			name = fmt.Sprintf("%s-%d", base, i)
		}
		dir := filepath.Join(root, name)
		err := os.Mkdir(dir, 0o755)
		if err == nil {
			return dir, nil
		}
		if !errors.Is(err, os.ErrExist) {
			return "", err
		}
	}
	return "", fmt.Errorf("%s: no free run folder name", filepath.Join(root, base))
}

// WriteJSON writes v to path atomically (WriteFile).
func WriteJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return WriteFile(path, append(b, '\n'))
}

// WriteFile writes b to path atomically: to a temporary file renamed into
// place, removed if anything fails, so a reader never sees half a file
// and a failure leaves the old one, if any, as it was.
func WriteFile(path string, b []byte) error {
	tmp := path + ".tmp"
	err := os.WriteFile(tmp, b, 0o644)
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

// CreateFile writes b to path atomically, as WriteFile does, but only if
// path does not exist: the temporary file is linked into place, which
// fails on an existing name instead of replacing it. For files a command
// is asked to write (an -o), which must never take the place of another.
func CreateFile(path string, b []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		os.Remove(tmp)
		return err
	}
	defer os.Remove(tmp)
	if err := os.Link(tmp, path); err != nil {
		if errors.Is(err, os.ErrExist) {
			return fmt.Errorf("%s: exists (a file is never overwritten: choose another name)", path)
		}
		return err
	}
	return nil
}

// MaxRecordSize bounds run.json, cell.json and the other small records a
// reader reads whole: far beyond any the driver writes, far below what
// would strain memory.
const MaxRecordSize = 16 << 20

// ReadFile reads a file whole, refusing one of more than max bytes (or
// that is not a regular file: a FIFO would block the reader) instead of
// reading it into memory.
func ReadFile(path string, max int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file (%s)", path, st.Mode().Type())
	}
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("%s: more than %d bytes", path, max)
	}
	return b, nil
}

// ReadCell reads dir/cell.json.
func ReadCell(dir string) (Cell, error) {
	var c Cell
	b, err := ReadFile(filepath.Join(dir, CellFile), MaxRecordSize)
	if err != nil {
		return c, err
	}
	if err := json.Unmarshal(b, &c); err != nil {
		return c, fmt.Errorf("%s: %w", filepath.Join(dir, CellFile), err)
	}
	return c, nil
}

// ReadRun reads dir/run.json.
func ReadRun(dir string) (Run, error) {
	var r Run
	b, err := ReadFile(filepath.Join(dir, "run.json"), MaxRecordSize)
	if err != nil {
		return r, err
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return r, fmt.Errorf("%s: %w", filepath.Join(dir, "run.json"), err)
	}
	return r, nil
}

// CellFile is the record that makes a folder a cell folder.
const CellFile = "cell.json"

// FindCells returns every cell folder (a folder with cell.json) under
// root, root included, sorted by path. Cells sit at <run>/<cell>/ or, for
// repeated runs, deeper (<run>/<cell>/iter-<k>/): wherever cell.json is.
func FindCells(root string) ([]string, error) {
	var dirs []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "history" || d.Name() == TopicHistoryDir || d.Name() == "logs") && path != root {
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

// HistoryDir returns a cell's history folder.
func HistoryDir(cellDir string) string { return filepath.Join(cellDir, "history") }

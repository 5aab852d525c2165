// Package synth writes synthetic cell folders: a seeded simulation of a
// producer and an eager consumer group with kills, handovers from the last
// commit, and injected anomalies whose counts are known by construction.
// The checkers' property tests and the analyser's benchmark read them.
// Nothing here measures Kafka: the numbers of a report come from real
// runs.
package synth

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/chaosbench/chaosbench/internal/history"
	"github.com/chaosbench/chaosbench/internal/runfolder"
	"github.com/chaosbench/chaosbench/internal/vocab"
)

// Config describes a synthetic cell.
type Config struct {
	Seed       int64
	Partitions int
	Members    int
	Keys       int
	// Records is how many records the producer acknowledges.
	Records int
	// Rate is records per second, over all partitions.
	Rate float64
	// Latency is the steady produce-to-process time.
	Latency time.Duration
	// CommitEvery is how often members commit what they processed.
	CommitEvery time.Duration
	// Kills are members killed during the run (member index 0-based, time
	// from the start). Each kill is followed, after Takeover, by an eager
	// rebalance over the survivors: they commit and give up everything,
	// then get the partitions round-robin; the killed member's partitions
	// restart from their last commit.
	Kills    []Kill
	Takeover time.Duration
	// Cuts are network blips: a member's path blackholed for a duration
	// shorter than Takeover, so the group keeps it (no rebalance of its
	// own). Its partitions stall until the heal, it commits nothing in
	// between, and a rebalance in between still gives it partitions,
	// which wait for the heal too.
	Cuts []Cut
	// Injected anomalies, each counted exactly by the checkers: records
	// acknowledged but missing from the log (loss), pairs of records of
	// one key swapped in a partition (a reorder each), records written
	// twice (a producer duplicate each).
	Lost, Reorders, ProducerDups int
	// Policy and Strategy go to cell.json.
	Policy, Strategy string
}

// Kill is one chaos step.
type Kill struct {
	At     time.Duration
	Member int
}

// Cut is one network step: a disconnect of a member for a duration.
type Cut struct {
	At       time.Duration
	Member   int
	Duration time.Duration
}

// Expected holds the counts the generator knows by construction.
type Expected struct {
	Events       int64
	Acked        int64
	Duplicates   int64
	Lost         int64
	Reorders     int64
	ProducerDups int64
	Disruptions  int
	// NetworkSteps are the cuts made.
	NetworkSteps int
}

const origin = int64(1_800_000_000_000_000_000)

type record struct {
	offset int64
	t      int64 // produced
	key    int32
	seq    int64
}

type part struct {
	id        int32
	next      int64 // next offset the producer writes
	log       []record
	head      int   // index in log of the next record to process
	base      int64 // offset of log[0]
	committed int64
	owner     int   // member index, -1 during a handover
	resumeT   int64 // when processing may resume
	lastT     int64 // when the last record was processed
	hwm       int64 // highest offset ever processed
	inHeap    bool
}

type member struct {
	name  string
	w     *history.Writer
	alive bool
	parts []int32
	// cutUntil: the member's network is cut off until then (0: never).
	cutUntil int64
}

// cut reports whether m's network is cut off at t.
func (m *member) cut(t int64) bool { return t < m.cutUntil }

type gen struct {
	cfg     Config
	rng     *rand.Rand
	parts   []*part
	members []*member
	prod    *history.Writer
	chaos   *history.Writer
	seqs    []int64
	keys    []string
	exp     Expected
	ready   readyHeap
	gen     int32
	ev      history.Event
}

// Write simulates cfg into a new cell folder dir (cell.json and
// history/*.jsonl) and returns the counts it injected.
func Write(dir string, cfg Config) (Expected, error) {
	if cfg.Partitions <= 0 || cfg.Members <= 0 || cfg.Keys <= 0 || cfg.Rate <= 0 {
		return Expected{}, fmt.Errorf("synth: partitions, members, keys and rate must be positive")
	}
	if cfg.Latency <= 0 {
		cfg.Latency = 10 * time.Millisecond
	}
	if cfg.CommitEvery <= 0 {
		cfg.CommitEvery = time.Second
	}
	if cfg.Takeover <= 0 {
		cfg.Takeover = 3 * time.Second
	}
	if cfg.Policy == "" {
		cfg.Policy = vocab.PolicySyncBatch
	}
	if cfg.Strategy == "" {
		cfg.Strategy = vocab.Range
	}
	hdir := runfolder.HistoryDir(dir)
	if err := os.MkdirAll(hdir, 0o755); err != nil {
		return Expected{}, err
	}
	g := &gen{cfg: cfg, rng: rand.New(rand.NewSource(cfg.Seed)), seqs: make([]int64, cfg.Keys)}
	for k := range cfg.Keys {
		g.keys = append(g.keys, "k"+strconv.Itoa(k))
	}
	var err error
	if g.prod, err = history.Create(hdir, "producer-0", 0); err != nil {
		return Expected{}, err
	}
	if g.chaos, err = history.Create(hdir, "chaos", 0); err != nil {
		return Expected{}, err
	}
	for i := range cfg.Members {
		w, err := history.Create(hdir, fmt.Sprintf("m%d", i+1), 0)
		if err != nil {
			return Expected{}, err
		}
		g.members = append(g.members, &member{name: fmt.Sprintf("m%d", i+1), w: w, alive: true})
	}
	for p := range cfg.Partitions {
		g.parts = append(g.parts, &part{id: int32(p), owner: p % cfg.Members, committed: 0, hwm: -1})
	}
	if err := g.run(); err != nil {
		return Expected{}, err
	}
	for _, w := range append([]*history.Writer{g.prod, g.chaos}, g.writers()...) {
		if err := w.Close(); err != nil {
			return Expected{}, err
		}
	}
	cell := runfolder.Cell{
		SchemaVersion: runfolder.SchemaVersion, Cell: cfg.Strategy + "." + cfg.Policy + ".synth",
		Strategy: cfg.Strategy, CommitPolicy: cfg.Policy, Client: "synth", Topic: "synth",
		Partitions: cfg.Partitions, Members: cfg.Members, Seed: cfg.Seed,
		Lifecycle: runfolder.Lifecycle{Complete: true}, DrainComplete: true,
	}
	rec := struct {
		runfolder.Cell
		Producer map[string]string `json:"producer"`
	}{cell, map[string]string{"enable.idempotence": "true"}}
	if err := runfolder.WriteJSON(filepath.Join(dir, "cell.json"), rec); err != nil {
		return Expected{}, err
	}
	return g.exp, nil
}

func (g *gen) writers() []*history.Writer {
	var ws []*history.Writer
	for _, m := range g.members {
		ws = append(ws, m.w)
	}
	return ws
}

// emit writes e and counts it; event does the same for an event built in
// place.
func (g *gen) emit(w *history.Writer, e *history.Event) error {
	g.exp.Events++
	return w.Append(e)
}

func (g *gen) event(w *history.Writer, e history.Event) {
	g.exp.Events++
	_ = w.Append(&e)
}

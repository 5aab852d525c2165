// Package synth writes synthetic cell folders: a seeded simulation of a
// producer and an eager consumer group with kills, handovers from the last
// commit, and injected anomalies whose counts are known by construction.
// The checkers' property tests and the analyser's benchmark read them.
// Nothing here measures Kafka: the numbers of a report come from real
// runs.
package synth

import (
	"container/heap"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"time"

	"github.com/chaosbench/chaosbench/internal/history"
	"github.com/chaosbench/chaosbench/internal/runfolder"
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

// Expected holds the counts the generator knows by construction.
type Expected struct {
	Events       int64
	Acked        int64
	Duplicates   int64
	Lost         int64
	Reorders     int64
	ProducerDups int64
	Disruptions  int
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
}

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
		cfg.Policy = "sync-batch"
	}
	if cfg.Strategy == "" {
		cfg.Strategy = "range"
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
		Complete: true, DrainComplete: true,
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

func (g *gen) emit(w *history.Writer, e *history.Event) error {
	g.exp.Events++
	return w.Append(e)
}

// step is a control action at a time.
type step struct {
	t    int64
	do   func(t int64) error
	name string
}

func (g *gen) run() error {
	cfg := g.cfg
	interval := float64(time.Second) / cfg.Rate
	lat := int64(cfg.Latency)
	// Plan the injections: distinct record numbers, none the first or the
	// last, none next to another (a swap takes two).
	pool := g.rng.Perm(max(cfg.Records-2, 0))
	taken := map[int]bool{}
	pick := func(n int) map[int]bool {
		m := map[int]bool{}
		for len(m) < n && len(pool) > 0 {
			r := pool[0] + 1
			pool = pool[1:]
			if taken[r] || taken[r-1] || taken[r+1] {
				continue
			}
			taken[r] = true
			m[r] = true
		}
		return m
	}
	lost, swaps, dups := pick(cfg.Lost), pick(cfg.Reorders), pick(cfg.ProducerDups)

	var steps []step
	t0 := origin
	g.event(g.chaos, history.Event{Kind: history.Phase, T: t0, Phase: "steady"})
	g.gen = 1
	for i, m := range g.members {
		g.event(m.w, history.Event{Kind: history.Member, T: t0, State: history.StateStarted})
		var ps []int32
		for _, p := range g.parts {
			if p.owner == i {
				ps = append(ps, p.id)
			}
		}
		m.parts = ps
		g.event(m.w, history.Event{Kind: history.Assigned, T: t0 + 1, Partitions: ps, Gen: g.gen})
	}
	for _, k := range cfg.Kills {
		k := k
		tk := t0 + int64(k.At)
		steps = append(steps, step{t: tk, name: "kill", do: func(t int64) error { return g.kill(t, k.Member) }})
		steps = append(steps, step{t: tk + int64(cfg.Takeover), name: "rebalance", do: g.rebalance})
		g.exp.Disruptions++
	}
	end := t0 + int64(float64(cfg.Records)*interval)
	for t := t0 + int64(cfg.CommitEvery); t < end+int64(cfg.CommitEvery); t += int64(cfg.CommitEvery) {
		steps = append(steps, step{t: t, name: "commit", do: g.commitAll})
	}
	sort.SliceStable(steps, func(i, j int) bool { return steps[i].t < steps[j].t })

	produced := 0
	nextProduce := func() int64 { return t0 + 10 + int64(float64(produced)*interval) }
	si := 0
	for produced < cfg.Records || g.ready.Len() > 0 || si < len(steps) {
		tp := int64(1<<63 - 1)
		if produced < cfg.Records {
			tp = nextProduce()
		}
		tr := int64(1<<63 - 1)
		if g.ready.Len() > 0 {
			tr = g.ready.items[0].t
		}
		ts := int64(1<<63 - 1)
		if si < len(steps) {
			ts = steps[si].t
		}
		switch {
		case ts <= tp && ts <= tr:
			if err := steps[si].do(ts); err != nil {
				return err
			}
			si++
		case tp <= tr:
			n := produced
			produced++
			if swaps[n] && produced < cfg.Records {
				// Two records of one key, written out of order.
				if err := g.produceSwapped(tp, lat); err != nil {
					return err
				}
				produced++
				continue
			}
			if err := g.produce(tp, lat, lost[n], dups[n]); err != nil {
				return err
			}
		default:
			if err := g.processNext(); err != nil {
				return err
			}
		}
	}
	g.event(g.chaos, history.Event{Kind: history.Phase, T: g.lastT() + 1, Phase: "drain"})
	g.event(g.chaos, history.Event{Kind: history.Phase, T: g.lastT() + 2, Phase: "done"})
	return nil
}

func (g *gen) lastT() int64 {
	var t int64
	for _, p := range g.parts {
		t = max(t, p.lastT)
	}
	return max(t, origin+int64(float64(g.cfg.Records)*float64(time.Second)/g.cfg.Rate)+int64(g.cfg.CommitEvery)*2)
}

func (g *gen) event(w *history.Writer, e history.Event) {
	g.exp.Events++
	_ = w.Append(&e)
}

func (g *gen) keyFor() (int32, int32) {
	k := int32(g.rng.Intn(g.cfg.Keys))
	// A key's partition: a fixed hash, as a partitioner would.
	h := uint32(k)*2654435761 + 7
	return k, int32(h % uint32(g.cfg.Partitions))
}

func (g *gen) produce(t, lat int64, lose, twice bool) error {
	k, pid := g.keyFor()
	p := g.parts[pid]
	seq := g.seqs[k]
	g.seqs[k]++
	copies := 1
	if twice {
		copies = 2
		g.exp.ProducerDups++
	}
	for range copies {
		off := p.next
		p.next++
		if lose {
			g.exp.Lost++ // acknowledged, never in the log
		} else {
			p.log = append(p.log, record{offset: off, t: t, key: k, seq: seq})
			g.schedule(p, lat)
		}
		g.exp.Acked++
		e := &g.ev
		*e = history.Event{Kind: history.Produced, T: t, Partition: pid, Offset: off, Key: g.keys[k], Seq: seq, IntendedT: t, SentT: t}
		if err := g.emit(g.prod, e); err != nil {
			return err
		}
	}
	return nil
}

// produceSwapped writes seq s+1 then s of one key into one partition.
func (g *gen) produceSwapped(t, lat int64) error {
	k, pid := g.keyFor()
	p := g.parts[pid]
	s := g.seqs[k]
	g.seqs[k] += 2
	g.exp.Reorders++
	for i, seq := range []int64{s + 1, s} {
		off := p.next
		p.next++
		tt := t + int64(i)
		p.log = append(p.log, record{offset: off, t: tt, key: k, seq: seq})
		g.schedule(p, lat)
		g.exp.Acked++
		e := &g.ev
		*e = history.Event{Kind: history.Produced, T: tt, Partition: pid, Offset: off, Key: g.keys[k], Seq: seq, IntendedT: tt, SentT: tt}
		if err := g.emit(g.prod, e); err != nil {
			return err
		}
	}
	return nil
}

// schedule puts p in the ready heap if it has something to process.
func (g *gen) schedule(p *part, lat int64) {
	if p.inHeap || p.owner < 0 || p.head >= len(p.log) {
		return
	}
	r := p.log[p.head]
	t := max(r.t+lat, p.resumeT, p.lastT+1)
	p.inHeap = true
	heap.Push(&g.ready, readyItem{t: t, p: p})
}

func (g *gen) processNext() error {
	it := heap.Pop(&g.ready).(readyItem)
	p := it.p
	p.inHeap = false
	if p.owner < 0 || p.head >= len(p.log) {
		return nil
	}
	r := p.log[p.head]
	p.head++
	p.lastT = it.t
	if r.offset <= p.hwm {
		g.exp.Duplicates++
	}
	p.hwm = max(p.hwm, r.offset)
	m := g.members[p.owner]
	e := &g.ev
	*e = history.Event{Kind: history.Processed, T: it.t, Partition: p.id, Offset: r.offset, Key: g.keys[r.key], Seq: r.seq,
		Producer: "producer-0", IntendedT: r.t, RecordT: r.t}
	if err := g.emit(m.w, e); err != nil {
		return err
	}
	g.schedule(p, int64(g.cfg.Latency))
	return nil
}

// commitAll: every live member commits what it processed; the log below
// the commit is dropped (it can never be redelivered).
func (g *gen) commitAll(t int64) error {
	for _, p := range g.parts {
		if p.owner < 0 || !g.members[p.owner].alive {
			continue
		}
		if err := g.commit(t, p); err != nil {
			return err
		}
	}
	return nil
}

func (g *gen) commit(t int64, p *part) error {
	if p.head == 0 {
		return nil
	}
	c := p.log[p.head-1].offset + 1
	p.committed = c
	p.log = p.log[p.head:]
	p.head = 0
	e := &g.ev
	*e = history.Event{Kind: history.Committed, T: t, Partition: p.id, Offset: c}
	return g.emit(g.members[p.owner].w, e)
}

func (g *gen) kill(t int64, idx int) error {
	m := g.members[idx]
	g.event(g.chaos, history.Event{Kind: history.Chaos, T: t, Action: "kill", Target: m.name, Step: 1})
	m.alive = false
	for _, pid := range m.parts {
		g.parts[pid].owner = -1 // stops until the rebalance
	}
	m.parts = nil
	g.event(g.chaos, history.Event{Kind: history.Member, T: t + 5, State: history.StateExited, Target: m.name, ExitStatus: -1, Signal: "SIGKILL"})
	return nil
}

// rebalance: the eager round after a kill. Survivors commit, give up
// everything, and get the partitions round-robin 100 ms later.
func (g *gen) rebalance(t int64) error {
	var alive []int
	for i, m := range g.members {
		if m.alive {
			alive = append(alive, i)
		}
	}
	if len(alive) == 0 {
		return nil
	}
	for _, i := range alive {
		m := g.members[i]
		for _, pid := range m.parts {
			if err := g.commit(t, g.parts[pid]); err != nil {
				return err
			}
			g.parts[pid].owner = -1
		}
		g.event(m.w, history.Event{Kind: history.Revoked, T: t, Partitions: m.parts, Gen: g.gen})
		m.parts = nil
	}
	g.gen++
	ta := t + int64(100*time.Millisecond)
	for j, p := range g.parts {
		i := alive[j%len(alive)]
		g.members[i].parts = append(g.members[i].parts, p.id)
	}
	for _, i := range alive {
		m := g.members[i]
		g.event(m.w, history.Event{Kind: history.Assigned, T: ta, Partitions: m.parts, Gen: g.gen})
		for _, pid := range m.parts {
			p := g.parts[pid]
			p.owner = i
			// Redeliver from the last commit: the log holds it.
			p.head = 0
			p.resumeT = ta + int64(time.Millisecond)
			if p.inHeap {
				g.ready.remove(p)
			}
			g.schedule(p, int64(g.cfg.Latency))
		}
	}
	return nil
}

type readyItem struct {
	t int64
	p *part
}

type readyHeap struct{ items []readyItem }

func (h readyHeap) Len() int { return len(h.items) }
func (h readyHeap) Less(i, j int) bool {
	if h.items[i].t != h.items[j].t {
		return h.items[i].t < h.items[j].t
	}
	return h.items[i].p.id < h.items[j].p.id
}
func (h readyHeap) Swap(i, j int) { h.items[i], h.items[j] = h.items[j], h.items[i] }
func (h *readyHeap) Push(x any)   { h.items = append(h.items, x.(readyItem)) }
func (h *readyHeap) Pop() any {
	x := h.items[len(h.items)-1]
	h.items = h.items[:len(h.items)-1]
	return x
}

func (h *readyHeap) remove(p *part) {
	for i, it := range h.items {
		if it.p == p {
			heap.Remove(h, i)
			p.inHeap = false
			return
		}
	}
}

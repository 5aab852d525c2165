package synth

import (
	"sort"
	"time"

	"github.com/chaosbench/chaosbench/internal/history"
	"github.com/chaosbench/chaosbench/internal/vocab"
)

// step is a control action at a time.
type step struct {
	t    int64
	do   func(t int64) error
	name string
}

// injections are the numbers of the records (0-based, in order of
// production) that get an anomaly.
type injections struct {
	lost, swaps, dups map[int]bool
}

// run simulates the cell: the group starts, then the producer's sends,
// the members' processing and the control steps (kills, rebalances,
// commits) take turns in time order until everything is processed.
func (g *gen) run() error {
	inj := g.planInjections()
	t0 := origin
	g.start(t0)
	if err := g.loop(t0, g.plan(t0), inj); err != nil {
		return err
	}
	g.event(g.chaos, history.Event{Kind: history.Phase, T: g.lastT() + 1, Phase: "drain"})
	g.event(g.chaos, history.Event{Kind: history.Phase, T: g.lastT() + 2, Phase: "done"})
	return nil
}

// planInjections draws the records that get an anomaly: distinct record
// numbers, none the first or the last, none next to another (a swap
// takes two). It is the first use of the seed's random numbers.
func (g *gen) planInjections() injections {
	cfg := g.cfg
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
	return injections{lost: pick(cfg.Lost), swaps: pick(cfg.Reorders), dups: pick(cfg.ProducerDups)}
}

// start: the steady phase begins at t0 and every member starts and gets
// its first assignment (generation 1).
func (g *gen) start(t0 int64) {
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
}

// plan returns the control steps in time order: each kill and the
// rebalance after it, and the members' commits every CommitEvery until
// one interval past the last send.
func (g *gen) plan(t0 int64) []step {
	cfg := g.cfg
	var steps []step
	for _, k := range cfg.Kills {
		k := k
		tk := t0 + int64(k.At)
		steps = append(steps, step{t: tk, name: vocab.ActionKill, do: func(t int64) error { return g.kill(t, k.Member) }})
		steps = append(steps, step{t: tk + int64(cfg.Takeover), name: "rebalance", do: g.rebalance})
		g.exp.Disruptions++
	}
	for i, c := range cfg.Cuts {
		c, n := c, 1000+i
		tc := t0 + int64(c.At)
		steps = append(steps, step{t: tc, name: vocab.ActionDisconnect, do: func(t int64) error { return g.disconnect(t, c, n) }})
		steps = append(steps, step{t: tc + int64(c.Duration), name: vocab.ActionHeal, do: func(t int64) error { return g.heal(t, c, n) }})
		g.exp.Disruptions++
		g.exp.NetworkSteps++
	}
	interval := float64(time.Second) / cfg.Rate
	end := t0 + int64(float64(cfg.Records)*interval)
	for t := t0 + int64(cfg.CommitEvery); t < end+int64(cfg.CommitEvery); t += int64(cfg.CommitEvery) {
		steps = append(steps, step{t: t, name: "commit", do: g.commitAll})
	}
	sort.SliceStable(steps, func(i, j int) bool { return steps[i].t < steps[j].t })
	return steps
}

// loop runs the simulation: at each turn, whichever comes first of the
// next control step, the next send and the next record ready to be
// processed (a step before a send before processing at equal times).
func (g *gen) loop(t0 int64, steps []step, inj injections) error {
	cfg := g.cfg
	interval := float64(time.Second) / cfg.Rate
	lat := int64(cfg.Latency)
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
			if inj.swaps[n] && produced < cfg.Records {
				// Two records of one key, written out of order.
				if err := g.produceSwapped(tp, lat); err != nil {
					return err
				}
				produced++
				continue
			}
			if err := g.produce(tp, lat, inj.lost[n], inj.dups[n]); err != nil {
				return err
			}
		default:
			if err := g.processNext(); err != nil {
				return err
			}
		}
	}
	return nil
}

// lastT is when the simulation ends: the last processing, and at least
// two commit intervals after the last send.
func (g *gen) lastT() int64 {
	var t int64
	for _, p := range g.parts {
		t = max(t, p.lastT)
	}
	return max(t, origin+int64(float64(g.cfg.Records)*float64(time.Second)/g.cfg.Rate)+int64(g.cfg.CommitEvery)*2)
}

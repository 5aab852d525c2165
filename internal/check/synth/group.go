package synth

import (
	"container/heap"
	"fmt"
	"time"

	"github.com/chaosbench/chaosbench/internal/history"
	"github.com/chaosbench/chaosbench/internal/vocab"
)

// The consumer group: members process their partitions' logs in order,
// commit what they processed, and hand partitions over in an eager
// rebalance after a kill, restarting from the last commit.

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

// processNext processes the next record of the partition whose turn it
// is (a redelivery if it is at or below the highest offset processed).
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
		if p.owner < 0 || !g.members[p.owner].alive || g.members[p.owner].cut(t) {
			continue
		}
		if err := g.commit(t, p); err != nil {
			return err
		}
	}
	return nil
}

// commit commits p up to what its owner processed.
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

// kill: the chaos step that kills member idx at t; its partitions stop
// until the rebalance.
func (g *gen) kill(t int64, idx int) error {
	m := g.members[idx]
	g.event(g.chaos, history.Event{Kind: history.Chaos, T: t, Action: vocab.ActionKill, Target: m.name, Step: 1})
	m.alive = false
	for _, pid := range m.parts {
		g.parts[pid].owner = -1 // stops until the rebalance
	}
	m.parts = nil
	g.event(g.chaos, history.Event{Kind: history.Member, T: t + 5, State: history.StateExited, Target: m.name, ExitStatus: -1, Signal: "SIGKILL"})
	return nil
}

// disconnect: the network step that cuts member c.Member off at t until
// t + c.Duration; its partitions wait for the heal.
func (g *gen) disconnect(t int64, c Cut, step int) error {
	m := g.members[c.Member]
	params := fmt.Sprintf(`{"duration_ms":%d}`, c.Duration.Milliseconds())
	g.event(g.chaos, history.Event{Kind: history.Chaos, T: t, Action: vocab.ActionDisconnect, Target: m.name, Step: step, Params: params})
	m.cutUntil = t + int64(c.Duration)
	for _, pid := range m.parts {
		p := g.parts[pid]
		p.resumeT = max(p.resumeT, m.cutUntil)
		if p.inHeap {
			g.ready.remove(p)
		}
		g.schedule(p, int64(g.cfg.Latency))
	}
	return nil
}

// heal: the cut's end, recorded as the driver does.
func (g *gen) heal(t int64, c Cut, step int) error {
	m := g.members[c.Member]
	params := fmt.Sprintf(`{"duration_ms":%d}`, c.Duration.Milliseconds())
	g.event(g.chaos, history.Event{Kind: history.Chaos, T: t, Action: vocab.ActionHeal, Target: m.name, Step: step, Params: params})
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
			if !m.cut(t) {
				if err := g.commit(t, g.parts[pid]); err != nil {
					return err
				}
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
			p.resumeT = max(ta+int64(time.Millisecond), m.cutUntil)
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

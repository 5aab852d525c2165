package check

import (
	"github.com/chaosbench/chaosbench/internal/history"
	"github.com/chaosbench/chaosbench/internal/summary"
)

// Kept partitions' stall (docs/summary.md, `group_stop`): incremental
// protocols move few partitions, but a client may still hold back the
// ones it keeps. A partition kept its owner through a disruption if its
// owner when the disruption began still owned it, and it had no pause in
// the disruption. The wait of a record of such a partition is from when
// it was sent, or the previous record was processed, or the disruption
// began, whichever came last; it counts when it began before the
// disruption's window ended (plus the rebalance grace). A disruption's
// kept stall is the longest such wait of any partition (the lowest
// partition on a tie).
//
// Whether p pauses later in the disruption is known only later: p's
// longest wait is a candidate until p pauses in it (dropped) or another
// disruption begins for p or the history ends (counted).
type keptStallCheck struct {
	g *model
	// parts holds each partition's state, by partition id.
	parts []keptPartition
	// byDisruption holds each disruption's stall, by disruption ID - 1.
	byDisruption []keptStall
}

type keptPartition struct {
	// lastProcT is when its owner last processed it (0: not since the
	// ownership began).
	lastProcT int64
	// w is its longest wait so far in disruption d, a candidate.
	w int64
	d *disruption
}

type keptStall struct {
	ns int64
	p  int32
}

func (c *keptStallCheck) at(p *partition) *keptPartition {
	if int(p.id) < len(c.parts) {
		return &c.parts[p.id]
	}
	return c.grow(p)
}

// grow makes room for p (partitions were added).
func (c *keptStallCheck) grow(p *partition) *keptPartition {
	for int(p.id) >= len(c.parts) {
		c.parts = append(c.parts, keptPartition{})
	}
	return &c.parts[p.id]
}

// ownerChanging: a wait is measured from the new owner's own records.
func (c *keptStallCheck) ownerChanging(p *partition, to *member, t int64) {
	c.at(p).lastProcT = 0
}

// processed: m processed record e of p. A record of its owner that ends
// p's pause is no wait of a kept partition.
func (c *keptStallCheck) processed(p *partition, m *member, e *history.Event) {
	if p.owner != m {
		return
	}
	g := c.g
	k := c.at(p)
	prev := k.lastProcT
	k.lastProcT = e.T
	if e.IntendedT == 0 || g.endsPause(p, m, e.T) || g.shutdown || len(g.disr) == 0 {
		return
	}
	// The record's wait is a candidate when m owned p when the latest
	// disruption began and p has had no pause in it.
	d := g.disr[len(g.disr)-1]
	if int(p.id) >= len(d.before) || d.before[p.id] != m || (p.last != nil && p.last.d == d) {
		return
	}
	waiting := max(prev, e.IntendedT)
	if waiting > d.last+g.grace {
		return
	}
	if k.d != d {
		c.settle(p)
		k.d = d
	}
	k.w = max(k.w, e.T-max(waiting, d.out.StartT))
}

// pauseBegan: p paused in pp's disruption after all, so it was not kept
// there; a candidate of an earlier disruption counts.
func (c *keptStallCheck) pauseBegan(pp *pause) {
	if k := c.at(pp.p); k.d == pp.d {
		k.d, k.w = nil, 0
		return
	}
	c.settle(pp.p)
}

// settle counts p's candidate wait in its disruption: p kept its owner
// through it.
func (c *keptStallCheck) settle(p *partition) {
	k := c.at(p)
	d, w := k.d, k.w
	k.d, k.w = nil, 0
	if d == nil || w <= 0 {
		return
	}
	for len(c.byDisruption) < d.out.ID {
		c.byDisruption = append(c.byDisruption, keptStall{})
	}
	x := &c.byDisruption[d.out.ID-1]
	if w > x.ns || (w == x.ns && p.id < x.p) {
		x.ns, x.p = w, p.id
	}
}

// result fills the disruptions' kept stall and the largest of the
// headline ones.
func (c *keptStallCheck) result(s *summary.Summary) {
	for _, p := range c.g.parts {
		c.settle(p)
	}
	for i, x := range c.byDisruption {
		if x.ns > 0 {
			s.Disruptions[i].KeptStallMs = float64(x.ns) / 1e6
			s.Disruptions[i].KeptStallPartition = ptr(x.p)
		}
	}
	kept := 0.0
	for _, d := range s.Disruptions {
		if !summary.PreSteady(d.Phase) {
			kept = max(kept, d.KeptStallMs)
		}
	}
	s.GroupStop.KeptStallMaxMs = &kept
}

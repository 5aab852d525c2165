package check

import (
	"math"

	"github.com/chaosbench/chaosbench/internal/history"
	"github.com/chaosbench/chaosbench/internal/summary"
)

// Member load (docs/summary.md, `skew`): the work each member carried, as
// its strategy spread it, beside the traffic's own skew (records per
// partition, which is the same for every strategy of a workload).
//
//   - After each disruption: in every settled interval, from the moment
//     no disruption is open in the steady state (the first, or a window
//     closed) to the next pause beginning or the end of traffic, the
//     records each member processed (redeliveries included: they are
//     work) and the partitions it owned at the interval's start, max over
//     mean over the members of the group at its start (by name, those
//     owning nothing included). Intervals shorter than a second are left
//     out: a rate over less says little.
//   - Over the run: records processed per second of ownership (a member's
//     records over the time it owned at least one partition), max over
//     mean over the members that owned partitions for at least a second,
//     so that a member killed early or added late is compared by its
//     rate, not by its lifetime; and partitions per member at the end of
//     traffic.
type loadCheck struct {
	g      *model
	cur    *summary.LoadInterval
	counts map[string]*int64 // records per member in cur, by name
	// byMember holds counts by member (member.idx), looked up at a
	// member's first record of the interval: a record then costs no
	// lookup by name. nil: not looked up yet; &uncounted: a member
	// that was not in the group when the interval began.
	byMember  []*int64
	uncounted int64
	over      bool // traffic has ended
	out       []summary.LoadInterval
	lastDisr  int // disruptions when cur opened
}

func newLoadCheck(g *model) *loadCheck { return &loadCheck{g: g} }

// processed counts a record of the current interval, opening one when
// the group is settled.
func (c *loadCheck) processed(p *partition, m *member, e *history.Event) {
	g := c.g
	if c.cur == nil {
		if c.over || g.shutdown || summary.PreSteady(g.phase) || g.openDisr > 0 {
			return
		}
		c.open(e.T)
	}
	for m.idx >= len(c.byMember) {
		c.byMember = append(c.byMember, nil)
	}
	n := c.byMember[m.idx]
	if n == nil {
		if n = c.counts[m.proc]; n == nil {
			n = &c.uncounted
		}
		c.byMember[m.idx] = n
	}
	*n++
}

// open begins an interval at t: the group's members and their partitions
// now.
func (c *loadCheck) open(t int64) {
	g := c.g
	c.counts = map[string]*int64{}
	clear(c.byMember)
	parts := map[string]int{}
	for _, m := range g.memberOrder {
		if m.alive && m.joined {
			parts[m.proc] += 0
		}
	}
	for _, p := range g.parts {
		if p.owner != nil {
			parts[p.owner.proc]++
		}
	}
	for n := range parts {
		c.counts[n] = new(int64)
	}
	after := 0
	if len(g.disr) > 0 {
		after = g.disr[len(g.disr)-1].out.ID
	}
	c.cur = &summary.LoadInterval{After: after, StartT: t, Members: len(parts), PartitionsMaxOverMean: maxOverMean(parts)}
}

// close ends the current interval at t.
func (c *loadCheck) close(t int64) {
	iv := c.cur
	c.cur = nil
	if iv == nil || t-iv.StartT < 1e9 {
		return
	}
	iv.EndT = t
	counts := make(map[string]int64, len(c.counts))
	for name, n := range c.counts {
		counts[name] = *n
		iv.Records += *n
	}
	iv.RecordsMaxOverMean = maxOverMean(counts)
	c.out = append(c.out, *iv)
}

func (c *loadCheck) pauseBegan(pp *pause) { c.close(pp.start) }

func (c *loadCheck) trafficEnded() {
	if c.over {
		return
	}
	c.over = true
	c.close(c.g.stats.LastT)
}

// maxOverMean is the largest value over the mean, 0 for none or a zero
// mean.
func maxOverMean[V int | int64 | float64](m map[string]V) float64 {
	if len(m) == 0 {
		return 0
	}
	var sum, top float64
	for _, v := range m {
		sum += float64(v)
		top = max(top, float64(v))
	}
	if sum == 0 {
		return 0
	}
	return round3(top / (sum / float64(len(m))))
}

func round3(v float64) float64 { return math.Round(v*1000) / 1000 }

func (c *loadCheck) result(s *summary.Summary) {
	c.trafficEnded()
	r := &s.Skew
	r.Load = c.out
	rates := map[string]float64{}
	for _, m := range r.Members {
		if m.OwnedSeconds >= 1 {
			rates[m.Member] = m.RecordsPerSec
		}
	}
	r.LoadMaxOverMean = maxOverMean(rates)
	r.PartitionsMaxOverMean = maxOverMean(r.PartitionsPerMember)
}

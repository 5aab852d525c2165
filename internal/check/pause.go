package check

import (
	"fmt"
	"math"
	"sort"

	"github.com/chaosbench/chaosbench/internal/clip"
	"github.com/chaosbench/chaosbench/internal/summary"
)

// Partition pause (docs/summary.md, `pause`): for each partition and
// disruption, from the moment its owner stopped processing it to the
// first processed event for it by its next owner. This file holds the
// whole life of a pause, which is part of the group model:
//
//   - It begins (beginPause) at the first of: the owner's revoked or lost
//     (model.unassign, model.lose); the chaos step that killed, stopped,
//     paused, slowed or restarted the owner (model.stopMember); the
//     owner's exit (model.memberGone); another member's assigned for it,
//     the owner never having given it up (model.assign). A later cause
//     of the same stop changes nothing.
//   - It is taken over (reacquire) when a member is assigned the
//     partition, or the paused owner is let go on (model.resumeMember).
//   - It ends (endPause) at the first processed event by the partition's
//     owner (processedBy), or, when there is nothing to consume, at the
//     takeover: the pause is idle.
//   - A pause a chaos step began on its target's partitions is held: the
//     step is recorded before it acts, so the target may still finish the
//     record in hand after the step's time, before the signal (or the
//     command) reaches it. Such a record is in flight: it neither ends
//     the pause nor makes the partition live, and it can be redelivered
//     like any record the old owner processed. The hold lasts until the
//     pause is taken over (a paused member's resume, a new owner), or, for
//     a slow step, until its stall can have passed.
//   - When the history ends (settlePauses), a pause still open is idle if
//     its partition was taken over with nothing to consume (measured to
//     the takeover), and unfinished otherwise.
//
// A pause belongs to a disruption: the chaos step that caused it, else
// the current one (model.current), else a new unplanned one; while any
// of its pauses is open, the disruption is open. During the run's
// shutdown no pause begins: the partition only stops being live.
type pause struct {
	p     *partition
	d     *disruption
	from  *member // the owner that stopped
	to    *member // the owner whose processing ended the pause
	start int64
	end   int64 // 0 while open
	// reacquired is when a member was (re)assigned the partition, or the
	// paused owner resumed; 0 while nobody has it.
	reacquired int64
	idle       bool
	// target: the partition was the disruption's own (pausesplit.go): its
	// subject's, or created by it.
	target bool
	// held: a chaos step began it on its target's partitions, and until
	// this time (or the takeover) the target's processing of p is in
	// flight, not the end of the pause (above); 0 for other pauses.
	held int64
	// bound: records processed at or above the committed offset the next
	// owner starts from (when the pause began, until it is taken over);
	// extra: records the old owner processed while not owning it. What
	// the handover can redeliver (duplicates.go).
	bound int64
	extra int64
}

// beginPause: p's owner stopped processing it at t. d is the disruption
// that caused it, if known (a chaos step); otherwise the current one, or
// a new unplanned one with the given trigger, about subject (the member
// whose exit or loss it is; nil for a rebalance no member's end began).
func (g *model) beginPause(p *partition, t int64, d *disruption, trig string, subject *member) {
	if p.pause != nil {
		return // already stopped: the first cause counts
	}
	if g.shutdown {
		g.notLive(p, t, nil)
		return
	}
	if d == nil {
		d = g.current(t)
		if d == nil {
			d = g.open(t, "rebalance", trig)
			if subject != nil {
				d.subject = subject.proc
			}
		}
	}
	pp := &pause{p: p, d: d, from: p.owner, start: t}
	pp.target = p.owner != nil && d.subject != "" && p.owner.proc == d.subject
	pp.bound = p.processed.countFrom(max(p.committed, 0))
	p.pause, p.last = pp, pp
	d.pauses = append(d.pauses, pp)
	d.caughtUp = false // a new pause: a new backlog to work off
	if d.open == 0 {
		g.openDisr++
	}
	d.open++
	g.touch(d, t)
	g.notLive(p, t, d)
	for _, h := range g.hooks.pause {
		h.pauseBegan(pp)
	}
}

// reacquire: a member took p over (or its paused owner went on) at t.
func (g *model) reacquire(pp *pause, t int64, m *member) {
	p := pp.p
	if pp.reacquired == 0 {
		// The new owner starts from the commit it can see: the latest one
		// recorded before now (a commit is recorded after the broker
		// acknowledged it). What the old owner processed at or above it
		// can come again.
		pp.bound = p.processed.countFrom(max(p.committed, 0))
	}
	pp.reacquired = t
	if p.nothingToConsume() {
		g.endPause(pp, t, true, m)
	}
}

// endsPause reports whether m processing p at t ends p's pause: m owns p,
// p is paused, the run is not shutting down, and the record is not in
// flight.
func (g *model) endsPause(p *partition, m *member, t int64) bool {
	return p.pause != nil && p.owner == m && !g.shutdown && !p.pause.inFlight(m, t)
}

// inFlight reports whether m processing the paused partition at t is the
// record in hand of the target of the step that began the pause, before
// the step reached it.
func (pp *pause) inFlight(m *member, t int64) bool {
	return pp.held > 0 && pp.from == m && pp.reacquired == 0 && t < pp.held
}

// processedBy: m processed a record of p at t (the checkers have seen
// it). Its owner's first record ends p's pause, or makes p live; a
// record of the member whose stop began p's latest pause is one more it
// can redeliver.
func (g *model) processedBy(p *partition, m *member, t int64) {
	if p.owner == m && p.live && p.pause == nil {
		return // the usual case, kept inline: p flows on
	}
	g.processedByChange(p, m, t)
}

// processedByChange is processedBy when something changes.
func (g *model) processedByChange(p *partition, m *member, t int64) {
	switch {
	case g.endsPause(p, m, t):
		g.endPause(p.pause, t, false, m)
	case p.pause != nil && p.pause.inFlight(m, t):
		p.pause.extra++ // the target's record in hand: it can be redelivered too
	case p.owner == m:
		g.becomeLive(p, t)
	case p.last != nil && p.last.from == m:
		p.last.extra++ // the old owner still processing: it can be redelivered too
	}
}

// endPause ends an open pause at t: p is live again. The last pause of
// its disruption to end closes the disruption's window.
func (g *model) endPause(pp *pause, t int64, idle bool, to *member) {
	pp.end, pp.idle, pp.to = t, idle, to
	p := pp.p
	p.pause = nil
	g.becomeLive(p, t)
	d := pp.d
	d.open--
	if d.open == 0 {
		g.openDisr--
	}
	g.touch(d, t)
	if d.open == 0 {
		d.snapshotAfter(g)
		for _, h := range g.hooks.window {
			h.windowClosed(d)
		}
	}
}

// settlePauses settles the pauses still open when the history ends: a
// partition that a member had taken over but that had nothing to consume
// is idle (measured to the takeover); otherwise it was never live again.
// Nothing is measured after the history, so unlike endPause this tells
// no hook: it only moves the windows' ends and takes the assignment
// after the windows it closes.
func (g *model) settlePauses() {
	for _, p := range g.parts {
		pp := p.pause
		if pp == nil {
			continue
		}
		if pp.reacquired > 0 && p.nothingToConsume() {
			pp.end, pp.idle, pp.to = pp.reacquired, true, p.owner
			pp.d.open--
			if pp.reacquired > pp.d.last {
				pp.d.last = pp.reacquired
			}
			continue
		}
		pp.end = 0 // unfinished
	}
	for _, d := range g.disr {
		if d.open == 0 && !d.closed {
			d.snapshotAfter(g)
		}
	}
}

// counted reports whether a pause counts: its partition received records
// (partitions that never received a record are left out).
func (pp *pause) counted() bool {
	return pp.p.records > 0 || pp.p.processed.len() > 0
}

// ns returns the pause's length; an unfinished one runs to end.
func (pp *pause) ns(end int64) int64 {
	if pp.end == 0 {
		return end - pp.start
	}
	return pp.end - pp.start
}

// pauseColumns fills the pause columns of d's row (o): the partitions it
// paused, its pauses' statistics and partition-seconds (unfinished ones
// running to end), and the uncommitted window of its handovers.
func pauseColumns(o *summary.Disruption, d *disruption, end int64) {
	var vals []int64
	var pop popStats
	var sum int64 // ns without processing, unfinished pauses included
	for _, pp := range d.pauses {
		if !pp.counted() {
			continue
		}
		o.Partitions++
		v := pp.ns(end)
		sum += v
		switch {
		case pp.end == 0:
			o.UnfinishedPartitions++
			continue
		case pp.idle:
			o.IdlePartitions++
		}
		vals = append(vals, v)
		pop.add(pp, v)
	}
	o.Pause = statsOf(vals)
	o.TargetPause, o.OtherPause = pop.stats()
	o.PartitionSeconds = float64(sum) / 1e9
	for _, pp := range d.pauses {
		o.UncommittedBound += pp.bound + pp.extra
	}
}

// pauseCheck writes the pauses' part of the summary: every pause, and
// the statistics over those of the headline disruptions.
type pauseCheck struct {
	g *model
}

func (c *pauseCheck) result(s *summary.Summary) {
	g := c.g
	end := g.endT()
	r := &s.Pause
	r.Check = summary.Check{Verdict: summary.Valid, Expect: "measured: no expectation"}
	var vals []int64
	var pop popStats
	var sum int64
	r.Pauses = []summary.PartitionPause{}
	for _, d := range g.disr {
		for _, pp := range d.pauses {
			if !pp.counted() {
				continue
			}
			v := pp.ns(end)
			x := summary.PartitionPause{Disruption: d.out.ID, Partition: pp.p.id, StartT: pp.start,
				Ms: float64(v) / 1e6, Idle: pp.idle, Unfinished: pp.end == 0, Target: pp.target}
			if pp.from != nil {
				x.From = pp.from.name
			}
			if pp.to != nil {
				x.To = pp.to.name
			}
			r.Pauses = append(r.Pauses, x)
			if !d.headline() {
				continue
			}
			sum += v
			if x.Unfinished {
				r.Unfinished++
				continue
			}
			if x.Idle {
				r.Idle++
			}
			vals = append(vals, v)
			pop.add(pp, v)
		}
	}
	r.Stats = statsOf(vals)
	r.TargetStats, r.OtherStats = pop.stats()
	r.PartitionSeconds = float64(sum) / 1e9
	if r.Unfinished > 0 {
		s.Findings = append(s.Findings, summary.Finding{Checker: "pause", Kind: "unfinished_pause", Verdict: summary.Valid, Count: int64(r.Unfinished),
			Message:  fmt.Sprintf("%s not processed again after the owner stopped, before the history ended", clip.Plural(int64(r.Unfinished), "partition")),
			Examples: unfinishedExamples(r.Pauses, g.opts.MaxExamples)})
	}
}

func unfinishedExamples(ps []summary.PartitionPause, maxExamples int) []summary.Example {
	var ex []summary.Example
	for _, x := range ps {
		if !x.Unfinished || len(ex) >= maxExamples {
			continue
		}
		ex = append(ex, summary.Example{T: x.StartT, Partition: ptr(x.Partition), Proc: x.From, Disruption: x.Disruption,
			Detail: fmt.Sprintf("not live again for %.0f ms until the history ended", x.Ms)})
	}
	return ex
}

// statsOf summarises durations given in ns, in ms, with nearest-rank
// percentiles.
func statsOf(ns []int64) summary.Stats {
	if len(ns) == 0 {
		return summary.Stats{}
	}
	s := append([]int64(nil), ns...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	var sum int64
	for _, v := range s {
		sum += v
	}
	ms := func(v int64) float64 { return float64(v) / 1e6 }
	return summary.Stats{Count: len(s), P50: ms(nearestRank(s, 50)), P95: ms(nearestRank(s, 95)), Max: ms(s[len(s)-1]), Sum: ms(sum)}
}

// nearestRank returns the p-th percentile of sorted values: the value at
// rank ceil(p/100*n), 1-based.
func nearestRank[T any](sorted []T, p float64) T {
	n := len(sorted)
	r := int(math.Ceil(p / 100 * float64(n)))
	r = min(max(r, 1), n)
	return sorted[r-1]
}

package check

import (
	"fmt"
	"math"
	"sort"
)

// Partition pause, group stop, disruption windows (design.md, "Metric
// definitions"). The model (model.go) opens and closes the pauses while
// the history streams; this file turns them into results.

// finishPauses settles the pauses still open when the history ends: a
// partition that a member had taken over but that had nothing to consume
// is idle (measured to the takeover); otherwise it was never live again.
func (g *model) finishPauses(end int64) {
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
// (design.md: partitions that never received a record are left out).
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

// endT is where the analysed history ends: the end of the drain when the
// history has one (what follows is the run shutting down), else the last
// event.
func (g *model) endT() int64 {
	if g.shutdown && g.drainEndT > 0 && g.drainEndT < g.stats.LastT {
		return g.drainEndT
	}
	return g.stats.LastT
}

// headline reports whether a disruption counts in the cell's headline
// figures: every disruption except those that began before the steady
// phase (members joining at start).
func (d *disruption) headline() bool { return !PreSteady(d.out.Phase) }

// PreSteady reports whether a phase comes before the steady state: the
// driver's start (members joining) and warmup. Disruptions that begin
// then are listed but left out of the headline figures, and latency is
// not recorded then.
func PreSteady(phase string) bool { return phase == "start" || phase == "warmup" }

func (g *model) finishDisruptions(s *Summary) {
	end := g.endT()
	s.Disruptions = make([]Disruption, 0, len(g.disr))
	for _, d := range g.disr {
		o := d.out
		var vals []int64
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
		}
		o.Pause = statsOf(vals)
		o.PartitionSeconds = float64(sum) / 1e9
		if o.UnfinishedPartitions > 0 {
			o.Unfinished = true
		} else {
			o.EndT = max(d.last, o.StartT)
			o.WindowMs = ptr(float64(o.EndT-o.StartT) / 1e6)
		}
		for _, pp := range d.pauses {
			o.UncommittedBound += pp.bound + pp.extra
		}
		o.Generations = len(d.gens)
		s.Disruptions = append(s.Disruptions, o)
	}
}

// pauseCheck writes the pauses' part of the summary.
type pauseCheck struct {
	g *model
}

func (c *pauseCheck) result(s *Summary) {
	g := c.g
	end := g.endT()
	r := &s.Pause
	r.Check = Check{Verdict: Valid, Expect: "measured: no expectation"}
	var vals []int64
	var sum int64
	r.Pauses = []PartitionPause{}
	for _, d := range g.disr {
		for _, pp := range d.pauses {
			if !pp.counted() {
				continue
			}
			v := pp.ns(end)
			x := PartitionPause{Disruption: d.out.ID, Partition: pp.p.id, StartT: pp.start,
				Ms: float64(v) / 1e6, Idle: pp.idle, Unfinished: pp.end == 0}
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
		}
	}
	r.Stats = statsOf(vals)
	r.PartitionSeconds = float64(sum) / 1e9
	if r.Unfinished > 0 {
		s.Findings = append(s.Findings, Finding{Checker: "pause", Kind: "unfinished_pause", Verdict: Valid, Count: int64(r.Unfinished),
			Message:  fmt.Sprintf("%s not processed again after the owner stopped, before the history ended", plural(int64(r.Unfinished), "partition")),
			Examples: unfinishedExamples(r.Pauses, g.opts.MaxExamples)})
	}
}

func unfinishedExamples(ps []PartitionPause, maxExamples int) []Example {
	var ex []Example
	for _, x := range ps {
		if !x.Unfinished || len(ex) >= maxExamples {
			continue
		}
		ex = append(ex, Example{T: x.StartT, Partition: ptr(x.Partition), Proc: x.From, Disruption: x.Disruption,
			Detail: fmt.Sprintf("not live again for %.0f ms until the history ended", x.Ms)})
	}
	return ex
}

// statsOf summarises durations given in ns, in ms, with nearest-rank
// percentiles.
func statsOf(ns []int64) Stats {
	if len(ns) == 0 {
		return Stats{}
	}
	s := append([]int64(nil), ns...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	var sum int64
	for _, v := range s {
		sum += v
	}
	ms := func(v int64) float64 { return float64(v) / 1e6 }
	return Stats{Count: len(s), P50: ms(nearestRank(s, 50)), P95: ms(nearestRank(s, 95)), Max: ms(s[len(s)-1]), Sum: ms(sum)}
}

// nearestRank returns the p-th percentile of sorted values: the value at
// rank ceil(p/100*n), 1-based.
func nearestRank[T any](sorted []T, p float64) T {
	n := len(sorted)
	r := int(math.Ceil(p / 100 * float64(n)))
	r = min(max(r, 1), n)
	return sorted[r-1]
}

func ptr[T any](v T) *T { return &v }

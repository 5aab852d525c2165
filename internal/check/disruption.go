package check

import "github.com/chaosbench/chaosbench/internal/summary"

// Disruptions (docs/summary.md, "Disruptions: how they are derived"): a
// chaos step, or a membership change no chaos step caused, and its
// window, from its start to its last activity (a pause began or ended,
// an assignment event, the resume of its step). A disruption is open
// while a pause of it is; an ownership change belongs to the current
// disruption (current), and the partitions it pauses are its pauses
// (pause.go). Part of the group model: the model opens them and moves
// their windows; the checkers read them.

// disruption is a chaos step or an unplanned membership change.
type disruption struct {
	out       summary.Disruption
	pauses    []*pause
	open      int   // pauses still open
	last      int64 // last activity: a pause ended or an assignment event
	gens      map[int32]struct{}
	before    []*member // owners at the start, by partition
	after     []*member // owners when the window last closed
	closed    bool      // after is valid
	assignees map[string]struct{}
	// lagBefore is the group's highest lag at any moment of the baseline
	// before it; caughtUp is set once the lag is back to it after the
	// window.
	lagBefore int64
	caughtUp  bool
	caughtUpT int64
	// backlog: it began while the previous disruption's backlog was not
	// worked off; it inherits that catch-up even if it pauses nothing.
	backlog bool
	// actEnd is when a chaos step's act on its subject ended: the step
	// itself, a pause's resume, a slow step's stall (host.go).
	actEnd int64
	// subject is the member the disruption is about (by name): a chaos
	// step's target, or the member whose exit or loss opened it; its
	// partitions' pauses are the disruption's own (pausesplit.go).
	subject string
	// added counts the partitions an add_partitions step created;
	// takenOn those the group has taken on, the last at takeOnT
	// (growth.go).
	added, takenOn int
	takeOnT        int64
}

// current returns the disruption an ownership change at t belongs to:
// the most recent one that is open (a partition it affected is not live
// again), still pending (it is the latest and has affected nothing yet),
// or ended less than the rebalance grace ago; nil if none.
func (g *model) current(t int64) *disruption {
	for i := len(g.disr) - 1; i >= 0; i-- {
		d := g.disr[i]
		if d.open > 0 || t-d.last <= g.grace {
			return d
		}
		if i == len(g.disr)-1 && len(d.pauses) == 0 {
			return d
		}
	}
	return nil
}

// open starts a disruption at t.
func (g *model) open(t int64, cause, trig string) *disruption {
	d := &disruption{gens: map[int32]struct{}{}, assignees: map[string]struct{}{}}
	d.out = summary.Disruption{ID: len(g.disr) + 1, Cause: cause, Trigger: trig, Phase: g.phase, StartT: t}
	d.last = t
	// The lag level it must come back to is the steady state's: measured
	// after the previous disruption caught up, or inherited from it while
	// it has not.
	from := t - int64(g.opts.BaselineWindow)
	var prev *disruption
	if n := len(g.disr); n > 0 {
		prev = g.disr[n-1]
		switch {
		case len(prev.pauses) == 0:
			from = max(from, prev.last)
		case prev.open == 0 && prev.caughtUp:
			from = max(from, prev.caughtUpT)
		default:
			from = t // still disrupted: nothing to measure
			d.backlog = true
		}
	}
	if lag, ok := g.tl.peakBefore(from, t); ok {
		d.lagBefore = lag
	} else if prev != nil {
		d.lagBefore = prev.lagBefore
	} else {
		d.lagBefore = g.lagTotal
	}
	d.before = make([]*member, len(g.parts))
	for i, p := range g.parts {
		d.before[i] = p.owner
	}
	g.disr = append(g.disr, d)
	for _, h := range g.hooks.disruption {
		h.disruptionOpened(d)
	}
	return d
}

// touch records activity of d at t: its window reaches at least to t.
func (g *model) touch(d *disruption, t int64) {
	if t > d.last {
		d.last = t
	}
	for _, h := range g.hooks.disruption {
		h.disruptionActive(d)
	}
}

// rebalanceEvent attributes an assignment event to the current
// disruption, if any.
func (g *model) rebalanceEvent(t int64, gen int32, m *member, assigned bool) {
	if g.shutdown {
		return
	}
	d := g.current(t)
	if d == nil {
		return
	}
	g.touch(d, t)
	if gen > 0 {
		d.gens[gen] = struct{}{}
	}
	if assigned {
		d.assignees[m.proc] = struct{}{}
	}
	if d.open == 0 {
		d.snapshotAfter(g) // settled, as far as is known now
	}
}

func (d *disruption) snapshotAfter(g *model) {
	d.after = make([]*member, len(g.parts))
	for i, p := range g.parts {
		d.after[i] = p.owner
	}
	d.closed = true
}

// catchingUp reports whether the group is still working off the backlog
// of the latest disruption: its window has closed, but the lag is above
// its level before the disruption. The first time it finds the lag back
// at that level, the disruption has caught up (caughtUpT, where the next
// disruption's baseline may begin): it is settled when asked, and the
// latency check asks at every record it measures while no disruption is
// open.
func (g *model) catchingUp() bool {
	if len(g.disr) == 0 {
		return false
	}
	d := g.disr[len(g.disr)-1]
	if d.caughtUp || (len(d.pauses) == 0 && !d.backlog) {
		return false // caught up, or it stopped nothing and inherited no backlog
	}
	if g.lagTotal <= d.lagBefore {
		d.caughtUp, d.caughtUpT = true, g.stats.LastT
		return false
	}
	return true
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
func (d *disruption) headline() bool { return !summary.PreSteady(d.out.Phase) }

// disruptionRows writes the disruptions' rows: what the model knows of
// each (its cause, window, generations) and its pause columns. The
// checkers fill in their columns (group stop, kept stall, recovery,
// duplicates, movement).
func (g *model) disruptionRows(s *summary.Summary) {
	end := g.endT()
	s.Disruptions = make([]summary.Disruption, 0, len(g.disr))
	for _, d := range g.disr {
		o := d.out
		pauseColumns(&o, d, end)
		growthColumns(&o, d)
		if o.UnfinishedPartitions > 0 {
			o.Unfinished = true
		} else {
			o.EndT = max(d.last, o.StartT)
			o.WindowMs = ptr(float64(o.EndT-o.StartT) / 1e6)
		}
		o.Generations = len(d.gens)
		s.Disruptions = append(s.Disruptions, o)
	}
}

package check

import (
	"fmt"
	"sort"
)

// model is the group model: who owns each partition, which partitions
// are live, the disruptions and their pauses, the offsets acknowledged
// and processed, and the group's lag over time. The pass hands it every
// event; it changes only itself, and tells the checkers through their
// hooks (checker.go). Every checker reads it; none changes it. Its state
// is bounded by partitions, members and disruptions.
type model struct {
	opts  Options
	grace int64
	cell  CellInfo
	stats HistoryStats

	phase     string
	shutdown  bool
	drainEndT int64 // from cell.json; the done phase overrides

	parts       []*partition
	members     map[memberKey]*member
	recent      [16]*member // a cache of members (model.member)
	memberOrder []*member
	disr        []*disruption
	// steps maps a chaos step to its disruption (resume finds its pause).
	steps map[int]*disruption

	live     int
	openDisr int   // disruptions with a partition not live again
	lagTotal int64 // the sum of the partitions' lag

	// lastJoin is the latest member that started and has not been
	// assigned anything yet: the likely cause of an unplanned rebalance.
	lastJoin *member

	tl timeline

	hooks hooks
}

// member is one incarnation of a consumer-group member.
type member struct {
	proc  string
	inc   int
	name  string // "m1.0"
	idx   int    // its place in model.memberOrder
	alive bool
	// joined: it has been given an assignment (possibly empty).
	joined bool
	// assignT[p] is when this member was last assigned p (-1: never).
	assignT []int64
	// owned counts the partitions it owns; ownedSince is when it went
	// from none to some; ownedNs is how long it owned some before that.
	owned      int
	ownedSince int64
	ownedNs    int64
}

func (m *member) assignedAt(p int32) int64 {
	if int(p) < len(m.assignT) {
		return m.assignT[p]
	}
	return -1
}

func (m *member) setAssigned(p int32, t int64) {
	m.joined = true
	for int(p) >= len(m.assignT) {
		m.assignT = append(m.assignT, -1)
	}
	m.assignT[p] = t
}

// partition is one partition of the cell's topic.
type partition struct {
	id int32
	// holders are the members that hold p in their own view (assigned and
	// not yet revoked or lost); owner is the one with the newest
	// assignment, the partition's rightful owner.
	holders []*member
	owner   *member
	// everOwned: some member was assigned p (or processed it, for
	// histories without assignment events).
	everOwned bool
	// lastOwner is the name of the last member that owned p.
	lastOwner string
	// live: processed by its owner since its ownership began (design.md,
	// "Live partition").
	live bool
	// pause is the open pause (ownership ended, not live again); last is
	// the most recent pause, open or not, to which redeliveries belong.
	pause *pause
	last  *pause

	processed intervals // offsets processed at least once
	acked     intervals // offsets of acknowledged produced records
	committed int64     // latest successful commit, -1 none
	// records counts acknowledged produced records (skew).
	records int64
}

// pause is one partition's pause in one disruption.
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
	// bound: records processed at or above the committed offset the next
	// owner starts from (when the pause began, until it is taken over);
	// extra: records the old owner processed while not owning it.
	bound int64
	extra int64
}

// disruption is a chaos step or an unplanned membership change.
type disruption struct {
	out       Disruption
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
}

func (g *model) part(id int32) *partition {
	if id < 0 {
		return nil
	}
	for int(id) >= len(g.parts) {
		g.parts = append(g.parts, &partition{id: int32(len(g.parts)), committed: -1})
	}
	return g.parts[id]
}

type memberKey struct {
	proc string
	inc  int
}

func (g *model) member(proc string, inc int) *member {
	// Nearly every event names a member seen before: a small cache, by
	// the name's last byte and the incarnation, saves the map lookup.
	var cached **member
	if proc != "" {
		cached = &g.recent[(int(proc[len(proc)-1])+inc*5)&(len(g.recent)-1)]
		if m := *cached; m != nil && m.inc == inc && m.proc == proc {
			return m
		}
	}
	k := memberKey{proc, inc}
	if m := g.members[k]; m != nil {
		if cached != nil {
			*cached = m
		}
		return m
	}
	m := &member{proc: proc, inc: inc, name: fmt.Sprintf("%s.%d", proc, inc), idx: len(g.memberOrder), alive: true}
	g.members[k] = m
	g.memberOrder = append(g.memberOrder, m)
	return m
}

// lookupMember returns a member that has appeared in the history, or nil.
func (g *model) lookupMember(proc string, inc int) *member {
	return g.members[memberKey{proc, inc}]
}

// setOwner makes m the owner of p (nil: nobody).
func (g *model) setOwner(p *partition, m *member, t int64) {
	if p.owner == m {
		return
	}
	if g.shutdown && g.drainEndT > 0 && t > g.drainEndT {
		t = g.drainEndT // ownership is counted up to the end of the drain
	}
	for _, h := range g.hooks.ownership {
		h.ownerChanging(p, m, t)
	}
	if o := p.owner; o != nil {
		o.owned--
		if o.owned == 0 {
			o.ownedNs += t - o.ownedSince
		}
	}
	p.owner = m
	if m != nil {
		p.everOwned = true
		p.lastOwner = m.proc
		if m.owned == 0 {
			m.ownedSince = t
		}
		m.owned++
	}
}

// zombie reports whether m processing p now is a zombie's: another member
// owns p under a newer assignment than m's. The overlap and ordering
// checks ask.
func (p *partition) zombie(m *member) bool {
	o := p.owner
	return o != nil && o != m && o.assignedAt(p.id) > m.assignedAt(p.id)
}

func (p *partition) removeHolder(m *member) {
	for i, h := range p.holders {
		if h == m {
			p.holders = append(p.holders[:i], p.holders[i+1:]...)
			return
		}
	}
}

// lag is the partition's lag: its highest acknowledged offset minus its
// highest processed offset, at least 0.
func (p *partition) lag() int64 { return max(p.acked.max()-p.processed.max(), 0) }

// nothingToConsume reports whether p has no record at or above the
// offset its next owner starts from (the committed offset).
func (p *partition) nothingToConsume() bool {
	c := max(p.committed, 0)
	return max(p.acked.max(), p.processed.max()) < c
}

// assign records that m was assigned p at t.
func (g *model) assign(p *partition, m *member, t int64, trig string) {
	m.setAssigned(p.id, t)
	p.holders = append(p.holders, m)
	if old := p.owner; old != nil && old != m && p.pause == nil {
		// The old owner never gave p up (killed, frozen, fenced): its
		// ownership ends now.
		g.endOwnership(p, t, nil, "reassigned from "+old.name)
	}
	g.setOwner(p, m, t)
	if pp := p.pause; pp != nil && !g.shutdown {
		g.reacquire(pp, t, m)
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
		g.closePause(pp, t, true, m)
	}
}

// unassign records that m gave up p (revoked or lost) at t.
func (g *model) unassign(p *partition, m *member, t int64, trig string) {
	p.removeHolder(m)
	if p.owner != m {
		return // a stale holder (zombie) learning it lost p: no change
	}
	g.endOwnership(p, t, nil, trig)
	g.setOwner(p, nil, t)
}

// lose records that m learned it lost p at t (a session or poll timeout).
// A member losing its membership is a disruption of its own, unless a
// window is still open or the latest chaos step targeted that member.
func (g *model) lose(p *partition, m *member, t int64) {
	p.removeHolder(m)
	if p.owner != m {
		return
	}
	var d *disruption
	if c := g.current(t); c != nil && (c.open > 0 || c.out.Target == m.proc) {
		d = c
	} else if !g.shutdown {
		d = g.open(t, "rebalance", "lost by "+m.name)
	}
	g.endOwnership(p, t, d, "")
	g.setOwner(p, nil, t)
}

// endOwnership: p's owner stopped processing it at t. d is the
// disruption that caused it, if known (a chaos step); otherwise the
// current one, or a new unplanned one with the given trigger.
func (g *model) endOwnership(p *partition, t int64, d *disruption, trig string) {
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
		}
	}
	pp := &pause{p: p, d: d, from: p.owner, start: t}
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

// endsPause reports whether m processing p now ends p's pause: m owns p,
// p is paused, and the run is not shutting down.
func (g *model) endsPause(p *partition, m *member) bool {
	return p.pause != nil && p.owner == m && !g.shutdown
}

// becomeLive: p's owner processed it (or, idle, got it) at t.
func (g *model) becomeLive(p *partition, t int64) {
	if p.live {
		return
	}
	p.live = true
	g.live++
	if g.live == 1 {
		for _, h := range g.hooks.live {
			h.groupResumed(t)
		}
	}
}

// notLive: p stopped being live at t, paused in d (nil: the run is
// shutting down).
func (g *model) notLive(p *partition, t int64, d *disruption) {
	if !p.live {
		return
	}
	p.live = false
	g.live--
	if g.live == 0 {
		for _, h := range g.hooks.live {
			h.groupStopped(t, d)
		}
	}
}

// closePause ends an open pause at t.
func (g *model) closePause(pp *pause, t int64, idle bool, to *member) {
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
	d.out = Disruption{ID: len(g.disr) + 1, Cause: cause, Trigger: trig, Phase: g.phase, StartT: t}
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

// stopMember: a chaos step stopped m processing at t (kill, stop, pause,
// slow, restart): every partition it owns is paused, caused by d.
func (g *model) stopMember(m *member, t int64, d *disruption) {
	for _, p := range g.parts {
		if p.owner == m {
			g.endOwnership(p, t, d, "")
		}
	}
}

// memberGone: m's process is gone (killed or exited): it holds nothing.
func (g *model) memberGone(m *member, t int64, d *disruption, trig string) {
	m.alive = false
	for _, p := range g.parts {
		if p.owner == m {
			g.endOwnership(p, t, d, trig)
			g.setOwner(p, nil, t)
		}
		p.removeHolder(m)
	}
}

// resumeMember: a paused member was let go on at t: the partitions it
// still owns are reacquired.
func (g *model) resumeMember(m *member, t int64) {
	for _, p := range g.parts {
		if pp := p.pause; pp != nil && p.owner == m && !g.shutdown {
			g.reacquire(pp, t, m)
		}
	}
}

// sortedMembers returns the members in order of first appearance.
func sortedNames(set map[string]struct{}) []string {
	out := make([]string, 0, len(set))
	for n := range set {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

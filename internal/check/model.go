package check

import (
	"fmt"

	"github.com/chaosbench/chaosbench/internal/summary"
)

// model is the group model: who owns each partition, which partitions
// are live, the disruptions and their pauses, the offsets acknowledged
// and processed, and the group's lag over time. The pass hands it every
// event (events.go); it changes only itself, and tells the checkers
// through their hooks (checker.go). Every checker reads it and none
// changes it, with one exception: a disruption's catch-up is settled when
// the latency check asks (model.catchingUp). Its state is bounded by
// partitions, members and disruptions.
type model struct {
	opts  Options
	grace int64
	cell  summary.CellInfo
	stats summary.HistoryStats

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
	// joiningSeen: the history's members write joining (their join
	// request follows), so their started no longer marks a join.
	joiningSeen bool

	tl timeline

	hooks hooks
}

// member is one incarnation of a consumer-group member.
type member struct {
	proc  string
	inc   int
	name  string // "m1.0"
	idx   int    // its position in model.memberOrder: a checker's index of its own state per member
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
	// processed counts the records it processed, redeliveries included.
	processed int64
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
	// added is the add_partitions step that created p, until the group
	// first takes p on (growth.go).
	added *disruption
	// live: processed by its owner since its ownership began (docs/design.md,
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
		if p.added != nil {
			g.takenOn(p, t)
		}
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
		g.beginPause(p, t, nil, "reassigned from "+old.name, old)
	}
	g.setOwner(p, m, t)
	if pp := p.pause; pp != nil && !g.shutdown {
		g.reacquire(pp, t, m)
	}
}

// unassign records that m gave up p (revoked or lost) at t.
func (g *model) unassign(p *partition, m *member, t int64, trig string) {
	p.removeHolder(m)
	if p.owner != m {
		return // a stale holder (zombie) learning it lost p: no change
	}
	g.beginPause(p, t, nil, trig, nil)
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
		d.subject = m.proc
	}
	g.beginPause(p, t, d, "", m)
	g.setOwner(p, nil, t)
}

// stopMember: a chaos step stopped m processing at t (kill, stop, pause,
// slow, restart): every partition it owns is paused, caused by d, and
// held until hold (pause.go): m's processing before then is in flight.
func (g *model) stopMember(m *member, t int64, d *disruption, hold int64) {
	for _, p := range g.parts {
		if p.owner == m {
			g.beginPause(p, t, d, "", m)
			if pp := p.pause; pp != nil && pp.d == d && pp.start == t {
				pp.held = hold
			}
		}
	}
}

// memberGone: m's process is gone (killed or exited): it holds nothing.
func (g *model) memberGone(m *member, t int64, d *disruption, trig string) {
	m.alive = false
	for _, p := range g.parts {
		if p.owner == m {
			g.beginPause(p, t, d, trig, m)
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

package check

import (
	"github.com/chaosbench/chaosbench/internal/history"
	"github.com/chaosbench/chaosbench/internal/summary"
	"github.com/chaosbench/chaosbench/internal/vocab"
)

// Network (docs/summary.md, `network`): each network step that stops a
// member (disconnect, reset) is followed on its target incarnation, from
// the step's event on:
//   - evicted: another member is assigned a partition the target owned
//     at the step (EvictedT, the first such assignment);
//   - learned: the target is told it lost a partition it owned at the
//     step (revoked or lost), or is given an assignment after its
//     eviction, whichever comes first (LearnedT); measured from the heal
//     (LearnedAfterHealMs, 0 when it learned before);
//   - zombie records: records the target processes from the step on
//     while another member holds their partition under a newer
//     assignment (partition.zombie, as the overlap check counts them),
//     each once, and of those the zombie duplicates: records processed
//     more than once, by anyone, before or after;
//   - failed commits: the target's commits that fail from the step until
//     it learned (to the end when it never did); zombie commits: its
//     successful ones of a partition another member then held.
//
// A target is followed until it learned; one not evicted when another
// disruption begins (another step, an unplanned rebalance) is followed
// no further: what happens to it then is that disruption's. A member cut
// off shorter than the session timeout is not evicted, and has none of
// these but the commits that failed while it was cut off; the disruption of the step (cause chaos, its action
// and target) holds its partitions' pauses as any step's does.
type networkCheck struct {
	g     *model
	steps []*netStep
	// byMember: the steps still followed, by target.
	byMember map[*member][]*netStep
}

type netStep struct {
	out    summary.NetworkStep
	m      *member
	owned  map[int32]bool // the target's partitions at the step
	zombie map[[2]int64]bool
	// dup: zombie records counted as duplicates already.
	dup map[[2]int64]bool
	// done: no longer followed: another disruption began before the
	// target was evicted (what comes after is that one's).
	done bool
}

func newNetworkCheck(g *model) *networkCheck {
	return &networkCheck{g: g, byMember: map[*member][]*netStep{}}
}

func (c *networkCheck) chaosEvent(e *history.Event) {
	if e.Action == vocab.ActionHeal {
		for _, st := range c.steps {
			if st.out.Step == e.Step && e.Step > 0 && st.out.HealT == 0 {
				st.out.HealT = e.T
				st.learnedAfterHeal()
			}
		}
		return
	}
	act, _ := vocab.LookupAction(e.Action)
	if !act.Network || !act.Stops || e.Err != "" {
		return
	}
	m := c.g.lookupMember(e.Target, e.TargetInc)
	if m == nil {
		return
	}
	st := &netStep{m: m, owned: map[int32]bool{}, zombie: map[[2]int64]bool{}, dup: map[[2]int64]bool{},
		out: summary.NetworkStep{Step: e.Step, Action: e.Action, Target: m.name, StartT: e.T}}
	for _, p := range c.g.parts {
		if p.owner == m {
			st.owned[p.id] = true
		}
	}
	c.steps = append(c.steps, st)
	c.byMember[m] = append(c.byMember[m], st)
}

// disruptionOpened: another step or membership change began; a target
// not evicted by then is not followed further.
func (c *networkCheck) disruptionOpened(d *disruption) {
	for _, st := range c.steps {
		if st.out.EvictedT == 0 && d.out.Step != st.out.Step {
			st.done = true
		}
	}
}

func (c *networkCheck) disruptionActive(*disruption) {}

func (st *netStep) learnedAfterHeal() {
	if st.out.HealT > 0 && st.out.LearnedT > 0 {
		ms := max(float64(st.out.LearnedT-st.out.HealT)/1e6, 0)
		st.out.LearnedAfterHealMs = &ms
	}
}

func (c *networkCheck) ownerChanging(p *partition, to *member, t int64) {
	if to == nil {
		return
	}
	for _, st := range c.steps {
		if !st.done && st.out.EvictedT == 0 && to != st.m && st.owned[p.id] && t >= st.out.StartT {
			st.out.EvictedT = t
		}
	}
}

// assignmentEvent: the target learns it lost its partitions when it is
// told so (revoked or lost, of a partition it owned at the step), or
// when it is given an assignment after its eviction.
func (c *networkCheck) assignmentEvent(m *member, e *history.Event) {
	for _, st := range c.byMember[m] {
		if st.done || st.out.LearnedT != 0 || e.T < st.out.StartT {
			continue
		}
		told := false
		if e.Kind == history.Revoked || e.Kind == history.Lost {
			for _, id := range e.Partitions {
				told = told || st.owned[id]
			}
		}
		if told || e.Kind == history.Assigned && st.out.EvictedT > 0 {
			st.out.LearnedT = e.T
			st.learnedAfterHeal()
		}
	}
}

// firstProcessed: a record's first processing; a zombie's is counted,
// and becomes a duplicate if anyone processes it again.
func (c *networkCheck) firstProcessed(p *partition, m *member, e *history.Event) {
	for _, st := range c.byMember[m] {
		st.zombieRecord(p, m, e, false)
	}
}

// redelivered: a record processed again. A zombie's is counted and is a
// duplicate at once; a record a zombie processed first, processed again
// by anyone, becomes one.
func (c *networkCheck) redelivered(p *partition, m *member, e *history.Event) {
	k := [2]int64{int64(p.id), e.Offset}
	for _, st := range c.steps {
		if st.m == m && st.zombieRecord(p, m, e, true) {
			continue
		}
		if st.zombie[k] && !st.dup[k] {
			st.dup[k] = true
			st.out.ZombieDuplicates++
		}
	}
}

// zombieRecord counts m's processing of e as the step's zombie record
// when it is one, a duplicate when again; it reports whether it was.
func (st *netStep) zombieRecord(p *partition, m *member, e *history.Event, again bool) bool {
	k := [2]int64{int64(p.id), e.Offset}
	if st.done || e.T < st.out.StartT || !p.zombie(m) || st.zombie[k] {
		return false
	}
	st.zombie[k] = true
	st.out.ZombieRecords++
	if again {
		st.dup[k] = true
		st.out.ZombieDuplicates++
	}
	return true
}

func (c *networkCheck) committing(p *partition, m *member, e *history.Event) {
	for _, st := range c.byMember[m] {
		if !st.done && e.T >= st.out.StartT && (st.out.LearnedT == 0 || e.T <= st.out.LearnedT) && p.zombie(m) {
			st.out.ZombieCommits++
		}
	}
}

func (c *networkCheck) commitFailed(m *member, e *history.Event) {
	for _, st := range c.byMember[m] {
		if !st.done && e.T >= st.out.StartT && (st.out.LearnedT == 0 || e.T <= st.out.LearnedT) {
			st.out.FailedCommits++
		}
	}
}

func (c *networkCheck) result(s *summary.Summary) {
	r := &s.Network
	r.Steps = []summary.NetworkStep{}
	for _, st := range c.steps {
		r.Steps = append(r.Steps, st.out)
		r.ZombieRecords += st.out.ZombieRecords
		r.ZombieDuplicates += st.out.ZombieDuplicates
		r.FailedCommits += st.out.FailedCommits
		if v := st.out.LearnedAfterHealMs; v != nil && (r.LearnedMaxMs == nil || *v > *r.LearnedMaxMs) {
			x := *v
			r.LearnedMaxMs = &x
		}
	}
}

package check

import (
	"encoding/json"
	"math"
	"strings"

	"github.com/chaosbench/chaosbench/internal/history"
	"github.com/chaosbench/chaosbench/internal/summary"
	"github.com/chaosbench/chaosbench/internal/vocab"
)

// How the group model takes in each kind of event, in time order
// (analyzer.observe dispatches). The model's state and its changes of
// ownership are in model.go, the disruptions in disruption.go, the
// pauses in pause.go.

func (g *model) produced(e *history.Event) {
	for _, h := range g.hooks.produced {
		h.produced(e)
	}
	switch {
	case e.Ambiguous:
		g.stats.Ambig++
		return
	case e.Err != "":
		g.stats.Errors++
		return
	case e.Offset < 0:
		// Acknowledged, at an offset the client did not give
		// (docs/history.md): a record, but none the offsets below can
		// place.
		g.stats.AckedNoOffset++
		return
	}
	p := g.part(e.Partition)
	if p == nil {
		g.stats.Errors++
		return
	}
	before := p.lag()
	if p.acked.add(e.Offset) {
		g.stats.Acked++
		p.records++
		g.lagTotal += p.lag() - before
		g.tl.acked(e.T, g.lagTotal)
	}
}

// processed takes in the offset and the lag first, then the ownership a
// history without assignment events implies; then the checkers see the
// record (the processed hooks); then it acts on p's pause (processedBy),
// so that a record that ends a pause is seen inside it.
func (g *model) processed(e *history.Event) {
	p := g.part(e.Partition)
	if p == nil {
		return
	}
	m := g.member(e.Proc, e.Inc)
	before := p.lag()
	first := p.processed.add(e.Offset)
	g.lagTotal += p.lag() - before
	g.tl.processed(e.T, g.lagTotal)

	if p.owner == nil && !p.everOwned {
		// A history without assignment events: the first member to
		// process a partition owns it.
		m.setAssigned(p.id, e.T)
		p.holders = append(p.holders, m)
		g.setOwner(p, m, e.T)
	}
	m.processed++
	if first {
		for _, h := range g.hooks.first {
			h.firstProcessed(p, m, e)
		}
	} else {
		for _, h := range g.hooks.redelivery {
			h.redelivered(p, m, e)
		}
	}
	for _, h := range g.hooks.processed {
		h.processed(p, m, e)
	}
	g.processedBy(p, m, e.T)
}

func (g *model) assignment(e *history.Event) {
	m := g.member(e.Proc, e.Inc)
	if e.Kind == history.Assigned {
		m.joined = true
	}
	for _, id := range e.Partitions {
		p := g.part(id)
		if p == nil {
			continue
		}
		switch e.Kind {
		case history.Assigned:
			g.assign(p, m, e.T, "")
		case history.Revoked:
			g.unassign(p, m, e.T, g.trigger("revoked by", m))
		case history.Lost:
			g.lose(p, m, e.T)
		}
	}
	if len(e.Partitions) > 0 || e.Kind == history.Assigned {
		g.rebalanceEvent(e.T, e.Gen, m, e.Kind == history.Assigned)
	}
	if e.Kind == history.Assigned && g.lastJoin == m {
		g.lastJoin = nil
	}
	for _, h := range g.hooks.assignment {
		h.assignmentEvent(m, e)
	}
}

// trigger names the likely cause of an unplanned rebalance.
func (g *model) trigger(what string, m *member) string {
	if j := g.lastJoin; j != nil && j != m {
		return "join " + j.name
	}
	return what + " " + m.name
}

func (g *model) committed(e *history.Event) {
	g.stats.Commits++
	if e.Err != "" {
		g.stats.CommitErrors++
		if len(g.hooks.commitErr) > 0 {
			m := g.member(e.Proc, e.Inc)
			for _, h := range g.hooks.commitErr {
				h.commitFailed(m, e)
			}
		}
		return
	}
	if p := g.part(e.Partition); p != nil {
		if len(g.hooks.commit) > 0 {
			m := g.member(e.Proc, e.Inc)
			for _, h := range g.hooks.commit {
				h.committing(p, m, e)
			}
		}
		p.committed = e.Offset
	}
}

func (g *model) chaos(e *history.Event) {
	g.chaosEvent(e)
	for _, h := range g.hooks.chaos {
		h.chaosEvent(e)
	}
}

func (g *model) chaosEvent(e *history.Event) {
	label := e.Action
	if e.Target != "" {
		label += " " + e.Target
	}
	g.tl.mark(e.T, label, "chaos")
	if e.Action == vocab.ActionResume || e.Action == vocab.ActionHeal {
		if m := g.lookupMember(e.Target, e.TargetInc); m != nil && e.Err == "" {
			g.resumeMember(m, e.T)
		}
		if d := g.steps[e.Step]; d != nil && e.Step > 0 {
			d.actEnd = e.T
			g.touch(d, e.T)
		}
		return
	}
	if g.shutdown {
		return
	}
	if e.Err != "" {
		// An act that failed once recorded: the second event of its step
		// (docs/history.md) says so on the step's disruption.
		if d := g.steps[e.Step]; d != nil && e.Step > 0 && d.out.Err == "" && d.out.Action == e.Action && d.out.Target == e.Target {
			d.out.Err = e.Err
			return
		}
	}
	d := g.open(e.T, "chaos", "")
	d.out.Action, d.out.Target, d.out.Step, d.out.Err = e.Action, e.Target, e.Step, e.Err
	if act, _ := vocab.LookupAction(e.Action); act.Stops && !strings.HasPrefix(e.Target, "broker-") {
		// A network step on a broker's links stops no member: it has
		// no subject.
		d.subject = e.Target
	}
	d.actEnd = e.T
	if act, _ := vocab.LookupAction(e.Action); e.Action == vocab.ActionSlow || act.Network {
		d.actEnd += paramMs(e.Params, "duration_ms") * 1e6
	}
	if e.Params != "" {
		d.out.Params = []byte(e.Params)
	}
	if e.Step > 0 {
		g.steps[e.Step] = d
	}
	if e.Action == vocab.ActionAddPartitions && e.Err == "" {
		g.partitionsAdded(d, e)
		return
	}
	// An action that stops its target's processing pauses what it owns
	// from the action's event on; one that ends its process leaves it
	// holding nothing.
	act, _ := vocab.LookupAction(e.Action)
	if e.Err != "" || !act.Stops {
		return
	}
	m := g.lookupMember(e.Target, e.TargetInc)
	if m == nil {
		return
	}
	// Until the act reaches it, the target may finish the record in hand:
	// a slow step's stall has passed by its duration; the others hold
	// until the partitions are taken over.
	hold := int64(math.MaxInt64)
	if e.Action == vocab.ActionSlow {
		hold = e.T + paramMs(e.Params, "duration_ms")*1e6
	}
	g.stopMember(m, e.T, d, hold)
	if act.Ends {
		g.memberGone(m, e.T, d, "")
	}
}

func (g *model) memberEvent(e *history.Event) {
	switch e.State {
	case history.StateStarted:
		m := g.member(e.Proc, e.Inc)
		m.alive = true
		// Members that announce joining join then: a JVM takes a second or
		// more from its start to its join request. Histories without
		// joining take the start as the join.
		if m.owned == 0 && !g.joiningSeen {
			g.lastJoin = m
		}
	case history.StateJoining:
		g.joiningSeen = true
		if m := g.member(e.Proc, e.Inc); m.owned == 0 {
			g.lastJoin = m
		}
	case history.StateSpawned:
		if e.Target != "" {
			g.member(e.Target, e.TargetInc).alive = true
		}
	case history.StateExited:
		if m := g.lookupMember(e.Target, e.TargetInc); m != nil {
			g.memberGone(m, e.T, nil, "exit "+m.name)
		}
	}
}

func (g *model) phaseEvent(e *history.Event) {
	g.phase = e.Phase
	g.stats.Phases = append(g.stats.Phases, summary.PhaseMark{Phase: e.Phase, T: e.T})
	g.tl.mark(e.T, e.Phase, "phase")
	switch e.Phase {
	case "steady":
		if g.tl.steadyT == 0 {
			g.tl.steadyT = e.T
		}
	case "drain":
		if g.cell.TrafficEndT == 0 {
			g.cell.TrafficEndT = e.T
		}
		g.trafficEnded()
	case "done", "interrupted":
		g.drainEndT = e.T
		g.beginShutdown()
	case "verified":
		for _, h := range g.hooks.txn {
			h.verifiedPhase(e)
		}
	}
}

// beginShutdown: the drain is over; members are being stopped. From here
// ownership changes are the run ending, not disruptions.
func (g *model) beginShutdown() {
	if g.shutdown {
		return
	}
	g.trafficEnded()
	g.shutdown = true
	if g.cell.DrainEndT == 0 {
		g.cell.DrainEndT = g.drainEndT
	}
}

// trafficEnded: the drain began, or the run is shutting down.
func (g *model) trafficEnded() {
	for _, h := range g.hooks.trafficEnd {
		h.trafficEnded()
	}
}

// paramMs reads a number of milliseconds from a chaos step's parameters (0
// when absent).
func paramMs(params, name string) int64 { return paramInt(params, name) }

// paramInt reads an integer from a chaos step's parameters (0 when
// absent).
func paramInt(params, name string) int64 {
	if params == "" {
		return 0
	}
	var m map[string]any
	if json.Unmarshal([]byte(params), &m) != nil {
		return 0
	}
	f, _ := m[name].(float64)
	return int64(f)
}

// probeEvent: a process's probe; the model keeps nothing of it.
func (g *model) probeEvent(e *history.Event) {
	for _, h := range g.hooks.probe {
		h.probe(e)
	}
}

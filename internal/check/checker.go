package check

import (
	"github.com/chaosbench/chaosbench/internal/history"
	"github.com/chaosbench/chaosbench/internal/summary"
)

// A checker is one metric of the summary: its own state, fed by the pass
// through the hooks below that it implements, and its part of the summary
// once the history has ended. It reads the group model (model.go) and
// never changes it.
type checker interface {
	// result writes the checker's part of s. The disruptions' rows are
	// there already (model.disruptionRows); the checkers run in the
	// order of newCheckers, and a checker that reads another's part of s
	// comes after it.
	result(s *summary.Summary)
}

// The hooks. A checker implements those it needs and nothing else; the
// model keeps, per hook, the list of the checkers that implement it
// (hooks), so that an event costs one call per checker that wants it.

// The processed hooks see a processed event of a known partition after
// the model took in its offset and, in a history without assignment
// events, the ownership it implies; before the event ends p's pause
// (pause.go): a record that ends a pause was processed inside it. Most
// events are processed ones, so they are split by what a checker wants:
// the first processing of an offset, a redelivery, or every processing.

// firstHook sees the first processing of each offset.
type firstHook interface {
	firstProcessed(p *partition, m *member, e *history.Event)
}

// redeliveryHook sees each processing of an offset already processed.
type redeliveryHook interface {
	redelivered(p *partition, m *member, e *history.Event)
}

// processedHook sees every processing.
type processedHook interface {
	processed(p *partition, m *member, e *history.Event)
}

// disruptionHook is told when a disruption opens (the previous one's
// window can no longer grow) and whenever one shows activity (a pause
// began or ended, an assignment event, the resume of its chaos step): its
// window reaches at least to d.last.
type disruptionHook interface {
	disruptionOpened(d *disruption)
	disruptionActive(d *disruption)
}

// ownershipHook is told when p passes from its owner to another member
// (to; nil: nobody) at t, before the model makes the change.
type ownershipHook interface {
	ownerChanging(p *partition, to *member, t int64)
}

// pauseHook is told when a partition's pause begins (pause.go).
type pauseHook interface {
	pauseBegan(pp *pause)
}

// liveHook is told when the last live partition stops being live (d:
// the disruption whose pause stopped it; nil when the run is shutting
// down), and when a partition is live again after none was.
type liveHook interface {
	groupStopped(t int64, d *disruption)
	groupResumed(t int64)
}

// windowHook is told when a disruption's window closes (its last open
// pause ended): the assignment has settled, as far as is known.
type windowHook interface {
	windowClosed(d *disruption)
}

// commitHook sees each successful commit of a partition by a member,
// before the model takes it in (p.committed is still the previous one).
type commitHook interface {
	committing(p *partition, m *member, e *history.Event)
}

// commitErrorHook sees each failed commit of a member.
type commitErrorHook interface {
	commitFailed(m *member, e *history.Event)
}

// chaosHook sees every chaos event (a step's intent or failure, a resume,
// a heal), after the model took it in.
type chaosHook interface {
	chaosEvent(e *history.Event)
}

// assignmentHook sees every assigned, revoked or lost event of a member,
// after the model took it in.
type assignmentHook interface {
	assignmentEvent(m *member, e *history.Event)
}

// producedHook sees every produced event (acknowledged or not), after
// the model took it in.
type producedHook interface {
	produced(e *history.Event)
}

// probeHook sees every probe event (a process's second: internal/probe).
type probeHook interface {
	probe(e *history.Event)
}

// txnHook sees the transactional policy's events: a member's
// transaction events, the verifier's output events, and the driver's
// verified phase.
type txnHook interface {
	txn(e *history.Event)
	output(e *history.Event)
	verifiedPhase(e *history.Event)
}

// trafficEndHook is told when traffic is over: when the drain begins,
// and again when the run begins to shut down (the first call is the one
// that counts).
type trafficEndHook interface {
	trafficEnded()
}

// newCheckers returns the checkers of a pass over g, in the order their
// results are written. Their findings are listed in the summary in that
// order (pause, duplicates, ordering, overlap, latency): the order is
// part of summary.json.
func newCheckers(g *model) []checker {
	return []checker{
		&pauseCheck{g: g},
		&keptStallCheck{g: g},
		&groupStopCheck{g: g},
		&recoveryCheck{g: g},
		newDuplicatesCheck(g),
		&lossCheck{g: g},
		newCommitAheadCheck(g),
		newOrderingCheck(g),
		newOverlapCheck(g),
		newNetworkCheck(g),
		&skewCheck{g: g},
		newLoadCheck(g),
		&movementCheck{g: g},
		newLatencyCheck(g),
		&throughputCheck{g: g},
		newHostCheck(g),
		newExactlyOnceCheck(g),
		&recordTimeCheck{g: g},
	}
}

// hooks are the checkers' hooks, each a list in checker order.
type hooks struct {
	first      []firstHook
	redelivery []redeliveryHook
	processed  []processedHook
	disruption []disruptionHook
	ownership  []ownershipHook
	pause      []pauseHook
	live       []liveHook
	window     []windowHook
	trafficEnd []trafficEndHook
	produced   []producedHook
	probe      []probeHook
	commit     []commitHook
	txn        []txnHook
	commitErr  []commitErrorHook
	chaos      []chaosHook
	assignment []assignmentHook
}

func hooksOf(cs []checker) hooks {
	var h hooks
	for _, c := range cs {
		if x, ok := c.(firstHook); ok {
			h.first = append(h.first, x)
		}
		if x, ok := c.(redeliveryHook); ok {
			h.redelivery = append(h.redelivery, x)
		}
		if x, ok := c.(processedHook); ok {
			h.processed = append(h.processed, x)
		}
		if x, ok := c.(disruptionHook); ok {
			h.disruption = append(h.disruption, x)
		}
		if x, ok := c.(ownershipHook); ok {
			h.ownership = append(h.ownership, x)
		}
		if x, ok := c.(pauseHook); ok {
			h.pause = append(h.pause, x)
		}
		if x, ok := c.(liveHook); ok {
			h.live = append(h.live, x)
		}
		if x, ok := c.(windowHook); ok {
			h.window = append(h.window, x)
		}
		if x, ok := c.(trafficEndHook); ok {
			h.trafficEnd = append(h.trafficEnd, x)
		}
		if x, ok := c.(producedHook); ok {
			h.produced = append(h.produced, x)
		}
		if x, ok := c.(commitHook); ok {
			h.commit = append(h.commit, x)
		}
		if x, ok := c.(probeHook); ok {
			h.probe = append(h.probe, x)
		}
		if x, ok := c.(txnHook); ok {
			h.txn = append(h.txn, x)
		}
		if x, ok := c.(commitErrorHook); ok {
			h.commitErr = append(h.commitErr, x)
		}
		if x, ok := c.(chaosHook); ok {
			h.chaos = append(h.chaos, x)
		}
		if x, ok := c.(assignmentHook); ok {
			h.assignment = append(h.assignment, x)
		}
	}
	return h
}

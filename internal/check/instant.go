package check

import (
	"io"
	"slices"

	"github.com/chaosbench/chaosbench/internal/history"
)

// Causes first within an instant (docs/summary.md, "Disruptions: how
// they are derived"): among events with the same t, a chaos step is taken
// in before the exits and ownership changes (member, assigned, revoked
// and lost events) that came before it in the merged stream. The driver
// records a step before it acts, so none of its consequences can be
// earlier than it; but a history written by an older driver recorded the
// step after the act, and the writer's clamp (a file's times never go
// back) could then give the member's exit, written first, the step's very
// time. Whatever the order of equal times, an exit, a leave or a
// rebalance a step caused is attributed to that step.
//
// The reordering is bounded to one instant and costs nothing in the usual
// case: an event is held (copied) only when it is an exit or an
// ownership change, or when one is already held at its time; everything
// else goes straight through.
type instant struct {
	t    int64
	held []history.Event // events of instant t, in stream order, behind a possible chaos step
	out  []history.Event // released events, to hand out in order
	next int             // position in out
}

// holdable reports whether e is a consequence a chaos step of the same
// instant must come before.
func holdable(e *history.Event) bool {
	switch e.Kind {
	case history.Member, history.Assigned, history.Revoked, history.Lost:
		return true
	}
	return false
}

// take returns the next event of the reordered stream, reading from src
// as needed. Errors pass through as the source gives them (a line that
// cannot be read is counted, wherever it comes; io.EOF comes after the
// held events).
func (in *instant) take(src Source) (*history.Event, error) {
	for {
		if in.next < len(in.out) {
			in.next++
			return &in.out[in.next-1], nil
		}
		e, err := src.Next()
		if err != nil {
			if err == io.EOF && len(in.held) > 0 {
				in.release(nil)
				continue
			}
			return nil, err
		}
		switch {
		case len(in.held) == 0 && !holdable(e):
			return e, nil
		case len(in.held) == 0:
			in.t = e.T
			in.held = append(in.held, copyEvent(e))
		case e.T == in.t && e.Kind == history.Chaos:
			return e, nil // the cause goes first
		case e.T == in.t:
			in.held = append(in.held, copyEvent(e))
		default:
			in.release(e)
		}
	}
}

// release hands out the held events, then e (a later instant; nil at the
// end), which starts a new hold if it is a consequence itself.
func (in *instant) release(e *history.Event) {
	in.out, in.held = in.held, in.out[:0]
	in.next = 0
	if e == nil {
		return
	}
	if holdable(e) {
		in.t = e.T
		in.held = append(in.held, copyEvent(e))
		return
	}
	in.out = append(in.out, copyEvent(e))
}

// copyEvent copies an event the source may reuse.
func copyEvent(e *history.Event) history.Event {
	c := *e
	c.Partitions = slices.Clone(e.Partitions)
	return c
}

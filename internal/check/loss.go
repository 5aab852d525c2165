package check

import (
	"fmt"

	"github.com/chaosbench/chaosbench/internal/history"
	"github.com/chaosbench/chaosbench/internal/summary"
	"github.com/chaosbench/chaosbench/internal/vocab"
)

// Loss (docs/summary.md, `loss`): an acknowledged produced record never
// processed by the end of the drain. Lost records are told apart by where
// they are: skipped (below an offset of their partition that was
// processed: the group moved past them) or tail (above every processed
// offset: never reached). A tail is loss only if the drain completed;
// otherwise the records may simply not have been consumed yet. The
// offsets acknowledged and processed are the model's (partition.acked,
// partition.processed); this checker counts only the late records.
type lossCheck struct {
	g *model
	// late counts records first processed after the drain ended.
	late int64
}

func (c *lossCheck) firstProcessed(p *partition, m *member, e *history.Event) {
	if c.g.drainEndT > 0 && e.T > c.g.drainEndT {
		c.late++
	}
}

func (c *lossCheck) result(s *summary.Summary) {
	g := c.g
	r := &s.Loss
	r.Acknowledged = g.stats.Acked
	r.Late = c.late
	var ex []summary.Example
	for _, p := range g.parts {
		top := p.processed.max()
		p.acked.minus(&p.processed, func(lo, hi int64) bool {
			// Split the run at the highest processed offset.
			if lo < top {
				h := min(hi, top-1)
				r.Skipped += h - lo + 1
				if len(ex) < g.opts.MaxExamples {
					ex = append(ex, lostExample(p.id, lo, h, "skipped: a later offset of the partition was processed"))
				}
			}
			if hi > top {
				l := max(lo, top+1)
				r.Tail += hi - l + 1
				if len(ex) < g.opts.MaxExamples {
					ex = append(ex, lostExample(p.id, l, hi, "tail: no later offset of the partition was processed"))
				}
			}
			return true
		})
		r.Unacknowledged += p.processed.len() - p.processed.countCommon(&p.acked)
	}
	r.Lost = r.Skipped + r.Tail
	promise := vocab.GuaranteeOf(g.cell.CommitPolicy)
	drained := g.cell.DrainComplete
	switch promise {
	case vocab.AtLeastOnce, vocab.ExactlyOnce:
		r.Check = summary.Check{Verdict: summary.Valid, Expect: "no loss (" + promise + ")"}
		switch {
		case r.Skipped > 0 || (r.Tail > 0 && drained):
			r.Verdict = summary.Invalid
			r.Reason = fmt.Sprintf("%d acknowledged records never processed (%d skipped, %d at the tail)", r.Lost, r.Skipped, r.Tail)
		case r.Tail > 0:
			r.Verdict = summary.Unknown
			r.Reason = fmt.Sprintf("%d acknowledged records at the tail were not processed before the drain ended incomplete", r.Tail)
		}
	case vocab.AtMostOnce:
		r.Check = summary.Check{Verdict: summary.Valid, Expect: "loss allowed (at-most-once)"}
	default:
		r.Check = summary.Check{Verdict: summary.Valid, Expect: "loss allowed and reported (" + promise + ")"}
	}
	r.Examples = ex
}

func lostExample(p int32, lo, hi int64, detail string) summary.Example {
	e := summary.Example{Partition: ptr(p), Detail: detail}
	if lo == hi {
		e.Offset = ptr(lo)
	} else {
		e.Offsets = fmt.Sprintf("%d-%d", lo, hi)
	}
	return e
}

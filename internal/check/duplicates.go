package check

import (
	"fmt"

	"github.com/chaosbench/chaosbench/internal/clip"
	"github.com/chaosbench/chaosbench/internal/history"
	"github.com/chaosbench/chaosbench/internal/summary"
	"github.com/chaosbench/chaosbench/internal/vocab"
)

// Duplicates (docs/summary.md, `duplicates`): a processed event for a
// (partition, offset) already processed. A duplicate belongs to the
// disruption of its partition's most recent ownership change: redelivery
// is the next owner re-reading from the committed offset what the old
// owner had already processed, and it goes on after the partition is
// live again, so the partition's handover (its latest pause, open or
// not), not the group's window, is what ties a duplicate to its cause.
// Duplicates of a partition that never changed hands are unattributed.
//
// The cross-check: a handover cannot redeliver more than its uncommitted
// window, the records processed at or above the committed offset the
// next owner starts from plus what the old owner processed after the
// pause began (pause.bound and pause.extra, which the pause keeps).
type duplicatesCheck struct {
	g            *model
	count        int64
	unattributed int64
	// byPause counts the duplicates attributed to each handover.
	byPause  map[*pause]int64
	examples []summary.Example
}

func newDuplicatesCheck(g *model) *duplicatesCheck {
	return &duplicatesCheck{g: g, byPause: map[*pause]int64{}}
}

func (c *duplicatesCheck) redelivered(p *partition, m *member, e *history.Event) {
	c.count++
	pp := p.last
	id := 0
	if pp == nil {
		c.unattributed++
	} else {
		c.byPause[pp]++
		id = pp.d.out.ID
	}
	if len(c.examples) < c.g.opts.MaxExamples {
		c.examples = append(c.examples, summary.Example{T: e.T, Proc: m.name, Partition: ptr(p.id), Offset: ptr(e.Offset),
			Key: e.Key, Seq: ptr(e.Seq), Disruption: id})
	}
}

func (c *duplicatesCheck) result(s *summary.Summary) {
	g := c.g
	r := &s.Duplicates
	promise := vocab.GuaranteeOf(g.cell.CommitPolicy)
	r.Count, r.Unattributed = c.count, c.unattributed
	r.Examples = c.examples
	r.ByDisruption = map[int]int64{}
	var beyond []summary.Example
	for _, d := range g.disr {
		var n int64
		for _, pp := range d.pauses {
			dups := c.byPause[pp]
			n += dups
			if dups > pp.bound+pp.extra {
				r.BeyondUncommitted++
				if len(beyond) < g.opts.MaxExamples {
					beyond = append(beyond, summary.Example{T: pp.start, Partition: ptr(pp.p.id), Disruption: d.out.ID, Proc: nameOf(pp.from),
						Detail: fmt.Sprintf("%s, but only %s processed at or above the committed offset", clip.Plural(dups, "duplicate"), clip.Plural(pp.bound+pp.extra, "record"))})
				}
			}
		}
		s.Disruptions[d.out.ID-1].Duplicates = n
		if n > 0 {
			r.ByDisruption[d.out.ID] = n
		}
	}
	switch promise {
	case vocab.AtMostOnce:
		r.Check = summary.Check{Verdict: summary.Valid, Expect: "no duplicates (at-most-once)"}
		if r.Count > 0 {
			r.Verdict = summary.Invalid
			r.Reason = fmt.Sprintf("%s processed more than once under an at-most-once policy", clip.Plural(r.Count, "record"))
		}
	default:
		r.Check = summary.Check{Verdict: summary.Valid, Expect: "duplicates allowed (" + promise + ")", Examples: r.Examples}
	}
	r.Examples = c.examples
	if r.BeyondUncommitted > 0 && promise == vocab.ExactlyOnce {
		// A transactional member redoes its aborted transactions' work
		// itself, outside any handover's window: the exactly_once
		// section counts it (work_redone); the window bounds nothing.
		s.Findings = append(s.Findings, summary.Finding{Checker: "duplicates", Kind: "duplicates_beyond_uncommitted", Verdict: summary.Valid,
			Count:    int64(r.BeyondUncommitted),
			Message:  fmt.Sprintf("%s redelivered more records than were processed at or above the committed offset: under the transactional policy, the work of aborted transactions done again (exactly_once.work_redone)", clip.Plural(int64(r.BeyondUncommitted), "handover")),
			Examples: beyond})
	} else if r.BeyondUncommitted > 0 {
		s.Findings = append(s.Findings, summary.Finding{Checker: "duplicates", Kind: "duplicates_beyond_uncommitted", Verdict: summary.Unknown,
			Count:    int64(r.BeyondUncommitted),
			Message:  fmt.Sprintf("%s redelivered more records than were processed at or above the committed offset: the new owner started below a successful commit, or the history misses commits", clip.Plural(int64(r.BeyondUncommitted), "handover")),
			Examples: beyond})
		if r.Verdict == summary.Valid {
			r.Verdict = summary.Unknown
			r.Reason = "duplicates exceed the uncommitted window (see findings)"
		}
	}
}

func nameOf(m *member) string {
	if m == nil {
		return ""
	}
	return m.name
}

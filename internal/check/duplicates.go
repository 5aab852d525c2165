package check

import (
	"fmt"

	"github.com/chaosbench/chaosbench/internal/history"
)

// Duplicates (design.md, "Duplicate"): a processed event for a (partition,
// offset) already processed. A duplicate belongs to the disruption of its
// partition's most recent ownership change: redelivery is the next owner
// re-reading from the committed offset what the old owner had already
// processed, and it goes on after the partition is live again, so the
// partition's handover, not the group's window, is what ties a duplicate
// to its cause (docs/summary.md). Duplicates of a partition that never
// changed hands are unattributed.
type dupState struct {
	count        int64
	unattributed int64
	examples     []Example
}

func (s *dupState) init() {}

func (a *analyzer) duplicate(p *partition, m *member, e *history.Event) {
	s := &a.dup
	s.count++
	pp := p.last
	id := 0
	if pp == nil {
		s.unattributed++
	} else {
		pp.dups++
		pp.d.dups++
		id = pp.d.out.ID
	}
	if len(s.examples) < a.opts.MaxExamples {
		s.examples = append(s.examples, Example{T: e.T, Proc: m.name, Partition: ptr(p.id), Offset: ptr(e.Offset),
			Key: e.Key, Seq: ptr(e.Seq), Disruption: id})
	}
}

func (a *analyzer) duplicatesResult(s *Summary) {
	r := &s.Duplicates
	g := GuaranteeOf(a.cell.CommitPolicy)
	r.Count, r.Unattributed = a.dup.count, a.dup.unattributed
	r.Examples = a.dup.examples
	r.ByDisruption = map[int]int64{}
	for _, d := range a.disr {
		if d.dups > 0 {
			r.ByDisruption[d.out.ID] = d.dups
		}
	}
	// The cross-check: a handover cannot redeliver more than the records
	// processed at or above the committed offset when it began, plus what
	// the old owner processed after it.
	var beyond []Example
	for _, d := range a.disr {
		for _, pp := range d.pauses {
			if pp.dups > pp.bound+pp.extra {
				r.BeyondUncommitted++
				if len(beyond) < a.opts.MaxExamples {
					beyond = append(beyond, Example{T: pp.start, Partition: ptr(pp.p.id), Disruption: d.out.ID, Proc: nameOf(pp.from),
						Detail: fmt.Sprintf("%s, but only %s processed at or above the committed offset", plural(pp.dups, "duplicate"), plural(pp.bound+pp.extra, "record"))})
				}
			}
		}
	}
	switch g {
	case AtMostOnce:
		r.Check = Check{Verdict: Valid, Expect: "no duplicates (at-most-once)"}
		if r.Count > 0 {
			r.Verdict = Invalid
			r.Reason = fmt.Sprintf("%s processed more than once under an at-most-once policy", plural(r.Count, "record"))
		}
	default:
		r.Check = Check{Verdict: Valid, Expect: "duplicates allowed (" + g + ")", Examples: r.Examples}
	}
	r.Examples = a.dup.examples
	if r.BeyondUncommitted > 0 {
		s.Findings = append(s.Findings, Finding{Checker: "duplicates", Kind: "duplicates_beyond_uncommitted", Verdict: Unknown,
			Count:    int64(r.BeyondUncommitted),
			Message:  fmt.Sprintf("%s redelivered more records than were processed at or above the committed offset: the new owner started below a successful commit, or the history misses commits", plural(int64(r.BeyondUncommitted), "handover")),
			Examples: beyond})
		if r.Verdict == Valid {
			r.Verdict = Unknown
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

// plural returns "1 record", "2 records".
func plural(n int64, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

package check

import (
	"fmt"

	"github.com/chaosbench/chaosbench/internal/clip"
	"github.com/chaosbench/chaosbench/internal/history"
	"github.com/chaosbench/chaosbench/internal/summary"
)

// Overlap (docs/summary.md, `overlap`): a processed event by member A for
// partition p while another member B held p under a newer assignment (B's
// assigned for p came after A's: partition.zombie). Counted as events and
// as incidents (distinct A, p, B). Processing of a partition nobody owns,
// by a member that does not hold it either, is counted apart as unowned.
// The record in hand of a chaos step's target, processed after the step
// was recorded but before it reached the member (pause.go), is neither:
// it is counted as in flight.
type overlapCheck struct {
	g         *model
	events    int64
	incidents map[incident]struct{}
	unowned   int64
	inFlight  int64
	ex, exUn  []summary.Example
}

type incident struct {
	a, b *member
	p    int32
}

func newOverlapCheck(g *model) *overlapCheck {
	return &overlapCheck{g: g, incidents: map[incident]struct{}{}}
}

func (s *overlapCheck) processed(p *partition, m *member, e *history.Event) {
	if pp := p.pause; pp != nil && pp.inFlight(m, e.T) {
		s.inFlight++
		return
	}
	o := p.owner
	if o == nil {
		if p.everOwned && !holds(p, m) {
			s.unowned++
			if len(s.exUn) < s.g.opts.MaxExamples {
				s.exUn = append(s.exUn, summary.Example{T: e.T, Proc: m.name, Partition: ptr(p.id), Offset: ptr(e.Offset), Detail: "no member owned the partition"})
			}
		}
		return
	}
	if !p.zombie(m) {
		return
	}
	s.events++
	k := incident{m, o, p.id}
	if _, ok := s.incidents[k]; !ok {
		s.incidents[k] = struct{}{}
		if len(s.ex) < s.g.opts.MaxExamples {
			s.ex = append(s.ex, summary.Example{T: e.T, Proc: m.name, Partition: ptr(p.id), Offset: ptr(e.Offset), Other: o.name,
				Detail: fmt.Sprintf("%s was assigned the partition after %s", o.name, m.name)})
		}
	}
}

func holds(p *partition, m *member) bool {
	for _, h := range p.holders {
		if h == m {
			return true
		}
	}
	return false
}

func (o *overlapCheck) result(s *summary.Summary) {
	r := &s.Overlap
	r.Events, r.Incidents, r.Unowned, r.InFlight = o.events, len(o.incidents), o.unowned, o.inFlight
	r.Check = summary.Check{Verdict: summary.Valid, Expect: "reported: zombie processing is measured; its effects are judged by the duplicate and ordering checks", Examples: o.ex}
	if r.Events > 0 {
		s.Findings = append(s.Findings, summary.Finding{Checker: "overlap", Kind: "zombie_processing", Verdict: summary.Valid, Count: r.Events,
			Message:  fmt.Sprintf("%s processed by a member after another member was assigned their partition (%s)", clip.Plural(r.Events, "record"), clip.Plural(int64(r.Incidents), "incident")),
			Examples: o.ex})
	}
	if r.Unowned > 0 {
		s.Findings = append(s.Findings, summary.Finding{Checker: "overlap", Kind: "unowned_processing", Verdict: summary.Valid, Count: r.Unowned,
			Message:  fmt.Sprintf("%s processed by a member that did not hold the partition, while no member did", clip.Plural(r.Unowned, "record")),
			Examples: o.exUn})
	}
}

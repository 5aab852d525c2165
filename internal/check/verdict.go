package check

import (
	"fmt"

	"github.com/chaosbench/chaosbench/internal/clip"
	"github.com/chaosbench/chaosbench/internal/summary"
	"github.com/chaosbench/chaosbench/internal/vocab"
)

// verdict combines the checks into the cell's verdict.
func (a *analyzer) verdict(s *summary.Summary) {
	s.Verdict = summary.Valid
	if s.Host.Saturated {
		// The timing figures describe the machine (host.go).
		for _, c := range []*summary.Check{&s.Pause.Check, &s.GroupStop.Check, &s.Recovery.Check, &s.Latency.Check} {
			if c.Verdict == summary.Valid {
				c.Verdict, c.Reason = summary.Unknown, "timed on a saturated host (host)"
			}
		}
	}
	checks := []struct {
		name string
		c    *summary.Check
	}{
		{"loss", &s.Loss.Check},
		{"duplicates", &s.Duplicates.Check},
		{"ordering", &s.Ordering.Check},
		{"overlap", &s.Overlap.Check},
		{"pause", &s.Pause.Check},
		{"group_stop", &s.GroupStop.Check},
		{"recovery", &s.Recovery.Check},
		{"skew", &s.Skew.Check},
		{"movement", &s.Movement.Check},
		{"latency", &s.Latency.Check},
		{"host", &s.Host.Check},
	}
	if s.ExactlyOnce != nil {
		checks = append(checks, struct {
			name string
			c    *summary.Check
		}{"exactly_once", &s.ExactlyOnce.Check})
	}
	for _, c := range checks {
		if c.c.Verdict != summary.Valid {
			s.Verdict = summary.Worst(s.Verdict, c.c.Verdict)
			s.VerdictReasons = append(s.VerdictReasons, fmt.Sprintf("%s: %s: %s", c.name, c.c.Verdict, c.c.Reason))
		}
	}
	if n := s.History.BadLines; n > 0 {
		s.AddFindings(summary.Finding{Checker: "history", Kind: "unreadable_lines", Verdict: summary.Unknown, Count: n,
			Message: fmt.Sprintf("%s of the history could not be read: the events held there are missing from every check", clip.Plural(n, "line"))})
	}
	if s.Guarantee == vocab.UnknownGuarantee {
		s.Verdict = summary.Worst(s.Verdict, summary.Unknown)
		s.VerdictReasons = append(s.VerdictReasons, fmt.Sprintf("cell: unknown: commit policy %q is not one this analysis knows the guarantee of", a.cell.CommitPolicy))
	}
	if !s.Cell.Complete {
		why := s.Cell.PartialReason
		if why == "" {
			why = "the cell did not complete"
		}
		s.Verdict = summary.Worst(s.Verdict, summary.Unknown)
		s.VerdictReasons = append(s.VerdictReasons, "cell: unknown: partial run: "+why)
	}
}

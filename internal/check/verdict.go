package check

import (
	"fmt"

	"github.com/chaosbench/chaosbench/internal/vocab"
)

// verdict combines the checks into the cell's verdict.
func (a *analyzer) verdict(s *Summary) {
	s.Verdict = Valid
	if s.Host.Saturated {
		// The timing figures describe the machine (host.go).
		for _, c := range []*Check{&s.Pause.Check, &s.GroupStop.Check, &s.Recovery.Check, &s.Latency.Check} {
			if c.Verdict == Valid {
				c.Verdict, c.Reason = Unknown, "timed on a saturated host (host)"
			}
		}
	}
	for _, c := range []struct {
		name string
		c    *Check
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
	} {
		if c.c.Verdict != Valid {
			s.Verdict = Worst(s.Verdict, c.c.Verdict)
			s.VerdictReasons = append(s.VerdictReasons, fmt.Sprintf("%s: %s: %s", c.name, c.c.Verdict, c.c.Reason))
		}
	}
	if n := s.History.BadLines; n > 0 {
		s.AddFindings(Finding{Checker: "history", Kind: "unreadable_lines", Verdict: Unknown, Count: n,
			Message: fmt.Sprintf("%s of the history could not be read: the events held there are missing from every check", plural(n, "line"))})
	}
	if s.Guarantee == vocab.UnknownGuarantee {
		s.Verdict = Worst(s.Verdict, Unknown)
		s.VerdictReasons = append(s.VerdictReasons, fmt.Sprintf("cell: unknown: commit policy %q is not one this analysis knows the guarantee of", a.cell.CommitPolicy))
	}
	if !s.Cell.Complete {
		why := s.Cell.PartialReason
		if why == "" {
			why = "the cell did not complete"
		}
		s.Verdict = Worst(s.Verdict, Unknown)
		s.VerdictReasons = append(s.VerdictReasons, "cell: unknown: partial run: "+why)
	}
}

// AddFindings adds findings to a summary and folds their verdicts into the
// cell's. It is the way in for other checkers (the assignment oracle):
// a finding with verdict invalid makes the cell invalid.
func (s *Summary) AddFindings(fs ...Finding) {
	for _, f := range fs {
		if f.Verdict == "" {
			f.Verdict = Valid
		}
		s.Findings = append(s.Findings, f)
		if f.Verdict != Valid {
			s.Verdict = Worst(s.Verdict, f.Verdict)
			s.VerdictReasons = append(s.VerdictReasons, fmt.Sprintf("%s: %s: %s: %s", f.Checker, f.Verdict, f.Kind, f.Message))
		}
	}
}

// RunVerdict is the worst of the cells' verdicts.
func RunVerdict(cells []*Summary) Verdict {
	v := Valid
	for _, c := range cells {
		v = Worst(v, c.Verdict)
	}
	return v
}

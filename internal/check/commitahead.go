package check

import (
	"fmt"
	"sort"

	"github.com/chaosbench/chaosbench/internal/clip"
	"github.com/chaosbench/chaosbench/internal/history"
	"github.com/chaosbench/chaosbench/internal/summary"
)

// Loss explained (docs/summary.md, `loss`): a commit ahead of processing.
// A successful commit of offset o for partition p tells the group that
// every record of p below o is done: whoever owns p next starts at o. The
// commit is ahead of processing when, at the moment it is recorded, some
// of the records it newly covers (from the partition's previous commit
// up to o) have not been processed. That is the design of some policies
// (commit-before-process commits the batch, then processes it; librdkafka's
// auto-commit commits what it handed out); it is harmless if the records
// are processed afterwards, and it is the cause of their loss if they
// never are: the member crashed between the commit and the records, and
// its successor started past them. A lost record that a commit covered
// before it was processed is explained by the first such commit, reported
// per member and commit with the records it lost; lost records no commit
// covered (skipped for another reason: a member that moved past a record
// it never processed, without committing past it) are reported apart.
//
// Memory: per partition, the commits whose covered records are not all
// processed yet, each with the runs of offsets it covered unprocessed; a
// commit leaves as soon as its runs are processed, so only commits that
// lost records stay to the end.
type commitAheadCheck struct {
	g       *model
	pending [][]*aheadCommit // by partition
	n       int              // pending commits, over all partitions
}

// aheadCommit is a commit that covered records not yet processed.
type aheadCommit struct {
	m      *member
	t      int64
	offset int64
	auto   bool
	gaps   []run // covered offsets unprocessed when committed, in order
}

func newCommitAheadCheck(g *model) *commitAheadCheck { return &commitAheadCheck{g: g} }

// committing: m's commit e of p succeeded; p.committed is still the
// previous commit.
func (c *commitAheadCheck) committing(p *partition, m *member, e *history.Event) {
	lo, hi := max(p.committed, 0), e.Offset-1
	if hi < lo {
		return
	}
	var gaps []run
	gap := func(a, b int64) {
		if a <= b {
			gaps = append(gaps, run{a, b})
		}
	}
	// The covered offsets [lo, hi] minus those processed.
	next := lo
	p.processed.each(lo, hi, func(a, b int64) {
		gap(next, a-1)
		next = b + 1
	})
	gap(next, hi)
	if len(gaps) == 0 {
		return
	}
	for int(p.id) >= len(c.pending) {
		c.pending = append(c.pending, nil)
	}
	c.pending[p.id] = append(c.pending[p.id], &aheadCommit{m: m, t: e.T, offset: e.Offset, auto: e.Auto, gaps: gaps})
	c.n++
}

// processed: records covered ahead leave the commits that covered them;
// a commit whose covered records are all processed was harmless.
func (c *commitAheadCheck) processed(p *partition, m *member, e *history.Event) {
	if c.n == 0 || int(p.id) >= len(c.pending) || len(c.pending[p.id]) == 0 {
		return
	}
	kept := c.pending[p.id][:0]
	for _, a := range c.pending[p.id] {
		for len(a.gaps) > 0 && p.processed.countIn(a.gaps[0].lo, a.gaps[0].hi) == a.gaps[0].hi-a.gaps[0].lo+1 {
			a.gaps = a.gaps[1:]
		}
		if len(a.gaps) > 0 {
			kept = append(kept, a)
		} else {
			c.n--
		}
	}
	c.pending[p.id] = kept
}

// maxAheadCommits caps the commits listed in the summary.
const maxAheadCommits = 100

func (c *commitAheadCheck) result(s *summary.Summary) {
	r := &s.Loss
	var out []summary.AheadCommit
	byMember := map[string]int64{}
	for pid, list := range c.pending {
		p := c.g.parts[pid]
		var taken intervals // lost offsets already explained by an earlier commit
		for _, a := range list {
			var lost int64
			var ranges []string
			for _, g := range a.gaps {
				p.acked.minus(&p.processed, func(lo, hi int64) bool {
					lo, hi = max(lo, g.lo), min(hi, g.hi)
					for x := lo; x <= hi; x++ {
						if taken.add(x) {
							lost++
						}
					}
					if lo <= hi && len(ranges) < 3 {
						ranges = append(ranges, offsetRange(lo, hi))
					}
					return true
				})
			}
			if lost == 0 {
				continue
			}
			r.CommittedAhead += lost
			byMember[a.m.name] += lost
			out = append(out, summary.AheadCommit{Member: a.m.name, Partition: p.id, Offset: a.offset, T: a.t, Auto: a.auto, Lost: lost, Offsets: ranges})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].T < out[j].T })
	r.AheadCommitsTotal = len(out)
	if len(out) > maxAheadCommits {
		out = out[:maxAheadCommits]
	}
	r.AheadCommits = out
	r.Unexplained = r.Lost - r.CommittedAhead
	if r.CommittedAhead == 0 {
		return
	}
	var ex []summary.Example
	for _, a := range out {
		if len(ex) >= c.g.opts.MaxExamples {
			break
		}
		pid := a.Partition
		how := "committed"
		if a.Auto {
			how = "auto-committed"
		}
		ex = append(ex, summary.Example{T: a.T, Proc: a.Member, Partition: &pid, Offsets: joinRanges(a.Offsets),
			Detail: fmt.Sprintf("%s offset %d with %s below it unprocessed, never processed since", how, a.Offset, clip.Plural(a.Lost, "record"))})
	}
	names := make([]string, 0, len(byMember))
	for n := range byMember {
		names = append(names, n)
	}
	sort.Strings(names)
	pronoun := "they were"
	if r.CommittedAhead == 1 {
		pronoun = "it was"
	}
	msg := fmt.Sprintf("%s lost: committed before %s processed (", clip.Plural(r.CommittedAhead, "record"), pronoun)
	for i, n := range names {
		if i > 0 {
			msg += ", "
		}
		msg += fmt.Sprintf("%s: %d", n, byMember[n])
	}
	msg += ")"
	s.Findings = append(s.Findings, summary.Finding{Checker: "loss", Kind: "committed_ahead_of_processing", Verdict: summary.Valid,
		Count: r.CommittedAhead, Message: msg, Examples: ex})
}

func offsetRange(lo, hi int64) string {
	if lo == hi {
		return fmt.Sprint(lo)
	}
	return fmt.Sprintf("%d-%d", lo, hi)
}

func joinRanges(rs []string) string {
	out := ""
	for i, r := range rs {
		if i > 0 {
			out += ","
		}
		out += r
	}
	return out
}

package check

import (
	"math"
	"sort"

	"github.com/chaosbench/chaosbench/internal/summary"
)

// Movement (docs/summary.md, `movement`): the partitions whose owner
// changed between the assignment before a disruption and the one when its
// window closed (the model's snapshots, disruption.before and after),
// against the fewest moves any balanced assignment of the members at the
// end needed. Disruptions whose windows overlap form one episode,
// compared from the start of its first to the end of its last and carried
// by its first disruption, so that no move counts twice. Owners are
// compared by member name: a member that restarts and gets its partitions
// back kept them. Reassignments count, every time, the partitions given
// to a member other than their last owner (moved counts only the net
// change).
type movementCheck struct {
	g *model
	// reassignments counts them per disruption, by disruption ID - 1.
	reassignments []int
}

// ownerChanging counts a partition given to a member other than its last
// owner, in the disruption the change belongs to.
func (c *movementCheck) ownerChanging(p *partition, to *member, t int64) {
	if to == nil || p.lastOwner == "" || p.lastOwner == to.proc || c.g.shutdown {
		return
	}
	d := c.g.current(t)
	if d == nil {
		return
	}
	for len(c.reassignments) < d.out.ID {
		c.reassignments = append(c.reassignments, 0)
	}
	c.reassignments[d.out.ID-1]++
}

func (c *movementCheck) reassignmentsIn(d *disruption) int {
	if d.out.ID <= len(c.reassignments) {
		return c.reassignments[d.out.ID-1]
	}
	return 0
}

func episodeMovement(ds []*disruption) (moved, minMoves int, ok bool) {
	first, last := ds[0], ds[0]
	for _, d := range ds {
		if !d.closed {
			return 0, 0, false
		}
		if d.last > last.last {
			last = d
		}
	}
	members := map[string]struct{}{}
	for _, d := range ds {
		for n := range d.assignees {
			members[n] = struct{}{}
		}
	}
	total := 0 // partitions owned after
	for _, m := range last.after {
		if m != nil {
			members[m.proc] = struct{}{}
			total++
		}
	}
	counts := map[string]int{}
	domain := 0
	for i, b := range first.before {
		if b == nil || i >= len(last.after) || last.after[i] == nil {
			continue
		}
		domain++
		if b.proc != last.after[i].proc {
			moved++
		}
		if _, in := members[b.proc]; in {
			counts[b.proc]++
		}
	}
	return moved, domain - maxKept(counts, len(members), total), true
}

// maxKept returns how many partitions can stay with their owners in a
// balanced assignment of total partitions over n members (each gets
// total/n or one more), given how many each member owned before: the
// larger quotas go to the members that owned the most.
func maxKept(counts map[string]int, n, total int) int {
	if n == 0 {
		return 0
	}
	c := make([]int, 0, n)
	for _, v := range counts {
		c = append(c, v)
	}
	sort.Sort(sort.Reverse(sort.IntSlice(c)))
	q, r := total/n, total%n
	kept := 0
	for i, v := range c {
		quota := q
		if i < r {
			quota++
		}
		kept += min(v, quota)
	}
	return kept
}

func (c *movementCheck) result(s *summary.Summary) {
	r := &s.Movement
	r.Check = summary.Check{Verdict: summary.Valid, Expect: "measured: no expectation"}
	for _, ep := range episodes(c.g.disr) {
		moved, least, ok := episodeMovement(ep)
		head := &s.Disruptions[ep[0].out.ID-1]
		head.Moved, head.MinMoves, head.MovementKnown = moved, least, ok
		for _, d := range ep {
			o := &s.Disruptions[d.out.ID-1]
			o.Reassignments = c.reassignmentsIn(d)
			if d != ep[0] {
				o.MovementKnown = ok
				o.MovementIn = ep[0].out.ID
			}
			if d.headline() {
				r.Reassignments += o.Reassignments
			}
		}
		if ok && ep[0].headline() {
			r.Moved += moved
			r.MinMoves += least
		}
	}
	r.Stickiness = 1
	if r.Moved > 0 {
		r.Stickiness = float64(r.MinMoves) / float64(r.Moved)
	}
}

// episodes groups the disruptions (in order of start) into runs whose
// windows overlap; an unfinished window reaches to the end.
func episodes(disr []*disruption) [][]*disruption {
	var out [][]*disruption
	var reach int64
	for _, d := range disr {
		end := d.last
		if d.open > 0 {
			end = math.MaxInt64
		}
		if len(out) > 0 && d.out.StartT <= reach {
			out[len(out)-1] = append(out[len(out)-1], d)
			reach = max(reach, end)
			continue
		}
		out = append(out, []*disruption{d})
		reach = end
	}
	return out
}

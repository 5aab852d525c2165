package check

import "sort"

// Movement (design.md, "Movement"): for each disruption, the partitions
// whose owner changed between the assignment at its start and the one
// when its window closed, against the fewest moves any balanced
// assignment of the new member set needed. Owners are compared by member
// name, so a member that restarts and gets its partitions back kept them.
func (d *disruption) movement() (moved, minMoves int, ok bool) {
	if !d.closed {
		return 0, 0, false
	}
	members := map[string]struct{}{}
	for n := range d.assignees {
		members[n] = struct{}{}
	}
	total := 0 // partitions owned after
	for _, m := range d.after {
		if m != nil {
			members[m.proc] = struct{}{}
			total++
		}
	}
	counts := map[string]int{}
	domain := 0
	for i, b := range d.before {
		if b == nil || i >= len(d.after) || d.after[i] == nil {
			continue
		}
		domain++
		if b.proc != d.after[i].proc {
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

func (a *analyzer) movementResult(s *Summary) {
	r := &s.Movement
	r.Check = Check{Verdict: Valid, Expect: "measured: no expectation"}
	for i, d := range a.disr {
		moved, least, ok := d.movement()
		o := &s.Disruptions[i]
		o.Moved, o.MinMoves, o.MovementKnown = moved, least, ok
		o.Reassignments = d.reassignments
		if ok && d.headline() {
			r.Moved += moved
			r.MinMoves += least
			r.Reassignments += d.reassignments
		}
	}
	r.Stickiness = 1
	if r.Moved > 0 {
		r.Stickiness = float64(r.MinMoves) / float64(r.Moved)
	}
}

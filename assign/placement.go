package assign

import "slices"

// Placement is an assignment in a Spec's numbers: member i (in the
// group's order) has the partitions Member(i), ascending, which are also
// grouped by topic (topics are numbered in name order). It is what the
// models compute; Assignment converts it to names.
type Placement struct {
	spec  *Spec
	start []int32 // member i's partitions are parts[start[i]:start[i+1]]
	parts []int32
}

// placementFromOwners builds the placement of owner (partition -> member,
// -1: nobody), which it does not keep.
func placementFromOwners(s *Spec, owner []int32) *Placement {
	n := len(s.members)
	// A counting sort by member: start[m+2] counts member m, its prefix
	// sum start[m+1] is where m's partitions begin, and filling advances
	// it to where they end, which is where m+1's begin.
	start := make([]int32, n+2)
	assigned := 0
	for _, m := range owner {
		if m >= 0 {
			start[m+2]++
			assigned++
		}
	}
	for i := 2; i < len(start); i++ {
		start[i] += start[i-1]
	}
	parts := make([]int32, assigned)
	for gp, m := range owner {
		if m >= 0 {
			parts[start[m+1]] = int32(gp)
			start[m+1]++
		}
	}
	return &Placement{spec: s, start: start[:n+1], parts: parts}
}

// Spec returns the group the placement is of.
func (p *Placement) Spec() *Spec { return p.spec }

// Member returns member i's partition numbers, ascending. The slice is
// the placement's own: do not modify it.
func (p *Placement) Member(i int) []int32 { return p.parts[p.start[i]:p.start[i+1]:p.start[i+1]] }

// Owners returns the owner of each partition number (-1: nobody).
func (p *Placement) Owners() []int32 {
	owner := make([]int32, p.spec.total)
	for i := range owner {
		owner[i] = -1
	}
	for m := range len(p.start) - 1 {
		for _, gp := range p.Member(m) {
			owner[gp] = int32(m)
		}
	}
	return owner
}

// Assignment converts the placement to member ids, topic names and
// partition numbers.
func (p *Placement) Assignment() Assignment {
	s := p.spec
	a := make(Assignment, len(s.members))
	// One array holds every member's partition numbers.
	local := slices.Clone(p.parts)
	for i, id := range s.members {
		ps := local[p.start[i]:p.start[i+1]]
		topics := 0
		for j, last := 0, int32(-1); j < len(ps); {
			t := s.topicOf(ps[j])
			if t != last {
				topics++
				last = t
			}
			j += countBelow(ps[j:], s.offset[t+1])
		}
		m := make(map[string][]int32, topics)
		for len(ps) > 0 {
			t := s.topicOf(ps[0])
			n := countBelow(ps, s.offset[t+1])
			run := ps[:n:n]
			for j := range run {
				run[j] -= s.offset[t]
			}
			m[s.topics[t]] = run
			ps = ps[n:]
		}
		a[id] = m
	}
	return a
}

// countBelow returns how many of the ascending ps are below end.
func countBelow(ps []int32, end int32) int {
	if len(ps) == 0 || ps[len(ps)-1] < end {
		return len(ps)
	}
	n, _ := slices.BinarySearch(ps, end)
	return n
}

package assign

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
// partition numbers. Besides the map it allocates two arrays, neither
// holding pointers, that the members' MemberAssignments share; the names
// are the Spec's, which are the group's strings.
func (p *Placement) Assignment() Assignment {
	s := p.spec
	// A member has an entry per topic it got partitions of: at most one
	// per partition and one per topic it subscribes to. (Were the bound
	// short, append would move the array on.)
	entries := 0
	for i := range len(p.start) - 1 {
		entries += min(int(p.start[i+1]-p.start[i]), len(s.subs(i)))
	}
	of := &memberTopics{
		topics:  s.topics,
		entries: make([]topicEntry, 0, entries),
		parts:   make([]int32, len(p.parts)),
	}
	a := make(Assignment, len(s.members))
	for i, id := range s.members {
		first := len(of.entries)
		begin, end := p.start[i], p.start[i+1]
		for t := int32(0); begin < end; {
			var n int
			t, n = s.nextRun(p.parts[begin:end], t)
			for j := begin; j < begin+int32(n); j++ {
				of.parts[j] = p.parts[j] - s.offset[t]
			}
			begin += int32(n)
			of.entries = append(of.entries, topicEntry{t, begin})
		}
		a[id] = MemberAssignment{of, int32(first), int32(len(of.entries))}
	}
	return a
}

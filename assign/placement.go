package assign

// Placement is an assignment in a Spec's numbers: member i (in the
// group's order) has the partitions Member(i), ascending, which are also
// grouped by topic (topics are numbered in name order). It is what the
// models compute; Assignment converts it to names.
type Placement struct {
	spec  *Spec
	start []int32 // member i's partitions are parts[start[i]:start[i+1]]
	parts []int32
	local []int32 // parts numbered within their topic, if spec.local; else nil
}

// placementFromOwners builds the placement of owner (partition -> member,
// -1: nobody), which it does not keep.
func placementFromOwners(s *Spec, owner []int32) *Placement {
	// A counting sort by member: count each member's partitions, then
	// place them.
	counts := s.placementStarts(len(s.members) + 2)
	assigned := 0
	for _, m := range owner {
		if m >= 0 {
			counts[m+2]++
			assigned++
		}
	}
	return placementFromCounts(s, owner, counts, assigned)
}

// placementFromCounts is placementFromOwners for a model that knows how
// many partitions each member has (counts[m+2], from placementStarts;
// assigned in all), which saves a pass over owner.
func placementFromCounts(s *Spec, owner, counts []int32, assigned int) *Placement {
	n := len(s.members)
	// counts[m+2]'s prefix sum start[m+1] is where member m's partitions
	// begin, and filling advances it to where they end, which is where
	// m+1's begin.
	start := counts
	for i := 2; i < len(start); i++ {
		start[i] += start[i-1]
	}
	if s.local && len(owner) == int(s.total) {
		parts, local := placementArrays(assigned, true)
		local = local[:len(parts)]
		// Topic by topic, each partition's number within its topic too.
		offset := s.offset
		for t := 0; t+1 < len(offset); t++ {
			base := offset[t]
			for p, m := range owner[base:offset[t+1]] {
				if m >= 0 {
					at := start[m+1]
					parts[at], local[at] = base+int32(p), int32(p)
					start[m+1] = at + 1
				}
			}
		}
		return s.newPlacement(start[:n+1], parts, local)
	}
	parts := make([]int32, assigned)
	for gp, m := range owner {
		if m >= 0 {
			parts[start[m+1]] = int32(gp)
			start[m+1]++
		}
	}
	return s.newPlacement(start[:n+1], parts, nil)
}

// placementArrays returns a placement's array of n partition numbers
// and, if local, the array of the same partitions numbered within their
// topic, both in one allocation.
func placementArrays(n int, local bool) (parts, localParts []int32) {
	if !local {
		return make([]int32, n), nil
	}
	both := make([]int32, 2*n)
	return both[:n:n], both[n:]
}

// Spec returns the group the placement is of.
func (p *Placement) Spec() *Spec { return p.spec }

// Member returns member i's partition numbers, ascending. The slice is
// the placement's own: do not modify it.
func (p *Placement) Member(i int) []int32 { return p.parts[p.start[i]:p.start[i+1]:p.start[i+1]] }

// Owners returns the owner of each partition number (-1: nobody).
func (p *Placement) Owners() []int32 {
	owner := make([]int32, p.spec.total)
	setNobody(owner)
	for m := range len(p.start) - 1 {
		for _, gp := range p.Member(m) {
			owner[gp] = int32(m)
		}
	}
	return owner
}

// Assignment converts the placement to member ids, topic names and
// partition numbers. Besides the map it allocates one array, of the
// partitions numbered within their topic; the members' MemberAssignments
// share it, the placement's array and the Spec's names, which are the
// group's strings.
func (p *Placement) Assignment() Assignment {
	s := p.spec
	of := &memberPartitions{topics: s.topics, offset: s.offset, global: p.parts, local: p.localNumbers()}
	a := make(Assignment, len(s.members))
	for i, id := range s.members {
		a[id] = MemberAssignment{of, p.start[i], p.start[i+1]}
	}
	return a
}

// localNumbers returns the placement's partitions numbered within their
// topic: the model's, if it was asked for them (Spec.local), else
// computed.
func (p *Placement) localNumbers() []int32 {
	if p.local != nil || len(p.parts) == 0 {
		return p.local
	}
	offset := p.spec.offset
	local := make([]int32, len(p.parts))
	for i := range len(p.start) - 1 {
		begin, end := p.start[i], p.start[i+1]
		// A member's partitions ascend, so its topics do: base is the
		// first partition number of the current one, limit the next's.
		t, base, limit := 0, int32(0), int32(0)
		for j, gp := range p.parts[begin:end] {
			if gp >= limit {
				for offset[t+1] <= gp {
					t++
				}
				base, limit = offset[t], offset[t+1]
			}
			local[int(begin)+j] = gp - base
		}
	}
	return local
}

// setNobody sets every entry of owner (partition -> member) to -1,
// nobody: by doubling copies, which move many entries per instruction
// where a loop stores one.
func setNobody(owner []int32) {
	if len(owner) == 0 {
		return
	}
	owner[0] = -1
	for i := 1; i < len(owner); i *= 2 {
		copy(owner[i:], owner[:i])
	}
}

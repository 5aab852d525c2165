package assign

// rangeAssign is the classic RangeAssignor (org.apache.kafka.clients.
// consumer.RangeAssignor, without racks): topic by topic, the topic's
// subscribers in MemberInfo order (static members first by instance id,
// then by member id) get contiguous ranges of partitions; the first
// count%subscribers of them get one partition more.
func rangeAssign(s *Spec) *Placement {
	order := s.memberInfoOrder()
	nt := len(s.topics)
	// Subscribers per topic; then, walking the members in order, the size
	// of each one's range of each of its topics (which says where each
	// member's partitions go in the placement); then the ranges. A
	// member's partitions come out ascending: its topics are, and so is
	// each range.
	buf := make([]int32, 4*nt)
	quota, extra, seen, next := buf[:nt], buf[nt:2*nt], buf[2*nt:3*nt], buf[3*nt:]
	for _, c := range s.class {
		for _, t := range s.classTopics[c] {
			seen[t]++
		}
	}
	for t, n := range seen {
		quota[t], extra[t] = s.counts[t]/n, s.counts[t]%n
		seen[t] = 0
	}
	start := make([]int32, len(s.members)+1)
	for _, m := range order {
		for _, t := range s.subs(int(m)) {
			start[m+1] += quota[t]
			if seen[t] < extra[t] {
				start[m+1]++
			}
			seen[t]++
		}
	}
	for i := 1; i < len(start); i++ {
		start[i] += start[i-1]
	}
	parts := make([]int32, start[len(start)-1])
	clear(seen)
	copy(next, s.offset)
	for _, m := range order {
		at := start[m]
		for _, t := range s.subs(int(m)) {
			end := next[t] + quota[t]
			if seen[t] < extra[t] {
				end++
			}
			seen[t]++
			for gp := next[t]; gp < end; gp++ {
				parts[at] = gp
				at++
			}
			next[t] = end
		}
	}
	return &Placement{spec: s, start: start, parts: parts}
}

// consumerRangeAssign is the consumer protocol's server-side range
// assignor (org.apache.kafka.coordinator.group.assignor.RangeAssignor in
// Kafka 4.x). Members are sorted as the classic one sorts them (static
// members first by instance id, then by member id), and each topic is
// split in ranges among its subscribers with the remainder to the first:
// for a homogeneous group every member gets the same partition numbers of
// every topic of equal size (co-partitioning). Its results are the classic
// range assignor's; it is a separate strategy because it runs under the
// consumer protocol (computed by the broker, applied incrementally).
func consumerRangeAssign(s *Spec) *Placement {
	return rangeAssign(s)
}

// roundRobinAssign is the classic RoundRobinAssignor: every partition of
// every subscribed topic, topics sorted by name and partitions ascending,
// is dealt in turn to the members in MemberInfo order; a member not
// subscribed to the partition's topic is skipped (and the turn passes on).
func roundRobinAssign(s *Spec) *Placement {
	order := s.memberInfoOrder()
	owner := make([]int32, s.total)
	if len(order) == 0 {
		return placementFromOwners(s, owner[:0])
	}
	next := 0
	for t := range int32(len(s.topics)) {
		for gp := s.offset[t]; gp < s.offset[t+1]; gp++ {
			for !s.subscribes(int(order[next]), t) {
				next++
				if next == len(order) {
					next = 0
				}
			}
			owner[gp] = order[next]
			next++
			if next == len(order) {
				next = 0
			}
		}
	}
	return placementFromOwners(s, owner)
}

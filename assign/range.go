package assign

// rangeAssign is the classic RangeAssignor (org.apache.kafka.clients.
// consumer.RangeAssignor, without racks): topic by topic, the topic's
// subscribers in MemberInfo order (static members first by instance id,
// then by member id) get contiguous ranges of partitions; the first
// count%subscribers of them get one partition more.
func rangeAssign(s *Spec) *Placement {
	order := s.memberInfoOrder()
	// Subscribers per topic; then, walking the members in order, the size
	// of each one's range of each of its topics (which says where each
	// member's partitions go in the placement); then the ranges. A
	// member's partitions come out ascending: its topics are, and so is
	// each range.
	topics := make([]rangeTopic, len(s.topics))
	// Members per class, then per topic (members mostly share a few
	// classes).
	members := make([]int32, len(s.classTopics))
	for _, c := range s.class {
		members[c]++
	}
	for c, n := range members {
		for _, t := range s.classTopics[c] {
			topics[t].seen += n
		}
	}
	for t := range topics {
		r := &topics[t]
		r.quota, r.extra, r.seen, r.next = s.counts[t]/r.seen, s.counts[t]%r.seen, 0, s.offset[t]
	}
	start := s.placementStarts(len(s.members) + 1)
	for _, m := range order {
		size := int32(0)
		for _, t := range s.subs(int(m)) {
			size += topics[t].take()
		}
		start[m+1] = size
	}
	for i := 1; i < len(start); i++ {
		start[i] += start[i-1]
	}
	parts, local := placementArrays(int(start[len(start)-1]), s.local)
	for t := range topics {
		topics[t].seen = 0
	}
	for _, m := range order {
		at := start[m]
		for _, t := range s.subs(int(m)) {
			r := &topics[t]
			end := r.next + r.take()
			if local == nil {
				for gp := r.next; gp < end; gp++ {
					parts[at] = gp
					at++
				}
			} else {
				for gp, lp := r.next, r.next-s.offset[t]; gp < end; gp, lp = gp+1, lp+1 {
					parts[at], local[at] = gp, lp
					at++
				}
			}
			r.next = end
		}
	}
	return s.newPlacement(start, parts, local)
}

// rangeTopic is a topic as the range assignor splits it among its
// subscribers: quota partitions each, one more for the first extra.
type rangeTopic struct {
	quota, extra int32
	seen         int32 // subscribers that took their range
	next         int32 // the first partition number not taken
}

// take returns the size of the next subscriber's range.
func (r *rangeTopic) take() int32 {
	n := r.quota
	if r.seen < r.extra {
		n++
	}
	r.seen++
	return n
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

package assign

// rangeAssign is the classic RangeAssignor (org.apache.kafka.clients.
// consumer.RangeAssignor, without racks): topic by topic, the topic's
// subscribers in MemberInfo order (static members first by instance id,
// then by member id) get contiguous ranges of partitions; the first
// count%subscribers of them get one partition more.
func rangeAssign(l *layout) [][]int32 {
	per := make([][]int32, len(l.members))
	byTopic := make([][]int, len(l.topics))
	for _, m := range l.memberInfoOrder() {
		for _, t := range l.subs[m] {
			byTopic[t] = append(byTopic[t], m)
		}
	}
	for t, members := range byTopic {
		rangeTopic(l, t, members, per)
	}
	return per
}

// rangeTopic gives topic t's partitions to members (already in order):
// count/len(members) each, one more to the first count%len(members).
func rangeTopic(l *layout, t int, members []int, per [][]int32) {
	n := int32(len(members))
	quota, extra := l.counts[t]/n, l.counts[t]%n
	start := l.offset[t]
	for i, m := range members {
		size := quota
		if int32(i) < extra {
			size++
		}
		for p := start; p < start+size; p++ {
			per[m] = append(per[m], p)
		}
		start += size
	}
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
func consumerRangeAssign(l *layout) [][]int32 {
	return rangeAssign(l)
}

// roundRobinAssign is the classic RoundRobinAssignor: every partition of
// every subscribed topic, topics sorted by name and partitions ascending,
// is dealt in turn to the members in MemberInfo order; a member not
// subscribed to the partition's topic is skipped (and the turn passes on).
func roundRobinAssign(l *layout) [][]int32 {
	per := make([][]int32, len(l.members))
	order := l.memberInfoOrder()
	if len(order) == 0 {
		return per
	}
	next := 0
	for t := range l.topics {
		for p := l.offset[t]; p < l.offset[t]+l.counts[t]; p++ {
			for !l.subscribes(order[next], t) {
				next = (next + 1) % len(order)
			}
			per[order[next]] = append(per[order[next]], p)
			next = (next + 1) % len(order)
		}
	}
	return per
}

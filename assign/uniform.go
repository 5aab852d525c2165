package assign

import (
	"cmp"
	"slices"
)

// uniformAssign is the consumer protocol's server-side uniform assignor
// (org.apache.kafka.coordinator.group.assignor.UniformAssignor, Kafka 4.x):
// balance first (counts differ by at most one where subscriptions allow),
// then stickiness. A homogeneous group (every member subscribes to the
// same topics) takes the homogeneous builder, any other group the
// heterogeneous one.
//
// The broker iterates members and topics in the order of its hash maps,
// keyed by member ids and topic ids (random UUIDs); the model iterates
// members by member id and topics by name. With the same order (as
// assign/javabench arranges it) the results are identical; on a live
// broker, which member gets the one extra partition may differ, the counts
// and the movement bounds do not.
func uniformAssign(l *layout) [][]int32 {
	order := l.allMembers()
	slices.SortFunc(order, func(x, y int) int { return cmp.Compare(l.members[x], l.members[y]) })
	if allSubscriptionsEqual(l, order) {
		return uniformHomogeneous(l, order)
	}
	return newUniformHeterogeneous(l, order).build()
}

// uniformHomogeneous is UniformHomogeneousAssignmentBuilder (as of Kafka
// 4.4): every member has a quota of total/members, and total%members of
// them one more. In member order, each keeps its owned partitions up to
// its quota (topics by name, partitions ascending); a member that takes an
// extra slot but cannot fill it from what it owns gives it back while
// enough members follow to take it. Members below quota are then filled,
// in member order, from the partitions nobody kept (unowned ones first, in
// topic and partition order, then the revoked ones).
func uniformHomogeneous(l *layout, order []int) [][]int32 {
	per := make([][]int32, len(l.members))
	n := len(order)
	if n == 0 || len(l.topics) == 0 {
		return per
	}
	owned := make([]bool, l.total)
	for _, ps := range l.owned {
		for _, gp := range ps {
			owned[gp] = true
		}
	}
	var unassigned []int32
	for gp := int32(0); gp < l.total; gp++ {
		if !owned[gp] {
			unassigned = append(unassigned, gp)
		}
	}
	minQuota, extra := int(l.total)/n, int(l.total)%n
	type unfilled struct{ member, remaining int }
	var short []unfilled
	for i, m := range order {
		quota := minQuota
		hasExtra := extra > 0
		if hasExtra {
			quota++
		}
		ps := slices.Clone(l.owned[m])
		slices.Sort(ps) // topics by name, partitions ascending
		for len(ps) > 0 {
			t := l.topicOf(ps[0])
			end := 1
			for end < len(ps) && l.topicOf(ps[end]) == t {
				end++
			}
			topic := ps[:end]
			ps = ps[end:]
			if len(topic) <= quota {
				quota -= len(topic)
				per[m] = append(per[m], topic...)
				continue
			}
			per[m] = append(per[m], topic[:quota]...)
			unassigned = append(unassigned, topic[quota:]...)
			quota = 0
		}
		// A member that cannot fill its extra slot from what it owns
		// gives the slot up while enough members follow to take it: the
		// extra partitions go to members that already own them.
		if quota > 0 && hasExtra && n-i > extra {
			quota--
			hasExtra = false
		}
		if quota > 0 {
			short = append(short, unfilled{m, quota})
		}
		if hasExtra {
			extra--
		}
	}
	next := 0
	for _, u := range short {
		for i := 0; i < u.remaining && next < len(unassigned); i++ {
			per[u.member] = append(per[u.member], unassigned[next])
			next++
		}
	}
	return per
}

// uniformHeterogeneous is UniformHeterogeneousAssignmentBuilder: members
// keep every owned partition they still subscribe to; unassigned
// partitions go topic by topic (topics with the most partitions per
// subscriber first) to the least loaded subscribers; then, up to 16
// passes over the topics, partitions move from the most to the least
// loaded subscribers of each topic until no topic can improve.
type uniformHeterogeneous struct {
	l           *layout
	members     []int   // member order; a member's index is its position here
	subscribers [][]int // topic -> member indices (ascending)
	size        []int   // member index -> partitions in the target
	owner       []int   // partition -> member index, -1: none
}

func newUniformHeterogeneous(l *layout, order []int) *uniformHeterogeneous {
	u := &uniformHeterogeneous{
		l:           l,
		members:     order,
		subscribers: make([][]int, len(l.topics)),
		size:        make([]int, len(order)),
		owner:       make([]int, l.total),
	}
	for i, m := range order {
		for _, t := range l.subs[m] {
			u.subscribers[t] = append(u.subscribers[t], i)
		}
	}
	for i := range u.owner {
		u.owner[i] = -1
	}
	return u
}

// topicOrder is the builder's topic comparator: more partitions per
// subscriber first, then fewer subscribers, then topic id (here: name).
func (u *uniformHeterogeneous) topicOrder(x, y int) int {
	rx := float64(u.l.counts[x]) / float64(len(u.subscribers[x]))
	ry := float64(u.l.counts[y]) / float64(len(u.subscribers[y]))
	if c := cmp.Compare(ry, rx); c != 0 {
		return c
	}
	if c := cmp.Compare(len(u.subscribers[x]), len(u.subscribers[y])); c != 0 {
		return c
	}
	return cmp.Compare(x, y)
}

func (u *uniformHeterogeneous) build() [][]int32 {
	l := u.l
	for i, m := range u.members {
		for _, gp := range l.owned[m] {
			if l.subscribes(m, l.topicOf(gp)) {
				u.owner[gp] = i
				u.size[i]++
			}
		}
	}
	// Assign what nobody kept.
	var topics []int
	unassigned := make([][]int32, len(l.topics))
	for t := range l.topics {
		for gp := l.offset[t]; gp < l.offset[t]+l.counts[t]; gp++ {
			if u.owner[gp] < 0 {
				unassigned[t] = append(unassigned[t], gp)
			}
		}
		if len(unassigned[t]) > 0 {
			topics = append(topics, t)
		}
	}
	slices.SortFunc(topics, u.topicOrder)
	var b balancer
	b.size = u.size
	for _, t := range topics {
		b.init(u.subscribers[t])
		for _, gp := range unassigned[t] {
			u.move(gp, b.nextLeastLoaded())
		}
	}
	// Balance topics with two or more subscribers.
	topics = topics[:0]
	for t := range l.topics {
		if len(u.subscribers[t]) >= 2 {
			topics = append(topics, t)
		}
	}
	slices.SortFunc(topics, u.topicOrder)
	if len(topics) > 0 {
		u.balanceTopics(topics, &b)
	}
	per := make([][]int32, len(l.members))
	for gp, i := range u.owner {
		if i >= 0 {
			per[u.members[i]] = append(per[u.members[i]], int32(gp))
		}
	}
	return per
}

func (u *uniformHeterogeneous) move(gp int32, to int) {
	if from := u.owner[gp]; from >= 0 {
		u.size[from]--
	}
	u.owner[gp] = to
	u.size[to]++
}

const uniformMaxPasses = 16

func (u *uniformHeterogeneous) balanceTopics(topics []int, b *balancer) {
	last := -1
	for range uniformMaxPasses {
		for i, t := range topics {
			if i == last {
				return
			}
			if u.balanceTopic(t, b) > 0 || last == -1 {
				last = i
			}
		}
	}
}

// balanceTopic moves partitions of topic t from its most loaded
// subscribers to its least loaded ones and returns how many moved.
func (u *uniformHeterogeneous) balanceTopic(t int, b *balancer) int {
	if b.init(u.subscribers[t]) <= 1 {
		return 0
	}
	l := u.l
	parts := make([]int32, 0, l.counts[t])
	for gp := l.offset[t]; gp < l.offset[t]+l.counts[t]; gp++ {
		parts = append(parts, gp)
	}
	slices.SortFunc(parts, func(x, y int32) int {
		if c := cmp.Compare(u.owner[x], u.owner[y]); c != 0 {
			return c
		}
		return cmp.Compare(x, y)
	})
	// Each owner's partitions are parts[start[i]:end[i]].
	start := make(map[int]int)
	end := make(map[int]int)
	for i, gp := range parts {
		o := u.owner[gp]
		if _, ok := start[o]; !ok {
			start[o] = i
		}
		end[o] = i + 1
	}
	moved := 0
	for !b.balanced() {
		most := -1
		for {
			most = b.nextMostLoaded()
			if most == -1 {
				break
			}
			if e, ok := end[most]; !ok || e-start[most] <= 0 {
				b.excludeMostLoaded()
				continue
			}
			break
		}
		if most == -1 {
			break
		}
		end[most]--
		gp := parts[end[most]]
		least := b.nextLeastLoaded()
		if b.balanced() {
			break
		}
		u.move(gp, least)
		moved++
	}
	return moved
}

// balancer is the builder's MemberAssignmentBalancer: it walks the
// subscribers of a topic from the least loaded up (round robin within a
// load level, one level at a time) and from the most loaded down, reading
// the live sizes, so that giving a partition to the member it returns
// keeps the walk right.
type balancer struct {
	size        []int // shared with the builder
	sorted      []int
	leastEnd    int // exclusive
	leastCount  int
	nextLeast   int
	mostStart   int // inclusive
	mostEnd     int // exclusive
	mostCount   int
	nextMostIdx int
}

// init starts a walk over members and returns the spread of their sizes.
func (b *balancer) init(members []int) int {
	b.sorted = append(b.sorted[:0], members...)
	slices.SortFunc(b.sorted, func(x, y int) int {
		if c := cmp.Compare(b.size[x], b.size[y]); c != 0 {
			return c
		}
		return cmp.Compare(x, y)
	})
	n := len(b.sorted)
	b.leastEnd = 0
	b.leastCount = b.size[b.sorted[0]] - 1
	b.nextLeast = 0
	b.mostStart, b.mostEnd = n, n
	b.mostCount = b.size[b.sorted[n-1]] + 1
	b.nextMostIdx = n - 1
	return b.size[b.sorted[n-1]] - b.size[b.sorted[0]]
}

func (b *balancer) nextLeastLoaded() int {
	if b.nextLeast >= b.leastEnd {
		b.leastCount++
		for b.leastEnd < len(b.sorted) && b.size[b.sorted[b.leastEnd]] == b.leastCount {
			b.leastEnd++
		}
		b.nextLeast = 0
	}
	m := b.sorted[b.nextLeast]
	b.nextLeast++
	return m
}

func (b *balancer) nextMostLoaded() int {
	if b.nextMostIdx < b.mostStart {
		if b.mostEnd <= b.mostStart && b.mostStart > 0 {
			b.mostCount = b.size[b.sorted[b.mostStart-1]]
		} else {
			b.mostCount--
		}
		for b.mostStart > 0 && b.size[b.sorted[b.mostStart-1]] == b.mostCount {
			b.mostStart--
		}
		b.nextMostIdx = b.mostEnd - 1
	}
	if b.nextMostIdx < 0 {
		return -1
	}
	m := b.sorted[b.nextMostIdx]
	b.nextMostIdx--
	return m
}

// excludeMostLoaded drops the member nextMostLoaded last returned from the
// walk (it has nothing of the topic to give).
func (b *balancer) excludeMostLoaded() {
	i := b.nextMostIdx + 1
	b.sorted[i], b.sorted[b.mostEnd-1] = b.sorted[b.mostEnd-1], b.sorted[i]
	b.mostEnd--
}

func (b *balancer) balanced() bool { return b.mostCount-b.leastCount <= 1 }

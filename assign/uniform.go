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
func uniformAssign(s *Spec) *Placement {
	order := s.sortedByID()
	if s.homogeneous {
		return uniformHomogeneous(s, order)
	}
	return newUniformHeterogeneous(s, order).build()
}

// uniformHomogeneous is UniformHomogeneousAssignmentBuilder (as of Kafka
// 4.4): every member has a quota of total/members, and total%members of
// them one more. In member order, each keeps its owned partitions up to
// its quota (topics by name, partitions ascending); a member that takes an
// extra slot but cannot fill it from what it owns gives it back while
// enough members follow to take it. Members below quota are then filled,
// in member order, from the partitions nobody kept (unowned ones first, in
// topic and partition order, then the revoked ones).
func uniformHomogeneous(s *Spec, order []int32) *Placement {
	ownerBuf := getInts(int(s.total))
	defer putInts(ownerBuf)
	owner := *ownerBuf
	n := len(order)
	if n == 0 || len(s.topics) == 0 {
		return placementFromOwners(s, owner[:0])
	}
	setNobody(owner)
	// The partitions nobody owned, then (appended below) the revoked ones:
	// each partition once at most.
	unassignedBuf := getInts(int(s.total))
	defer putInts(unassignedBuf)
	unassigned := (*unassignedBuf)[:0]
	if prev := s.owner; prev != nil {
		for gp, m := range prev {
			if m < 0 {
				unassigned = append(unassigned, int32(gp))
			}
		}
	} else {
		// Without the previous owners precomputed, the owned partitions
		// are marked in owner, where the members' kept partitions and the
		// fill below overwrite them: one pass over them all, where
		// computing the owners would take a pass and an array more.
		if s.ownedStart != nil {
			for _, gp := range s.ownedParts[:s.ownedStart[len(s.members)]] {
				owner[gp] = ownedBefore
			}
		}
		for gp, m := range owner {
			if m == -1 {
				unassigned = append(unassigned, int32(gp))
			}
		}
	}
	minQuota, extra := int(s.total)/n, int(s.total)%n
	type unfilled struct{ member, remaining int32 }
	var short []unfilled
	// Each member ends with its quota (the placement's counts).
	counts := s.placementStarts(len(s.members) + 2)
	for i, m := range order {
		quota := minQuota
		hasExtra := extra > 0
		if hasExtra {
			quota++
		}
		full := quota
		ps := s.owned(int(m)) // ascending: topics by name, partitions ascending
		if len(ps) <= quota {
			// It keeps them all (as the walk below would).
			for _, gp := range ps {
				owner[gp] = m
			}
			quota -= len(ps)
		} else {
			// It keeps up to its quota, topic by topic.
			for t := int32(0); len(ps) > 0; {
				var n int
				t, n = s.nextRun(ps, t)
				topic := ps[:n]
				ps = ps[n:]
				keep := min(len(topic), quota)
				for _, gp := range topic[:keep] {
					owner[gp] = m
				}
				unassigned = append(unassigned, topic[keep:]...)
				quota -= keep
			}
		}

		// A member that cannot fill its extra slot from what it owns
		// gives the slot up while enough members follow to take it: the
		// extra partitions go to members that already own them.
		if quota > 0 && hasExtra && n-i > extra {
			quota--
			full--
			hasExtra = false
		}
		if quota > 0 {
			short = append(short, unfilled{m, int32(quota)})
		}
		if hasExtra {
			extra--
		}
		counts[m+2] = int32(full)
	}
	need := 0
	for _, u := range short {
		need += int(u.remaining)
	}
	next := 0
	for _, u := range short {
		for i := int32(0); i < u.remaining && next < len(unassigned); i++ {
			owner[unassigned[next]] = u.member
			next++
		}
	}
	if need != len(unassigned) {
		// Not in a homogeneous group, where the quotas add up to the
		// partitions: count what each member has (ownedBefore is none).
		return placementFromOwners(s, owner)
	}
	return placementFromCounts(s, owner, counts, int(s.total))
}

// ownedBefore marks, in uniformHomogeneous's owner array, a partition
// that some member owned and that no member has yet: like -1, nobody.
const ownedBefore = -2

// uniformHeterogeneous is UniformHeterogeneousAssignmentBuilder: members
// keep every owned partition they still subscribe to; unassigned
// partitions go topic by topic (topics with the most partitions per
// subscriber first) to the least loaded subscribers; then, up to 16
// passes over the topics, partitions move from the most to the least
// loaded subscribers of each topic until no topic can improve.
type uniformHeterogeneous struct {
	s           *Spec
	members     []int32 // member order; a member's index is its position here
	subscribers [][]int // topic -> member indices (ascending)
	size        []int   // member index -> partitions in the target
	owner       []int32 // partition -> member index, -1: none
	// balanceTopic's buffers: a topic's partitions by owner, and where
	// each member index's run of them begins and ends.
	parts      []int32
	start, end []int
}

func newUniformHeterogeneous(s *Spec, order []int32) *uniformHeterogeneous {
	n := len(order)
	u := &uniformHeterogeneous{
		s:           s,
		members:     order,
		subscribers: make([][]int, len(s.topics)),
		size:        make([]int, n),
		owner:       make([]int32, s.total),
		start:       make([]int, n),
		end:         make([]int, n),
	}
	// The subscribers of all topics in one array.
	perTopic := make([]int, len(s.topics))
	total := 0
	for _, m := range order {
		for _, t := range s.subs(int(m)) {
			perTopic[t]++
			total++
		}
	}
	flat := make([]int, 0, total)
	for t, k := range perTopic {
		u.subscribers[t] = flat[len(flat) : len(flat) : len(flat)+k]
		flat = flat[:len(flat)+k]
	}
	for i, m := range order {
		for _, t := range s.subs(int(m)) {
			u.subscribers[t] = append(u.subscribers[t], i)
		}
	}
	setNobody(u.owner)
	return u
}

// topicOrder is the builder's topic comparator: more partitions per
// subscriber first, then fewer subscribers, then topic id (here: name).
func (u *uniformHeterogeneous) topicOrder(x, y int32) int {
	rx := float64(u.s.counts[x]) / float64(len(u.subscribers[x]))
	ry := float64(u.s.counts[y]) / float64(len(u.subscribers[y]))
	if c := cmp.Compare(ry, rx); c != 0 {
		return c
	}
	if c := cmp.Compare(len(u.subscribers[x]), len(u.subscribers[y])); c != 0 {
		return c
	}
	return cmp.Compare(x, y)
}

func (u *uniformHeterogeneous) build() *Placement {
	s := u.s
	for i, m := range u.members {
		ps := s.owned(int(m))
		for t := int32(0); len(ps) > 0; {
			var n int
			t, n = s.nextRun(ps, t)
			run := ps[:n]
			ps = ps[n:]
			if !s.subscribes(int(m), t) {
				continue
			}
			for _, gp := range run {
				u.owner[gp] = int32(i)
			}
			u.size[i] += len(run)
		}
	}
	// Assign what nobody kept, topic by topic.
	var topics []int32
	for t := range int32(len(s.topics)) {
		if slices.Contains(u.owner[s.offset[t]:s.offset[t+1]], -1) {
			topics = append(topics, t)
		}
	}
	slices.SortFunc(topics, u.topicOrder)
	var b balancer
	b.size = u.size
	for _, t := range topics {
		b.init(u.subscribers[t])
		for gp := s.offset[t]; gp < s.offset[t+1]; gp++ {
			if u.owner[gp] < 0 {
				u.move(gp, b.nextLeastLoaded())
			}
		}
	}
	// Balance topics with two or more subscribers.
	topics = topics[:0]
	for t := range int32(len(s.topics)) {
		if len(u.subscribers[t]) >= 2 {
			topics = append(topics, t)
		}
	}
	slices.SortFunc(topics, u.topicOrder)
	if len(topics) > 0 {
		u.balanceTopics(topics, &b)
	}
	// Member indices back to members.
	for gp, i := range u.owner {
		if i >= 0 {
			u.owner[gp] = u.members[i]
		}
	}
	return placementFromOwners(s, u.owner)
}

func (u *uniformHeterogeneous) move(gp int32, to int) {
	if from := u.owner[gp]; from >= 0 {
		u.size[from]--
	}
	u.owner[gp] = int32(to)
	u.size[to]++
}

const uniformMaxPasses = 16

func (u *uniformHeterogeneous) balanceTopics(topics []int32, b *balancer) {
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
func (u *uniformHeterogeneous) balanceTopic(t int32, b *balancer) int {
	subscribers := u.subscribers[t]
	if b.init(subscribers) <= 1 {
		return 0
	}
	s := u.s
	// The topic's partitions sorted by owner, then number (a counting
	// sort: every partition of t is owned by one of its subscribers).
	// Owner i's partitions are parts[start[i]:end[i]].
	for _, i := range subscribers {
		u.end[i] = 0
	}
	first, last := s.offset[t], s.offset[t+1]
	for _, o := range u.owner[first:last] {
		u.end[o]++
	}
	pos := 0
	for _, i := range subscribers {
		u.start[i] = pos
		pos, u.end[i] = pos+u.end[i], pos
	}
	u.parts = slices.Grow(u.parts[:0], int(last-first))[:last-first]
	for gp := first; gp < last; gp++ {
		o := u.owner[gp]
		u.parts[u.end[o]] = gp
		u.end[o]++
	}
	moved := 0
	for !b.balanced() {
		most := -1
		for {
			most = b.nextMostLoaded()
			if most == -1 {
				break
			}
			if u.end[most]-u.start[most] <= 0 {
				b.excludeMostLoaded()
				continue
			}
			break
		}
		if most == -1 {
			break
		}
		u.end[most]--
		gp := u.parts[u.end[most]]
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
	counts      []int // sortBySize's buffer
	leastEnd    int   // exclusive
	leastCount  int
	nextLeast   int
	mostStart   int // inclusive
	mostEnd     int // exclusive
	mostCount   int
	nextMostIdx int
}

// init starts a walk over members and returns the spread of their sizes.
// init starts a walk over members (ascending) and returns the spread of
// their sizes.
func (b *balancer) init(members []int) int {
	b.sortBySize(members)
	n := len(b.sorted)
	b.leastEnd = 0
	b.leastCount = b.size[b.sorted[0]] - 1
	b.nextLeast = 0
	b.mostStart, b.mostEnd = n, n
	b.mostCount = b.size[b.sorted[n-1]] + 1
	b.nextMostIdx = n - 1
	return b.size[b.sorted[n-1]] - b.size[b.sorted[0]]
}

// sortBySize sets sorted to members (ascending) sorted by size, then
// member index: a counting sort by size, which keeps the members' order
// within a size, when sizes span few values (they differ by little once
// assigned); a comparison sort otherwise.
func (b *balancer) sortBySize(members []int) {
	lo, hi := b.size[members[0]], b.size[members[0]]
	for _, m := range members[1:] {
		lo, hi = min(lo, b.size[m]), max(hi, b.size[m])
	}
	b.sorted = slices.Grow(b.sorted[:0], len(members))[:len(members)]
	if span := hi - lo + 1; span <= 2*len(members)+64 {
		b.counts = slices.Grow(b.counts[:0], span+1)[:span+1]
		clear(b.counts)
		for _, m := range members {
			b.counts[b.size[m]-lo+1]++
		}
		for i := 1; i <= span; i++ {
			b.counts[i] += b.counts[i-1]
		}
		for _, m := range members {
			k := b.size[m] - lo
			b.sorted[b.counts[k]] = m
			b.counts[k]++
		}
		return
	}
	copy(b.sorted, members)
	slices.SortFunc(b.sorted, func(x, y int) int {
		if c := cmp.Compare(b.size[x], b.size[y]); c != 0 {
			return c
		}
		return cmp.Compare(x, y)
	})
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

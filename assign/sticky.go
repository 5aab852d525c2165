package assign

import (
	"cmp"
	"slices"
)

// The sticky assignors follow Kafka's AbstractStickyAssignor (the Java
// client's StickyAssignor and CooperativeStickyAssignor share it), without
// racks. Its two goals, in this order: balance (partition counts differ by
// at most one, or a member with two or more fewer partitions than another
// cannot take any of that member's partitions because it does not
// subscribe to their topics), then stickiness (keep what each member
// owned). When every member subscribes to the same topics it runs the
// constrained builder (quotas, then round robin of the rest); otherwise the
// general builder (keep, assign to the least loaded, then move partitions
// from the most to the least loaded until balanced).
//
// Every member's owned partitions are taken to be of the same generation,
// as they are after a clean rebalance; Kafka's handling of claims from
// older generations is not modelled (Group.Validate rejects a partition
// with two owners).

// stickyAssign returns the sticky assignment.
func stickyAssign(s *Spec) *Placement { return placementFromOwners(s, stickyOwners(s)) }

// stickyOwners returns the owner of each partition in the sticky
// assignment.
func stickyOwners(s *Spec) []int32 {
	order := javaHashMapOrder(s.members)
	if s.homogeneous {
		return newConstrained(s, order).build()
	}
	return newGeneral(s, order).build()
}

// constrained is AbstractStickyAssignor's ConstrainedAssignmentBuilder.
type constrained struct {
	s        *Spec
	order    []int32 // members in the leader's HashMap order
	minQuota int
	maxQuota int
	expected int // members that get maxQuota
	current  int
	count    []int   // member -> partitions assigned
	owner    []int32 // partition -> member, -1: none yet
	underMin []int32 // unfilled members below minQuota
	exactMin []int32 // members at minQuota that may take one more
	// byPartitionThenTopic's buffers
	sortedBuf  []int64
	orderedBuf []int32
}

func newConstrained(s *Spec, order []int32) *constrained {
	n := len(s.members)
	b := &constrained{
		s:        s,
		order:    order,
		minQuota: int(s.total) / n,
		maxQuota: (int(s.total) + n - 1) / n,
		expected: int(s.total) % n,
		count:    make([]int, n),
		owner:    make([]int32, s.total),
	}
	setNobody(b.owner)
	return b
}

// build returns the owner of each partition.
func (b *constrained) build() []int32 {
	s := b.s
	// Keep owned partitions up to the quotas, in the leader's order.
	for _, m := range b.order {
		owned := b.byPartitionThenTopic(s.owned(int(m)))
		switch {
		case len(owned) < b.minQuota:
			b.keep(m, owned)
			b.underMin = append(b.underMin, m)
		case len(owned) >= b.maxQuota && b.current < b.expected:
			b.current++
			if b.current == b.expected {
				b.exactMin = b.exactMin[:0]
			}
			b.keep(m, owned[:b.maxQuota])
		default:
			b.keep(m, owned[:b.minQuota])
			if b.current < b.expected {
				b.exactMin = append(b.exactMin, m)
			}
		}
	}
	sortByKey(b.underMin, s.members)
	sortByKey(b.exactMin, s.members)

	// Round robin the rest: first up to minQuota, then one more each to
	// the members at minQuota until the expected number is at maxQuota.
	// underMin and next mirror Kafka's java.util.Iterator over an
	// ArrayList of the members below minQuota, which it removes from as
	// they reach it: next is the index of the element returned next, and
	// removed members are marked -1 and dropped when the iterator starts
	// over (one pass over the list per round instead of a shift per
	// removal).
	under, live, next := b.underMin, len(b.underMin), 0
	for gp := int32(0); gp < s.total; gp++ {
		if b.owner[gp] >= 0 {
			continue
		}
		for next < len(under) && under[next] < 0 {
			next++
		}
		var m int32
		at := -1 // m's index in under, if it came from there
		switch {
		case next < len(under):
			m, at = under[next], next
			next++
		case live == 0 && len(b.exactMin) == 0:
			panic("assign: sticky: no member can take another partition") // unreachable for a valid group
		case live == 0:
			m = b.exactMin[0]
			b.exactMin = b.exactMin[1:]
		default:
			under = slices.DeleteFunc(under, func(m int32) bool { return m < 0 })
			m, at = under[0], 0
			next = 1
		}
		b.owner[gp] = m
		b.count[m]++
		switch b.count[m] {
		case b.minQuota:
			if at >= 0 {
				under[at] = -1
				live--
			}
			b.exactMin = append(b.exactMin, m)
		case b.maxQuota:
			b.current++
		}
	}
	return b.owner
}

// byPartitionThenTopic returns owned (ascending partition numbers) in
// the order Kafka sorts a member's owned partitions: by partition, then
// topic. The result is valid until the next call.
func (b *constrained) byPartitionThenTopic(owned []int32) []int32 {
	s := b.s
	keys := b.sortedBuf[:0]
	for t := int32(0); len(owned) > 0; {
		var n int
		t, n = s.nextRun(owned, t)
		run := owned[:n]
		owned = owned[n:]
		for _, gp := range run {
			keys = append(keys, int64(gp-s.offset[t])<<32|int64(t))
		}
	}
	if len(keys) > 1 && s.offset[1] < s.total {
		slices.Sort(keys) // several topics: interleave them by partition
	}
	out := b.orderedBuf[:0]
	for _, k := range keys {
		t := int32(k)
		out = append(out, s.offset[t]+int32(k>>32))
	}
	b.sortedBuf, b.orderedBuf = keys, out
	return out
}

func (b *constrained) keep(m int32, ps []int32) {
	b.count[m] += len(ps)
	for _, gp := range ps {
		b.owner[gp] = m
	}
}

// general is AbstractStickyAssignor's GeneralAssignmentBuilder (without
// racks and without previous generations).
type general struct {
	s          *Spec
	order      []int32
	rank       []int     // member -> rank of its id in sorted order
	potential  [][]int   // topic -> members subscribed (leader's order)
	assignment [][]int32 // member -> partitions (nil when fixed)
	count      []int
	owner      []int32
	maxSize    []int
	sorted     []int // members by (count, id): Java's sortedCurrentSubscriptions
	moves      movements
	revocation bool
	fixed      []bool
	// cached is balanced()'s last answer, valid until counts change.
	cached      bool
	cachedValid bool
}

func newGeneral(s *Spec, order []int32) *general {
	n := len(s.members)
	b := &general{
		s:          s,
		order:      order,
		rank:       make([]int, n),
		potential:  make([][]int, len(s.topics)),
		assignment: make([][]int32, n),
		count:      make([]int, n),
		owner:      make([]int32, s.total),
		maxSize:    make([]int, n),
		fixed:      make([]bool, n),
	}
	for r, m := range s.sortedByID() {
		b.rank[m] = r
	}
	for _, m := range order {
		for _, t := range s.subs(int(m)) {
			b.potential[t] = append(b.potential[t], int(m))
			b.maxSize[m] += int(s.counts[t])
		}
	}
	setNobody(b.owner)
	b.moves.init(s)
	return b
}

func (b *general) less(x, y int) int {
	if c := cmp.Compare(b.count[x], b.count[y]); c != 0 {
		return c
	}
	return cmp.Compare(b.rank[x], b.rank[y])
}

func (b *general) insertSorted(m int) {
	i, _ := slices.BinarySearchFunc(b.sorted, m, b.less)
	b.sorted = slices.Insert(b.sorted, i, m)
}

func (b *general) removeSorted(m int) {
	i, found := slices.BinarySearchFunc(b.sorted, m, b.less)
	if found {
		b.sorted = slices.Delete(b.sorted, i, i+1)
	}
}

func (b *general) add(m int, gp int32) {
	b.cachedValid = false
	b.assignment[m] = append(b.assignment[m], gp)
	b.count[m]++
	b.owner[gp] = int32(m)
}

func (b *general) drop(m int, gp int32) {
	b.cachedValid = false
	ps := b.assignment[m]
	i := slices.Index(ps, gp)
	b.assignment[m] = slices.Delete(ps, i, i+1)
	b.count[m]--
}

// topicOrder sorts topics by their number of potential members, then name.
func (b *general) partitionOrder() []int32 {
	topics := make([]int, len(b.s.topics))
	for i := range topics {
		topics[i] = i
	}
	slices.SortStableFunc(topics, func(x, y int) int { return cmp.Compare(len(b.potential[x]), len(b.potential[y])) })
	var out []int32
	for _, t := range topics {
		if len(b.potential[t]) == 0 {
			continue // no member subscribes: not part of the assignment
		}
		for p := b.s.offset[t]; p < b.s.offset[t+1]; p++ {
			out = append(out, p)
		}
	}
	return out
}

// build returns the owner of each partition.
func (b *general) build() []int32 {
	s := b.s
	// Keep what members own and still subscribe to.
	for m := range len(s.members) {
		for _, gp := range s.owned(int(m)) {
			if !s.subscribes(m, s.topicOf(gp)) {
				b.revocation = true
				continue
			}
			b.add(m, gp)
		}
	}
	all := b.partitionOrder()
	var unassigned []int32
	for _, gp := range all {
		if b.owner[gp] < 0 {
			unassigned = append(unassigned, gp)
		}
	}
	for m := range len(s.members) {
		b.sorted = append(b.sorted, m)
	}
	slices.SortFunc(b.sorted, b.less)
	initializing := b.count[b.sorted[len(b.sorted)-1]] == 0

	// Give each unassigned partition to the least loaded subscriber.
	for _, gp := range unassigned {
		b.assignToLeastLoaded(gp)
	}

	// Only topics with two or more subscribers, and members that can
	// still change, take part in the reassignment.
	movable := func(gp int32) bool { return len(b.potential[s.topicOf(gp)]) >= 2 }
	all = slices.DeleteFunc(all, func(gp int32) bool { return !movable(gp) })
	unassigned = slices.DeleteFunc(unassigned, func(gp int32) bool { return !movable(gp) })
	for m := range len(s.members) {
		if b.count[m] < b.maxSize[m] {
			continue
		}
		if slices.ContainsFunc(b.assignment[m], movable) {
			continue
		}
		b.fixed[m] = true
		b.removeSorted(m)
	}

	before := b.snapshot()
	if !b.revocation {
		b.reassign(unassigned)
	}
	performed := b.reassign(all)
	if !initializing && performed && b.balanceScore() >= before.score {
		b.restore(before)
	}
	return b.owner
}

func (b *general) assignToLeastLoaded(gp int32) {
	t := b.s.topicOf(gp)
	for _, m := range b.sorted {
		if b.s.subscribes(m, t) {
			b.removeSorted(m)
			b.add(m, gp)
			b.insertSorted(m)
			return
		}
	}
}

type generalSnapshot struct {
	assignment [][]int32
	count      []int
	owner      []int32
	sorted     []int
	score      int64
}

func (b *general) snapshot() generalSnapshot {
	s := generalSnapshot{
		assignment: make([][]int32, len(b.assignment)),
		count:      slices.Clone(b.count),
		owner:      slices.Clone(b.owner),
		sorted:     slices.Clone(b.sorted),
		score:      b.balanceScore(),
	}
	for m, ps := range b.assignment {
		s.assignment[m] = slices.Clone(ps)
	}
	return s
}

func (b *general) restore(s generalSnapshot) {
	b.assignment, b.count, b.owner, b.sorted = s.assignment, s.count, s.owner, s.sorted
	b.cachedValid = false
}

// balanceScore is the sum over pairs of members (not fixed) of the
// difference of their partition counts.
func (b *general) balanceScore() int64 {
	counts := make([]int, 0, len(b.sorted))
	for _, m := range b.sorted {
		counts = append(counts, b.count[m])
	}
	slices.Sort(counts)
	var score, prefix int64
	for i, c := range counts {
		score += int64(i)*int64(c) - prefix
		prefix += int64(c)
	}
	return score
}

// balanced is Kafka's isBalanced: counts differ by at most one, or no
// member can take a partition from a member with two or more more.
func (b *general) balanced() bool {
	if !b.cachedValid {
		b.cached, b.cachedValid = b.computeBalanced(), true
	}
	return b.cached
}

func (b *general) computeBalanced() bool {
	if len(b.sorted) == 0 {
		return true
	}
	lo, hi := b.count[b.sorted[0]], b.count[b.sorted[len(b.sorted)-1]]
	if lo >= hi-1 {
		return true
	}
	s := b.s
	maxOwner := make([]int, len(s.topics))
	for t := range s.topics {
		for _, m := range b.owner[s.offset[t]:s.offset[t+1]] {
			if m >= 0 && !b.fixed[m] {
				maxOwner[t] = max(maxOwner[t], b.count[m])
			}
		}
	}
	for _, m := range b.sorted {
		if b.count[m] == b.maxSize[m] {
			continue
		}
		for _, t := range s.subs(m) {
			if maxOwner[t] > b.count[m]+1 {
				return false
			}
		}
	}
	return true
}

// reassign is performReassignments: move partitions from overloaded
// members to the least loaded subscriber until balanced.
func (b *general) reassign(partitions []int32) bool {
	performed := false
	for {
		modified := false
		for _, gp := range partitions {
			if b.balanced() {
				break
			}
			m := int(b.owner[gp])
			t := b.s.topicOf(gp)
			for _, other := range b.potential[t] {
				if b.count[m] > b.count[other]+1 {
					b.reassignPartition(gp)
					performed, modified = true, true
					break
				}
			}
		}
		if !modified {
			return performed
		}
	}
}

func (b *general) reassignPartition(gp int32) {
	t := b.s.topicOf(gp)
	to := -1
	for _, m := range b.sorted {
		if b.s.subscribes(m, t) {
			to = m
			break
		}
	}
	from := int(b.owner[gp])
	gp = b.moves.actualPartitionToMove(gp, t, from, to)
	from = int(b.owner[gp])
	b.removeSorted(from)
	b.removeSorted(to)
	b.moves.move(gp, t, from, to)
	b.drop(from, gp)
	b.add(to, gp)
	b.insertSorted(to)
	b.insertSorted(from)
}

// movements is AbstractStickyAssignor's PartitionMovements: which
// partitions moved between which members during this assignment, so that a
// partition that must move from B to A is, when possible, one that moved
// from A to B earlier (stickiness).
type movements struct {
	s       *Spec
	hashes  []int32 // topic -> String.hashCode
	byTopic []map[pair]*javaHashSet
	moved   map[int32]pair
}

type pair struct{ src, dst int }

func (mv *movements) init(s *Spec) {
	mv.s = s
	mv.hashes = make([]int32, len(s.topics))
	for t, name := range s.topics {
		mv.hashes[t] = javaStringHash(name)
	}
	mv.byTopic = make([]map[pair]*javaHashSet, len(s.topics))
	mv.moved = make(map[int32]pair)
}

func (mv *movements) hash(gp int32, t int32) int32 {
	return javaTopicPartitionHash(mv.hashes[t], gp-mv.s.offset[t])
}

func (mv *movements) remove(gp int32, t int32) pair {
	p := mv.moved[gp]
	delete(mv.moved, gp)
	set := mv.byTopic[t][p]
	set.remove(gp)
	if set.len() == 0 {
		delete(mv.byTopic[t], p)
	}
	return p
}

func (mv *movements) add(gp int32, t int32, p pair) {
	mv.moved[gp] = p
	if mv.byTopic[t] == nil {
		mv.byTopic[t] = make(map[pair]*javaHashSet)
	}
	set := mv.byTopic[t][p]
	if set == nil {
		set = &javaHashSet{}
		mv.byTopic[t][p] = set
	}
	set.add(gp, mv.hash(gp, t))
}

func (mv *movements) move(gp int32, t int32, from, to int) {
	if prev, ok := mv.moved[gp]; ok {
		mv.remove(gp, t)
		if prev.src != to {
			mv.add(gp, t, pair{prev.src, to})
		}
		return
	}
	mv.add(gp, t, pair{from, to})
}

func (mv *movements) actualPartitionToMove(gp int32, t int32, from, to int) int32 {
	if len(mv.byTopic[t]) == 0 {
		return gp
	}
	if prev, ok := mv.moved[gp]; ok {
		from = prev.src
	}
	set := mv.byTopic[t][pair{to, from}]
	if set == nil {
		return gp
	}
	return set.first()
}

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

// stickyAssign returns the sticky assignment. If transfers is not nil, it
// receives the partitions that change owner (what the cooperative assignor
// withholds for a round), as the constrained builder reports them; nil
// means the builder did not track them (the general case).
func stickyAssign(l *layout, transfers *map[int32]int) [][]int32 {
	order := javaHashMapOrder(l.members)
	if allSubscriptionsEqual(l, order) {
		b := newConstrained(l, order)
		per := b.build()
		if transfers != nil {
			*transfers = b.transfers
		}
		return per
	}
	if transfers != nil {
		*transfers = nil
	}
	return newGeneral(l, order).build()
}

// allSubscriptionsEqual compares the raw subscriptions (topics with and
// without metadata), as Kafka does.
func allSubscriptionsEqual(l *layout, order []int) bool {
	var first map[string]bool
	for i, m := range order {
		if i > 0 && slices.Equal(l.raw[m], l.raw[order[i-1]]) {
			continue
		}
		if first == nil {
			first = make(map[string]bool, len(l.raw[m]))
			for _, t := range l.raw[m] {
				first[t] = true
			}
			continue
		}
		if len(l.raw[m]) != len(first) {
			return false
		}
		for _, t := range l.raw[m] {
			if !first[t] {
				return false
			}
		}
	}
	return true
}

// constrained is AbstractStickyAssignor's ConstrainedAssignmentBuilder.
type constrained struct {
	l          *layout
	order      []int // members in the leader's HashMap order
	minQuota   int
	maxQuota   int
	expected   int // members that get maxQuota
	current    int
	assignment [][]int32
	owner      []int32 // partition -> member, -1: none yet
	revoked    map[int32]int
	transfers  map[int32]int
	underMin   []int // unfilled members below minQuota
	exactMin   []int // members at minQuota that may take one more
}

func newConstrained(l *layout, order []int) *constrained {
	n := len(l.members)
	b := &constrained{
		l:          l,
		order:      order,
		minQuota:   int(l.total) / n,
		maxQuota:   (int(l.total) + n - 1) / n,
		expected:   int(l.total) % n,
		assignment: make([][]int32, n),
		owner:      make([]int32, l.total),
		revoked:    make(map[int32]int),
		transfers:  make(map[int32]int),
	}
	for i := range b.owner {
		b.owner[i] = -1
	}
	return b
}

func (b *constrained) build() [][]int32 {
	l := b.l
	// Keep owned partitions up to the quotas, in the leader's order.
	for _, m := range b.order {
		owned := slices.Clone(l.owned[m])
		// Kafka sorts them by partition number, then topic.
		slices.SortFunc(owned, func(x, y int32) int {
			px, py := l.tp(x), l.tp(y)
			if c := cmp.Compare(px.Partition, py.Partition); c != 0 {
				return c
			}
			return cmp.Compare(px.Topic, py.Topic)
		})
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
			for _, p := range owned[b.maxQuota:] {
				b.revoked[p] = m
			}
		default:
			b.keep(m, owned[:b.minQuota])
			for _, p := range owned[b.minQuota:] {
				b.revoked[p] = m
			}
			if b.current < b.expected {
				b.exactMin = append(b.exactMin, m)
			}
		}
	}
	byID := func(x, y int) int { return cmp.Compare(l.members[x], l.members[y]) }
	slices.SortFunc(b.underMin, byID)
	slices.SortFunc(b.exactMin, byID)

	// Round robin the rest: first up to minQuota, then one more each to
	// the members at minQuota until the expected number is at maxQuota.
	// next mirrors a java.util.Iterator over underMin: the index of the
	// element it returns next.
	next := 0
	for gp := int32(0); gp < l.total; gp++ {
		if b.owner[gp] >= 0 {
			continue
		}
		var m int
		fromIter := true
		switch {
		case next < len(b.underMin):
			m = b.underMin[next]
			next++
		case len(b.underMin) == 0 && len(b.exactMin) == 0:
			panic("assign: sticky: no member can take another partition") // unreachable for a valid group
		case len(b.underMin) == 0:
			m = b.exactMin[0]
			b.exactMin = b.exactMin[1:]
			fromIter = false
		default:
			m = b.underMin[0]
			next = 1
		}
		b.assignment[m] = append(b.assignment[m], gp)
		b.owner[gp] = int32(m)
		if prev, ok := b.revoked[gp]; ok && prev != m {
			b.transfers[gp] = m
		}
		switch len(b.assignment[m]) {
		case b.minQuota:
			if fromIter {
				next--
				b.underMin = slices.Delete(b.underMin, next, next+1)
			}
			b.exactMin = append(b.exactMin, m)
		case b.maxQuota:
			b.current++
		}
	}
	return b.assignment
}

func (b *constrained) keep(m int, ps []int32) {
	b.assignment[m] = append(b.assignment[m], ps...)
	for _, p := range ps {
		b.owner[p] = int32(m)
	}
}

// general is AbstractStickyAssignor's GeneralAssignmentBuilder (without
// racks and without previous generations).
type general struct {
	l          *layout
	order      []int
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

func newGeneral(l *layout, order []int) *general {
	n := len(l.members)
	b := &general{
		l:          l,
		order:      order,
		rank:       make([]int, n),
		potential:  make([][]int, len(l.topics)),
		assignment: make([][]int32, n),
		count:      make([]int, n),
		owner:      make([]int32, l.total),
		maxSize:    make([]int, n),
		fixed:      make([]bool, n),
	}
	byID := l.allMembers()
	slices.SortFunc(byID, func(x, y int) int { return cmp.Compare(l.members[x], l.members[y]) })
	for r, m := range byID {
		b.rank[m] = r
	}
	for _, m := range order {
		for _, t := range l.subs[m] {
			b.potential[t] = append(b.potential[t], m)
			b.maxSize[m] += int(l.counts[t])
		}
	}
	for i := range b.owner {
		b.owner[i] = -1
	}
	b.moves.init(l)
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
	topics := make([]int, len(b.l.topics))
	for i := range topics {
		topics[i] = i
	}
	slices.SortStableFunc(topics, func(x, y int) int { return cmp.Compare(len(b.potential[x]), len(b.potential[y])) })
	var out []int32
	for _, t := range topics {
		if len(b.potential[t]) == 0 {
			continue // no member subscribes: not part of the assignment
		}
		for p := b.l.offset[t]; p < b.l.offset[t]+b.l.counts[t]; p++ {
			out = append(out, p)
		}
	}
	return out
}

func (b *general) build() [][]int32 {
	l := b.l
	// Keep what members own and still subscribe to.
	for m := range l.members {
		for _, gp := range l.owned[m] {
			if !l.subscribes(m, l.topicOf(gp)) {
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
	for m := range l.members {
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
	movable := func(gp int32) bool { return len(b.potential[l.topicOf(gp)]) >= 2 }
	all = slices.DeleteFunc(all, func(gp int32) bool { return !movable(gp) })
	unassigned = slices.DeleteFunc(unassigned, func(gp int32) bool { return !movable(gp) })
	for m := range l.members {
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
	return b.assignment
}

func (b *general) assignToLeastLoaded(gp int32) {
	t := b.l.topicOf(gp)
	for _, m := range b.sorted {
		if b.l.subscribes(m, t) {
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
	l := b.l
	maxOwner := make([]int, len(l.topics))
	for t := range l.topics {
		for _, m := range b.owner[l.offset[t] : l.offset[t]+l.counts[t]] {
			if m >= 0 && !b.fixed[m] {
				maxOwner[t] = max(maxOwner[t], b.count[m])
			}
		}
	}
	for _, m := range b.sorted {
		if b.count[m] == b.maxSize[m] {
			continue
		}
		for _, t := range l.subs[m] {
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
			t := b.l.topicOf(gp)
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
	t := b.l.topicOf(gp)
	to := -1
	for _, m := range b.sorted {
		if b.l.subscribes(m, t) {
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
	l       *layout
	hashes  []int32 // topic -> String.hashCode
	byTopic []map[pair]*javaHashSet
	moved   map[int32]pair
}

type pair struct{ src, dst int }

func (mv *movements) init(l *layout) {
	mv.l = l
	mv.hashes = make([]int32, len(l.topics))
	for t, name := range l.topics {
		mv.hashes[t] = javaStringHash(name)
	}
	mv.byTopic = make([]map[pair]*javaHashSet, len(l.topics))
	mv.moved = make(map[int32]pair)
}

func (mv *movements) hash(gp int32, t int) int32 {
	return javaTopicPartitionHash(mv.hashes[t], gp-mv.l.offset[t])
}

func (mv *movements) remove(gp int32, t int) pair {
	p := mv.moved[gp]
	delete(mv.moved, gp)
	set := mv.byTopic[t][p]
	set.remove(gp)
	if set.len() == 0 {
		delete(mv.byTopic[t], p)
	}
	return p
}

func (mv *movements) add(gp int32, t int, p pair) {
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

func (mv *movements) move(gp int32, t, from, to int) {
	if prev, ok := mv.moved[gp]; ok {
		mv.remove(gp, t)
		if prev.src != to {
			mv.add(gp, t, pair{prev.src, to})
		}
		return
	}
	mv.add(gp, t, pair{from, to})
}

func (mv *movements) actualPartitionToMove(gp int32, t, from, to int) int32 {
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

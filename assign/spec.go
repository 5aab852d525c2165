package assign

import (
	"slices"
	"strings"
)

// Spec is a group in the form the models compute on: topics, members and
// partitions numbered densely, subscriptions as sets of topic numbers,
// previous assignments as partition numbers. It is the counterpart of what
// Kafka's group coordinator keeps up to date between rebalances and hands
// its server-side assignors (GroupSpec: each member's subscribed topic ids
// and current assignment, the owner of every partition, whether all
// subscriptions are the same), so that an assignment starts from numbers,
// not from strings and maps.
//
// Partitions are numbered across topics, one topic's partitions after
// the other's: the topics that exist and that some member subscribes to,
// sorted by name (TopicPartition turns a number back into a topic and a
// partition). Members are numbered in the order of Group.Members.
//
// A Spec is not changed by the assignors: it can be reused for any number
// of assignments, from several goroutines.
type Spec struct {
	topics []string // sorted: topics with a partition count and a subscriber
	// The number of a topic name (topicNumber): its index among all
	// topics with a partition count, by the classifier's small index (up
	// to 64 topics) or map, then allNumber (that index -> number, -1:
	// none; nil: the same numbers).
	small     *topicIndex
	index     map[string]int32
	allNumber []int32
	counts    []int32 // topic -> partition count
	offset    []int32 // topic -> number of its partition 0; offset[len(topics)] = total
	total     int32

	members []string // member ids, in the group's order
	inst    []string // member -> group.instance.id or ""; nil: no member has one

	// Members with the same subscription (as a set of names, existing
	// topics or not) share a class.
	class       []int32   // member -> class
	classTopics [][]int32 // class -> subscribed topic numbers, ascending
	classSub    []bool    // class*len(topics)+topic -> subscribed
	homogeneous bool      // one class: Kafka's HOMOGENEOUS subscription type

	// Member m's owned partitions (of the topics above), ascending, are
	// ownedParts[ownedStart[m]:ownedStart[m+1]]: one array for all
	// members, without a slice header per member for the garbage
	// collector to scan. ownedStart is nil when the owned partitions
	// were not compiled.
	ownedParts []int32
	ownedStart []int32

	// Derived data that NewSpec computes and the internal path of Assign
	// leaves out (nil): the models compute it when absent.
	byID  []int32 // members sorted by member id
	owner []int32 // partition -> member that owned it, -1: none

	// local asks the models to number the placement's partitions within
	// their topic too, which they do at little cost as they place them:
	// Assign's conversion to names reads those numbers.
	local bool

	// scratch is set in the Specs Assign compiles (specPool), which go
	// back to the pool once the assignment is converted to names: the
	// arrays that compiling and a model need only meanwhile, kept with
	// the Spec's own for the next call. nil in any other Spec.
	scratch *specScratch
}

// specParts selects what newSpec computes.
type specParts uint8

const (
	specOwned   specParts = 1 << iota // the members' owned partitions
	specDerived                       // byID and owner
	specLocal                         // Spec.local: placements with topic-local numbers
)

// NewSpec compiles a valid group (Group.Validate) into a Spec, with
// everything the assignors read precomputed: the members' owned
// partitions, the member order by id, the owner of each partition.
func NewSpec(g *Group) *Spec { return newSpec(g, specOwned|specDerived) }

// newSpec compiles g, computing only the parts asked for.
func newSpec(g *Group, parts specParts) *Spec {
	s := new(Spec)
	s.compile(g, parts)
	return s
}

// compile makes s the Spec of g, computing only the parts asked for. In
// a recycled Spec it reuses the arrays that are large enough, except
// the topic names and offsets, which the assignments made from it share.
func (s *Spec) compile(g *Group, parts specParts) {
	s.local = parts&specLocal != 0
	n := len(g.Members)
	s.members = reuse(s.members, n)
	s.class = reuse(s.class, n)
	s.inst = nil
	s.ownedParts, s.ownedStart = nil, nil
	s.byID, s.owner = nil, nil
	var c *classifier
	if s.scratch != nil {
		c = &s.scratch.classifier
	} else {
		c = new(classifier)
	}
	c.reset(g.Topics, n)
	for i, m := range g.Members {
		s.members[i] = m.ID
		if m.InstanceID != "" {
			if s.inst == nil {
				s.inst = make([]string, n)
			}
			s.inst[i] = m.InstanceID
		}
		if i > 0 && sameTopics(m.Topics, g.Members[i-1].Topics) {
			s.class[i] = s.class[i-1]
			continue
		}
		s.class[i] = c.classOf(m.Topics)
	}
	s.homogeneous = len(c.ends) <= 1
	number := s.numberTopics(g.Topics, c)
	s.setClassTopics(c, number)
	if parts&specOwned != 0 {
		s.compileOwned(g)
	}
	if parts&specDerived != 0 {
		s.byID = s.sortedByID()
		if s.ownedStart != nil {
			s.owner = s.previousOwners()
		}
	}
}

// numberTopics numbers the topics that some class subscribes to (as in
// Kafka, only those take part), in name order. It returns each topic's
// number by its index in c.all, -1 for none.
func (s *Spec) numberTopics(counts map[string]int32, c *classifier) []int32 {
	var number []int32 // index in all -> number, -1: none
	if s.scratch != nil {
		s.scratch.number = reuse(s.scratch.number, len(c.all))
		number = s.scratch.number
	} else {
		number = make([]int32, len(c.all))
	}
	for i := range number {
		number[i] = -1
	}
	for _, t := range c.flat {
		number[t] = 0
	}
	nt := 0
	for i := range c.all {
		if number[i] == 0 {
			number[i] = int32(nt)
			nt++
		}
	}
	s.small, s.index = c.small, c.index
	s.allNumber = nil
	if nt == len(c.all) {
		// Every topic takes part (the common case): the numbers are the
		// indexes in all, and the classifier's names serve.
		s.topics = c.all
	} else {
		s.allNumber = number
		s.topics = make([]string, 0, nt)
		for i, t := range c.all {
			if number[i] >= 0 {
				s.topics = append(s.topics, t)
			}
		}
	}
	s.counts = reuse(s.counts, nt)
	s.offset = make([]int32, nt+1) // new: assignments share it
	s.total = 0
	for i, t := range s.topics {
		n := counts[t]
		s.counts[i] = n
		s.offset[i] = s.total
		s.total += n
	}
	s.offset[nt] = s.total
	return number
}

// topicNumber returns the number of a topic name, if it has one (it
// has a partition count and a subscriber).
func (s *Spec) topicNumber(name string) (int32, bool) {
	var i int32
	var ok bool
	if s.small != nil {
		i, ok = s.small.get(name)
	} else {
		i, ok = s.index[name]
	}
	if !ok || s.allNumber == nil {
		return i, ok
	}
	t := s.allNumber[i]
	return t, t >= 0
}

// setClassTopics gives the classes their topics by number.
func (s *Spec) setClassTopics(c *classifier, number []int32) {
	nt := len(s.topics)
	s.classTopics = reuse(s.classTopics, len(c.ends))
	s.classSub = reuse(s.classSub, len(c.ends)*nt)
	clear(s.classSub)
	flat := c.flat // renumbered in place
	for j, t := range flat {
		flat[j] = number[t] // ascending still: the numbers keep name order
	}
	begin := 0
	for k, end := range c.ends {
		ts := flat[begin:end:end]
		for _, t := range ts {
			s.classSub[k*nt+int(t)] = true
		}
		s.classTopics[k] = ts
		begin = end
	}
}

// compileOwned sets every member's owned partitions (of the numbered
// topics), ascending, all in one array.
func (s *Spec) compileOwned(g *Group) {
	n := len(g.Members)
	var owned, start []int32 // owned: allocated at the first owned partition
	if x := s.scratch; x != nil {
		if cap(x.ownedParts) >= int(s.total) {
			owned = x.ownedParts[:0]
		}
		start = reuse(x.ownedStart, n+1)
		start[0] = 0
	} else {
		start = make([]int32, n+1)
	}
	for i, m := range g.Members {
		if len(m.Owned) > 0 {
			if owned == nil {
				owned = make([]int32, 0, s.total) // each partition has one owner at most
			}
			owned = s.appendOwned(owned, i, m.Owned)
		}
		start[i+1] = int32(len(owned))
	}
	s.ownedParts, s.ownedStart = owned, start
}

// owned returns member m's owned partitions, ascending (none if they
// were not compiled). The slice is the Spec's own.
func (s *Spec) owned(m int) []int32 {
	if s.ownedStart == nil {
		return nil
	}
	begin, end := s.ownedStart[m], s.ownedStart[m+1]
	return s.ownedParts[begin:end:end]
}

// appendOwned appends member m's owned partitions, ascending.
func (s *Spec) appendOwned(owned []int32, m int, byTopic map[string][]int32) []int32 {
	begin := len(owned)
	// A member mostly owns partitions of most of the topics it subscribes
	// to (after a rebalance of a group with more partitions than
	// members): then looking those topics up in order is cheaper than
	// ranging over the map and sorting, and gives the partitions in order
	// if each topic's are.
	subs := s.subs(m)
	lookUp := len(subs) <= 2*len(byTopic)
	inOrder := lookUp
	found := 0
	if lookUp {
		// The loop runs once per owned topic of every member: the
		// Spec's arrays in locals, which the compiler would otherwise
		// load again after every append.
		topics, offset := s.topics, s.offset
		for _, t := range subs {
			ps, ok := byTopic[topics[t]]
			if !ok {
				continue
			}
			found++
			base, last := offset[t], int32(-1)
			for _, p := range ps {
				if p < last {
					inOrder = false
				}
				last = p
				owned = append(owned, base+p)
			}
		}
	}
	if found < len(byTopic) {
		// The others: all of them, or those of numbered topics the member
		// no longer subscribes to.
		inOrder = false
		for name, ps := range byTopic {
			t, ok := s.topicNumber(name)
			if !ok || lookUp && s.subscribes(m, t) {
				continue
			}
			for _, p := range ps {
				owned = append(owned, s.offset[t]+p)
			}
		}
	}
	if !inOrder {
		slices.Sort(owned[begin:])
	}
	return owned
}

// NumMembers returns the number of members.
func (s *Spec) NumMembers() int { return len(s.members) }

// MemberID returns the id of member i.
func (s *Spec) MemberID(i int) string { return s.members[i] }

// NumPartitions returns the number of partitions of the subscribed topics.
func (s *Spec) NumPartitions() int { return int(s.total) }

// TopicPartition returns the topic and partition of partition number gp.
func (s *Spec) TopicPartition(gp int32) TopicPartition {
	t := s.topicOf(gp)
	return TopicPartition{s.topics[t], gp - s.offset[t]}
}

// subs returns the topics member m subscribes to, ascending.
func (s *Spec) subs(m int) []int32 { return s.classTopics[s.class[m]] }

// subscribes reports whether member m subscribes to topic t.
func (s *Spec) subscribes(m int, t int32) bool {
	return s.classSub[int(s.class[m])*len(s.topics)+int(t)]
}

// nextRun returns the topic of ps[0] and how many of ps, ascending
// partition numbers, are of that topic. t is where the search for the
// topic starts: 0, or the topic of the partitions before ps.
func (s *Spec) nextRun(ps []int32, t int32) (int32, int) { return nextRun(s.offset, ps, t) }

// nextRun is Spec.nextRun on the offsets of the topics' partition 0.
func nextRun(offset, ps []int32, t int32) (int32, int) {
	for offset[t+1] <= ps[0] {
		t++
	}
	end := offset[t+1]
	n := 1
	for n < len(ps) && ps[n] < end {
		n++
	}
	return t, n
}

// topicOf returns the topic number of partition gp.
func (s *Spec) topicOf(gp int32) int32 {
	i, _ := slices.BinarySearch(s.offset, gp+1)
	return int32(i - 1)
}

// sortedByID returns the members sorted by member id: the precomputed
// order if there is one (do not modify it), else a fresh one.
func (s *Spec) sortedByID() []int32 {
	if s.byID != nil {
		return s.byID
	}
	out := s.allMembers()
	sortByKey(out, s.members)
	return out
}

// previousOwners returns the owner of each partition before this
// rebalance (-1: none): the precomputed one if there is one, else a fresh
// one.
func (s *Spec) previousOwners() []int32 {
	if s.owner != nil {
		return s.owner
	}
	return s.fillPreviousOwners(make([]int32, s.total))
}

// fillPreviousOwners sets owner (one entry per partition) to the owner
// of each partition before this rebalance (-1: none) and returns it.
func (s *Spec) fillPreviousOwners(owner []int32) []int32 {
	setNobody(owner)
	for m := range s.members {
		for _, gp := range s.owned(m) {
			owner[gp] = int32(m)
		}
	}
	return owner
}

// memberInfoOrder returns all members sorted as Kafka's MemberInfo
// compares them: static members (with an instance id) first, by instance
// id; then the others by member id. Without static members that is the
// order by id (sortedByID's: do not modify it). With the order by id
// precomputed, it sorts a copy of it, as Kafka sorts the coordinator's
// member ids (little work when few members are static).
func (s *Spec) memberInfoOrder() []int32 {
	if s.inst == nil {
		return s.sortedByID() // no static members
	}
	if s.byID != nil {
		out := slices.Clone(s.byID)
		slices.SortFunc(out, s.compareMemberInfo)
		return out
	}
	out := s.allMembers()
	static := 0
	for i, m := range out {
		if s.inst[m] != "" {
			out[static], out[i] = out[i], out[static]
			static++
		}
	}
	sortByKey(out[:static], s.inst)
	sortByKey(out[static:], s.members)
	return out
}

func (s *Spec) compareMemberInfo(a, b int32) int {
	ia, ib := s.inst[a], s.inst[b]
	switch {
	case ia != "" && ib != "":
		return strings.Compare(ia, ib)
	case ia != "":
		return -1
	case ib != "":
		return 1
	}
	return strings.Compare(s.members[a], s.members[b])
}

// allMembers returns 0, 1, ..., members-1: a new array, or in a
// recycled Spec its scratch array (which each model asks for once at
// most, through sortedByID or memberInfoOrder).
func (s *Spec) allMembers() []int32 {
	var out []int32
	if s.scratch != nil {
		s.scratch.order = reuse(s.scratch.order, len(s.members))
		out = s.scratch.order
	} else {
		out = make([]int32, len(s.members))
	}
	for i := range out {
		out[i] = int32(i)
	}
	return out
}

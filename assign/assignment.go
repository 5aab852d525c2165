package assign

import (
	"encoding/json"
	"fmt"
	"iter"
	"slices"
	"strconv"
	"strings"
)

// Assignment maps member id to the member's partitions. Every member of
// the group has an entry, possibly empty.
type Assignment map[string]MemberAssignment

// MemberAssignment is one member's partitions, by topic: its topics in
// name order, each with its partitions ascending (a topic it got nothing
// of is left out). Read it with Partitions, All, Count or Map; the zero
// value has no partitions. In JSON it is an object, topic to partitions,
// as Member.Owned is, and fmt prints it as that map.
//
// It is a view of arrays that all the members of an Assignment share, so
// that building an Assignment costs a few arrays however many members
// and topics it has, not a map or a list per member. The arrays hold no
// pointers, which the garbage collector need not scan.
type MemberAssignment struct {
	of          *memberTopics
	first, last int32 // the member's entries: of.entries[first:last]
}

// memberTopics holds the partitions of the members of an assignment:
// each member's entries, one per topic, one member after the other, and
// their partitions in the same order.
type memberTopics struct {
	topics  []string     // topic names, indexed by topicEntry.topic
	entries []topicEntry // entry i's partitions are parts[entries[i-1].end:entries[i].end]
	parts   []int32      // partition numbers of their topic
}

type topicEntry struct {
	topic int32 // index in memberTopics.topics
	end   int32
}

// NewMemberAssignment returns the partitions of byTopic (Member.Owned's
// form, in any order) as a MemberAssignment. It does not keep byTopic.
func NewMemberAssignment(byTopic map[string][]int32) MemberAssignment {
	of := &memberTopics{}
	for t, ps := range byTopic {
		if len(ps) > 0 {
			of.topics = append(of.topics, t)
		}
	}
	slices.Sort(of.topics)
	for i, t := range of.topics {
		begin := len(of.parts)
		of.parts = append(of.parts, byTopic[t]...)
		slices.Sort(of.parts[begin:])
		of.entries = append(of.entries, topicEntry{int32(i), int32(len(of.parts))})
	}
	return MemberAssignment{of, 0, int32(len(of.entries))}
}

// entry returns entry i's topic and partitions.
func (of *memberTopics) entry(i int32) (string, []int32) {
	begin := int32(0)
	if i > 0 {
		begin = of.entries[i-1].end
	}
	end := of.entries[i].end
	return of.topics[of.entries[i].topic], of.parts[begin:end:end]
}

// All yields the member's topics in name order, each with its partitions
// (ascending; the slices are the assignment's own: do not modify them).
func (m MemberAssignment) All() iter.Seq2[string, []int32] {
	return func(yield func(string, []int32) bool) {
		for i := m.first; i < m.last; i++ {
			if !yield(m.of.entry(i)) {
				return
			}
		}
	}
}

// Partitions returns the member's partitions of topic, ascending (none:
// nil). The slice is the assignment's own: do not modify it.
func (m MemberAssignment) Partitions(topic string) []int32 {
	// A member has partitions of few topics: a scan beats a search.
	for i := m.first; i < m.last; i++ {
		if m.of.topics[m.of.entries[i].topic] == topic {
			_, ps := m.of.entry(i)
			return ps
		}
	}
	return nil
}

// Count returns the number of the member's partitions.
func (m MemberAssignment) Count() int {
	if m.first == m.last {
		return 0
	}
	begin := int32(0)
	if m.first > 0 {
		begin = m.of.entries[m.first-1].end
	}
	return int(m.of.entries[m.last-1].end - begin)
}

// Map returns the member's partitions as a map of topic to partitions,
// the form of Member.Owned: what the member owns in the next rebalance.
// The slices are the assignment's own.
func (m MemberAssignment) Map() map[string][]int32 {
	out := make(map[string][]int32, m.last-m.first)
	for t, ps := range m.All() {
		out[t] = ps
	}
	return out
}

// Equal reports whether m and o have the same partitions.
func (m MemberAssignment) Equal(o MemberAssignment) bool {
	if m.last-m.first != o.last-o.first {
		return false
	}
	for i := range m.last - m.first {
		mt, mps := m.of.entry(m.first + i)
		ot, ops := o.of.entry(o.first + i)
		if mt != ot || !slices.Equal(mps, ops) {
			return false
		}
	}
	return true
}

// String formats the member's partitions as fmt formats the same map
// (Member.Owned's form), e.g. "map[t0:[0 2] t1:[1]]", so that an
// Assignment prints as the nested maps it stands for.
func (m MemberAssignment) String() string {
	var b strings.Builder
	b.WriteString("map[")
	for t, ps := range m.All() {
		if b.Len() > len("map[") {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%s:%v", t, ps)
	}
	b.WriteByte(']')
	return b.String()
}

// MarshalJSON encodes the member's partitions as an object, topic to
// partitions, keys in name order: the bytes encoding/json writes for the
// same map.
func (m MemberAssignment) MarshalJSON() ([]byte, error) {
	b := []byte{'{'}
	for t, ps := range m.All() {
		if len(b) > 1 {
			b = append(b, ',')
		}
		key, err := json.Marshal(t)
		if err != nil {
			return nil, err
		}
		b = append(b, key...)
		b = append(b, ':', '[')
		for j, p := range ps {
			if j > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendInt(b, int64(p), 10)
		}
		b = append(b, ']')
	}
	return append(b, '}'), nil
}

// UnmarshalJSON decodes an object, topic to partitions.
func (m *MemberAssignment) UnmarshalJSON(b []byte) error {
	var byTopic map[string][]int32
	if err := json.Unmarshal(b, &byTopic); err != nil {
		return err
	}
	*m = NewMemberAssignment(byTopic)
	return nil
}

// Count returns the number of partitions assigned to member.
func (a Assignment) Count(member string) int { return a[member].Count() }

// Owners maps each assigned topic partition to its member.
func (a Assignment) Owners() map[TopicPartition]string {
	m := make(map[TopicPartition]string)
	for member, topics := range a {
		for t, ps := range topics.All() {
			for _, p := range ps {
				m[TopicPartition{t, p}] = member
			}
		}
	}
	return m
}

// Clone returns a deep copy.
func (a Assignment) Clone() Assignment {
	c := make(Assignment, len(a))
	for member, topics := range a {
		c[member] = NewMemberAssignment(topics.Map())
	}
	return c
}

// equalAssignments reports whether a and b give each member the same
// partitions.
func equalAssignments(a, b Assignment) bool {
	if len(a) != len(b) {
		return false
	}
	for member, ta := range a {
		tb, ok := b[member]
		if !ok || !ta.Equal(tb) {
			return false
		}
	}
	return true
}

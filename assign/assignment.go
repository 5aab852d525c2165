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
// that building an Assignment costs an array and the map however many
// members and topics it has, not a map or a list per member. The arrays
// hold no pointers, which the garbage collector need not scan.
type MemberAssignment struct {
	of         *memberPartitions
	begin, end int32 // the member's partitions: of.global[begin:end]
}

// memberPartitions holds the partitions of the members of an assignment,
// one member's after the other's, each member's ascending by number
// across topics (a Placement's numbering): the members' topics are found
// as runs of numbers.
type memberPartitions struct {
	topics []string // topic names, by topic number
	offset []int32  // topic -> number of its partition 0; offset[len(topics)] = total
	global []int32  // partition numbers across topics
	local  []int32  // the same partitions, numbered within their topic
}

// NewMemberAssignment returns the partitions of byTopic (Member.Owned's
// form: partition numbers, 0 or more, in any order) as a
// MemberAssignment. It does not keep byTopic.
func NewMemberAssignment(byTopic map[string][]int32) MemberAssignment {
	of := &memberPartitions{offset: []int32{0}}
	for t, ps := range byTopic {
		if len(ps) > 0 {
			of.topics = append(of.topics, t)
		}
	}
	slices.Sort(of.topics)
	for _, t := range of.topics {
		begin := len(of.local)
		of.local = append(of.local, byTopic[t]...)
		ps := of.local[begin:]
		slices.Sort(ps)
		// The topic's numbers run up to its highest partition.
		base := of.offset[len(of.offset)-1]
		for _, p := range ps {
			of.global = append(of.global, base+p)
		}
		of.offset = append(of.offset, base+ps[len(ps)-1]+1)
	}
	return MemberAssignment{of, 0, int32(len(of.global))}
}

// All yields the member's topics in name order, each with its partitions
// (ascending; the slices are the assignment's own: do not modify them).
func (m MemberAssignment) All() iter.Seq2[string, []int32] {
	return func(yield func(string, []int32) bool) {
		for t, at := int32(0), m.begin; at < m.end; {
			var n int
			t, n = nextRun(m.of.offset, m.of.global[at:m.end], t)
			end := at + int32(n)
			if !yield(m.of.topics[t], m.of.local[at:end:end]) {
				return
			}
			at = end
		}
	}
}

// Partitions returns the member's partitions of topic, ascending (none:
// nil). The slice is the assignment's own: do not modify it.
func (m MemberAssignment) Partitions(topic string) []int32 {
	// A member has partitions of few topics: a scan beats a search.
	for t, ps := range m.All() {
		if t == topic {
			return ps
		}
	}
	return nil
}

// Count returns the number of the member's partitions.
func (m MemberAssignment) Count() int { return int(m.end - m.begin) }

// Map returns the member's partitions as a map of topic to partitions,
// the form of Member.Owned: what the member owns in the next rebalance.
// The slices are the assignment's own.
func (m MemberAssignment) Map() map[string][]int32 {
	out := make(map[string][]int32)
	for t, ps := range m.All() {
		out[t] = ps
	}
	return out
}

// Equal reports whether m and o have the same partitions.
func (m MemberAssignment) Equal(o MemberAssignment) bool {
	if m.Count() != o.Count() {
		return false
	}
	// As many partitions, and o has each of m's.
	for t, ps := range m.All() {
		if !slices.Equal(ps, o.Partitions(t)) {
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

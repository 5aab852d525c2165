package assign

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Assignment maps member id to the member's partitions. Every member of
// the group has an entry, possibly empty.
type Assignment map[string]MemberAssignment

// MemberAssignment is one member's partitions: its topics in name order,
// each with its partitions ascending; a topic it got nothing of is left
// out. It is a list, not a map, because it is built for every member of
// every rebalance: the members of an assignment share one array of topic
// entries and one of partitions. In JSON it is an object, topic to
// partitions, as Member.Owned is.
type MemberAssignment []TopicPartitions

// TopicPartitions is one topic's partitions of a member, ascending.
type TopicPartitions struct {
	Topic      string
	Partitions []int32
}

// Partitions returns the member's partitions of topic, ascending (none:
// nil). The slice is the assignment's own: do not modify it.
func (m MemberAssignment) Partitions(topic string) []int32 {
	// A member has a partition of few topics: a scan beats a search.
	for _, tp := range m {
		if tp.Topic == topic {
			return tp.Partitions
		}
	}
	return nil
}

// Count returns the number of the member's partitions.
func (m MemberAssignment) Count() int {
	n := 0
	for _, tp := range m {
		n += len(tp.Partitions)
	}
	return n
}

// Map returns the member's partitions as a map of topic to partitions,
// the form of Member.Owned: what the member owns in the next rebalance.
// The slices are the assignment's own.
func (m MemberAssignment) Map() map[string][]int32 {
	out := make(map[string][]int32, len(m))
	for _, tp := range m {
		out[tp.Topic] = tp.Partitions
	}
	return out
}

// memberAssignmentOf converts owned partitions (Member.Owned's form, in
// any order) to a MemberAssignment. It sorts the partitions in place.
func memberAssignmentOf(owned map[string][]int32) MemberAssignment {
	m := make(MemberAssignment, 0, len(owned))
	for t, ps := range owned {
		if len(ps) > 0 {
			slices.Sort(ps)
			m = append(m, TopicPartitions{t, ps})
		}
	}
	slices.SortFunc(m, func(a, b TopicPartitions) int { return strings.Compare(a.Topic, b.Topic) })
	return m
}

// String formats the member's partitions as fmt formats the same map
// (Member.Owned's form), e.g. "map[t0:[0 2] t1:[1]]", so that an
// Assignment prints as the nested maps it stands for.
func (m MemberAssignment) String() string {
	var b strings.Builder
	b.WriteString("map[")
	for i, tp := range m {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%s:%v", tp.Topic, tp.Partitions)
	}
	b.WriteByte(']')
	return b.String()
}

// MarshalJSON encodes the member's partitions as an object, topic to
// partitions, keys in name order: the bytes encoding/json writes for the
// same map.
func (m MemberAssignment) MarshalJSON() ([]byte, error) {
	b := []byte{'{'}
	for i, tp := range m {
		if i > 0 {
			b = append(b, ',')
		}
		key, err := json.Marshal(tp.Topic)
		if err != nil {
			return nil, err
		}
		b = append(b, key...)
		b = append(b, ':', '[')
		for j, p := range tp.Partitions {
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
	var owned map[string][]int32
	if err := json.Unmarshal(b, &owned); err != nil {
		return err
	}
	*m = memberAssignmentOf(owned)
	return nil
}

// Count returns the number of partitions assigned to member.
func (a Assignment) Count(member string) int { return a[member].Count() }

// Owners maps each assigned topic partition to its member.
func (a Assignment) Owners() map[TopicPartition]string {
	m := make(map[TopicPartition]string)
	for member, topics := range a {
		for _, tp := range topics {
			for _, p := range tp.Partitions {
				m[TopicPartition{tp.Topic, p}] = member
			}
		}
	}
	return m
}

// Clone returns a deep copy.
func (a Assignment) Clone() Assignment {
	c := make(Assignment, len(a))
	for member, topics := range a {
		ct := make(MemberAssignment, len(topics))
		for i, tp := range topics {
			ct[i] = TopicPartitions{tp.Topic, slices.Clone(tp.Partitions)}
		}
		c[member] = ct
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
		if !ok || !slices.EqualFunc(ta, tb, func(x, y TopicPartitions) bool {
			return x.Topic == y.Topic && slices.Equal(x.Partitions, y.Partitions)
		}) {
			return false
		}
	}
	return true
}

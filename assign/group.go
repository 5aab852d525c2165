// Package assign models Kafka's partition assignors exactly: the classic
// client-side ones (range, roundrobin, sticky, cooperative-sticky, with the
// Java client's semantics) and the consumer protocol's server-side ones
// (KIP-848: uniform and range). It answers what-if questions (what does a
// join, a leave or a partition increase cost each strategy?) for groups of
// any size, and it checks that a real group behaved as its strategy must
// (CheckHistory).
//
// Everything here is pure: a Group in, an Assignment out. README.md in this
// folder says where each model follows Kafka's Java code, where
// librdkafka and franz-go differ, and how the models were checked against
// the Java assignors.
package assign

import (
	"fmt"
	"sort"

	"github.com/chaosbench/chaosbench/internal/clip"
)

// Group is the input of an assignor: the topics with their partition
// counts, and the members with their subscriptions and what they owned
// before this rebalance.
type Group struct {
	// Topics maps each topic to its partition count.
	Topics map[string]int32 `json:"topics"`
	// Members are the group's members. Their order is the order in which
	// the group leader received them (it matters only where Kafka's Java
	// code iterates a HashMap, see README.md).
	Members []Member `json:"members"`
}

// Member is one group member.
type Member struct {
	// ID is the member id the coordinator gave the member: the classic
	// assignors and the consumer protocol sort members by it.
	ID string `json:"id"`
	// InstanceID is the member's group.instance.id (static membership), or
	// empty. Range and roundrobin (both protocols) place static members
	// first, sorted by instance id.
	InstanceID string `json:"instance_id,omitempty"`
	// Topics are the topics the member subscribes to.
	Topics []string `json:"topics"`
	// Owned is what the member owned before this rebalance: the previous
	// assignment, which the sticky assignors try to keep. Optional.
	Owned map[string][]int32 `json:"owned,omitempty"`
}

// TopicPartition names one partition.
type TopicPartition struct {
	Topic     string
	Partition int32
}

func (tp TopicPartition) String() string { return fmt.Sprintf("%s-%d", tp.Topic, tp.Partition) }

// InputError is bad input: Field says where (in the JSON input's terms,
// e.g. `members[2].owned.t0`), Reason what was expected.
type InputError struct {
	Field  string
	Reason string
}

func (e *InputError) Error() string { return e.Field + ": " + e.Reason }

// Bounds of a group. The models keep state per partition and per member:
// a topic of two billion partitions is gigabytes before the first
// assignment. These are ten times the largest groups the models are
// measured on (assign/README.md), far beyond any real one.
const (
	// MaxPartitions bounds the partitions of all topics together.
	MaxPartitions = 1_000_000
	// MaxMembers bounds the members of a group.
	MaxMembers = 100_000
	// MaxMemberIDBytes bounds a member id. The coordinator makes them
	// (a client id and a UUID), tens of bytes.
	MaxMemberIDBytes = 1024
	// maxNameBytes bounds topic names and group instance ids, as Kafka
	// does (Topic.validate, JoinGroupRequest.validateGroupInstanceId).
	maxNameBytes = 249
)

// checkName checks a topic name or group instance id against Kafka's
// rules: 1 to 249 bytes of ASCII letters, digits, '.', '_' and '-', and
// neither "." nor "..". Kafka refuses any other, so a group holding one
// is no group Kafka could have.
func checkName(what, name string) error {
	switch {
	case name == "":
		return fmt.Errorf("empty %s", what)
	case len(name) > maxNameBytes:
		return fmt.Errorf("%s %s: expected at most %d bytes", what, clip.Quote(name), maxNameBytes)
	case name == "." || name == "..":
		return fmt.Errorf("%s %q is not allowed", what, name)
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == '-') {
			return fmt.Errorf("%s %s: byte %d is %q; expected ASCII letters, digits, '.', '_' and '-'", what, clip.Quote(name), i, c)
		}
	}
	return nil
}

// Validate checks the group: member ids unique and non-empty, every member
// subscribes to at least one topic, partition counts positive, owned
// partitions exist and have at most one owner, and the group within its
// bounds. Subscribing to a topic that is not in Topics is allowed (the
// assignors skip it, as Kafka does for a topic without metadata).
func (g *Group) Validate() error {
	names := make([]string, 0, len(g.Topics))
	for t := range g.Topics {
		names = append(names, t)
	}
	sort.Strings(names)
	for _, t := range names {
		if err := checkName("topic name", t); err != nil {
			return &InputError{"topics", err.Error()}
		}
		if n := g.Topics[t]; n <= 0 || n > MaxPartitions {
			return &InputError{"topics." + clip.String(t), fmt.Sprintf("partition count %d; expected 1 to %d", n, MaxPartitions)}
		}
	}
	total := 0
	for _, n := range g.Topics {
		total += int(n)
	}
	if total > MaxPartitions {
		return &InputError{"topics", fmt.Sprintf("%d partitions in all; expected at most %d", total, MaxPartitions)}
	}
	if len(g.Members) > MaxMembers {
		return &InputError{"members", fmt.Sprintf("%d members; expected at most %d", len(g.Members), MaxMembers)}
	}
	if len(g.Members) == 0 {
		return &InputError{"members", "no members; expected at least one"}
	}
	ids := make(map[string]int, len(g.Members))
	instances := make(map[string]int)
	owner := make(map[TopicPartition]int)
	for i, m := range g.Members {
		f := fmt.Sprintf("members[%d]", i)
		if m.ID == "" {
			return &InputError{f + ".id", "missing; expected a member id"}
		}
		if len(m.ID) > MaxMemberIDBytes {
			return &InputError{f + ".id", fmt.Sprintf("%d bytes; expected at most %d", len(m.ID), MaxMemberIDBytes)}
		}
		if j, dup := ids[m.ID]; dup {
			return &InputError{f + ".id", fmt.Sprintf("%s is also the id of members[%d]; expected unique ids", clip.Quote(m.ID), j)}
		}
		ids[m.ID] = i
		if m.InstanceID != "" {
			if err := checkName("instance id", m.InstanceID); err != nil {
				return &InputError{f + ".instance_id", err.Error()}
			}
			if j, dup := instances[m.InstanceID]; dup {
				return &InputError{f + ".instance_id", fmt.Sprintf("%s is also the instance id of members[%d]", clip.Quote(m.InstanceID), j)}
			}
			instances[m.InstanceID] = i
		}
		if len(m.Topics) == 0 {
			return &InputError{f + ".topics", "empty; expected at least one topic"}
		}
		seen := make(map[string]bool, len(m.Topics))
		for k, t := range m.Topics {
			if err := checkName("topic name", t); err != nil {
				return &InputError{fmt.Sprintf("%s.topics[%d]", f, k), err.Error()}
			}
			if seen[t] {
				return &InputError{fmt.Sprintf("%s.topics[%d]", f, k), fmt.Sprintf("topic %s listed twice", clip.Quote(t))}
			}
			seen[t] = true
		}
		for _, t := range sortedKeys(m.Owned) {
			n, ok := g.Topics[t]
			if !ok {
				return &InputError{f + ".owned." + clip.String(t), "topic not in topics"}
			}
			for _, p := range m.Owned[t] {
				if p < 0 || p >= n {
					return &InputError{f + ".owned." + clip.String(t), fmt.Sprintf("partition %d out of range; %s has partitions 0 to %d", p, clip.String(t), n-1)}
				}
				tp := TopicPartition{t, p}
				if j, dup := owner[tp]; dup {
					if j == i {
						return &InputError{f + ".owned." + clip.String(t), fmt.Sprintf("partition %d listed twice", p)}
					}
					return &InputError{f + ".owned." + clip.String(t), fmt.Sprintf("partition %d is also owned by members[%d] (%s); expected one owner", p, j, clip.String(g.Members[j].ID))}
				}
				owner[tp] = i
			}
		}
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

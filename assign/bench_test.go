package assign

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// benchShape is a group size of `make bench-assign` (assign/javabench).
type benchShape struct {
	name          string
	members       int
	topics        int
	partitions    int // per topic
	heterogeneous bool
}

var benchShapes = []benchShape{
	{"100m-1k", 100, 10, 100, false},
	{"100m-1k-het", 100, 10, 100, true},
	{"1000m-10k", 1000, 10, 1000, false},
	{"2125m-3160p", 2125, 4, 790, false},
	{"1000m-10k-het", 1000, 10, 1000, true},
	{"5000m-50k", 5000, 10, 5000, false},
	{"10000m-100k", 10000, 10, 10000, false},
}

// benchCases returns the shape's "fresh" group (nothing owned) and its
// "churn" group (after round robin's balanced assignment, 10% of the
// members replaced by new ones): built the way assign/javabench builds
// its groups, from a seed of its own, so the groups are alike but not the
// same. (The two cannot share the builder: these tests are inside package
// assign, which a shared package would have to import.)
func benchCases(s benchShape) (fresh, churn *Group) {
	rng := rand.New(rand.NewPCG(1, uint64(s.members)))
	id := func(i int) string { return fmt.Sprintf("consumer-%d-%08x-%04x", i, rng.Uint32(), rng.Uint32()&0xffff) }
	fresh = &Group{Topics: map[string]int32{}}
	var topics []string
	for i := range s.topics {
		t := fmt.Sprintf("topic%02d", i)
		topics = append(topics, t)
		fresh.Topics[t] = int32(s.partitions)
	}
	for i := range s.members {
		m := Member{ID: id(i), Topics: topics}
		if s.heterogeneous {
			m.Topics = nil
			for _, t := range topics {
				if rng.IntN(2) == 0 {
					m.Topics = append(m.Topics, t)
				}
			}
			if len(m.Topics) == 0 {
				m.Topics = []string{topics[i%len(topics)]}
			}
		}
		fresh.Members = append(fresh.Members, m)
	}
	prev := RoundRobin.Assign(fresh)
	churn = &Group{Topics: fresh.Topics}
	for i, m := range fresh.Members {
		if i%10 == 0 {
			churn.Members = append(churn.Members, Member{ID: id(s.members + i), Topics: m.Topics})
			continue
		}
		m.Owned = prev[m.ID].Map()
		churn.Members = append(churn.Members, m)
	}
	return fresh, churn
}

// BenchmarkAssign times every strategy on `make bench-assign`'s shapes,
// each from the input its Java counterpart takes there to the equivalent
// of its output (the "go" column): the classic strategies from a Group
// (names, as the group leader's assign(partitionsPerTopic, subscriptions)
// takes them) to a Placement (each member's partitions, as its
// Map<String, List<TopicPartition>>); the consumer protocol's from a Spec
// to a Placement (as the coordinator's assignors go from a GroupSpec to a
// GroupAssignment). -short: the shapes up to 2,125 members.
//
//	go test -run - -bench 'Assign/2125m-3160p/churn/cooperative' ./assign
func BenchmarkAssign(b *testing.B) {
	benchEachShape(b, func(b *testing.B, a Assignor, g *Group, spec *Spec) {
		if a.Protocol() == Consumer {
			for b.Loop() {
				a.AssignSpec(spec)
			}
			return
		}
		for b.Loop() {
			a.Place(g)
		}
	})
}

// BenchmarkAssignGroup times Assign, from a Group to an Assignment (names
// in, names out: the "go Assign" column).
func BenchmarkAssignGroup(b *testing.B) {
	benchEachShape(b, func(b *testing.B, a Assignor, g *Group, _ *Spec) {
		for b.Loop() {
			a.Assign(g)
		}
	})
}

func benchEachShape(b *testing.B, f func(b *testing.B, a Assignor, g *Group, spec *Spec)) {
	for _, shape := range benchShapes {
		if testing.Short() && shape.members > 2125 {
			continue
		}
		fresh, churn := benchCases(shape)
		for _, c := range []struct {
			name  string
			group *Group
		}{{"fresh", fresh}, {"churn", churn}} {
			spec := NewSpec(c.group)
			for _, a := range assignors {
				b.Run(fmt.Sprintf("%s/%s/%s", shape.name, c.name, a.Name()), func(b *testing.B) {
					if shape.heterogeneous && shape.members >= 1000 && testing.Short() && (a.Name() == "sticky" || a.Name() == "cooperative-sticky") {
						b.Skip("the general sticky builder on 1,000 mixed members: run without -short")
					}
					f(b, a, c.group, spec)
				})
			}
		}
	}
}

// BenchmarkNewSpec times compiling a group (not part of the consumer
// protocol's timed assignments: Kafka's coordinator keeps its GroupSpec
// up to date as members join and leave).
func BenchmarkNewSpec(b *testing.B) {
	for _, shape := range benchShapes[:4] {
		_, churn := benchCases(shape)
		b.Run(shape.name+"/churn", func(b *testing.B) {
			for b.Loop() {
				NewSpec(churn)
			}
		})
	}
}

package assign

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// benchGroup is a homogeneous group of members x topics x partitions, with
// a balanced previous assignment and 10% of the members replaced.
func benchGroup(members, topics, partitions int) *Group {
	rng := rand.New(rand.NewPCG(1, 2))
	g := &Group{Topics: map[string]int32{}}
	var names []string
	for i := range topics {
		t := fmt.Sprintf("topic%02d", i)
		names = append(names, t)
		g.Topics[t] = int32(partitions)
	}
	for i := range members {
		g.Members = append(g.Members, Member{ID: fmt.Sprintf("consumer-%d-%08x", i, rng.Uint32()), Topics: names})
	}
	prev := RoundRobin.Assign(g)
	for i := range g.Members {
		if i%10 == 0 {
			g.Members[i].ID += "-new"
			continue
		}
		g.Members[i].Owned = prev[g.Members[i].ID]
	}
	return g
}

// BenchmarkAssign times every strategy on a few shapes; `make
// bench-assign` compares them with Kafka's Java assignors.
func BenchmarkAssign(b *testing.B) {
	for _, shape := range []struct{ members, topics, partitions int }{
		{100, 10, 100},
		{1000, 10, 1000},
	} {
		g := benchGroup(shape.members, shape.topics, shape.partitions)
		for _, a := range assignors {
			b.Run(fmt.Sprintf("%s/%dm-%dp", a.Name(), shape.members, shape.topics*shape.partitions), func(b *testing.B) {
				for b.Loop() {
					a.Assign(g)
				}
			})
		}
	}
}

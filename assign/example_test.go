package assign_test

import (
	"fmt"

	"github.com/chaosbench/chaosbench/assign"
)

// The range assignor splits each topic in contiguous ranges; the first
// members (by member id) get one partition more.
func ExampleRange() {
	g := &assign.Group{
		Topics: map[string]int32{"t0": 7},
		Members: []assign.Member{
			{ID: "c2", Topics: []string{"t0"}},
			{ID: "c0", Topics: []string{"t0"}},
			{ID: "c1", Topics: []string{"t0"}},
		},
	}
	a := assign.Range.Assign(g)
	for _, m := range []string{"c0", "c1", "c2"} {
		fmt.Println(m, a[m].Partitions("t0"))
	}
	// Output:
	// c0 [0 1 2]
	// c1 [3 4]
	// c2 [5 6]
}

// Round robin deals the partitions of all topics, sorted, in turn.
func ExampleRoundRobin() {
	g := &assign.Group{
		Topics: map[string]int32{"t0": 3, "t1": 3},
		Members: []assign.Member{
			{ID: "c0", Topics: []string{"t0", "t1"}},
			{ID: "c1", Topics: []string{"t0", "t1"}},
		},
	}
	a := assign.RoundRobin.Assign(g)
	fmt.Println("c0", a["c0"])
	fmt.Println("c1", a["c1"])
	// Output:
	// c0 map[t0:[0 2] t1:[1]]
	// c1 map[t0:[1] t1:[0 2]]
}

// A member's partitions, topic by topic: All yields the topics in name
// order; Map gives them in the form of Member.Owned, for the next
// rebalance.
func ExampleMemberAssignment() {
	g := &assign.Group{
		Topics: map[string]int32{"t0": 3, "t1": 3},
		Members: []assign.Member{
			{ID: "c0", Topics: []string{"t0", "t1"}},
			{ID: "c1", Topics: []string{"t0", "t1"}},
		},
	}
	a := assign.RoundRobin.Assign(g)
	for topic, ps := range a["c0"].All() {
		fmt.Println(topic, ps)
	}
	fmt.Println(a["c0"].Count(), a["c0"].Partitions("t1"))
	g.Members[0].Owned = a["c0"].Map()
	// Output:
	// t0 [0 2]
	// t1 [1]
	// 3 [1]
}

// When a member joins, the sticky assignor moves only what balance needs.
func ExampleSticky() {
	g := &assign.Group{
		Topics: map[string]int32{"t0": 6},
		Members: []assign.Member{
			{ID: "c0", Topics: []string{"t0"}, Owned: map[string][]int32{"t0": {0, 1, 2}}},
			{ID: "c1", Topics: []string{"t0"}, Owned: map[string][]int32{"t0": {3, 4, 5}}},
			{ID: "c2", Topics: []string{"t0"}},
		},
	}
	a := assign.Sticky.Assign(g)
	for _, m := range []string{"c0", "c1", "c2"} {
		fmt.Println(m, a[m].Partitions("t0"))
	}
	// Output:
	// c0 [0 1]
	// c1 [3 4]
	// c2 [2 5]
}

// Cooperative-sticky takes two rebalances when partitions change owner:
// the first revokes them, the second assigns them.
func ExampleConverge() {
	g := &assign.Group{
		Topics: map[string]int32{"t0": 4},
		Members: []assign.Member{
			{ID: "c0", Topics: []string{"t0"}, Owned: map[string][]int32{"t0": {0, 1, 2, 3}}},
			{ID: "c1", Topics: []string{"t0"}},
		},
	}
	for i, round := range assign.Converge(assign.CooperativeSticky, g) {
		fmt.Println("round", i+1, "c0", round["c0"].Partitions("t0"), "c1", round["c1"].Partitions("t0"))
	}
	// Output:
	// round 1 c0 [0 1] c1 []
	// round 2 c0 [0 1] c1 [2 3]
}

// A Spec is a group compiled once (numbers for members, topics and
// partitions) that the assignors read without converting names; a
// Placement lists each member's partition numbers.
func ExampleNewSpec() {
	g := &assign.Group{
		Topics: map[string]int32{"orders": 4, "audit": 2},
		Members: []assign.Member{
			{ID: "c0", Topics: []string{"orders", "audit"}, Owned: map[string][]int32{"orders": {0, 1}}},
			{ID: "c1", Topics: []string{"orders", "audit"}},
		},
	}
	spec := assign.NewSpec(g)
	p := assign.ConsumerUniform.AssignSpec(spec)
	for i := range spec.NumMembers() {
		fmt.Print(spec.MemberID(i), ":")
		for _, gp := range p.Member(i) {
			fmt.Print(" ", spec.TopicPartition(gp))
		}
		fmt.Println()
	}
	// Output:
	// c0: audit-0 orders-0 orders-1
	// c1: audit-1 orders-2 orders-3
}

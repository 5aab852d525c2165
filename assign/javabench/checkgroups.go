package main

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/chaosbench/chaosbench/assign"
)

// randomGroup makes a small group with a random previous assignment, the
// kind of input where ties and corner cases show.
func randomGroup(rng *rand.Rand) *assign.Group {
	g := &assign.Group{Topics: map[string]int32{}}
	nt := 1 + rng.IntN(4)
	var topics []string
	for i := range nt {
		t := fmt.Sprintf("t%d", i)
		topics = append(topics, t)
		g.Topics[t] = int32(1 + rng.IntN(12))
	}
	nm := 1 + rng.IntN(10)
	same := rng.IntN(2) == 0
	for i := range nm {
		m := assign.Member{ID: randomID(rng, i)}
		if rng.IntN(5) == 0 {
			m.InstanceID = fmt.Sprintf("i%d", rng.IntN(100)*10+i)
		}
		if same {
			m.Topics = slices.Clone(topics)
		} else {
			for _, t := range topics {
				if rng.IntN(2) == 0 {
					m.Topics = append(m.Topics, t)
				}
			}
			if len(m.Topics) == 0 {
				m.Topics = []string{topics[rng.IntN(len(topics))]}
			}
		}
		rng.Shuffle(len(m.Topics), func(a, b int) { m.Topics[a], m.Topics[b] = m.Topics[b], m.Topics[a] })
		g.Members = append(g.Members, m)
	}
	// A previous assignment: each partition owned by a random member (or
	// nobody), mostly one that subscribes to its topic.
	for _, t := range topics {
		for p := range g.Topics[t] {
			if rng.IntN(4) == 0 {
				continue
			}
			i := rng.IntN(nm)
			if !slices.Contains(g.Members[i].Topics, t) && rng.IntN(4) != 0 {
				continue
			}
			m := &g.Members[i]
			if m.Owned == nil {
				m.Owned = map[string][]int32{}
			}
			m.Owned[t] = append(m.Owned[t], p)
		}
	}
	return g
}

// largeGroup makes a group of 20-300 members as a running group would
// be: a balanced previous assignment (sticky's, on the group before some
// members left, joined or changed their subscriptions), a few partitions
// added, some static members. Identical subscriptions half of the time.
func largeGroup(rng *rand.Rand) *assign.Group {
	g := &assign.Group{Topics: map[string]int32{}}
	var topics []string
	for i := range 1 + rng.IntN(12) {
		t := fmt.Sprintf("topic-%d", i)
		topics = append(topics, t)
		g.Topics[t] = int32(1 + rng.IntN(333))
	}
	same := rng.IntN(2) == 0
	subscription := func() []string {
		if same {
			return topics
		}
		var out []string
		for _, t := range topics {
			if rng.IntN(3) != 0 {
				out = append(out, t)
			}
		}
		if len(out) == 0 {
			out = []string{topics[rng.IntN(len(topics))]}
		}
		return out
	}
	n := 20 + rng.IntN(281)
	for i := range n {
		m := assign.Member{ID: randomID(rng, i), Topics: subscription()}
		if rng.IntN(8) == 0 {
			m.InstanceID = fmt.Sprintf("host-%d", rng.IntN(1000000)*1000+i)
		}
		g.Members = append(g.Members, m)
	}
	prev := assign.Sticky.Assign(g)
	next := &assign.Group{Topics: g.Topics}
	for i, m := range g.Members {
		switch r := rng.IntN(10); {
		case r == 0: // left
			continue
		case r == 1: // replaced by a new member
			m = assign.Member{ID: randomID(rng, n+i), Topics: m.Topics}
		case r == 2 && !same: // changed its subscription, kept what it owned
			m.Owned = prev[m.ID].Map()
			m.Topics = subscription()
		default:
			m.Owned = prev[m.ID].Map()
		}
		next.Members = append(next.Members, m)
	}
	if len(next.Members) == 0 {
		next.Members = g.Members[:1]
	}
	for _, t := range topics {
		if rng.IntN(6) == 0 {
			next.Topics[t] += int32(rng.IntN(50))
		}
	}
	return next
}

// randomID makes member ids like the coordinator's: client id, a dash and
// a UUID, so that the Java HashMap orders are exercised.
func randomID(rng *rand.Rand, i int) string {
	return fmt.Sprintf("consumer-%d-%08x-%04x", i, rng.Uint32(), rng.Uint32()&0xffff)
}

package main

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/chaosbench/chaosbench/assign"
)

// shape is a group size to time.
type shape struct {
	name          string
	members       int
	topics        int
	partitions    int  // per topic
	heterogeneous bool // members subscribe to different topic subsets
	runs          int
}

var quickShapes = []shape{
	{"100m-1k", 100, 10, 100, false, 9},
	{"100m-1k-het", 100, 10, 100, true, 9},
	{"1000m-10k", 1000, 10, 1000, false, 5},
	{"2125m-3160p", 2125, 4, 790, false, 5},
}

var fullShapes = append(slices.Clone(quickShapes),
	shape{"1000m-10k-het", 1000, 10, 1000, true, 3},
	shape{"5000m-50k", 5000, 10, 5000, false, 3},
	shape{"10000m-100k", 10000, 10, 10000, false, 3},
)

// selectShapes returns the shapes the -shapes flag names: quick, full,
// none or a comma-separated list of names.
func selectShapes(flag string) ([]shape, error) {
	switch flag {
	case "quick":
		return quickShapes, nil
	case "full":
		return fullShapes, nil
	case "none":
		return nil, nil
	}
	var list []shape
	for _, name := range strings.Split(flag, ",") {
		i := slices.IndexFunc(fullShapes, func(s shape) bool { return s.name == name })
		if i < 0 {
			return nil, usageError(fmt.Sprintf("-shapes: unknown shape %q; expected quick, full, none or names from %s", name, shapeNames()))
		}
		list = append(list, fullShapes[i])
	}
	return list, nil
}

func shapeNames() string {
	var names []string
	for _, s := range fullShapes {
		names = append(names, s.name)
	}
	return strings.Join(names, ", ")
}

// shapeCases returns the shape's two cases: "fresh" (a new group, nothing
// owned) and "churn" (the group after a balanced assignment, with 10% of
// the members gone and as many new ones joined).
func shapeCases(s shape, rng *rand.Rand) []benchCase {
	g := &assign.Group{Topics: map[string]int32{}}
	var topics []string
	for i := range s.topics {
		t := fmt.Sprintf("topic%02d", i)
		topics = append(topics, t)
		g.Topics[t] = int32(s.partitions)
	}
	for i := range s.members {
		m := assign.Member{ID: randomID(rng, i), Topics: topics}
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
		g.Members = append(g.Members, m)
	}
	fresh := benchCase{s.name + "/fresh", g}
	// The previous assignment: round robin's, which is balanced.
	prev := assign.RoundRobin.Assign(g)
	churn := &assign.Group{Topics: g.Topics}
	for i, m := range g.Members {
		if i%10 == 0 {
			churn.Members = append(churn.Members, assign.Member{ID: randomID(rng, s.members+i), Topics: m.Topics})
			continue
		}
		m.Owned = prev[m.ID].Map()
		churn.Members = append(churn.Members, m)
	}
	return []benchCase{fresh, {s.name + "/churn", churn}}
}

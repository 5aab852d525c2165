package assign

import (
	"slices"
)

// Movement counts what a rebalance moved, against what it had to move.
type Movement struct {
	// Owned is how many partitions (of topics someone still subscribes
	// to) had an owner in the group before.
	Owned int `json:"owned"`
	// Moves is how many of them the new assignment gives to another member
	// (or to nobody yet: cooperative-sticky's first round withholds them).
	Moves int `json:"moves"`
	// MinMoves is the fewest moves that any balanced assignment needed:
	// partitions whose owner left or unsubscribed, plus, when every member
	// subscribes to the same topics, what quotas of total/members (one
	// more for total%members members) force out. For groups with
	// different subscriptions only the forced moves are counted, a lower
	// bound (MinMovesExact is false).
	MinMoves      int  `json:"min_moves"`
	MinMovesExact bool `json:"min_moves_exact"`
}

// Skew describes how evenly an assignment spreads partitions over members.
type Skew struct {
	Min    int     `json:"min"`    // fewest partitions of a member
	Max    int     `json:"max"`    // most partitions of a member
	Spread int     `json:"spread"` // max - min
	Mean   float64 `json:"mean"`
}

// Measure compares an assignment with what the group's members owned.
// Owned partitions of members no longer in g are not known to it: count
// them in Group by keeping the member in g, or see Churn, which tracks
// them.
func Measure(g *Group, a Assignment) Movement {
	s := newSpec(g, specOwned)
	var mv Movement
	owners := a.Owners()
	for i, m := range g.Members {
		for _, gp := range s.owned(i) {
			mv.Owned++
			if owners[s.TopicPartition(gp)] != m.ID {
				mv.Moves++
			}
		}
	}
	mv.MinMoves, mv.MinMovesExact = minMoves(s, nil)
	return mv
}

// minMoves computes Movement.MinMoves for the group. gone counts owned
// partitions of members that left (they must move), per topic index.
func minMoves(s *Spec, gone []int) (int, bool) {
	forced := 0
	for _, n := range gone {
		forced += n
	}
	kept := make([]int, len(s.members)) // partitions a member may keep
	for m := range s.members {
		for _, gp := range s.owned(m) {
			if s.subscribes(m, s.topicOf(gp)) {
				kept[m]++
			} else {
				forced++
			}
		}
	}
	if !s.homogeneous || len(s.members) == 0 {
		return forced, false
	}
	n := len(s.members)
	q, r := int(s.total)/n, int(s.total)%n
	keep, above := 0, 0
	for _, k := range kept {
		keep += min(k, q)
		if k > q {
			above++
		}
	}
	keep += min(r, above)
	total := forced
	for _, k := range kept {
		total += k
	}
	return total - keep, true
}

// SkewOf returns the partition counts' spread over the group's members.
func SkewOf(g *Group, a Assignment) Skew {
	if len(g.Members) == 0 {
		return Skew{}
	}
	counts := make([]int, len(g.Members))
	sum := 0
	for i, m := range g.Members {
		counts[i] = a.Count(m.ID)
		sum += counts[i]
	}
	lo, hi := slices.Min(counts), slices.Max(counts)
	return Skew{Min: lo, Max: hi, Spread: hi - lo, Mean: float64(sum) / float64(len(counts))}
}

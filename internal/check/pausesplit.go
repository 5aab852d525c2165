package check

import "github.com/chaosbench/chaosbench/internal/summary"

// Two populations of pauses (docs/summary.md, `pause`): a disruption
// pauses two kinds of partitions, and their pauses have nothing in
// common. Its own partitions are those of its subject (the member a chaos
// step targeted, or whose exit or loss opened an unplanned disruption)
// and the partitions an add_partitions step created: they wait for the
// cause itself (a crashed member's for the session timeout, a new
// partition for the group to take it on). The others are the partitions
// the group's rebalance took from its other members: the protocol's own
// cost. Mixed, their percentiles swing between the two populations from
// one run to the next; apart, each is stable. Every pause is in exactly
// one of the two (PartitionPause.Target); each population has its own
// statistics, per disruption and for the headline disruptions of the
// cell, over finished pauses as the combined ones are.

// popStats holds the finished pauses of each population, in ns.
type popStats struct {
	target, other []int64
}

func (s *popStats) add(pp *pause, ns int64) {
	if pp.target {
		s.target = append(s.target, ns)
	} else {
		s.other = append(s.other, ns)
	}
}

func (s *popStats) stats() (target, other summary.Stats) {
	return statsOf(s.target), statsOf(s.other)
}

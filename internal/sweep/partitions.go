package sweep

import (
	"math"
	"slices"

	"github.com/chaosbench/chaosbench/workloads"
)

// The partition count to create (docs/capacity.md, "A partition count"):
// from the measured throughput of one partition p (the highest a hottest
// partition sustained in a capacity run: its owner had nothing else) and
// of one member c (the measured member rate), a topic carrying the target
// rate T with headroom H needs at least H·T/p partitions, and at least
// H·T/c members, each of which needs a partition of its own: max(H·T/p,
// H·T/c) partitions. That count is rounded up to the next highly composite
// number (one with more divisors than any smaller count: 1, 2, 4, 6, 12,
// 24, 36, 48, 60, 120, ...), so that many group sizes split it evenly; and
// every group size from the fewest members that carry H·T up to the count
// is listed with the partitions its busiest member gets over the mean (1
// when the size divides the count). Derived from measurements, assuming
// the traffic spreads evenly over the partitions; the measured hottest
// share says how far it does not.

// Headroom is the margin over the target rate the partition count is
// sized for.
const Headroom = 1.25

// PartitionAdvice is the partition count derived for the target rate.
type PartitionAdvice struct {
	Rate, Headroom            float64
	PartitionRate, MemberRate float64
	// NeedPartitions and NeedMembers are H·T/p and H·T/c.
	NeedPartitions, NeedMembers float64
	// Partitions is max of the two, rounded up to a highly composite
	// number; Counts the group sizes from ceil(NeedMembers) to Partitions.
	Partitions int
	Counts     []GroupSize
	// HottestShare is the largest share of the traffic one partition
	// carried in the capacity runs; HotBound the rate that share allows,
	// whatever the count (p over it).
	HottestShare, HotBound float64
}

// GroupSize is a group size on the advised partition count.
type GroupSize struct {
	Members int
	// Divides: every member gets Partitions/Members partitions; otherwise
	// Skew is the busiest member's partitions over the mean.
	Divides bool
	Skew    float64
}

// AdvisePartitions derives the partition count for the targets' rate;
// nil without a rate or without a measured member rate.
func (j *Judgement) AdvisePartitions() *PartitionAdvice {
	t := j.Targets.Rate
	c := j.MemberRate.Median
	if !(t > 0) || !(c > 0) {
		return nil
	}
	p := c
	hot := 0.0
	for _, cf := range j.Configs {
		for _, it := range cf.Row.Capacity {
			p = math.Max(p, it.HottestRate)
			hot = math.Max(hot, it.HottestShare)
		}
	}
	a := &PartitionAdvice{Rate: t, Headroom: Headroom, PartitionRate: p, MemberRate: c, HottestShare: hot,
		NeedPartitions: Headroom * t / p, NeedMembers: Headroom * t / c}
	if hot > 0 {
		a.HotBound = p / hot
	}
	need := int(math.Ceil(math.Max(a.NeedPartitions, a.NeedMembers) - 1e-9))
	a.Partitions = HighlyComposite(max(need, 1))
	for n := max(int(math.Ceil(a.NeedMembers-1e-9)), 1); n <= a.Partitions; n++ {
		per := float64(a.Partitions) / float64(n)
		a.Counts = append(a.Counts, GroupSize{Members: n, Divides: a.Partitions%n == 0, Skew: math.Ceil(per) / per})
	}
	return a
}

// HighlyComposite returns the smallest highly composite number at least
// n (a count with more divisors than any smaller one); n itself beyond
// workloads.MaxPartitions.
func HighlyComposite(n int) int {
	best := 0
	for m := 1; m <= workloads.MaxPartitions; m++ {
		d := divisorCount(m)
		if d > best {
			best = d
			if m >= n {
				return m
			}
		}
	}
	return n
}

func divisorCount(m int) int {
	n := 0
	for f := 1; f*f <= m; f++ {
		if m%f == 0 {
			n++
			if f != m/f {
				n++
			}
		}
	}
	return n
}

// DividingCounts are the group sizes of the advice that divide the
// partition count.
func (a *PartitionAdvice) DividingCounts() []int {
	var out []int
	for _, g := range a.Counts {
		if g.Divides {
			out = append(out, g.Members)
		}
	}
	return slices.Clip(out)
}

package sweep

import (
	"math"
	"slices"

	"github.com/chaosbench/chaosbench/internal/stat"
	"github.com/chaosbench/chaosbench/workloads"
)

// What a crash leaves (docs/capacity.md, "After a crash"). A fresh group
// of N-1 members is not what a crash leaves: the survivors keep what they
// own (under a sticky or incremental assignor), and the dead member's
// partitions go where the assignor puts them, often onto one survivor.
// The group left sustains what its busiest survivor allows: the member
// rate over that survivor's share of the traffic. Which member crashes
// is chance; the worst one decides. The assignments are computed with the
// assignor models (a CrashFunc: package groupmodel's CrashLeft, passed
// by the command, so that nothing that renders a judgement reaches the
// assignors); the shares are those the capacity run measured per
// partition (medians over its iterations), or predicted from the keys
// when it measured none; the member rate is the configuration's measured
// one.

// CrashFunc computes, for a fresh group of members on partitions under a
// strategy, the assignment each member's crash leaves, and returns the
// worst: the crash whose busiest survivor carries the largest share of the
// traffic (shares by partition). ok is false when the strategy has no
// model or the group has one member.
type CrashFunc func(strategy string, members, partitions int, shares []float64) (CrashLeft, bool)

// CrashLeft is what the worst crash leaves.
type CrashLeft struct {
	// Crashed is the member whose crash leaves the busiest survivor (by
	// its place in the group: m1, m2, ...) and CrashedPartitions what it
	// owned.
	Crashed           string  `json:"crashed"`
	CrashedPartitions []int32 `json:"crashed_partitions"`
	// Busiest is that survivor, Partitions what it owns after the crash,
	// MaxShare their share of the traffic.
	Busiest    string  `json:"busiest"`
	Partitions []int32 `json:"partitions"`
	MaxShare   float64 `json:"max_share"`
	// FreshMaxShare is the busiest member's share before any crash, and
	// Idle the members the fresh assignment leaves without a partition.
	FreshMaxShare float64 `json:"fresh_max_share"`
	Idle          int     `json:"idle"`
	// Capacity is the member rate over MaxShare: what the group left
	// sustains (records/s). Set by the judgement.
	Capacity float64 `json:"capacity"`
}

// Standby reports whether the fresh assignment's idle members are a
// standby: some member is idle, and the worst crash leaves no survivor
// busier than the busiest member was before it.
func (c *CrashLeft) Standby() bool {
	return c != nil && c.Idle > 0 && c.MaxShare <= c.FreshMaxShare+1e-9
}

// shares are the configuration's traffic shares per partition: the
// medians of its capacity runs' measured shares, else the keys'
// prediction for its partition count.
func (cf *Config) shares(spec *workloads.Spec) []float64 {
	n := cf.Row.Partitions
	var per [][]float64
	for _, it := range cf.Row.Capacity {
		if len(it.Shares) == n {
			per = append(per, it.Shares)
		}
	}
	if len(per) > 0 {
		out := make([]float64, n)
		for p := range out {
			var xs []float64
			for _, s := range per {
				xs = append(xs, s[p])
			}
			out[p] = stat.Median(xs)
		}
		return out
	}
	if spec == nil || n <= 0 {
		return nil
	}
	load, err := spec.PredictLoad(int32(n))
	if err != nil {
		return nil
	}
	return slices.Clone(load.Share)
}

// crashLeft computes the configuration's CrashLeft with crash, at its
// measured member rate; nil when it cannot.
func (j *Judgement) crashLeft(cf *Config, crash CrashFunc) *CrashLeft {
	if crash == nil || cf.Row.Members < 2 || cf.MemberRate.N == 0 || !(cf.MemberRate.Median > 0) {
		return nil
	}
	shares := cf.shares(j.Spec)
	if len(shares) != cf.Row.Partitions {
		return nil
	}
	c, ok := crash(cf.Row.Strategy, cf.Row.Members, cf.Row.Partitions, shares)
	if !ok || !(c.MaxShare > 0) {
		return nil
	}
	c.Capacity = cf.MemberRate.Median / c.MaxShare
	if math.IsInf(c.Capacity, 0) || math.IsNaN(c.Capacity) {
		return nil
	}
	return &c
}

package sweep

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/chaosbench/chaosbench/internal/vocab"
)

// Series is the points that differ only in their member count, in member
// order: throughput against members.
type Series struct {
	Strategy, CommitPolicy, Client string
	Partitions, MaxPollRecords     int
	Configs                        []*Config
	// Knee is the config after which adding members adds less than
	// KneeGain, and Bound says what bounds it; nil when the grid's
	// largest group still scales.
	Knee  *Config
	Bound Bound
	// key is what the series' points share, written out in the order the
	// series are listed by after strategy and partitions.
	key string
}

// KneeGain is the gain in throughput below which adding members is said
// to stop helping.
const KneeGain = 0.10

// Bound is what stops a series from scaling at its knee.
type Bound string

const (
	// BoundPartitions: the group has as many members as partitions; more
	// members get nothing.
	BoundPartitions Bound = "partitions"
	// BoundHottestPartition: one member's rate over the hottest
	// partition's share is within PhysicsTolerance of the capacity.
	BoundHottestPartition Bound = "hottest partition"
	// BoundBusiestMember: one member's rate over the share the busiest
	// member processed (the assignment put several partitions on it) is.
	BoundBusiestMember Bound = "busiest member"
	// BoundElsewhere: neither; the members are not the bottleneck (the
	// host, the broker).
	BoundElsewhere Bound = "elsewhere"
)

// series groups the configs by all but their member count, and links each
// config to the one with a member fewer.
func (j *Judgement) series() {
	byKey := map[string]*Series{}
	for _, cf := range j.Configs {
		r := cf.Row
		k := fmt.Sprintf("%s · %s · %s, %d partitions, max.poll.records %d", r.Strategy, r.CommitPolicy, r.Client,
			r.Partitions, r.MaxPollRecords)
		s := byKey[k]
		if s == nil {
			s = &Series{key: k, Strategy: r.Strategy, CommitPolicy: r.CommitPolicy, Client: r.Client,
				Partitions: r.Partitions, MaxPollRecords: r.MaxPollRecords}
			byKey[k] = s
			j.Series = append(j.Series, s)
		}
		s.Configs = append(s.Configs, cf)
	}
	for _, s := range j.Series {
		slices.SortFunc(s.Configs, func(a, b *Config) int { return a.Row.Members - b.Row.Members })
		for i, cf := range s.Configs {
			if i > 0 && s.Configs[i-1].Row.Members == cf.Row.Members-1 {
				cf.NMinus1 = s.Configs[i-1]
			}
		}
	}
	slices.SortStableFunc(j.Series, func(a, b *Series) int {
		return cmp.Or(vocab.StrategyRank(a.Strategy)-vocab.StrategyRank(b.Strategy), a.Partitions-b.Partitions,
			strings.Compare(a.key, b.key))
	})
}

// knee finds where adding members stops helping in a series, and why:
// the partition count (members beyond it get nothing), the hottest
// partition (one member's rate over its share bounds the group), the
// busiest member, or neither (the host or the broker).
func (j *Judgement) knee(s *Series) {
	var measured []*Config
	for _, cf := range s.Configs {
		if cf.Capacity.N > 0 {
			measured = append(measured, cf)
		}
	}
	for i, cf := range measured {
		if i == len(measured)-1 {
			return // the largest group still scales, or stands alone
		}
		flat := true
		for _, later := range measured[i+1:] {
			if later.Capacity.Median >= (1+KneeGain)*cf.Capacity.Median {
				flat = false
				break
			}
		}
		if !flat {
			continue
		}
		s.Knee = cf
		c1 := j.MemberRate.Median
		switch {
		case cf.Row.Members >= s.Partitions:
			s.Bound = BoundPartitions
		case cf.HottestShare > 0 && c1 > 0 && c1/cf.HottestShare <= (1+PhysicsTolerance)*cf.Capacity.Median:
			s.Bound = BoundHottestPartition
		case cf.MaxMemberShare > 0 && c1 > 0 && c1/cf.MaxMemberShare <= (1+PhysicsTolerance)*cf.Capacity.Median:
			s.Bound = BoundBusiestMember
		default:
			s.Bound = BoundElsewhere
		}
		return
	}
}

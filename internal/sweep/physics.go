package sweep

import (
	"math"

	"github.com/chaosbench/chaosbench/workloads"
)

// PhysicsCheck compares a measured figure with what physics allows.
type PhysicsCheck struct {
	// Against is the law the figure is held to; Config the point whose
	// capacity it holds (nil for one member's rate, over every point).
	Against Physics
	Config  *Config

	Measured, Expected float64
	Ratio              float64
	OK                 bool
	Points             []string // the runs it rests on
	// Load is the host's highest load average around those runs (NaN
	// when not recorded).
	Load float64
}

// Physics is a law a measured capacity is held to, with processing cost
// c and one record in flight.
type Physics string

const (
	// PhysicsOneMember: one member takes 1/c records/s.
	PhysicsOneMember Physics = "one member"
	// PhysicsBusiestMember: a group takes no more than 1/c over the
	// share of the records its busiest member processed.
	PhysicsBusiestMember Physics = "busiest member"
	// PhysicsHottestPartition: nor more than 1/c over the hottest
	// partition's share h; here the two shares agree (within half a
	// percentage point): the hottest partition's owner owns nothing else.
	PhysicsHottestPartition Physics = "hottest partition"
	// PhysicsHottestMoved: the hottest partition's share exceeds the
	// busiest member's, because it moved between members during the run;
	// still processed one record at a time, it bounds the group.
	PhysicsHottestMoved Physics = "hottest partition, moved"
)

// PhysicsTolerance is how far a measured capacity may be from physics
// and still be called close.
const PhysicsTolerance = 0.15

// physics checks the measurements against what physics allows: one
// member with one record in flight and processing cost c takes 1/c
// records/s; a group can take no more than one member's rate over the
// share of the records its busiest member processed, nor over the
// hottest partition's share h (a partition is processed one record at a
// time, whoever owns it): when the hottest partition's owner owns
// nothing else, both are (1/c)/h whatever the group's size.
func (j *Judgement) physics() {
	cost := j.Table.ProcessingCostMs / 1000
	if cost <= 0 || j.Spec.Consumer.Processing.Distribution != workloads.CostFixed || j.MemberRate.N == 0 {
		return
	}
	perMember := 1 / cost
	var pts []string
	for _, cf := range j.Configs {
		if cf.Capacity.N > 0 {
			pts = append(pts, cf.Row.CapacityRun)
		}
	}
	j.Physics = append(j.Physics, j.physicsCheck(PhysicsOneMember, nil, j.MemberRate.Median, perMember, pts))
	for _, cf := range j.Configs {
		if cf.Capacity.N == 0 || cf.MaxMemberShare <= 0 {
			continue
		}
		// A partition is processed one record at a time whoever owns it:
		// when it moved between members during the run, the busiest
		// member's share can fall below the hottest partition's, which
		// still bounds the group.
		bound := math.Max(cf.MaxMemberShare, cf.HottestShare)
		against := PhysicsBusiestMember
		switch {
		case math.Abs(cf.MaxMemberShare-cf.HottestShare) < 0.005:
			against = PhysicsHottestPartition
		case cf.HottestShare > cf.MaxMemberShare:
			against = PhysicsHottestMoved
		}
		j.Physics = append(j.Physics, j.physicsCheck(against, cf, cf.Capacity.Median, perMember/bound, []string{cf.Row.CapacityRun}))
	}
}

func (j *Judgement) physicsCheck(against Physics, cf *Config, measured, expected float64, pts []string) PhysicsCheck {
	r := measured / expected
	load := math.NaN()
	for _, pt := range pts {
		if l := j.loadOf(pt); !math.IsNaN(l) {
			load = math.Max(nanZero(load), l)
		}
	}
	return PhysicsCheck{Against: against, Config: cf, Measured: measured, Expected: expected, Ratio: r,
		OK: math.Abs(r-1) <= PhysicsTolerance, Points: pts, Load: load}
}

// loadOf is the host's highest load average around a run (NaN when the
// sweep did not record it).
func (j *Judgement) loadOf(run string) float64 {
	l := math.NaN()
	for _, rl := range j.Table.Sweep.Load {
		if rl.Run == run {
			l = math.Max(nanZero(l), math.Max(rl.Before, rl.After))
		}
	}
	return l
}

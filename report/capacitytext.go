package report

import (
	"fmt"
	"math"
	"strings"

	"github.com/chaosbench/chaosbench/internal/clip"
	"github.com/chaosbench/chaosbench/internal/sweep"
)

// The judgement in words: the judgement says which case each target,
// knee and physics check is, and holds the figures; these put them into
// the sentences the report prints.

// ConfigName is a configuration for people: "cooperative-sticky, 4
// members, 12 partitions" (and the policy, client and batch when the
// sweep varies them).
func ConfigName(cf *sweep.Config) string {
	r := cf.Row
	parts := []string{r.Strategy, clip.Plural(r.Members, "member"), clip.Plural(r.Partitions, "partition")}
	for _, s := range r.Point.Settings {
		switch s.Dim {
		case sweep.DimCommitPolicy:
			parts = append(parts, "policy "+s.Value)
		case sweep.DimClient:
			parts = append(parts, "client "+s.Value)
		case sweep.DimMaxPollRecords:
			parts = append(parts, "max.poll.records "+s.Value)
		}
	}
	return strings.Join(parts, ", ")
}

// seriesLabel is what a series' configurations share: strategy · policy
// · client, partitions, batch.
func seriesLabel(s *sweep.Series) string {
	return fmt.Sprintf("%s · %s · %s, %s, max.poll.records %d", s.Strategy, s.CommitPolicy, s.Client,
		clip.Plural(s.Partitions, "partition"), s.MaxPollRecords)
}

// checkText says what a target's check at a configuration rests on.
func (c capacity) checkText(cf *sweep.Config, ch sweep.TargetCheck) string {
	t := c.Targets
	maxPause := FormatMs(float64(t.MaxPause.Milliseconds()))
	maxCatchUp := FormatMs(t.MaxCatchUp.Seconds() * 1000)
	type is struct {
		target string
		c      sweep.Case
	}
	switch (is{ch.Target, ch.Case}) {
	case is{"rate", sweep.CaseNotMeasured}:
		return "capacity not measured"
	case is{"rate", sweep.CaseMeasured}:
		return fmt.Sprintf("sustains %s records/s (target %s)", spreadRate(cf.Capacity), fmtRate(t.Rate))
	case is{"n-1", sweep.CaseNoMemberLeft}:
		return "a crash leaves no member"
	case is{"n-1", sweep.CaseNotMeasured}:
		return fmt.Sprintf("not measured: the grid has no point with %d members", cf.Row.Members-1)
	case is{"n-1", sweep.CaseMeasured}:
		verb := "sustain"
		if cf.Row.Members-1 == 1 {
			verb = "sustains"
		}
		return fmt.Sprintf("%s %s %s records/s", clip.Plural(cf.Row.Members-1, "member"), verb, spreadRate(cf.NMinus1.Capacity))
	case is{"n-1", sweep.CaseCrashModel}:
		return crashLeftText(cf)
	case is{"valid", sweep.CaseShortDelivery}:
		return fmt.Sprintf("the producer delivered %s records/s of the %s asked: the target run did not test the target", fmtRate(cf.Delivered.Median), fmtRate(t.Rate))
	case is{"valid", sweep.CaseInvalid}:
		return "the target run's cell is invalid (see its summary)"
	case is{"max_lag", sweep.CaseNoTargetRun}, is{"max_pause", sweep.CaseNoTargetRun}:
		return "no target run"
	case is{"max_lag", sweep.CaseMeasured}:
		return fmt.Sprintf("lag %s records at the target rate (max %d)", spreadCount(cf.LagSteady), t.MaxLag)
	case is{"max_pause", sweep.CaseNoChaosStep}:
		return "the workload has no crash (kill, pause) or deploy (restart, rolling_restart) step"
	case is{"max_pause", sweep.CaseMeasured}:
		return fmt.Sprintf("longest partition pause %s after a crash, %s in a deploy (max %s)", spreadMs(cf.CrashPause), spreadMs(cf.DeployPause), maxPause)
	case is{"max_catch_up", sweep.CaseNoCrash}:
		return "no crash measured at the target rate"
	case is{"max_catch_up", sweep.CaseNotMeasured}:
		return "the capacity with one member fewer is not measured"
	case is{"max_catch_up", sweep.CaseNeverDrains}:
		if cf.CrashLeft != nil {
			return fmt.Sprintf("never: after the worst crash the group left sustains %s records/s, less than the target rate", fmtRate(cf.CrashLeft.Capacity))
		}
		return "never: with one member fewer the group sustains less than the target rate"
	case is{"max_catch_up", sweep.CaseUnrecovered}:
		return fmt.Sprintf("backlog %s records, drained in %s at the capacity "+leftName(cf)+", but a crash did not recover before the end of traffic (max %s)",
			formatCount(math.Round(cf.Backlog)), FormatMs(cf.DrainS*1000), maxCatchUp)
	case is{"max_catch_up", sweep.CaseMeasured}:
		return fmt.Sprintf("backlog %s records drained in %s at the capacity "+leftName(cf)+" (measured catch-up %s; max %s)",
			formatCount(math.Round(cf.Backlog)), FormatMs(cf.DrainS*1000), spreadMs(cf.CrashCatchUp), maxCatchUp)
	}
	return string(ch.Case)
}

// sureText says how sure the recommendation is, and why.
func sureText(s *sweep.Sureness) string {
	if s == nil {
		return ""
	}
	var why []string
	if s.Iterations < sweep.MinSureIterations {
		why = append(why, fmt.Sprintf("it rests on %s of each run (--repeat %d gives a spread)", clip.Plural(s.Iterations, "iteration"), sweep.MinSureIterations))
	}
	if len(s.Weak) > 0 {
		why = append(why, fmt.Sprintf("it misses %s in some iteration", strings.Join(s.Weak, ", ")))
	}
	if len(s.Sometimes) > 0 {
		why = append(why, fmt.Sprintf("the runner-up, %s, meets %s in some iteration", ConfigName(s.RunnerUp), strings.Join(s.Sometimes, ", ")))
	}
	decided := ""
	if s.RunnerUp != nil && len(s.Decided) > 0 {
		decided = fmt.Sprintf(" The runner-up, %s, was decided against by %s.", ConfigName(s.RunnerUp), strings.Join(s.Decided, ", "))
	}
	if s.Sure {
		return "**Sure**: the recommendation meets every target in each of its iterations, and the runner-up misses in every iteration what decided against it." + decided
	}
	return "**Not sure**: " + strings.Join(why, "; ") + "." + decided
}

// leftName names the capacity a crash's backlog drains at: what the
// worst crash leaves, or the measured one of a member fewer.
func leftName(cf *sweep.Config) string {
	if cf.CrashLeft != nil {
		return "the worst crash leaves"
	}
	return "with one member fewer"
}

// crashLeftText says what the worst crash leaves a configuration: who
// crashes, where its partitions go, and what the group left sustains.
func crashLeftText(cf *sweep.Config) string {
	cl := cf.CrashLeft
	return fmt.Sprintf("after the worst crash (%s, owner of %s) %s holds %s, %s of the traffic: the group left sustains %s records/s (the measured member rate %s over that share; computed with the %s assignor's model, not measured)",
		cl.Crashed, partitionList(cl.CrashedPartitions), cl.Busiest, partitionList(cl.Partitions), pct(cl.MaxShare),
		fmtRate(cl.Capacity), fmtRate(cf.MemberRate.Median), cf.Row.Strategy)
}

// idleText says what a configuration's idle members are for: the standby
// that keeps every survivor's load after a crash, or nothing; "" when no
// member is idle.
func idleText(cf *sweep.Config) string {
	cl := cf.CrashLeft
	if cl == nil || cl.Idle == 0 {
		return ""
	}
	if cl.Standby() {
		return fmt.Sprintf("%s on %s leaves %s without a partition: the standby. Whichever member crashes, its partitions go to the idle one and no survivor carries more than the busiest member did before (%s), so the group keeps its capacity through a crash.",
			clip.Plural(cf.Row.Members, "member"), clip.Plural(cf.Row.Partitions, "partition"), clip.Plural(cl.Idle, "member"), pct(cl.FreshMaxShare))
	}
	return fmt.Sprintf("%s on %s leaves %s without a partition, and a crash still puts more on a survivor (%s against %s before): the idle members are not a standby.",
		clip.Plural(cf.Row.Members, "member"), clip.Plural(cf.Row.Partitions, "partition"), clip.Plural(cl.Idle, "member"), pct(cl.MaxShare), pct(cl.FreshMaxShare))
}

// partitionList is "p0" or "p0, p1".
func partitionList(ps []int32) string {
	if len(ps) == 0 {
		return "no partition"
	}
	var parts []string
	for _, p := range ps {
		parts = append(parts, fmt.Sprintf("p%d", p))
	}
	return strings.Join(parts, ", ")
}

// kneeText says what bounds a series at its knee.
func (c capacity) kneeText(s *sweep.Series) string {
	cf, c1 := s.Knee, c.MemberRate.Median
	switch s.Bound {
	case sweep.BoundPartitions:
		return fmt.Sprintf("the partition count: with %s, at most %d members have work; more members stand idle", clip.Plural(s.Partitions, "partition"), s.Partitions)
	case sweep.BoundHottestPartition:
		return fmt.Sprintf("the hottest partition: it carries %s of the records and one member takes %s records/s, so no group can exceed %s records/s (one member's rate over the hottest share)",
			pct(cf.HottestShare), fmtRate(c1), fmtRate(c1/cf.HottestShare))
	case sweep.BoundBusiestMember:
		return fmt.Sprintf("the busiest member: it processed %s of the records (the assignment put several partitions on it), so the group cannot exceed one member's rate over that share, %s records/s", pct(cf.MaxMemberShare), fmtRate(c1/cf.MaxMemberShare))
	}
	return "neither the partition count nor the hottest partition: the members are not the bottleneck (look at the host's CPU and the broker)"
}

// physicsText says what a physics check holds to what.
func (c capacity) physicsText(p sweep.PhysicsCheck) string {
	cf := p.Config
	switch p.Against {
	case sweep.PhysicsOneMember:
		cost := c.Table.ProcessingCostMs / 1000
		return fmt.Sprintf("one member's rate against 1/cost (cost %s)", FormatMs(cost*1000))
	case sweep.PhysicsHottestPartition:
		return fmt.Sprintf("%s: the group against (1/cost) / the hottest partition's share h = %s (its owner owns nothing else)", ConfigName(cf), pct(cf.HottestShare))
	case sweep.PhysicsHottestMoved:
		return fmt.Sprintf("%s: the group against (1/cost) / the hottest partition's share h = %s (it moved between members: the busiest processed %s)", ConfigName(cf), pct(cf.HottestShare), pct(cf.MaxMemberShare))
	}
	return fmt.Sprintf("%s: the group against (1/cost) / the busiest member's share (%s)", ConfigName(cf), pct(cf.MaxMemberShare))
}

// modelAssumptions are the assumptions the model of the production group
// rests on.
func modelAssumptions(m *sweep.ProductionModel) []string {
	out := []string{
		fmt.Sprintf("each member sustains the measured %s records/s, as on the test cluster: each on its own host, at the workload's processing cost, batch size, client and commit policy; the brokers, the network and the group coordinator are not the bottleneck at %d members (not measured here)", fmtRate(m.MemberRate), m.Members),
		"a member with share s of the traffic keeps up while the rate times s is at most its capacity: the group's capacity is the member capacity over the busiest member's share",
		fmt.Sprintf("traffic spreads over the %d partitions as the workload's keys and partitioner say (loadgen plan's prediction): the hottest carries %s", m.Partitions, pct(m.HottestShare)),
		"assignments, movement, revocations and rounds are the assignor models' (package assign, exact against Kafka's Java assignors); the time a rebalance takes (session timeouts, heartbeats, the members' commits) is not modelled",
		"member ids are random, as a coordinator's are; a restarted member rejoins with a new id (dynamic membership); the busiest member is the one that crashes",
	}
	if m.Restarts < m.Members {
		out = append(out, fmt.Sprintf("the rolling deploy's totals are those of the first %d restarts, scaled to all %d members", m.Restarts, m.Members))
	}
	return out
}

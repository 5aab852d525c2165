// Package groupmodel models a production-size consumer group for the
// capacity report: hundreds or thousands of members over thousands of
// partitions, more than a test cluster holds. What each strategy does to
// such a group is computed, not measured: the assignor models of package
// assign give, exactly as Kafka computes them, the assignment, what a
// crash and a rejoin move, how many partitions stop and how many
// rebalance rounds it takes; the measured per-member capacity,
// extrapolated to that assignment, gives what the group would sustain.
// Its Production is the sweep's judgement's ModelFunc: the judgement and
// the report that renders it hold the model's figures (the types of
// package sweep) without reaching the assignors.
package groupmodel

import (
	"fmt"
	"math"
	"slices"

	"github.com/chaosbench/chaosbench/assign"
	"github.com/chaosbench/chaosbench/internal/sweep"
	"github.com/chaosbench/chaosbench/workloads"
)

// deployRestarts bounds the restarts of a rolling deploy simulated.
const deployRestarts = 20

// Production models the strategies on a group of members x partitions
// of one topic; memberRate is the measured per-member capacity.
func Production(spec *workloads.Spec, strategies []string, members, partitions int, memberRate float64) *sweep.ProductionModel {
	m := &sweep.ProductionModel{Members: members, Partitions: partitions, MemberRate: memberRate,
		Restarts: min(members, deployRestarts)}
	load, err := spec.PredictLoad(int32(partitions))
	shares := load.Share
	if err != nil {
		shares = nil
	}
	_, m.HottestShare = load.Hottest()
	// Member ids as a coordinator gives them: random (a client id and a
	// UUID), so that their sorted order, which range and roundrobin
	// follow, is as arbitrary as a real group's. Seeded: the same
	// workload gives the same model.
	rng := spec.Rand("capacity-model")
	newID := func() string { return fmt.Sprintf("consumer-%016x", rng.Uint64()) }
	ids := make([]string, members)
	for i := range ids {
		ids[i] = newID()
	}
	restartIDs := make([]string, m.Restarts)
	for i := range restartIDs {
		restartIDs[i] = newID()
	}
	for _, name := range strategies {
		a, err := assign.Lookup(name)
		if err != nil {
			continue
		}
		m.Strategies = append(m.Strategies, modelStrategy(a, ids, restartIDs, partitions, shares, memberRate))
	}
	return m
}

// modelStrategy computes one strategy's rows.
func modelStrategy(a assign.Assignor, ids, restartIDs []string, partitions int, shares []float64, memberRate float64) sweep.StrategyModel {
	sm := sweep.StrategyModel{Strategy: a.Name()}
	const topic = "t"
	g := &assign.Group{Topics: map[string]int32{topic: int32(partitions)}}
	for _, id := range ids {
		g.Members = append(g.Members, assign.Member{ID: id, Topics: []string{topic}})
	}
	rounds := assign.Converge(a, g)
	fresh := rounds[len(rounds)-1]
	sm.Spread = assign.SkewOf(g, fresh).Spread
	own(g, fresh)
	busiest, share := busiestMember(fresh, shares)
	sm.MaxShare, sm.Capacity = share, capacityOver(memberRate, share)

	step := func(start *assign.Group, changes ...assign.Change) (assign.StepResult, *assign.Group) {
		s := &assign.Script{Steps: []assign.ScriptStep{{Changes: changes}}}
		res, err := assign.Simulate(a, start, s, "model", true)
		if err != nil || len(res) == 0 {
			return assign.StepResult{}, start
		}
		next := &assign.Group{Topics: start.Topics}
		for _, mb := range start.Members {
			if !slices.ContainsFunc(changes, func(c assign.Change) bool { return c.Kind == "leave" && slices.Contains(c.Members, mb.ID) }) {
				next.Members = append(next.Members, mb)
			}
		}
		for _, c := range changes {
			if c.Kind == "join" {
				for _, id := range c.Members {
					next.Members = append(next.Members, assign.Member{ID: id, Topics: c.Topics})
				}
			}
		}
		own(next, res[0].Assignment)
		return res[0], next
	}
	rebalance := func(r assign.StepResult) sweep.Rebalance {
		return sweep.Rebalance{Moves: r.Moves, MinMoves: r.MinMoves, Revoked: r.Revoked, Rounds: r.Rounds}
	}
	if len(ids) > 1 {
		crash, after := step(g, assign.Change{Kind: "leave", Members: []string{busiest}})
		sm.Crash = rebalance(crash)
		_, share1 := busiestMember(crash.Assignment, shares)
		sm.MaxShareNMinus1, sm.CapacityNMinus1 = share1, capacityOver(memberRate, share1)
		if len(restartIDs) > 0 {
			rejoin, _ := step(after, assign.Change{Kind: "join", Members: []string{restartIDs[0]}, Topics: []string{topic}})
			sm.Rejoin = rebalance(rejoin)
		}
	}
	cur := g
	for i, id := range restartIDs {
		var r assign.StepResult
		r, cur = step(cur, assign.Change{Kind: "leave", Members: []string{ids[i]}})
		sm.Deploy.Add(rebalance(r))
		r, cur = step(cur, assign.Change{Kind: "join", Members: []string{id}, Topics: []string{topic}})
		sm.Deploy.Add(rebalance(r))
	}
	if n := len(restartIDs); n > 0 && n < len(ids) {
		f := float64(len(ids)) / float64(n)
		d := &sm.Deploy
		d.Moves, d.MinMoves = int(math.Round(float64(d.Moves)*f)), int(math.Round(float64(d.MinMoves)*f))
		d.Revoked, d.Rounds = int(math.Round(float64(d.Revoked)*f)), int(math.Round(float64(d.Rounds)*f))
	}
	return sm
}

// own makes an assignment what the group's members own.
func own(g *assign.Group, a assign.Assignment) {
	for i := range g.Members {
		g.Members[i].Owned = a[g.Members[i].ID].Map()
	}
}

// busiestMember returns the member whose partitions carry the largest
// share of the traffic (shares by partition; without shares, the most
// partitions over the total).
func busiestMember(a assign.Assignment, shares []float64) (string, float64) {
	var best string
	top := -1.0
	total := 0
	for _, ma := range a {
		total += ma.Count()
	}
	ids := make([]string, 0, len(a))
	for id := range a {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		s := 0.0
		for _, ps := range a[id].All() {
			for _, p := range ps {
				if int(p) < len(shares) {
					s += shares[p]
				} else if total > 0 {
					s += 1 / float64(total)
				}
			}
		}
		if s > top {
			best, top = id, s
		}
	}
	return best, math.Max(top, 0)
}

func capacityOver(rate, share float64) float64 {
	if share <= 0 || rate <= 0 {
		return math.NaN()
	}
	return rate / share
}

// CrashLeft is the sweep's CrashFunc: for a fresh group of members m1..mN
// (member ids as a classic group's sort: by client id, m1.0, m2.0, ...) on
// one topic of partitions under strategy, it crashes each member in turn
// from the fresh assignment, rebalances the survivors with the strategy's
// model (the survivors' ownership given, so sticky and incremental
// assignors keep what they can), and returns the crash whose busiest
// survivor carries the largest share of the traffic (ties: the first
// member). shares are the traffic shares by partition.
func CrashLeft(strategy string, members, partitions int, shares []float64) (sweep.CrashLeft, bool) {
	a, err := assign.Lookup(strategy)
	if err != nil || members < 2 || partitions < 1 {
		return sweep.CrashLeft{}, false
	}
	const topic = "t"
	g := &assign.Group{Topics: map[string]int32{topic: int32(partitions)}}
	names := map[string]string{}
	for i := 1; i <= members; i++ {
		id := fmt.Sprintf("m%d.0", i)
		names[id] = fmt.Sprintf("m%d", i)
		g.Members = append(g.Members, assign.Member{ID: id, Topics: []string{topic}})
	}
	rounds := assign.Converge(a, g)
	fresh := rounds[len(rounds)-1]
	own(g, fresh)
	out := sweep.CrashLeft{MaxShare: -1}
	_, out.FreshMaxShare = busiestMember(fresh, shares)
	for _, mb := range g.Members {
		if fresh[mb.ID].Count() == 0 {
			out.Idle++
		}
	}
	for _, mb := range g.Members {
		s := &assign.Script{Steps: []assign.ScriptStep{{Changes: []assign.Change{{Kind: "leave", Members: []string{mb.ID}}}}}}
		res, err := assign.Simulate(a, g, s, "crash", true)
		if err != nil || len(res) == 0 {
			return sweep.CrashLeft{}, false
		}
		busiest, share := busiestMember(res[0].Assignment, shares)
		if share > out.MaxShare+1e-12 {
			out.MaxShare = share
			out.Crashed, out.CrashedPartitions = names[mb.ID], partitionsOf(fresh[mb.ID])
			out.Busiest, out.Partitions = names[busiest], partitionsOf(res[0].Assignment[busiest])
		}
	}
	return out, out.MaxShare > 0
}

// partitionsOf lists a member's partitions of its one topic, in order.
func partitionsOf(ma assign.MemberAssignment) []int32 {
	var out []int32
	for _, ps := range ma.All() {
		out = append(out, ps...)
	}
	slices.Sort(out)
	if out == nil {
		out = []int32{}
	}
	return out
}

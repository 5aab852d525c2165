package report

import (
	"fmt"
	"math"
	"slices"

	"github.com/chaosbench/chaosbench/assign"
	"github.com/chaosbench/chaosbench/workloads"
)

// A production group is often larger than a test cluster can hold:
// hundreds or thousands of members, thousands of partitions. What each
// strategy does to such a group is computed, not measured: the assignor
// models of package assign give, exactly as Kafka computes them, the
// assignment, what a crash and a rejoin move, how many partitions stop
// and how many rebalance rounds it takes; the measured per-member
// capacity, extrapolated to that assignment, gives what the group would
// sustain. Everything here is a model, and the report prints it apart,
// labelled so, with its assumptions.

// ProductionModel is the production group, modelled.
type ProductionModel struct {
	Members, Partitions int
	// MemberRate is the measured per-member capacity the extrapolation
	// rests on (records/s).
	MemberRate float64
	// HottestShare is the hottest partition's predicted share of the
	// traffic over Partitions partitions (the workload's keys and
	// partitioner: loadgen plan's prediction).
	HottestShare float64
	Strategies   []StrategyModel
	// Restarts is how many members' restarts of the rolling deploy were
	// simulated; the deploy's totals are scaled from them to every member
	// when fewer than Members.
	Restarts    int
	Assumptions []string
}

// StrategyModel is one strategy on the production group.
type StrategyModel struct {
	Strategy string
	// Spread is the fresh assignment's partitions per member, max - min.
	Spread int
	// MaxShare is the largest share of the traffic one member's partitions
	// carry; Capacity the measured per-member capacity over it.
	MaxShare, Capacity float64
	// After the busiest member crashes: the same, for the group left.
	MaxShareNMinus1, CapacityNMinus1 float64
	Crash, Rejoin                    Rebalance
	// Deploy is a rolling deploy: every member leaves and rejoins in turn
	// (a new member id each time, as a restarted dynamic member gets).
	Deploy Rebalance
}

// Rebalance is what rebalances moved: partitions that changed owner,
// the fewest a balanced assignment needed, partitions that members who
// stayed had to give up (the partitions that stop), and rounds.
type Rebalance struct {
	Moves, MinMoves, Revoked, Rounds int
}

// deployRestarts bounds the restarts of a rolling deploy simulated.
const deployRestarts = 20

// ModelProduction models the strategies on a group of members x
// partitions of one topic; memberRate is the measured per-member capacity.
func ModelProduction(spec *workloads.Spec, strategies []string, members, partitions int, memberRate float64) *ProductionModel {
	m := &ProductionModel{Members: members, Partitions: partitions, MemberRate: memberRate,
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
	m.Assumptions = []string{
		fmt.Sprintf("each member sustains the measured %s records/s, as on the test cluster: each on its own host, at the workload's processing cost, batch size, client and commit policy; the brokers, the network and the group coordinator are not the bottleneck at %d members (not measured here)", fmtRate(memberRate), members),
		"a member with share s of the traffic keeps up while the rate times s is at most its capacity: the group's capacity is the member capacity over the busiest member's share",
		fmt.Sprintf("traffic spreads over the %d partitions as the workload's keys and partitioner say (loadgen plan's prediction): the hottest carries %s", partitions, pct(m.HottestShare)),
		"assignments, movement, revocations and rounds are the assignor models' (package assign, exact against Kafka's Java assignors); the time a rebalance takes (session timeouts, heartbeats, the members' commits) is not modelled",
		"member ids are random, as a coordinator's are; a restarted member rejoins with a new id (dynamic membership); the busiest member is the one that crashes",
	}
	if m.Restarts < members {
		m.Assumptions = append(m.Assumptions, fmt.Sprintf("the rolling deploy's totals are those of the first %d restarts, scaled to all %d members", m.Restarts, members))
	}
	return m
}

// modelStrategy computes one strategy's rows.
func modelStrategy(a assign.Assignor, ids, restartIDs []string, partitions int, shares []float64, memberRate float64) StrategyModel {
	sm := StrategyModel{Strategy: a.Name()}
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
	rebalance := func(r assign.StepResult) Rebalance {
		return Rebalance{Moves: r.Moves, MinMoves: r.MinMoves, Revoked: r.Revoked, Rounds: r.Rounds}
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
		sm.Deploy.add(rebalance(r))
		r, cur = step(cur, assign.Change{Kind: "join", Members: []string{id}, Topics: []string{topic}})
		sm.Deploy.add(rebalance(r))
	}
	if n := len(restartIDs); n > 0 && n < len(ids) {
		f := float64(len(ids)) / float64(n)
		d := &sm.Deploy
		d.Moves, d.MinMoves = int(math.Round(float64(d.Moves)*f)), int(math.Round(float64(d.MinMoves)*f))
		d.Revoked, d.Rounds = int(math.Round(float64(d.Revoked)*f)), int(math.Round(float64(d.Rounds)*f))
	}
	return sm
}

func (r *Rebalance) add(o Rebalance) {
	r.Moves += o.Moves
	r.MinMoves += o.MinMoves
	r.Revoked += o.Revoked
	r.Rounds += o.Rounds
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

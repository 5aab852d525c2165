package sweep

// A production group is often larger than a test cluster can hold:
// hundreds or thousands of members, thousands of partitions. The
// judgement carries what each strategy would do to it, computed by its
// ModelFunc (package groupmodel: the assignor models, and the measured
// per-member capacity extrapolated to their assignment). Every figure
// here is a model, and the report prints it apart, labelled so, with its
// assumptions.

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
	Restarts int
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

// Add adds another rebalance's figures to r's.
func (r *Rebalance) Add(o Rebalance) {
	r.Moves += o.Moves
	r.MinMoves += o.MinMoves
	r.Revoked += o.Revoked
	r.Rounds += o.Rounds
}

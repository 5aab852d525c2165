package workloads

// Variation is one point of a capacity sweep (`chaos sweep --vary`): the
// values that replace the workload's own, each left as the workload has
// it when zero or empty.
type Variation struct {
	// Members replaces consumer.members.
	Members int
	// Partitions replaces topic.partitions.
	Partitions int
	// MaxPollRecords replaces consumer.max_poll_records.
	MaxPollRecords int
	// Strategy, CommitPolicy and Client replace the workload's lists with
	// one name each: a point is one cell.
	Strategy, CommitPolicy, Client string
}

// Vary applies v and validates the result again: a chaos step may target
// a member a smaller group does not have, or add partitions a larger topic
// already has.
func (s *Spec) Vary(v Variation) error {
	mark := func(field string) { s.pos[field] = s.Line(field) }
	if v.Members > 0 {
		s.Consumer.Members = v.Members
		mark("consumer.members")
	}
	if v.Partitions > 0 {
		s.Topic.Partitions = v.Partitions
		mark("topic.partitions")
	}
	if v.MaxPollRecords > 0 {
		s.Consumer.MaxPollRecords = v.MaxPollRecords
		mark("consumer.max_poll_records")
	}
	if v.Strategy != "" {
		s.Strategies = []string{v.Strategy}
		mark("strategies")
	}
	if v.CommitPolicy != "" {
		s.CommitPolicies = []string{v.CommitPolicy}
		mark("commit_policies")
	}
	if v.Client != "" {
		s.Clients = []string{v.Client}
		mark("clients")
	}
	return s.Validate()
}

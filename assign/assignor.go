package assign

import (
	"fmt"
	"slices"
	"strings"

	"github.com/chaosbench/chaosbench/internal/clip"
	"github.com/chaosbench/chaosbench/internal/vocab"
)

// Protocol is how a strategy moves partitions between members.
type Protocol int

const (
	// Eager: every member revokes everything, then gets its new set (one
	// rebalance, the whole group stops).
	Eager Protocol = iota
	// Cooperative: members keep what they keep; a partition that changes
	// owner is revoked in one rebalance and assigned in the next.
	Cooperative
	// Consumer: the KIP-848 consumer protocol; the broker computes a
	// target and members converge to it incrementally (revoke before the
	// new owner gets the partition).
	Consumer
)

func (p Protocol) String() string {
	switch p {
	case Eager:
		return "eager"
	case Cooperative:
		return "cooperative"
	case Consumer:
		return "consumer"
	}
	return fmt.Sprintf("Protocol(%d)", int(p))
}

// Assignor computes an assignment for a group.
type Assignor interface {
	// Name is the strategy's name in chaosbench (design.md): range,
	// roundrobin, sticky, cooperative-sticky, consumer-uniform,
	// consumer-range.
	Name() string
	// Protocol is the rebalance protocol the strategy runs under.
	Protocol() Protocol
	// Assign returns the assignment the group gets from one rebalance.
	// For cooperative-sticky that is Kafka's first round: partitions that
	// change owner are left out until their owner has revoked them (see
	// Converge). The group must be valid (Group.Validate).
	Assign(g *Group) Assignment
	// Place is Assign without the conversion of the result to names: the
	// same assignment, as a Placement of the group (compiled with what
	// the strategy reads of it).
	Place(g *Group) *Placement
	// AssignSpec is Assign on a compiled group (NewSpec), without the
	// conversions from and to names: the same assignment, as a Placement.
	AssignSpec(s *Spec) *Placement
}

// assignorFunc is an Assignor made of a model function.
type assignorFunc struct {
	name     string
	protocol Protocol
	fn       func(*Spec) *Placement
	parts    specParts // what the model reads of a Spec
}

func (a assignorFunc) Name() string                  { return a.name }
func (a assignorFunc) Protocol() Protocol            { return a.protocol }
func (a assignorFunc) AssignSpec(s *Spec) *Placement { return a.run(s) }
func (a assignorFunc) Place(g *Group) *Placement     { return a.run(newSpec(g, a.parts)) }
func (a assignorFunc) Assign(g *Group) Assignment {
	// The Spec and the placement are Assign's own: the Spec's arrays
	// serve the next call.
	s := recycledSpec()
	s.compile(g, a.parts|specLocal)
	out := a.run(s).Assignment()
	s.recycle()
	return out
}

// run runs the model; a group without members gets an empty placement
// (Group.Validate rejects it).
func (a assignorFunc) run(s *Spec) *Placement {
	if len(s.members) == 0 {
		return placementFromOwners(s, nil)
	}
	return a.fn(s)
}

// The strategies.
var (
	Range             Assignor = assignorFunc{vocab.Range, Eager, rangeAssign, 0}
	RoundRobin        Assignor = assignorFunc{vocab.RoundRobin, Eager, roundRobinAssign, 0}
	Sticky            Assignor = assignorFunc{vocab.Sticky, Eager, stickyAssign, specOwned}
	CooperativeSticky Assignor = assignorFunc{vocab.CooperativeSticky, Cooperative, cooperativeStickyAssign, specOwned}
	ConsumerUniform   Assignor = assignorFunc{vocab.ConsumerUniform, Consumer, uniformAssign, specOwned}
	ConsumerRange     Assignor = assignorFunc{vocab.ConsumerRange, Consumer, consumerRangeAssign, 0}
)

var assignors = []Assignor{Range, RoundRobin, Sticky, CooperativeSticky, ConsumerUniform, ConsumerRange}

// Names lists the strategies, in design.md's order.
func Names() []string {
	out := make([]string, len(assignors))
	for i, a := range assignors {
		out[i] = a.Name()
	}
	return out
}

// Lookup returns the strategy of that name.
func Lookup(name string) (Assignor, error) {
	for _, a := range assignors {
		if a.Name() == name {
			return a, nil
		}
	}
	return nil, fmt.Errorf("unknown strategy %s; expected one of %s", clip.Quote(name), strings.Join(Names(), ", "))
}

// Converge runs rebalances until the group is stable, as the members would:
// each round's assignment becomes the next round's owned partitions. It
// returns every round's assignment (the last one is the target). Eager and
// consumer-protocol strategies take one round; cooperative-sticky takes a
// second one when partitions change owner. At most 4 rounds are run.
func Converge(a Assignor, g *Group) []Assignment {
	cur := *g
	cur.Members = slices.Clone(g.Members)
	var rounds []Assignment
	for range 4 {
		res := a.Assign(&cur)
		rounds = append(rounds, res)
		if a.Protocol() != Cooperative || complete(&cur, res) {
			break
		}
		// The members revoke what was withheld and rejoin at once.
		for i := range cur.Members {
			cur.Members[i].Owned = res[cur.Members[i].ID].Map()
		}
	}
	return rounds
}

// complete reports whether a assigns every partition of every topic that
// some member subscribes to.
func complete(g *Group, a Assignment) bool {
	want := 0
	seen := make(map[string]bool)
	for _, m := range g.Members {
		for _, t := range m.Topics {
			if !seen[t] {
				seen[t] = true
				want += int(g.Topics[t])
			}
		}
	}
	got := 0
	for _, topics := range a {
		got += topics.Count()
	}
	return got == want
}

package workloads

import (
	"slices"
	"strconv"
	"time"

	"github.com/chaosbench/chaosbench/internal/clip"
	"github.com/chaosbench/chaosbench/internal/vocab"
)

// Network steps (disconnect, reset, latency, bandwidth) act on a
// process's own network path to the brokers (target: a member's or the
// producer's), or on a broker's links to the other brokers (broker: a
// broker cut off from the others, three brokers). Only a cluster that
// gives each process and each pair of brokers such a path (the local
// provider) can carry them: the driver refuses them before the run on
// any other.

// ProducerTarget is the target of a network step on the producer.
const ProducerTarget = "producer"

// CoordinatorBroker is the broker of a network step whose broker is
// coordinator: the group coordinator's broker, found when the step acts.
const CoordinatorBroker = "coordinator"

// BrokerTarget is the target of a step on broker id: broker-<id>.
func BrokerTarget(id int) string { return "broker-" + strconv.Itoa(id) }

// CoordinatorTarget is the planned target of a network step on the
// group coordinator's broker, resolved when the step acts.
const CoordinatorTarget = "broker-" + CoordinatorBroker

// DefaultBrokerSessionTimeout is Kafka's broker.session.timeout.ms: how
// long the controller waits for a broker's heartbeat before fencing it
// and electing other leaders for its partitions.
const DefaultBrokerSessionTimeout = 9 * time.Second

// Bounds of a network step's fault.
const (
	MaxNetDelay          = time.Minute
	MinNetBytesPerSecond = 1024
	MaxNetBytesPerSecond = 1 << 40
	// MaxNetMembers bounds the members of a workload with network steps:
	// each member, the producer too, has a path, a listener on every
	// broker.
	MaxNetMembers = 48
)

// NetPaths returns the processes that need a network path of their own:
// none without a network step on a member or the producer; else the
// producer and every member the plan starts, added ones included.
func (s *Spec) NetPaths() []string { return slices.Clone(s.netPaths) }

// HasNetworkSteps reports whether the plan has a network step.
func (s *Spec) HasNetworkSteps() bool { return len(s.netPaths) > 0 || s.brokerNet }

// BrokerNetwork reports whether the plan has a network step on a
// broker's links to the others: the cluster must route the brokers'
// traffic to each other through paths of their own.
func (s *Spec) BrokerNetwork() bool { return s.brokerNet }

// networkStep resolves a network step: its target (a member, random,
// owner:<partition> or the producer) or its broker (brokerNetworkStep),
// its duration and its fault.
func (v *validator) networkStep(f string, st Step, ps *PlannedStep, sc *schedule, rng interface{ IntN(int) int }) {
	s := v.s
	ok := v.stepDuration(f, st)
	if ok {
		ps.Duration = st.Duration
	}
	switch st.Action {
	case vocab.ActionLatency:
		if !s.set(f + ".delay") {
			v.errf(f, "no delay: expected delay: the time added to the target's traffic each way")
			ok = false
		} else if st.Delay <= 0 || st.Delay > MaxNetDelay {
			v.errf(f+".delay", "got %v, expected a duration > 0 and at most %v", st.Delay, MaxNetDelay)
			ok = false
		}
		if st.Jitter < 0 || s.set(f+".jitter") && v.ok(f+".delay") && st.Jitter > st.Delay {
			v.errf(f+".jitter", "got %v, expected a duration from 0 to the delay (%v)", st.Jitter, st.Delay)
			ok = false
		}
		ps.Delay, ps.Jitter = st.Delay, st.Jitter
	case vocab.ActionBandwidth:
		if !s.set(f + ".bytes_per_second") {
			v.errf(f, "no bytes_per_second: expected bytes_per_second: the rate each direction of each of the target's connections is held to")
			ok = false
		} else if st.BytesPerSecond < MinNetBytesPerSecond || st.BytesPerSecond > MaxNetBytesPerSecond {
			v.errf(f+".bytes_per_second", "got %d, expected from %d to %d", st.BytesPerSecond, MinNetBytesPerSecond, int64(MaxNetBytesPerSecond))
			ok = false
		}
		ps.BytesPerSecond = st.BytesPerSecond
	}
	if s.set(f + ".broker") {
		if s.set(f + ".target") {
			v.errf(f+".broker", "both target and broker are set: expected one (target: a member or the producer; broker: a broker cut off from the others)")
			return
		}
		v.brokerNetworkStep(f, st, ps, sc, rng, ok)
		return
	}
	sc.network = true
	if !s.set(f + ".target") {
		v.errf(f, "no target: expected target: a member name (m1, m2, ...), random, owner:<partition> or producer, or broker: a broker's node id, random or coordinator")
		return
	}
	target := st.Target
	if target != ProducerTarget {
		if target == "all" {
			v.errf(f+".target", "got %s, expected a member name (m1, m2, ...), random, owner:<partition> or producer", clip.Quote(target))
			return
		}
		var tok bool
		if target, tok = v.memberTarget(f+".target", st, sc, rng); !tok {
			return
		}
	}
	ps.Target, ps.Random = target, st.Target == "random"
	if !ok {
		return
	}
	// One fault at a time on a path: owner:<p> is resolved at run time,
	// where an overlap fails the step.
	if until, busy := sc.faultUntil[target]; busy && ps.At < until {
		v.errf(f+".at", "%s's network already carries the fault of an earlier step until %v: expected this one after it", target, until)
		return
	}
	sc.faultUntil[target] = ps.At + ps.Duration
}

// brokerNetworkStep resolves a network step on a broker's links to the
// other brokers: broker is a node id, random (drawn among the brokers
// running at that point) or coordinator (the group coordinator's broker
// when the step acts).
func (v *validator) brokerNetworkStep(f string, st Step, ps *PlannedStep, sc *schedule, rng interface{ IntN(int) int }, ok bool) {
	s := v.s
	sc.brokerNetwork = true
	if !v.ok("broker.brokers") {
		return
	}
	if sc.brokers < 3 {
		v.errf(f+".broker", "a network step on a broker needs a cluster of 3 brokers (one cut off from the others): set broker.brokers: 3")
		return
	}
	if st.Broker == CoordinatorBroker {
		ps.Target = CoordinatorTarget
	} else {
		id, _, tok := v.brokerTarget(f+".broker", st, sc, rng)
		if !tok {
			return
		}
		ps.Broker, ps.Target, ps.Random = id, BrokerTarget(id), st.Broker == "random"
	}
	if !ok {
		return
	}
	if st.Action == vocab.ActionDisconnect || st.Action == vocab.ActionReset {
		timeout := DefaultBrokerSessionTimeout
		if ms, err := strconv.ParseInt(s.Broker.Config["broker.session.timeout.ms"], 10, 64); err == nil && ms > 0 {
			timeout = time.Duration(ms) * time.Millisecond
		}
		if ps.Duration <= timeout {
			v.warnf(f+".duration", "a %s of %v is not longer than the broker session timeout (broker.session.timeout.ms, %v): the controller will not fence the broker, so no leader moves", st.Action, ps.Duration, timeout)
		}
	}
	// Every broker's cut shares links with every other's: one fault on
	// the brokers' links at a time.
	if sc.brokerFaultUntil > ps.At {
		v.errf(f+".at", "the brokers' links already carry the fault of an earlier step until %v: expected this one after it (every broker's links to the others are shared with theirs)", sc.brokerFaultUntil)
		return
	}
	sc.brokerFaultUntil = ps.At + ps.Duration
}

// netPathsOf records the paths the plan needs, and refuses a group too
// large to give each member one.
func (v *validator) netPathsOf(sc *schedule) {
	if !sc.network || sc.unknownGroup {
		return
	}
	n := sc.next - 1 // every member the plan starts
	if n > MaxNetMembers {
		v.errf("chaos.steps", "network steps with %d members (added ones included): expected at most %d, each member having a network path of its own (a listener on every broker)", n, MaxNetMembers)
		return
	}
	paths := []string{ProducerTarget}
	for i := 1; i <= n; i++ {
		paths = append(paths, memberName(i))
	}
	v.s.netPaths = paths
}

package workloads

import (
	"slices"
	"time"

	"github.com/chaosbench/chaosbench/internal/clip"
	"github.com/chaosbench/chaosbench/internal/vocab"
)

// Network steps (disconnect, reset, latency, bandwidth) act on a
// process's own network path to the brokers: a member's or the
// producer's. Only a cluster that gives each process such a path (the
// local provider) can carry them: the driver refuses them before the run
// on any other.

// ProducerTarget is the target of a network step on the producer.
const ProducerTarget = "producer"

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
// none without a network step; else the producer and every member the
// plan starts, added ones included.
func (s *Spec) NetPaths() []string { return slices.Clone(s.netPaths) }

// HasNetworkSteps reports whether the plan has a network step.
func (s *Spec) HasNetworkSteps() bool { return len(s.netPaths) > 0 }

// networkStep resolves a network step: its target (a member, random,
// owner:<partition> or the producer), its duration and its fault.
func (v *validator) networkStep(f string, st Step, ps *PlannedStep, sc *schedule, rng interface{ IntN(int) int }) {
	s := v.s
	sc.network = true
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
	if !s.set(f + ".target") {
		v.errf(f, "no target: expected target: a member name (m1, m2, ...), random, owner:<partition> or producer")
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

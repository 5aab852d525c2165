package runner

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/chaosbench/chaosbench/internal/cluster"
	"github.com/chaosbench/chaosbench/internal/netfault"
	"github.com/chaosbench/chaosbench/internal/vocab"
	"github.com/chaosbench/chaosbench/workloads"
)

// Network steps act on a process's own path to the brokers
// (cluster.NetPaths, docs/network.md): the local provider gives every
// process a workload's network steps can reach (Spec.NetPaths) a path of
// its own, and each such process is bootstrapped at its path. A network
// step on a broker acts on that broker's links to and from the other
// brokers (cluster.BrokerCuts), which the local provider routes through
// proxies of the driver when the workload has such a step
// (Spec.BrokerNetwork).

// CheckNetwork refuses, before anything starts, a workload with network
// steps on a cluster that cannot give its processes paths of their own:
// an external cluster or the docker provider, whose brokers advertise
// addresses the harness does not control.
func CheckNetwork(spec *workloads.Spec, o cluster.Options) error {
	if !spec.HasNetworkSteps() {
		return nil
	}
	p := o.Provider
	bootstrap := o.Bootstrap
	if bootstrap == "" {
		bootstrap = os.Getenv("KAFKA_BOOTSTRAP")
	}
	if p == "" || p == cluster.ProviderAuto {
		switch {
		case bootstrap != "":
			p = cluster.ProviderExternal
		default:
			return nil // local, or refused once the cluster is open
		}
	}
	if p == cluster.ProviderLocal {
		return nil
	}
	var why []string
	if len(spec.NetPaths()) > 0 {
		why = append(why, fmt.Sprintf("network steps on a member or the producer need it to give each of them a path of its own to every broker (a listener advertised at a proxy the harness runs): the %s cluster's brokers advertise addresses the harness does not control, so it cannot cut one process off alone", p))
	}
	if spec.BrokerNetwork() {
		why = append(why, fmt.Sprintf("a network step on a broker (broker: ...) needs it to route the brokers' traffic to each other (replication, the controller quorum, heartbeats) through links the harness runs: the %s cluster's brokers reach each other directly, so the harness cannot cut one off from the others", p))
	}
	return fmt.Errorf("%s: network steps (disconnect, reset, latency, bandwidth) need the local provider; %s", spec.File, strings.Join(why, "; "))
}

// netBootstrap returns the bootstrap of a process: its path's, when the
// cluster gives it one, else the cluster's.
func netBootstrap(c cluster.Cluster, name string) string {
	if np, ok := c.(cluster.NetPaths); ok {
		if p, ok := np.NetPath(name); ok {
			return p.Bootstrap()
		}
	}
	return c.Bootstrap()
}

// checkNetPaths refuses a cluster that did not give the plan's processes
// their paths.
func checkNetPaths(spec *workloads.Spec, c cluster.Cluster) error {
	if spec.BrokerNetwork() {
		bc, ok := c.(cluster.BrokerCuts)
		if !ok {
			return fmt.Errorf("a network step on a broker needs a cluster whose brokers reach each other through links of their own (the local provider)")
		}
		if _, ok := bc.BrokerCut(1); !ok {
			return fmt.Errorf("a network step on a broker: the cluster's brokers reach each other directly (started without broker paths)")
		}
	}
	names := spec.NetPaths()
	if len(names) == 0 {
		return nil
	}
	np, ok := c.(cluster.NetPaths)
	if !ok {
		return fmt.Errorf("network steps need a cluster that gives each process a path of its own (the local provider)")
	}
	for _, n := range names {
		if _, ok := np.NetPath(n); !ok {
			return fmt.Errorf("network steps: the cluster has no network path for %s", n)
		}
	}
	return nil
}

// netFault is a network step's fault.
func netFault(s workloads.PlannedStep) netfault.Fault {
	return netfault.Fault{Kind: s.Action, Delay: s.Delay, Jitter: s.Jitter, Rate: s.BytesPerSecond}
}

// networkAction puts the step's fault on its target's path, recorded
// before it acts, and heals it after the duration, as a tail, recorded
// as a heal event before it acts. An interrupted run heals at once.
func (c *cellRun) networkAction(ctx context.Context, s workloads.PlannedStep, params map[string]any, tails *sync.WaitGroup) {
	params["duration_ms"] = s.Duration.Milliseconds()
	switch s.Action {
	case vocab.ActionLatency:
		params["delay_ms"] = s.Delay.Milliseconds()
		params["jitter_ms"] = s.Jitter.Milliseconds()
	case vocab.ActionBandwidth:
		params["bytes_per_second"] = s.BytesPerSecond
	}
	if strings.HasPrefix(s.Target, "broker-") {
		c.brokerNetworkAction(ctx, s, params, tails)
		return
	}
	name := s.Target
	if name != workloads.ProducerTarget {
		var extra map[string]any
		var err error
		name, extra, err = c.resolve(ctx, s.Target)
		for k, v := range extra {
			params[k] = v
		}
		if err != nil {
			c.chaosEvent(s, s.Action, s.Target, 0, 0, params, err)
			return
		}
	}
	var path *netfault.Path
	if np, ok := c.cluster.(cluster.NetPaths); ok {
		path, _ = np.NetPath(name)
	}
	if path == nil {
		c.chaosEvent(s, s.Action, name, 0, 0, params, fmt.Errorf("no network path for %s (the %s cluster gives none)", name, c.info.Provider))
		return
	}
	act := func(f func() error) (int, error) {
		if name == workloads.ProducerTarget {
			return 0, c.onTarget(s, s.Action, name, params, f)
		}
		// The member's incarnation and pid at the act, for the record;
		// a member that is not running is cut off all the same (its next
		// incarnation comes back through the same path).
		inc, pid := 0, 0
		if m, err := c.fleet.get(name); err == nil && m.proc != nil {
			inc, pid = m.proc.Inc(), m.proc.PID()
		}
		c.chaosEvent(s, s.Action, name, inc, pid, params, nil)
		err := f()
		if err != nil {
			c.chaosEvent(s, s.Action, name, inc, pid, params, err)
		}
		return inc, err
	}
	inc, err := act(func() error { return path.Apply(netFault(s)) })
	if err != nil {
		return
	}
	tails.Add(1)
	go func() {
		defer tails.Done()
		select {
		case <-ctx.Done():
		case <-time.After(s.Duration):
		}
		pid := 0
		if name != workloads.ProducerTarget {
			if m, err := c.fleet.get(name); err == nil && m.proc != nil {
				pid = m.proc.PID()
			}
		}
		c.chaosEvent(s, vocab.ActionHeal, name, inc, pid, params, nil)
		path.Heal()
	}()
}

// brokerNetworkAction puts the step's fault on a broker's links to and
// from the other brokers (cluster.BrokerCuts): the broker is cut off from
// the others while clients still reach it. The step's broker is a node
// id, or the group coordinator's broker, found now. Recorded before it
// acts, healed as a tail like any network step.
func (c *cellRun) brokerNetworkAction(ctx context.Context, s workloads.PlannedStep, params map[string]any, tails *sync.WaitGroup) {
	id := s.Broker
	if s.Target == workloads.CoordinatorTarget {
		params["coordinator"] = true
		var err error
		if id, err = c.coordinatorBroker(ctx); err != nil {
			c.chaosEvent(s, s.Action, s.Target, 0, 0, params, err)
			return
		}
	}
	params["broker"] = id
	target := workloads.BrokerTarget(id)
	var cut *netfault.Group
	if bc, ok := c.cluster.(cluster.BrokerCuts); ok {
		cut, _ = bc.BrokerCut(id)
	}
	if cut == nil {
		c.chaosEvent(s, s.Action, target, 0, 0, params, fmt.Errorf("no links of broker %d to cut (the %s cluster's brokers reach each other directly)", id, c.info.Provider))
		return
	}
	if c.onTarget(s, s.Action, target, params, func() error { return cut.Apply(netFault(s)) }) != nil {
		return
	}
	tails.Add(1)
	go func() {
		defer tails.Done()
		select {
		case <-ctx.Done():
		case <-time.After(s.Duration):
		}
		c.chaosEvent(s, vocab.ActionHeal, target, 0, 0, params, nil)
		cut.Heal()
	}()
}

// coordinatorBroker returns the node id of the cell's group coordinator.
func (c *cellRun) coordinatorBroker(ctx context.Context) (int, error) {
	actx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	rs := c.adm.FindGroupCoordinators(actx, c.group)
	r, ok := rs[c.group]
	switch {
	case !ok:
		return 0, fmt.Errorf("group coordinator of %s: no answer", c.group)
	case r.Err != nil:
		return 0, fmt.Errorf("group coordinator of %s: %w", c.group, r.Err)
	}
	return int(r.NodeID), nil
}

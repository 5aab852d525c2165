package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/chaosbench/chaosbench/internal/cluster"
	"github.com/chaosbench/chaosbench/internal/history"
	"github.com/chaosbench/chaosbench/internal/member"
	"github.com/chaosbench/chaosbench/internal/vocab"
	"github.com/chaosbench/chaosbench/workloads"
)

// runSteps executes the chaos plan on time, t0 being traffic start. Each
// action is recorded just before it acts (below). Actions with a tail (a pause's
// resume, a rolling restart) run on their own so that the next step keeps
// its time; runSteps returns when all are done.
func (c *cellRun) runSteps(ctx context.Context, t0 time.Time) {
	var tails sync.WaitGroup
	defer tails.Wait()
	for _, s := range c.plan.Steps {
		c.mu.Lock()
		c.nextStep = fmt.Sprintf("next: %s at %s", describeStep(s), s.At)
		c.mu.Unlock()
		wait := time.Until(t0.Add(s.At))
		if wait > 0 {
			select {
			case <-ctx.Done():
				return
			case <-time.After(wait):
			}
		}
		if ctx.Err() != nil {
			return
		}
		c.execute(ctx, s, &tails)
	}
	c.mu.Lock()
	c.nextStep = "no more steps"
	c.mu.Unlock()
}

// Recording a step. A chaos step is recorded before it acts: the intent
// first, then the act. Every consequence of the act (the member's exit
// recorded by the fleet, its leave and the rebalance in the members'
// histories) then comes after the step's line and has a later time, so no
// consequence can precede its cause in the history. An act that fails
// once recorded is followed by a second chaos event of the same step,
// action and target with the error (docs/history.md); a step that cannot
// act at all (its member is not running, its target does not resolve) is
// recorded once, with its error.

// chaosEvent records an action of step s now, before it acts (err nil), or
// its failure.
func (c *cellRun) chaosEvent(s workloads.PlannedStep, action, target string, inc, pid int, params map[string]any, err error) {
	e := &history.Event{Kind: history.Chaos, Action: action, Target: target, TargetInc: inc,
		Step: s.Step, PID: pid}
	if len(params) > 0 {
		e.Params = mustJSON(params)
	}
	if err != nil {
		e.Err = err.Error()
		c.mu.Lock()
		c.stepErrs = append(c.stepErrs, fmt.Errorf("step %d (%s %s): %w", s.Step, action, target, err))
		c.mu.Unlock()
		c.logf("step %d: %s %s: %v", s.Step, action, target, err)
	} else {
		c.logf("step %d: %s %s", s.Step, action, target)
	}
	if aerr := c.hist.Append(e); aerr == nil {
		_ = c.hist.Flush()
	}
}

// onMember records an action on a member through the fleet's before hook
// (the intent, with the incarnation and pid about to be acted on), and
// its error: after the intent when the act failed, alone when the fleet
// refused before acting. It returns the act's incarnation and error.
func (c *cellRun) onMember(s workloads.PlannedStep, action, name string, params map[string]any,
	act func(before) (inc, pid int, err error)) (int, error) {
	inc, pid, err := act(func(inc, pid int) {
		c.chaosEvent(s, action, name, inc, pid, params, nil)
	})
	if err != nil {
		c.chaosEvent(s, action, name, inc, pid, params, err)
	}
	return inc, err
}

// onTarget records an action on something other than a member (the
// topic, a broker): the intent, then the act, then its failure if any.
func (c *cellRun) onTarget(s workloads.PlannedStep, action, target string, params map[string]any, act func() error) error {
	c.chaosEvent(s, action, target, 0, 0, params, nil)
	err := act()
	if err != nil {
		c.chaosEvent(s, action, target, 0, 0, params, err)
	}
	return err
}

// resolve turns a step's target into a member name: owner:<p> is the
// member that owns partition p now, by the members' own histories (a
// local run), or by the group's coordinator (a run with the network
// control channel, which reads no member's files). In a rebalance nobody
// owns p for a moment (revoked, not yet assigned), so resolve waits for
// an owner, at most a session timeout and a second: longer than that, the
// group has lost the partition, and the step fails saying so.
func (c *cellRun) resolve(ctx context.Context, target string) (string, map[string]any, error) {
	p, ok := strings.CutPrefix(target, "owner:")
	if !ok {
		return target, nil, nil
	}
	part, err := strconv.Atoi(p)
	if err != nil {
		return "", nil, fmt.Errorf("target %q: bad partition", target)
	}
	patience := c.opts.Spec.Consumer.SessionTimeout + time.Second
	deadline := time.Now().Add(patience)
	var asked error // the coordinator's last error
	for {
		var o ownership
		var err error
		if c.opts.remoteObserve() {
			o, _, asked = coordinatorOwnership(ctx, c.adm, c.group, c.topic, vocab.IsConsumerProtocol(c.cell.Strategy), c.fleet.alive(), c.incOf)
		} else if o, err = readOwnership(c.histDir, c.fleet.alive(), c.incOf); err != nil {
			return "", nil, err
		}
		if name, ok := o.owner[int32(part)]; ok {
			return name, map[string]any{"owner_of": part}, nil
		}
		if time.Now().After(deadline) {
			if asked != nil {
				return "", nil, fmt.Errorf("target %s: no member owned partition %d within %v (the broker could not describe the group: %v)", target, part, patience, asked)
			}
			return "", nil, fmt.Errorf("target %s: no member owned partition %d within %v", target, part, patience)
		}
		select {
		case <-ctx.Done():
			return "", nil, fmt.Errorf("target %s: %w", target, context.Cause(ctx))
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// execute carries out one step of the plan. An action with a tail leaves
// it on tails.
func (c *cellRun) execute(ctx context.Context, s workloads.PlannedStep, tails *sync.WaitGroup) {
	params := map[string]any{}
	if s.Random {
		params["random"] = true
	}
	switch s.Action {
	case vocab.ActionKill, vocab.ActionStop, vocab.ActionPause, vocab.ActionSlow, vocab.ActionRestart:
		name, extra, err := c.resolve(ctx, s.Target)
		for k, v := range extra {
			params[k] = v
		}
		if err != nil {
			c.chaosEvent(s, s.Action, s.Target, 0, 0, params, err)
			return
		}
		c.memberAction(ctx, s, name, params, tails)
	case vocab.ActionRollingRestart:
		c.rollingRestart(ctx, s, params, tails)
	case vocab.ActionAdd:
		c.addMembers(ctx, s, params)
	case vocab.ActionAddPartitions:
		c.addPartitions(ctx, s, params)
	case vocab.ActionBrokerKill, vocab.ActionBrokerRestart:
		c.brokerAction(ctx, s, params, tails)
	case vocab.ActionDisconnect, vocab.ActionReset, vocab.ActionLatency, vocab.ActionBandwidth:
		c.networkAction(ctx, s, params, tails)
	default:
		c.chaosEvent(s, s.Action, s.Target, 0, 0, params, fmt.Errorf("unknown action %q", s.Action))
	}
}

// rollingRestart restarts the step's members one after another, an
// interval apart, as a tail.
func (c *cellRun) rollingRestart(ctx context.Context, s workloads.PlannedStep, params map[string]any, tails *sync.WaitGroup) {
	params["interval_ms"] = s.Interval.Milliseconds()
	tails.Add(1)
	go func() {
		defer tails.Done()
		for i, name := range s.Members {
			if i > 0 {
				select {
				case <-ctx.Done():
					return
				case <-time.After(s.Interval):
				}
			}
			c.restart(ctx, s, name, params)
		}
	}()
}

// addMembers starts the step's new members, each recorded before it
// starts (a new member's first incarnation is 0).
func (c *cellRun) addMembers(ctx context.Context, s workloads.PlannedStep, params map[string]any) {
	for _, name := range s.Members {
		c.onTarget(s, s.Action, name, params, func() error { return c.fleet.start(ctx, name) })
	}
}

// addPartitions grows the topic to the step's partition count. The step
// records the count before it (from) and after (partitions).
func (c *cellRun) addPartitions(ctx context.Context, s workloads.PlannedStep, params map[string]any) {
	params["from"] = c.currentPartitions()
	params["partitions"] = s.Partitions
	c.onTarget(s, s.Action, c.topic, params, func() error {
		actx, cancel := context.WithTimeout(ctx, 30*time.Second)
		resp, err := c.adm.UpdatePartitions(actx, s.Partitions, c.topic)
		cancel()
		if err == nil {
			if r, ok := resp[c.topic]; ok && r.Err != nil {
				err = r.Err
			}
		}
		if err != nil {
			return err
		}
		c.mu.Lock()
		c.partitions = s.Partitions
		c.mu.Unlock()
		// The producer learns the new count as a real one does on its
		// next metadata refresh; keys move from then on.
		c.prod.SetPartitions(s.Partitions)
		return nil
	})
}

// brokerAction kills a broker, or starts it again and waits, as a tail,
// until the cluster is ready. A kill of txn-coordinator:<member> first
// asks the cluster which broker that is; a restart of the broker such a
// kill took (KilledBy) restarts the broker it found.
func (c *cellRun) brokerAction(ctx context.Context, s workloads.PlannedStep, params map[string]any, tails *sync.WaitGroup) {
	nodes, ok := c.cluster.(cluster.Nodes)
	if !ok {
		c.chaosEvent(s, s.Action, s.Target, 0, 0, params, fmt.Errorf("the %s cluster cannot kill or restart brokers (local provider only)", c.info.Provider))
		return
	}
	id := s.Broker
	switch {
	case strings.HasPrefix(s.Target, workloads.TxnCoordinatorPrefix):
		var err error
		if id, err = c.txnCoordinator(ctx, s, params); err != nil {
			c.chaosEvent(s, s.Action, s.Target, 0, 0, params, err)
			return
		}
		c.mu.Lock()
		if c.resolvedBrokers == nil {
			c.resolvedBrokers = map[int]int{}
		}
		c.resolvedBrokers[s.Step] = id
		c.mu.Unlock()
	case s.KilledBy > 0:
		c.mu.Lock()
		id, ok = c.resolvedBrokers[s.KilledBy]
		c.mu.Unlock()
		params["killed_by_step"] = s.KilledBy
		if !ok {
			c.chaosEvent(s, s.Action, s.Target, 0, 0, params, fmt.Errorf("step %d killed no broker: nothing to restart", s.KilledBy))
			return
		}
	}
	target := "broker-" + strconv.Itoa(id)
	if s.Action == vocab.ActionBrokerKill {
		c.onTarget(s, s.Action, target, params, func() error { return nodes.KillNode(id) })
		return
	}
	tails.Add(1)
	go func() {
		defer tails.Done()
		t := time.Now()
		if c.onTarget(s, s.Action, target, params, func() error { return nodes.StartNode(ctx, id) }) == nil {
			c.logf("step %d: %s ready in %s", s.Step, target, time.Since(t).Round(time.Millisecond))
		}
	}()
}

// txnCoordinator finds the broker that coordinates the transactions of
// a txn-coordinator:<member> target: FindCoordinator for the
// transactional.id of the member's current incarnation (the one its
// incarnation has or, in a cell of another policy, would have), which
// the broker answers with the leader of that id's partition of
// __transaction_state. The topic is created on the first request for it,
// and the coordinator is briefly unavailable while it loads: the request
// is retried for up to 15 s. The step's params record the member, the
// transactional.id and the broker found.
func (c *cellRun) txnCoordinator(ctx context.Context, s workloads.PlannedStep, params map[string]any) (int, error) {
	name := strings.TrimPrefix(s.Target, workloads.TxnCoordinatorPrefix)
	txnID := member.TransactionalID(c.opts.Spec.Consumer.Transaction.TransactionalID, c.group, name, c.incOf(name))
	params["txn_coordinator_of"] = name
	params["transactional_id"] = txnID
	deadline := time.Now().Add(15 * time.Second)
	for {
		rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		resp := c.adm.FindTxnCoordinators(rctx, txnID)
		cancel()
		r, ok := resp[txnID]
		err := resp.Error()
		if err == nil && !ok {
			err = fmt.Errorf("no answer for %s", txnID)
		}
		if err == nil {
			params["broker"] = int(r.NodeID)
			return int(r.NodeID), nil
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return 0, fmt.Errorf("the transaction coordinator of %s (%s): %w", name, txnID, err)
		}
		select {
		case <-ctx.Done():
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// memberAction acts on one member.
func (c *cellRun) memberAction(ctx context.Context, s workloads.PlannedStep, name string, params map[string]any, tails *sync.WaitGroup) {
	switch s.Action {
	case vocab.ActionKill:
		var done <-chan struct{}
		c.onMember(s, s.Action, name, params, func(b before) (inc, pid int, err error) {
			inc, pid, done, err = c.fleet.kill(name, b)
			return inc, pid, err
		})
		if done != nil {
			<-done
		}
	case vocab.ActionStop:
		var done <-chan struct{}
		c.onMember(s, s.Action, name, params, func(b before) (inc, pid int, err error) {
			inc, pid, done, err = c.fleet.stop(name, 30*time.Second, b)
			return inc, pid, err
		})
		if done != nil {
			<-done
		}
	case vocab.ActionRestart:
		c.restart(ctx, s, name, params)
	case vocab.ActionSlow:
		params["duration_ms"] = s.Duration.Milliseconds()
		c.onMember(s, s.Action, name, params, func(b before) (int, int, error) {
			return c.fleet.control(name, "slow "+s.Duration.String(), b)
		})
	case vocab.ActionPause:
		params["duration_ms"] = s.Duration.Milliseconds()
		if _, err := c.onMember(s, s.Action, name, params, func(b before) (int, int, error) {
			return c.fleet.signal(name, syscall.SIGSTOP, b)
		}); err != nil {
			return
		}
		tails.Add(1)
		go func() {
			defer tails.Done()
			// Resume even when the run is interrupted: a stopped process
			// cannot act on its SIGTERM.
			select {
			case <-ctx.Done():
			case <-time.After(s.Duration):
			}
			c.onMember(s, vocab.ActionResume, name, params, func(b before) (int, int, error) {
				return c.fleet.signal(name, syscall.SIGCONT, b)
			})
		}()
	}
}

// restart closes a member gracefully and starts its next incarnation (a
// deploy). A member that is not running is just started.
func (c *cellRun) restart(ctx context.Context, s workloads.PlannedStep, name string, params map[string]any) {
	if m, gerr := c.fleet.get(name); gerr == nil && !exited(m.proc) {
		var done <-chan struct{}
		inc, err := c.onMember(s, vocab.ActionRestart, name, params, func(b before) (inc, pid int, err error) {
			inc, pid, done, err = c.fleet.stop(name, 30*time.Second, b)
			return inc, pid, err
		})
		if err != nil {
			return
		}
		<-done
		if err := c.fleet.start(ctx, name); err != nil {
			c.chaosEvent(s, vocab.ActionRestart, name, inc, 0, params, err)
		}
		return
	}
	c.onTarget(s, vocab.ActionRestart, name, params, func() error { return c.fleet.start(ctx, name) })
}

// mustJSON is a chaos event's params as JSON: params are maps of numbers,
// strings and booleans, which always marshal; "{}" should one not.
func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return "{}"
	}
	return string(b)
}

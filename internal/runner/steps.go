package runner

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/chaosbench/chaosbench/internal/cluster"
	"github.com/chaosbench/chaosbench/internal/history"
	"github.com/chaosbench/chaosbench/internal/vocab"
	"github.com/chaosbench/chaosbench/workloads"
)

// runSteps executes the chaos plan on time, t0 being traffic start. Each
// action is recorded when it took effect. Actions with a tail (a pause's
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

// chaosEvent records an action that took effect at t.
func (c *cellRun) chaosEvent(t time.Time, s workloads.PlannedStep, action, target string, inc, pid int, params map[string]any, err error) {
	e := &history.Event{Kind: history.Chaos, T: t.UnixNano(), Action: action, Target: target, TargetInc: inc,
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

// resolve turns a step's target into a member name: owner:<p> is the
// member that owns partition p now, by the members' own histories.
func (c *cellRun) resolve(target string) (string, map[string]any, error) {
	p, ok := strings.CutPrefix(target, "owner:")
	if !ok {
		return target, nil, nil
	}
	part, err := strconv.Atoi(p)
	if err != nil {
		return "", nil, fmt.Errorf("target %q: bad partition", target)
	}
	o, err := readOwnership(c.histDir, c.fleet.alive(), c.incOf)
	if err != nil {
		return "", nil, err
	}
	name, ok := o.owner[int32(part)]
	if !ok {
		return "", nil, fmt.Errorf("target %s: no member owns partition %d now", target, part)
	}
	return name, map[string]any{"owner_of": part}, nil
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
		name, extra, err := c.resolve(s.Target)
		for k, v := range extra {
			params[k] = v
		}
		if err != nil {
			c.chaosEvent(time.Now(), s, s.Action, s.Target, 0, 0, params, err)
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
	default:
		c.chaosEvent(time.Now(), s, s.Action, s.Target, 0, 0, params, fmt.Errorf("unknown action %q", s.Action))
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

// addMembers starts the step's new members.
func (c *cellRun) addMembers(ctx context.Context, s workloads.PlannedStep, params map[string]any) {
	for _, name := range s.Members {
		t := time.Now()
		err := c.fleet.start(ctx, name)
		inc := 0
		if m, gerr := c.fleet.get(name); gerr == nil {
			inc = m.proc.Inc()
		}
		c.chaosEvent(t, s, s.Action, name, inc, 0, params, err)
	}
}

// addPartitions grows the topic to the step's partition count.
func (c *cellRun) addPartitions(ctx context.Context, s workloads.PlannedStep, params map[string]any) {
	params["partitions"] = s.Partitions
	t := time.Now()
	actx, cancel := context.WithTimeout(ctx, 30*time.Second)
	resp, err := c.adm.UpdatePartitions(actx, s.Partitions, c.topic)
	cancel()
	if err == nil {
		if r, ok := resp[c.topic]; ok && r.Err != nil {
			err = r.Err
		}
	}
	if err == nil {
		c.mu.Lock()
		c.partitions = s.Partitions
		c.mu.Unlock()
		// The producer learns the new count as a real one does on its
		// next metadata refresh; keys move from then on.
		c.prod.SetPartitions(s.Partitions)
	}
	c.chaosEvent(t, s, s.Action, c.topic, 0, 0, params, err)
}

// brokerAction kills a broker, or starts it again and waits, as a tail,
// until the cluster is ready.
func (c *cellRun) brokerAction(ctx context.Context, s workloads.PlannedStep, params map[string]any, tails *sync.WaitGroup) {
	nodes, ok := c.cluster.(cluster.Nodes)
	target := "broker-" + strconv.Itoa(s.Broker)
	if !ok {
		c.chaosEvent(time.Now(), s, s.Action, target, 0, 0, params, fmt.Errorf("the %s cluster cannot kill or restart brokers (local provider only)", c.info.Provider))
		return
	}
	if s.Action == vocab.ActionBrokerKill {
		t := time.Now()
		c.chaosEvent(t, s, s.Action, target, 0, 0, params, nodes.KillNode(s.Broker))
		return
	}
	t := time.Now()
	tails.Add(1)
	go func() {
		defer tails.Done()
		err := nodes.StartNode(ctx, s.Broker)
		params["ready_ms"] = time.Since(t).Milliseconds()
		c.chaosEvent(t, s, s.Action, target, 0, 0, params, err)
	}()
}

// memberAction acts on one member.
func (c *cellRun) memberAction(ctx context.Context, s workloads.PlannedStep, name string, params map[string]any, tails *sync.WaitGroup) {
	switch s.Action {
	case vocab.ActionKill:
		t := time.Now()
		inc, pid, done, err := c.fleet.kill(name)
		c.chaosEvent(t, s, s.Action, name, inc, pid, params, err)
		if done != nil {
			<-done
		}
	case vocab.ActionStop:
		t := time.Now()
		inc, pid, done, err := c.fleet.stop(name, 30*time.Second)
		c.chaosEvent(t, s, s.Action, name, inc, pid, params, err)
		if done != nil {
			<-done
		}
	case vocab.ActionRestart:
		c.restart(ctx, s, name, params)
	case vocab.ActionSlow:
		params["duration_ms"] = s.Duration.Milliseconds()
		t := time.Now()
		inc, pid, err := c.fleet.control(name, "slow "+s.Duration.String())
		c.chaosEvent(t, s, s.Action, name, inc, pid, params, err)
	case vocab.ActionPause:
		params["duration_ms"] = s.Duration.Milliseconds()
		t := time.Now()
		inc, pid, err := c.fleet.signal(name, syscall.SIGSTOP)
		c.chaosEvent(t, s, s.Action, name, inc, pid, params, err)
		if err != nil {
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
			t := time.Now()
			inc, pid, err := c.fleet.signal(name, syscall.SIGCONT)
			c.chaosEvent(t, s, "resume", name, inc, pid, params, err)
		}()
	}
}

// restart closes a member gracefully and starts its next incarnation (a
// deploy). A member that is not running is just started.
func (c *cellRun) restart(ctx context.Context, s workloads.PlannedStep, name string, params map[string]any) {
	t := time.Now()
	if m, gerr := c.fleet.get(name); gerr == nil && !exited(m.proc) {
		inc, pid, done, err := c.fleet.stop(name, 30*time.Second)
		c.chaosEvent(t, s, vocab.ActionRestart, name, inc, pid, params, err)
		if err != nil {
			return
		}
		<-done
	} else {
		c.chaosEvent(t, s, vocab.ActionRestart, name, 0, 0, params, nil)
	}
	if err := c.fleet.start(ctx, name); err != nil {
		c.chaosEvent(time.Now(), s, vocab.ActionRestart, name, 0, 0, params, err)
	}
}

package runner

import (
	"context"
	"strconv"
	"sync"
	"time"

	"github.com/chaosbench/chaosbench/internal/autoscale"
	"github.com/chaosbench/chaosbench/internal/cluster"
	"github.com/chaosbench/chaosbench/internal/vocab"
	"github.com/chaosbench/chaosbench/workloads"
)

// The autoscaler: the workload's autoscaler section acted out. Every
// pollingInterval from traffic start it reads the lag of each partition
// from the broker, as KEDA's Kafka scaler does, and takes the decision of
// internal/autoscale. A scale-up starts new members, named after the last
// (an `add` step per member); a scale-down stops the newest members
// gracefully, SIGTERM as a Pod scaled down gets (a `stop` step per
// member). Each is a chaos step, numbered after the plan's, recorded
// before it acts with the decision in its parameters (autoscaler, lag,
// metric, from, to, raw, reason, lag_threshold), so the analysis takes each scale step
// as the disruption it is, with its cause. Members being stopped no
// longer count: a Deployment's replica count drops when it deletes the
// Pod, not when the Pod has gone.

// autoscaler is the controller's state.
type autoscaler struct {
	c        *cellRun
	a        *autoscale.Autoscaler
	poll     time.Duration
	step     int             // the last step number used
	stopping map[string]bool // members stopped, not yet gone
	mu       sync.Mutex
	stops    sync.WaitGroup
}

// runAutoscaler runs the controller from t0 until done is closed or ctx
// ends, and returns once the members it stopped are gone.
func (c *cellRun) runAutoscaler(ctx context.Context, t0 time.Time, done <-chan struct{}) {
	spec := c.opts.Spec
	a, err := autoscale.New(spec.Autoscaler.Settings())
	if err != nil { // validated with the workload: not reached
		c.logf("autoscaler: %v", err)
		return
	}
	as := &autoscaler{c: c, a: a, poll: spec.Autoscaler.PollingInterval, step: len(c.plan.Steps), stopping: map[string]bool{}}
	defer as.stops.Wait()
	for k := 0; ; k++ {
		at := time.Duration(k) * as.poll
		select {
		case <-ctx.Done():
			return
		case <-done:
			return
		case <-time.After(time.Until(t0.Add(at))):
		}
		as.decide(ctx, at)
	}
}

// decide reads the lag, decides and acts.
func (as *autoscaler) decide(ctx context.Context, at time.Duration) {
	c := as.c
	spec := c.opts.Spec
	lctx, cancel := context.WithTimeout(ctx, min(3*time.Second, as.poll))
	lags, err := cluster.PartitionLags(lctx, c.adm, c.group, c.topic)
	cancel()
	if err != nil {
		c.logf("autoscaler: poll at %s: no lag (%v): no decision", at, err)
		return
	}
	running := as.running()
	d := as.a.Decide(at, lags, len(running))
	if d.Desired == d.Current {
		return
	}
	as.step++
	params := map[string]any{
		"autoscaler": true, "lag": d.Lag, "metric": d.Metric, "from": d.Current, "to": d.Desired,
		"raw": d.Raw, "reason": d.Reason, "poll_ms": at.Milliseconds(), "lag_threshold": spec.Autoscaler.LagThreshold,
	}
	if d.Desired > d.Current {
		ps := workloads.PlannedStep{Step: as.step, At: at, Action: vocab.ActionAdd}
		for _, name := range as.newNames(d.Desired - d.Current) {
			c.onTarget(ps, vocab.ActionAdd, name, params, func() error { return c.fleet.start(ctx, name) })
		}
		return
	}
	ps := workloads.PlannedStep{Step: as.step, At: at, Action: vocab.ActionStop}
	// A ReplicaSet scaled down deletes its newest Pods first.
	for i := len(running) - 1; i >= d.Desired; i-- {
		name := running[i]
		var gone <-chan struct{}
		_, err := c.onMember(ps, vocab.ActionStop, name, params, func(b before) (inc, pid int, err error) {
			inc, pid, gone, err = c.fleet.stop(name, 30*time.Second, b)
			return inc, pid, err
		})
		if err != nil || gone == nil {
			continue
		}
		as.mu.Lock()
		as.stopping[name] = true
		as.mu.Unlock()
		as.stops.Add(1)
		go func() {
			defer as.stops.Done()
			<-gone
			as.mu.Lock()
			delete(as.stopping, name)
			as.mu.Unlock()
		}()
	}
}

// running returns the members running and not being stopped, in number
// order: the replicas the autoscaler counts.
func (as *autoscaler) running() []string {
	alive := as.c.fleet.alive()
	as.mu.Lock()
	defer as.mu.Unlock()
	out := alive[:0]
	for _, n := range alive {
		if !as.stopping[n] {
			out = append(out, n)
		}
	}
	return out
}

// newNames names n new members after the highest member number used.
func (as *autoscaler) newNames(n int) []string {
	last := 0
	for _, name := range as.c.fleet.names() {
		if k, err := strconv.Atoi(name[1:]); err == nil && k > last {
			last = k
		}
	}
	out := make([]string, n)
	for i := range out {
		out[i] = "m" + strconv.Itoa(last+1+i)
	}
	return out
}

package runner

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/chaosbench/chaosbench/internal/cluster"
	"github.com/chaosbench/chaosbench/internal/probe"
	"github.com/chaosbench/chaosbench/internal/runfolder"
)

// A broker that has just started is not the broker later cells meet: for
// its first minute or two of traffic it compiles its hot paths (the JVM's
// JIT), and each kind of group it serves for the first time (eager,
// cooperative, the consumer protocol) brings code to compile. Measured on
// two cores, the broker's JIT compiler threads used as much CPU as its
// request handling through the first three cells of a run (about half a
// core each, for some 90 s of traffic), and almost nothing after: the
// first cells of every run met a broker busy compiling, and since cells
// ran in a fixed order the same strategies paid for it in every run.
// warmUp serves the requests a cell makes (produce, fetch, an eager, a
// cooperative and a consumer-protocol group joining, committing and
// leaving) on a topic of its own until the brokers' JIT threads go quiet,
// before the first measured cell; the run's record says how long it
// took and what the brokers and their JIT used each second.

// Warm-up bounds: at least minWarm of load, so that a settled reading is
// one of the work and not of the start; at most maxWarm by default
// (Options.Warmup), whatever the brokers do, so that a run never waits on
// a broker that never settles.
const (
	minWarm      = 10 * time.Second
	maxWarm      = 150 * time.Second
	warmRate     = 1000 // records per second
	warmSettle   = 5    // seconds a window averages
	warmQuiet    = 0.02 // the JIT's share of the host's CPU below which it is quiet
	warmValueLen = 100
)

// warmUp warms a local cluster's brokers (nodes with a process) before
// the first cell, until their CPU settles or maxWarm passes. A cluster
// whose processes the harness does not own (external, docker) is left
// alone: nil.
func warmUp(ctx context.Context, c cluster.Cluster, info cluster.Info, bound time.Duration, out func(string, ...any)) (*runfolder.Warmup, error) {
	var pids []int
	for _, n := range info.Nodes {
		if n.PID > 0 && n.Alive {
			pids = append(pids, n.PID)
		}
	}
	if len(pids) == 0 {
		return nil, nil
	}
	start := time.Now()
	w := &runfolder.Warmup{}
	topic := "chaosbench-warmup-" + strconv.FormatInt(start.UnixNano(), 36)
	adm, err := cluster.NewAdmin(c.Bootstrap(), c.Props())
	if err != nil {
		return nil, err
	}
	defer adm.Close()
	if err := cluster.CreateTopic(ctx, adm, topic, 6, 1, nil); err != nil {
		return nil, fmt.Errorf("warm-up topic: %w", err)
	}
	defer func() {
		dctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		_, _ = adm.DeleteTopics(dctx, topic)
	}()

	lctx, stopLoad := context.WithCancel(ctx)
	var load sync.WaitGroup
	loadErr := make(chan error, 4)
	run := func(f func(context.Context) error) {
		load.Add(1)
		go func() {
			defer load.Done()
			if err := f(lctx); err != nil && lctx.Err() == nil {
				loadErr <- err
			}
		}()
	}
	run(func(ctx context.Context) error { return warmProduce(ctx, c, topic) })
	for _, g := range []struct {
		name     string
		balancer []kgo.Opt
	}{
		{"eager", []kgo.Opt{kgo.Balancers(kgo.RangeBalancer())}},
		{"cooperative", []kgo.Opt{kgo.Balancers(kgo.CooperativeStickyBalancer())}},
		{"consumer", []kgo.Opt{kgo.ServerSideBalancer()}},
	} {
		run(func(ctx context.Context) error { return warmConsume(ctx, c, topic, topic+"-"+g.name, g.balancer) })
	}
	defer func() { stopLoad(); load.Wait() }()

	cpu := probe.NewProcesses(pids)
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil, context.Cause(ctx)
		case err := <-loadErr:
			return nil, fmt.Errorf("warm-up load: %w", err)
		case <-tick.C:
		}
		if share, jit, ok := cpu.Sample(); ok {
			w.BrokerCPU = append(w.BrokerCPU, share)
			w.JITCPU = append(w.JITCPU, jit)
		}
		elapsed := time.Since(start)
		if elapsed >= min(minWarm, bound) && settled(w.JITCPU) {
			w.Settled = true
			break
		}
		if elapsed >= bound {
			break
		}
	}
	w.Seconds = time.Since(start).Round(10 * time.Millisecond).Seconds()
	why := "did not go quiet within the bound; the first cell may still meet a broker compiling"
	if w.Settled {
		why = "went quiet"
	}
	out("warm-up: %.0f s of traffic and group rebalances on the brokers; their JIT %s (the JIT's share of the CPU, last seconds:%s)", w.Seconds, why, cpuTail(w.JITCPU))
	return w, nil
}

// settled reports whether the JIT compiler threads' share of the host's
// CPU, second by second, has gone quiet: below warmQuiet on average over
// the last warmSettle seconds.
func settled(jit []float64) bool {
	if len(jit) < warmSettle {
		return false
	}
	s := 0.0
	for _, x := range jit[len(jit)-warmSettle:] {
		s += x
	}
	return s/warmSettle < warmQuiet
}

func cpuTail(cpu []float64) string {
	var s string
	for _, v := range cpu[max(0, len(cpu)-warmSettle):] {
		s += fmt.Sprintf(" %.0f%%", 100*v)
	}
	return s
}

// warmProduce sends warmRate records a second, round-robin over the
// topic's partitions, until ctx ends.
func warmProduce(ctx context.Context, c cluster.Cluster, topic string) error {
	cl, err := cluster.NewClient(c.Bootstrap(), c.Props(), kgo.DefaultProduceTopic(topic), kgo.RecordPartitioner(kgo.RoundRobinPartitioner()))
	if err != nil {
		return err
	}
	defer cl.Close()
	value := make([]byte, warmValueLen)
	every := time.Second / warmRate
	next := time.Now()
	for i := 0; ctx.Err() == nil; i++ {
		if d := time.Until(next); d > 0 {
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(d):
			}
		}
		next = next.Add(every)
		cl.Produce(ctx, &kgo.Record{Key: []byte(strconv.Itoa(i % 1000)), Value: value}, func(_ *kgo.Record, err error) {})
	}
	return nil
}

// warmConsume consumes the topic in a group (its balancer decides its
// protocol and rebalance style), committing as it goes, and leaves and
// rejoins it every few seconds: the coordinator's join, sync, heartbeat,
// commit and leave paths are what every cell runs.
func warmConsume(ctx context.Context, c cluster.Cluster, topic, group string, balancer []kgo.Opt) error {
	for ctx.Err() == nil {
		opts := append([]kgo.Opt{kgo.ConsumeTopics(topic), kgo.ConsumerGroup(group), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart())}, balancer...)
		cl, err := cluster.NewClient(c.Bootstrap(), c.Props(), opts...)
		if err != nil {
			return err
		}
		until := time.Now().Add(4 * time.Second)
		for ctx.Err() == nil && time.Now().Before(until) {
			pctx, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
			fs := cl.PollFetches(pctx)
			cancel()
			if err := fs.Err0(); err != nil && !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) {
				fs.EachError(func(string, int32, error) {}) // a fetch error of a warming broker is no error of the warm-up
			}
		}
		cl.Close() // commits what it consumed and leaves the group
	}
	return nil
}

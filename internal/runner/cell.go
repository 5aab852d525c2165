package runner

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/chaosbench/chaosbench/internal/cluster"
	"github.com/chaosbench/chaosbench/internal/history"
	"github.com/chaosbench/chaosbench/internal/historytopic"
	"github.com/chaosbench/chaosbench/internal/member"
	"github.com/chaosbench/chaosbench/internal/probe"
	"github.com/chaosbench/chaosbench/internal/runfolder"
	"github.com/chaosbench/chaosbench/internal/vocab"
	"github.com/chaosbench/chaosbench/workloads"
)

// cellRun is one cell of a run.
type cellRun struct {
	opts    *Options
	cell    workloads.Cell
	iter    int
	cluster cluster.Cluster
	info    cluster.Info
	dir     string // the cell's folder
	runDir  string // the run's folder
	plan    Plan
	stamp   string // the run's start time and tag, yyyymmddThhmmssZ-xxxxxx

	topic, group string
	// outputTopic is a transactional cell's output topic (empty for the
	// other policies).
	outputTopic string
	histDir     string
	hist        *history.Writer
	// split follows the history topic into the cell's files, when the
	// run writes to one (histCfg: the topic and its cluster).
	split   *historytopic.Follower
	histCfg historytopic.Config
	kcl     *kgo.Client
	adm     *kadm.Client
	fleet   *fleet
	prod    trafficProducer
	record  runfolder.Cell

	mu         sync.Mutex
	partitions int
	nextStep   string
	stepErrs   []error
	// resolvedBrokers: the broker each broker_kill step resolved at run
	// time killed (txn-coordinator:<member>), by step number.
	resolvedBrokers map[int]int

	lastProgress time.Time // when progress last printed a line (not live)
	stopScaler   func()    // ends the autoscaler, when the workload has one
}

// run runs the cell. The cell's folder holds a partial record from the
// start; it is marked complete only at the end.
func (c *cellRun) run(ctx context.Context) (err error) {
	spec := c.opts.Spec
	if err := c.prepare(); err != nil {
		return err
	}
	defer c.closeRecord(ctx, &err)

	c.kcl, err = cluster.NewClient(c.cluster.Bootstrap(), c.cluster.Props())
	if err != nil {
		return err
	}
	c.adm = kadm.NewClient(c.kcl)
	defer c.kcl.Close()
	if err := c.createTopic(ctx); err != nil {
		return err
	}
	defer c.deleteTopic()
	if vocab.IsConsumerProtocol(c.cell.Strategy) {
		c.applyGroupTimings(ctx)
	}

	if err := c.beginHistorySink(ctx); err != nil {
		return err
	}
	// After every process of the cell has ended (the deferred stops
	// below run first).
	defer c.endHistorySink(&err)

	c.hist, err = history.Create(c.histDir, "chaos", 0)
	if err != nil {
		return err
	}
	defer c.hist.Close()
	// The driver's probe: the host's CPU and this process's own stalls
	// (it runs the producer), once a second, for the host check.
	pctx, stopProbe := context.WithCancel(ctx)
	probeDone := make(chan struct{})
	go func() {
		defer close(probeDone)
		probe.Run(pctx, probe.Options{Sink: c.hist, Host: true})
	}()
	defer func() { stopProbe(); <-probeDone }()

	c.fleet = newFleet(c.opts.Launcher, c.hist, filepath.Join(c.dir, "logs"), c.memberArgs, c.memberConfig("", 0).Env(), c.logf)
	c.fleet.cell = cellFolder(c.cell, c.iter, c.opts.Repeat)
	c.fleet.ctl = c.opts.control
	// Whatever happens, no member outlives the cell.
	defer func() {
		if ctx.Err() != nil {
			c.fleet.killAll()
		} else {
			c.fleet.stopAll(30 * time.Second)
		}
	}()
	if err := c.startGroup(ctx); err != nil {
		return err
	}

	plog, err := os.OpenFile(filepath.Join(c.dir, "logs", "producer-0.0.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer plog.Close()
	c.prod, err = newProducer(spec, c.topic, c.cluster, c.newHistory, c.dir, plog, c.opts.clockURL, c.opts.ClockSkew["producer-0"])
	if err != nil {
		return err
	}
	defer func() {
		if cerr := c.prod.Close(); cerr != nil && err == nil {
			err = cerr
		}
	}()

	t0 := time.Now()
	c.phase("warmup")
	// The autoscaler, if any, acts from traffic start to the end of the
	// drain.
	if spec.Autoscaler != nil {
		scalerDone, scalerExit := make(chan struct{}), make(chan struct{})
		go func() {
			defer close(scalerExit)
			c.runAutoscaler(ctx, t0, scalerDone)
		}()
		stopScaler := sync.OnceFunc(func() { close(scalerDone); <-scalerExit })
		defer stopScaler()
		c.stopScaler = stopScaler
	}
	// Steady state begins after the warmup.
	steady := time.AfterFunc(spec.Chaos.Warmup, func() { c.phase("steady") })
	defer steady.Stop()
	if err := c.traffic(ctx, t0); err != nil {
		return err
	}
	c.phase("drain")
	drained, err := c.drain(ctx, t0)
	c.record.DrainEnd = time.Now().UTC()
	c.record.DrainComplete = drained
	if err != nil {
		return err
	}
	return c.stop(t0, drained)
}

// prepare names the cell's topic and group, creates its folders and saves
// its record, partial until closeRecord.
func (c *cellRun) prepare() error {
	spec := c.opts.Spec
	// A topic (and group) of its own per run: a topic or committed
	// offsets left by an earlier run, on an external cluster, must not
	// leak into this one.
	c.topic = spec.TopicFor(c.cell) + "-" + c.stamp
	if c.opts.Repeat > 1 {
		c.topic += "-" + strconv.Itoa(c.iter)
	}
	c.group = c.topic
	if vocab.IsTransactional(c.cell.CommitPolicy) {
		c.outputTopic = c.topic + workloads.OutputSuffix
	}
	c.histDir = runfolder.HistoryDir(c.dir)
	c.partitions = spec.Topic.Partitions
	for _, d := range []string{c.histDir, filepath.Join(c.dir, "logs")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	return c.beginRecord()
}

// createTopic creates the cell's topic, of the workload's partitions and
// replication, within a minute (partition leaders elected).
func (c *cellRun) createTopic(ctx context.Context) error {
	t := c.opts.Spec.Topic
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	if err := cluster.CreateTopic(ctx, c.adm, c.topic, int32(t.Partitions), int16(t.Replication), nil); err != nil {
		return err
	}
	if c.outputTopic == "" {
		return nil
	}
	return cluster.CreateTopic(ctx, c.adm, c.outputTopic, int32(t.Partitions), int16(t.Replication), nil)
}

// deleteTopic deletes the cell's topic at the cell's end, even when the
// run was interrupted (its own context): a failure is only logged.
func (c *cellRun) deleteTopic() {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	topics := []string{c.topic}
	if c.outputTopic != "" {
		topics = append(topics, c.outputTopic)
	}
	if _, err := c.adm.DeleteTopics(ctx, topics...); err != nil {
		c.logf("delete topics %v: %v", topics, err)
	}
}

// applyGroupTimings sets a consumer-protocol group's session timeout and
// heartbeat interval as group configs (KIP-848: the member's consumer
// settings held in the group, vocab.InGroup), so that they equal the
// classic members' on any cluster whose bounds allow it (on a local
// cluster the broker defaults already say the same), and records what the
// coordinator will really apply. Neither request failing fails the cell:
// the broker's defaults apply, and what could not be read back is
// recorded as the workload says.
func (c *cellRun) applyGroupTimings(ctx context.Context) {
	inGroup := member.WorkloadConfig(c.opts.Spec, c.cell).ConsumerSettings().In(vocab.InGroup)
	configs := map[string]string{}
	for _, s := range inGroup {
		configs[s.GroupConfig()] = s.Value
	}
	setCtx, cancelSet := context.WithTimeout(ctx, 10*time.Second)
	defer cancelSet()
	if err := cluster.SetGroupConfigs(setCtx, c.kcl, c.group, configs); err != nil {
		c.logf("group configs of %s: %v (the broker defaults apply)", c.group, err)
	}
	readCtx, cancelRead := context.WithTimeout(ctx, 10*time.Second)
	defer cancelRead()
	applied, err := cluster.GroupConfigs(readCtx, c.kcl, c.group, slices.Sorted(maps.Keys(configs)))
	if err != nil {
		c.logf("describe group configs of %s: %v", c.group, err)
	}
	for _, s := range inGroup {
		if v, ok := applied[s.GroupConfig()]; ok {
			c.record.Consumer[s.Name] = v
		}
	}
}

// startGroup starts the members and waits until they own every partition
// between them.
func (c *cellRun) startGroup(ctx context.Context) error {
	spec := c.opts.Spec
	c.phase("start")
	for i := 1; i <= spec.Consumer.Members; i++ {
		if err := c.fleet.start(ctx, "m"+strconv.Itoa(i)); err != nil {
			return err
		}
	}
	formed := time.Now()
	if err := c.waitFormed(ctx, 60*time.Second+2*spec.Consumer.SessionTimeout); err != nil {
		return err
	}
	c.logf("group formed in %s", time.Since(formed).Round(time.Millisecond))
	return nil
}

// waitFormed waits until the group's members own every partition
// between them and, when there are more members than partitions, until the
// broker has every member in the group's settled generation.
func (c *cellRun) waitFormed(ctx context.Context, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		alive := c.fleet.alive()
		formed, state, err := c.formed(ctx, alive)
		if err != nil {
			return err
		}
		if formed {
			return nil
		}
		if len(alive) == 0 {
			return errors.New("every member exited before the group formed: see the logs folder")
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("group %s did not form within %s: %s", c.group, timeout, state)
		}
		select {
		case <-ctx.Done():
			return context.Cause(ctx)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// formed reports whether the group has formed, and if not, its state in
// words. A local run decides it from the members' own histories, and asks
// the broker only whether every member has joined when some must own
// nothing; a run with the network control channel reads no member's
// files, and asks the group's coordinator: Stable, with every running
// member in it, every partition owned and, when there are enough
// partitions, none of them idle. An error is one the run cannot go on
// from (a history that cannot be read); the coordinator's errors are part
// of the state, asked again.
func (c *cellRun) formed(ctx context.Context, alive []string) (bool, string, error) {
	partitions := c.currentPartitions()
	consumerProtocol := vocab.IsConsumerProtocol(c.cell.Strategy)
	if c.opts.remoteObserve() {
		o, state, err := coordinatorOwnership(ctx, c.adm, c.group, c.topic, consumerProtocol, alive, c.incOf)
		if err != nil {
			return false, "the broker could not describe the group: " + err.Error(), nil
		}
		return o.formedStable(state, partitions, alive), fmt.Sprintf("the coordinator's group is %s with %d of %d running members, %d of %d partitions owned by %v",
			state, len(o.members), len(alive), len(o.owner), partitions, o.counts), nil
	}
	o, err := readOwnership(c.histDir, alive, c.incOf)
	if err != nil {
		return false, "", err
	}
	owned := fmt.Sprintf("%d of %d partitions owned by %v", len(o.owner), partitions, o.counts)
	if !o.formed(partitions, alive) {
		return false, owned, nil
	}
	if len(alive) <= partitions {
		return true, owned, nil
	}
	ok, why, err := groupJoined(ctx, c.adm, c.group, consumerProtocol, len(alive))
	if err != nil {
		why = "the broker could not describe the group: " + err.Error()
	}
	return ok, owned + "; " + why, nil
}

// traffic runs the producer and, beside it, the chaos steps (t0 being
// traffic start), printing the progress every second, until the producer
// is done. It returns once the steps are done too: a pause may outlast the
// traffic. An interruption stops the producer and waits for both.
func (c *cellRun) traffic(ctx context.Context, t0 time.Time) error {
	pctx, stopTraffic := context.WithCancel(ctx)
	defer stopTraffic()
	prodDone := make(chan error, 1)
	go func() { prodDone <- c.prod.Run(pctx) }()

	var steps sync.WaitGroup
	steps.Add(1)
	go func() {
		defer steps.Done()
		c.runSteps(ctx, t0)
	}()

	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	var prodErr error
traffic:
	for {
		select {
		case prodErr = <-prodDone:
			break traffic
		case <-tick.C:
			c.progress(ctx, t0, "traffic", nil)
		case <-ctx.Done():
			stopTraffic()
			<-prodDone
			steps.Wait()
			return context.Cause(ctx)
		}
	}
	c.record.TrafficEnd = time.Now().UTC()
	if prodErr != nil {
		return fmt.Errorf("producer: %w", prodErr)
	}
	steps.Wait() // a pause may outlast the traffic: let it finish
	return nil
}

// drain waits until the group has no lag (every acknowledged record was
// consumed and committed) or the drain timeout passes. It reports whether
// the group drained.
func (c *cellRun) drain(ctx context.Context, t0 time.Time) (bool, error) {
	spec := c.opts.Spec
	deadline := time.Now().Add(spec.Chaos.DrainTimeout)
	// Policies that commit before processing (auto stores on hand-out)
	// reach zero lag up to a batch before the batch is processed.
	settle := time.Second + time.Duration(spec.Consumer.MaxPollRecords)*spec.Consumer.Processing.Cost
	for {
		lag, err := c.lag(ctx)
		if err == nil && lag == 0 {
			c.logf("drained; settling %s", settle.Round(time.Millisecond))
			select {
			case <-time.After(settle):
			case <-ctx.Done():
				return false, context.Cause(ctx)
			}
			return true, nil
		}
		if time.Now().After(deadline) {
			c.logf("drain timed out after %s with lag %d", spec.Chaos.DrainTimeout, lag)
			return false, nil
		}
		var sampled *int64
		if err == nil {
			sampled = &lag
		}
		c.progress(ctx, t0, "drain", sampled)
		select {
		case <-ctx.Done():
			return false, context.Cause(ctx)
		case <-time.After(time.Second):
		}
	}
}

// stop ends a drained (or timed-out) cell: every member closed gracefully,
// and the chaos steps that failed make the cell fail.
func (c *cellRun) stop(t0 time.Time, drained bool) error {
	if c.stopScaler != nil {
		c.stopScaler()
	}
	c.phase("done")
	c.fleet.stopAll(30 * time.Second)
	c.logf("done in %s; drain %s", time.Since(t0).Round(time.Second), map[bool]string{true: "complete", false: "timed out"}[drained])
	if c.outputTopic != "" {
		c.verify()
	}
	c.mu.Lock()
	stepErrs := errors.Join(c.stepErrs...)
	c.mu.Unlock()
	if stepErrs != nil {
		return fmt.Errorf("chaos steps failed: %w", stepErrs)
	}
	return nil
}

// phase records the cell's phase (start, warmup, steady, drain, done) in
// the driver's history; a failure to record it is not the cell's.
func (c *cellRun) phase(p string) {
	if err := c.hist.Append(&history.Event{Kind: history.Phase, Phase: p}); err == nil {
		_ = c.hist.Flush()
	}
}

// incOf is a member's current (or last) incarnation, 0 for a member the
// fleet does not have: which of its history files to read.
func (c *cellRun) incOf(name string) int {
	m, err := c.fleet.get(name)
	if err != nil {
		return 0
	}
	return m.proc.Inc()
}

// currentPartitions is the topic's partition count now: an
// add_partitions step changes it during traffic.
func (c *cellRun) currentPartitions() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.partitions
}

// verify reads a transactional cell's output topic once every member
// has stopped (member.Verify, into the verifier's own history) and
// records what it read as the `verified` phase; a failure is the
// analysis's to judge (no verified phase), not the cell's.
func (c *cellRun) verify() {
	ctx, cancel := context.WithTimeout(context.Background(), c.opts.Spec.Consumer.Transaction.Timeout+2*time.Minute)
	defer cancel()
	v, err := member.Verify(ctx, member.VerifyConfig{
		Bootstrap:  c.cluster.Bootstrap(),
		Props:      c.cluster.Props(),
		Topic:      c.outputTopic,
		HistoryDir: c.histDir,
		// A crashed member's open transaction ends at its timeout.
		Settle: c.opts.Spec.Consumer.Transaction.Timeout + 10*time.Second,
	})
	if err != nil {
		c.logf("verify %s: %v", c.outputTopic, err)
		return
	}
	c.logf("verified %s: %d records read_committed, %d read_uncommitted (settled %t, complete %t)", c.outputTopic, v.Committed, v.Uncommitted, v.Settled, v.Complete)
	if err := c.hist.Append(&history.Event{Kind: history.Phase, Phase: "verified", Params: v.Params()}); err == nil {
		_ = c.hist.Flush()
	}
}

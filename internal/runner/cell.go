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
	"strings"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/chaosbench/chaosbench/internal/cluster"
	"github.com/chaosbench/chaosbench/internal/history"
	"github.com/chaosbench/chaosbench/internal/kafkaconf"
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
	histDir      string
	hist         *history.Writer
	kcl          *kgo.Client
	adm          *kadm.Client
	fleet        *fleet
	prod         trafficProducer
	record       runfolder.Cell

	mu         sync.Mutex
	partitions int
	nextStep   string
	stepErrs   []error

	lastProgress time.Time // when progress last printed a line (not live)
}

func (c *cellRun) logf(format string, args ...any) {
	fmt.Fprintf(c.opts.Out, "%s[%s] %s\n", c.clearLine(), c.cell.Name, fmt.Sprintf(format, args...))
}

// clearLine returns what erases the live progress line on a terminal.
func (c *cellRun) clearLine() string { return c.opts.clearLine() }

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
	c.prod, err = newProducer(spec, c.topic, c.cluster, c.histDir, c.dir, plog)
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
	c.histDir = runfolder.HistoryDir(c.dir)
	c.partitions = spec.Topic.Partitions
	for _, d := range []string{c.histDir, filepath.Join(c.dir, "logs")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	c.record = runfolder.Cell{
		SchemaVersion: runfolder.SchemaVersion, Cell: c.cell.Name, Strategy: c.cell.Strategy,
		CommitPolicy: c.cell.CommitPolicy, Client: c.cell.Client, Iteration: c.iter,
		Topic: c.topic, Partitions: spec.Topic.Partitions, Group: c.group, Members: spec.Consumer.Members,
		Seed: spec.Seed, Consumer: c.consumerSettings(), Processing: spec.Consumer.Processing.String(),
		Producer: producerSettings(spec.Producer), ClientProperties: c.cluster.Props().Redacted(),
		Cluster: c.clusterRecord(), Versions: versions(c.info.KafkaVersion), Machine: machine(),
	}
	c.record.Begin(time.Now())
	if c.cell.Client == vocab.ClientJava {
		c.record.Versions.KafkaClients, c.record.Versions.Java = member.JavaVersions()
	}
	return c.saveRecord()
}

// clusterRecord is the cluster as cell.json records it: a node's log
// inside the run folder is named relative to the run folder (results are
// copied between machines, and a path of the machine that ran them says
// nothing there).
func (c *cellRun) clusterRecord() runfolder.ClusterInfo {
	info := c.info
	run := c.runDir
	info.Nodes = slices.Clone(info.Nodes)
	for i, n := range info.Nodes {
		if rel, err := filepath.Rel(run, n.Log); err == nil && filepath.IsAbs(n.Log) && !strings.HasPrefix(rel, "..") {
			info.Nodes[i].Log = rel
		}
	}
	return info
}

// closeRecord saves the record at the cell's end: complete when *errp is
// nil, else partial with the reason (the interruption, when ctx ended). A
// failure to save becomes the cell's error.
func (c *cellRun) closeRecord(ctx context.Context, errp *error) {
	err := *errp
	if err != nil && ctx.Err() != nil {
		err = fmt.Errorf("interrupted: %w", context.Cause(ctx))
	}
	c.record.Finish(time.Now(), err)
	if serr := c.saveRecord(); serr != nil && err == nil {
		*errp = serr
	}
}

// applyGroupTimings sets a consumer-protocol group's session timeout and
// heartbeat interval and records what the coordinator will really apply.
func (c *cellRun) applyGroupTimings(ctx context.Context) {
	c.setGroupTimings(ctx)
	for k, v := range c.groupTimings(ctx) {
		c.record.Consumer["group.consumer."+strings.TrimPrefix(k, "consumer.")] = v
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

// stop ends a drained (or timed-out) cell: every member closed gracefully,
// and the chaos steps that failed make the cell fail.
func (c *cellRun) stop(t0 time.Time, drained bool) error {
	c.phase("done")
	c.fleet.stopAll(30 * time.Second)
	c.logf("done in %s; drain %s", time.Since(t0).Round(time.Second), map[bool]string{true: "complete", false: "timed out"}[drained])
	c.mu.Lock()
	stepErrs := errors.Join(c.stepErrs...)
	c.mu.Unlock()
	if stepErrs != nil {
		return fmt.Errorf("chaos steps failed: %w", stepErrs)
	}
	return nil
}

func (c *cellRun) saveRecord() error {
	return runfolder.WriteJSON(filepath.Join(c.dir, "cell.json"), c.record)
}

func (c *cellRun) phase(p string) {
	if err := c.hist.Append(&history.Event{Kind: history.Phase, Phase: p}); err == nil {
		_ = c.hist.Flush()
	}
}

// consumerSettings are the effective member settings, by Kafka name: a
// member's consumer settings (member.Config.ConsumerSettings), the
// client's and the group's, and the workload's client properties with
// their secrets masked. A static member's group.instance.id is its own
// name, recorded as "<member name>".
func (c *cellRun) consumerSettings() map[string]string {
	cfg := member.WorkloadConfig(c.opts.Spec, c.cell)
	cfg.Name = "<member name>"
	out := cfg.ConsumerSettings().Map()
	for k, v := range cfg.Props.Redacted() {
		out[k] = v
	}
	return out
}

// producerSettings are the producer's settings, by Kafka name.
func producerSettings(p workloads.Producer) map[string]string {
	rate := "unlimited"
	if p.Rate > 0 {
		rate = strconv.FormatFloat(p.Rate, 'f', -1, 64)
	}
	return map[string]string{
		"client":                                p.Client,
		"partitioner":                           p.Partitioner,
		"rate":                                  rate,
		"acks":                                  p.Acks,
		"enable.idempotence":                    strconv.FormatBool(p.Idempotence),
		"max.in.flight.requests.per.connection": strconv.Itoa(p.MaxInFlight),
		"linger.ms":                             strconv.FormatInt(p.Linger.Milliseconds(), 10),
		"batch.size":                            strconv.Itoa(p.BatchSize),
		"compression.type":                      p.Compression,
	}
}

// memberArgs is the command line of a member incarnation; its secret
// properties go through the environment (member.Config.Env).
func (c *cellRun) memberArgs(name string, inc int) []string {
	cfg := c.memberConfig(name, inc)
	return append([]string{"member"}, cfg.Args()...)
}

// memberConfig is the configuration of a member incarnation.
func (c *cellRun) memberConfig(name string, inc int) member.Config {
	cfg := member.WorkloadConfig(c.opts.Spec, c.cell)
	cfg.Name, cfg.Inc, cfg.HistoryDir = name, inc, c.histDir
	cfg.Bootstrap, cfg.Group, cfg.Topic = c.cluster.Bootstrap(), c.group, c.topic
	cfg.Seed = c.opts.Spec.Rand("processing/" + name).Int64()
	cfg.Control = true
	// The cluster's properties, then the workload's over them.
	props := kafkaconf.Props{}
	maps.Copy(props, c.cluster.Props())
	maps.Copy(props, cfg.Props)
	cfg.Props = props
	return cfg
}

func (c *cellRun) createTopic(ctx context.Context) error {
	t := c.opts.Spec.Topic
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	return cluster.CreateTopic(ctx, c.adm, c.topic, int32(t.Partitions), int16(t.Replication), nil)
}

func (c *cellRun) deleteTopic() {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := c.adm.DeleteTopics(ctx, c.topic); err != nil {
		c.logf("delete topic %s: %v", c.topic, err)
	}
}

// setGroupTimings sets the consumer-protocol group's session timeout and
// heartbeat interval as group configs (KIP-848), so that they equal the
// classic members' on any cluster whose bounds allow it. On a local
// cluster the broker defaults already say the same.
func (c *cellRun) setGroupTimings(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req := kmsg.NewPtrIncrementalAlterConfigsRequest()
	res := kmsg.NewIncrementalAlterConfigsRequestResource()
	res.ResourceType = kmsg.ConfigResourceTypeGroupConfig
	res.ResourceName = c.group
	// The group's consumer settings, by their group-config names.
	for _, s := range member.WorkloadConfig(c.opts.Spec, c.cell).ConsumerSettings().In(vocab.InGroup) {
		cfg := kmsg.NewIncrementalAlterConfigsRequestResourceConfig()
		cfg.Name = s.GroupConfig()
		cfg.Op = kmsg.IncrementalAlterConfigOpSet
		cfg.Value = kmsg.StringPtr(s.Value)
		res.Configs = append(res.Configs, cfg)
	}
	req.Resources = append(req.Resources, res)
	resp, err := req.RequestWith(ctx, c.kcl)
	if err == nil {
		for _, r := range resp.Resources {
			if e := kerr.ErrorForCode(r.ErrorCode); e != nil {
				err = fmt.Errorf("%w: %s", e, derefString(r.ErrorMessage))
			}
		}
	}
	if err != nil {
		c.logf("group configs of %s: %v (the broker defaults apply)", c.group, err)
	}
}

// groupTimings reads back the group's effective session timeout and
// heartbeat interval (group config, else the broker's default).
func (c *cellRun) groupTimings(ctx context.Context) map[string]string {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req := kmsg.NewPtrDescribeConfigsRequest()
	res := kmsg.NewDescribeConfigsRequestResource()
	res.ResourceType = kmsg.ConfigResourceTypeGroupConfig
	res.ResourceName = c.group
	for _, s := range member.WorkloadConfig(c.opts.Spec, c.cell).ConsumerSettings().In(vocab.InGroup) {
		res.ConfigNames = append(res.ConfigNames, s.GroupConfig())
	}
	req.Resources = append(req.Resources, res)
	resp, err := req.RequestWith(ctx, c.kcl)
	out := map[string]string{}
	if err != nil {
		c.logf("describe group configs of %s: %v", c.group, err)
		return out
	}
	for _, r := range resp.Resources {
		for _, cfg := range r.Configs {
			if cfg.Value != nil {
				out[cfg.Name] = *cfg.Value
			}
		}
	}
	return out
}

func derefString(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// waitFormed waits until the group's members own every partition between
// them and, when there are more members than partitions, until the broker
// has every member in the group's settled generation.
func (c *cellRun) waitFormed(ctx context.Context, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		alive := c.fleet.alive()
		o, err := readOwnership(c.histDir, alive, c.incOf)
		if err != nil {
			return err
		}
		joined := ""
		if o.formed(c.currentPartitions(), alive) {
			if len(alive) <= c.currentPartitions() {
				return nil
			}
			ok, why, err := groupJoined(ctx, c.adm, c.group, vocab.IsConsumerProtocol(c.cell.Strategy), len(alive))
			if ok {
				return nil
			}
			joined = "; " + why
			if err != nil {
				joined = "; the broker could not describe the group: " + err.Error()
			}
		}
		if len(alive) == 0 {
			return errors.New("every member exited before the group formed: see the logs folder")
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("group %s did not form within %s: %d of %d partitions owned by %v%s",
				c.group, timeout, len(o.owner), c.currentPartitions(), o.counts, joined)
		}
		select {
		case <-ctx.Done():
			return context.Cause(ctx)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func (c *cellRun) incOf(name string) int {
	m, err := c.fleet.get(name)
	if err != nil {
		return 0
	}
	return m.proc.Inc()
}

func (c *cellRun) currentPartitions() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.partitions
}

// drain waits until the group has no lag (every acknowledged record was
// consumed and committed) or the drain timeout passes. It reports whether
// the group drained.
func (c *cellRun) drain(ctx context.Context, t0 time.Time) (bool, error) {
	spec := c.opts.Spec
	deadline := time.Now().Add(spec.Chaos.DrainTimeout)
	s := lagSampler{adm: c.adm, topic: c.topic, group: c.group}
	// Policies that commit before processing (auto stores on hand-out)
	// reach zero lag up to a batch before the batch is processed.
	settle := time.Second + time.Duration(spec.Consumer.MaxPollRecords)*spec.Consumer.Processing.Cost
	for {
		lag, _, err := s.lag(ctx)
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

// progress prints the progress line: redrawn every second on a terminal,
// a line of its own every progressEvery elsewhere.
// lag, when not nil, is the group's lag just sampled by the caller.
func (c *cellRun) progress(ctx context.Context, t0 time.Time, phase string, lag *int64) {
	elapsed := time.Since(t0).Round(time.Second)
	if !c.opts.live {
		if !c.lastProgress.IsZero() && time.Since(c.lastProgress) < progressEvery-progressEvery/20 {
			return
		}
		c.lastProgress = time.Now()
	}
	lagStr := "?"
	if lag != nil {
		lagStr = strconv.FormatInt(*lag, 10)
	} else if n, _, err := (lagSampler{adm: c.adm, topic: c.topic, group: c.group}).lag(ctx); err == nil {
		lagStr = strconv.FormatInt(n, 10)
	}
	st := c.prod.Stats()
	c.mu.Lock()
	next := c.nextStep
	c.mu.Unlock()
	alive := len(c.fleet.alive())
	end := ""
	if !c.opts.live {
		end = "\n"
	}
	fmt.Fprintf(c.opts.Out, "%s%s  %s %5s  %7.0f rec/s  acked %d  err %d  p99 %s  lag %s  members %d/%d  %s%s",
		c.clearLine(), c.cell.Name, phase, elapsed, st.Rate, st.Acked, st.Errors, st.P99.Round(time.Millisecond),
		lagStr, alive, len(c.fleet.names()), next, end)
}

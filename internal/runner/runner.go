// Package runner is the chaos driver: it runs a workload's cells one after
// another against a cluster, each with a fresh topic, the producer, the
// member processes and the seeded chaos plan executed on time, then drains
// and stops everything, and leaves a self-describing results folder
// (docs/history.md, "A run folder").
package runner

import (
	"context"
	crand "crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/chaosbench/chaosbench/internal/clock"
	"github.com/chaosbench/chaosbench/internal/cluster"
	"github.com/chaosbench/chaosbench/internal/control"
	"github.com/chaosbench/chaosbench/internal/kafkaconf"
	"github.com/chaosbench/chaosbench/internal/launcher"
	"github.com/chaosbench/chaosbench/internal/runfolder"
	"github.com/chaosbench/chaosbench/workloads"
)

// Options configure a run.
type Options struct {
	Spec *workloads.Spec
	// Cells to run, in order; default: every cell of the workload.
	Cells []workloads.Cell
	// Repeat runs every cell this many times (default 1), for comparisons
	// that need several samples.
	Repeat int
	// ResultsDir is the results root (default "results").
	ResultsDir string
	// Cluster selects the cluster; the workload's broker settings are added
	// to a local one's.
	Cluster cluster.Options
	// Open, if not nil, is a cluster already open to run on instead of
	// opening one from Cluster: Run leaves it open. A capacity sweep runs
	// all its points on one cluster.
	Open cluster.Cluster
	// RunDir, if set, is the run folder to create (its parent must exist,
	// it must not): a sweep names each point's run. Default: a new
	// <UTC time>-<workload> folder under ResultsDir.
	RunDir string
	// Binary is the chaos binary members run as (default: this program).
	Binary string
	// Out receives the plan, the progress lines and the end summary.
	Out io.Writer
	// Command is the command line, recorded in run.json with the value of
	// every secret property masked.
	Command []string
	// Launcher starts member processes (default: local child processes).
	Launcher launcher.Launcher
	// Warmup bounds the warm-up of a local cluster that Run opens (the
	// brokers served traffic and group rebalances until their CPU stops
	// falling, warmup.go): 0 is DefaultWarmup, a negative value none.
	Warmup time.Duration

	// History says where the members and the producer write their
	// histories: their files (the default), a history topic, or both.
	History HistoryOptions

	// ClockSkew, for tests of the clock correction, skews the clocks of
	// the processes it names (a member "m2", the producer "producer-0"):
	// each stamps every time it records that far ahead, as a process on
	// a host whose clock differs would. The analysis corrects it away by
	// the clock events (docs/history.md, "Clock correction").
	ClockSkew map[string]time.Duration

	// ClockListen is the address the driver's time endpoint listens on,
	// and which every process is given (default 127.0.0.1:0: a local
	// run's processes are on this host). A run whose members are on other
	// hosts (Kubernetes Pods) gives an address of this host they reach.
	ClockListen string
	// Control is the members' control channel (the `slow` step's
	// commands): ControlStdin, the default, a pipe to each member's
	// standard input, which only a process of this host can have; or
	// ControlNetwork, the driver's control endpoint (internal/control),
	// which each member connects out to with the run's token, wherever it
	// runs. With the network channel the driver also reads no member's
	// files while a cell runs: whether the group has formed, and who owns
	// a partition (`owner:<p>`), come from the group's coordinator.
	Control string

	// clockURL is the driver's time endpoint, which every process of a
	// cell measures its clock against (internal/clock).
	clockURL string
	// control is the network control channel's endpoint, and
	// controlToken the run's token for it (ControlNetwork only).
	control      *control.Server
	controlToken string

	// live: Out is a terminal, where the progress line is redrawn in place
	// every second; elsewhere (a CI log, a file) it is a plain line every
	// progressEvery.
	live bool
}

// The members' control channels (Options.Control).
const (
	ControlStdin   = "stdin"
	ControlNetwork = "network"
)

// CheckControl refuses a control channel that is neither ControlStdin
// nor ControlNetwork (empty is ControlStdin).
func CheckControl(channel string) error {
	switch channel {
	case "", ControlStdin, ControlNetwork:
		return nil
	}
	return fmt.Errorf("control channel %q: expected %s (the members' standard input) or %s (the driver's control endpoint)", channel, ControlStdin, ControlNetwork)
}

// remoteObserve reports whether the driver observes the group from its
// coordinator rather than the members' files: with the network control
// channel, whose members may write their files elsewhere.
func (o *Options) remoteObserve() bool { return o.Control == ControlNetwork }

// Plan is plan.json: the cells and the chaos schedule, computed before the
// run and identical for every cell.
type Plan struct {
	Workload string                  `json:"workload"`
	Seed     int64                   `json:"seed"`
	Repeat   int                     `json:"repeat"`
	Cells    []workloads.Cell        `json:"cells"`
	Steps    []workloads.PlannedStep `json:"steps"`
	Broker   map[string]string       `json:"broker_settings"`
	Traffic  string                  `json:"traffic"`
	// Autoscaler is the workload's autoscaler, when it has one: its
	// scale steps come after the plan's, numbered on from them.
	Autoscaler *workloads.Autoscaler `json:"autoscaler,omitempty"`
}

// NewPlan computes the plan of a run.
func NewPlan(o *Options) Plan {
	cells := o.Cells
	if len(cells) == 0 {
		cells = o.Spec.Cells()
	}
	traffic := o.Spec.Duration.String()
	if o.Spec.Records > 0 {
		traffic = fmt.Sprintf("%d records", o.Spec.Records)
	}
	return Plan{Workload: o.Spec.Name, Seed: o.Spec.Seed, Repeat: max(o.Repeat, 1), Cells: cells,
		Steps: o.Spec.ChaosPlan(), Broker: o.Spec.BrokerSettings(), Traffic: traffic, Autoscaler: o.Spec.Autoscaler}
}

// Print writes the plan for a person to read.
func (p Plan) Print(w io.Writer) {
	fmt.Fprintf(w, "workload %s, seed %d, traffic %s per cell, %d cell(s) x %d:\n", p.Workload, p.Seed, p.Traffic, len(p.Cells), p.Repeat)
	for i, c := range p.Cells {
		fmt.Fprintf(w, "  %2d. %-45s strategy %-18s policy %-21s client %s\n", i+1, c.Name, c.Strategy, c.CommitPolicy, c.Client)
	}
	if a := p.Autoscaler; a != nil {
		fmt.Fprintf(w, "autoscaler: %d to %d members, lagThreshold %d, activationLagThreshold %d, polling %s, cooldown %s, stabilisation up %s down %s",
			a.MinReplicaCount, a.MaxReplicaCount, a.LagThreshold, a.ActivationLagThreshold, a.PollingInterval, a.CooldownPeriod,
			a.ScaleUpStabilizationWindow, a.ScaleDownStabilizationWindow)
		for _, f := range []struct {
			on   bool
			name string
		}{{a.AllowIdleConsumers, "allowIdleConsumers"}, {a.LimitToPartitionsWithLag, "limitToPartitionsWithLag"},
			{a.EnsureEvenDistributionOfPartitions, "ensureEvenDistributionOfPartitions"}} {
			if f.on {
				fmt.Fprintf(w, ", %s", f.name)
			}
		}
		fmt.Fprintln(w)
	}
	if len(p.Steps) == 0 {
		fmt.Fprintln(w, "chaos plan: no steps")
		return
	}
	fmt.Fprintln(w, "chaos plan (time since traffic start):")
	for _, s := range p.Steps {
		fmt.Fprintf(w, "  %2d. %8s  %s\n", s.Step, s.At, describeStep(s))
	}
}

// describeStep is a step as the plan and the progress line's "next:" show
// it: the action, then whatever of target, members, duration, interval,
// partitions and broker the step has.
func describeStep(s workloads.PlannedStep) string {
	var b strings.Builder
	b.WriteString(s.Action)
	if s.Target != "" {
		b.WriteString(" " + s.Target)
		if s.Random {
			b.WriteString(" (random)")
		}
	}
	if len(s.Members) > 0 {
		fmt.Fprintf(&b, " %v", s.Members)
	}
	if s.Duration > 0 {
		fmt.Fprintf(&b, " for %s", s.Duration)
	}
	if s.Interval > 0 {
		fmt.Fprintf(&b, " every %s", s.Interval)
	}
	if s.Partitions > 0 {
		fmt.Fprintf(&b, " to %d partitions", s.Partitions)
	}
	if s.Broker > 0 && s.Target == "" {
		fmt.Fprintf(&b, " broker %d", s.Broker)
	}
	if s.Delay > 0 {
		fmt.Fprintf(&b, " by %s ± %s each way", s.Delay, s.Jitter)
	}
	if s.BytesPerSecond > 0 {
		fmt.Fprintf(&b, " to %d B/s", s.BytesPerSecond)
	}
	return b.String()
}

// Result is what Run leaves.
type Result struct {
	Dir      string
	Cells    []string // cell folders
	Complete bool
}

// ErrInterrupted is returned (wrapped) when the run was interrupted.
var ErrInterrupted = errors.New("run interrupted")

// Run runs the workload. The results folder is created first and always
// left analysable: an interrupted run marks itself and its current cell
// partial, stops every process it started, and returns ErrInterrupted.
func Run(ctx context.Context, o Options) (res Result, err error) {
	if err := o.setDefaults(); err != nil {
		return res, err
	}
	plan := NewPlan(&o)
	o.Cells = plan.Cells
	if o.Open == nil {
		if err := CheckNetwork(o.Spec, o.Cluster); err != nil {
			return res, err
		}
	}
	if err := CheckHistory(o.History, o.Cluster); err != nil {
		return res, err
	}

	started := time.Now()
	stamp := runStamp(started)
	dir := o.RunDir
	if dir != "" {
		// Created, never reused: an existing folder is an error.
		err = os.Mkdir(dir, 0o755)
	} else {
		dir, err = runfolder.NewRunDir(o.ResultsDir, o.Spec.Name, started)
	}
	if err != nil {
		return res, err
	}
	res.Dir = dir
	run := newRunRecord(&o)
	res.Cells = run.Cells
	if err := saveRunFiles(dir, &o, plan, &run); err != nil {
		return res, err
	}
	defer func() {
		run.Finish(time.Now(), err)
		if werr := runfolder.WriteJSON(filepath.Join(dir, "run.json"), run); werr != nil && err == nil {
			err = werr
		}
		res.Complete = run.Complete
	}()

	fmt.Fprintf(o.Out, "results: %s\n", dir)
	start := time.Now()
	c := o.Open
	if c == nil {
		c, err = cluster.Open(ctx, clusterOptions(&o, dir))
		if err != nil {
			return res, interrupted(ctx, fmt.Errorf("cluster: %w", err))
		}
		defer func() {
			if cerr := c.Close(context.Background()); cerr != nil && err == nil {
				err = fmt.Errorf("stop cluster: %w", cerr)
			}
		}()
	}
	info, err := c.Info(ctx)
	if err != nil {
		return res, interrupted(ctx, fmt.Errorf("cluster: %w", err))
	}
	if err := checkNetPaths(o.Spec, c); err != nil {
		return res, fmt.Errorf("cluster %s: %w", info.Provider, err)
	}
	fmt.Fprintf(o.Out, "cluster: %s, Kafka %s (the broker reports %s), %d broker(s) at %s (ready in %s)\n",
		info.Provider, info.KafkaVersion, info.BrokerVersion, info.Brokers, info.Bootstrap, time.Since(start).Round(100*time.Millisecond))
	if o.Open == nil && o.Warmup >= 0 {
		w, err := warmUp(ctx, c, info, o.warmupBound(), func(format string, args ...any) { fmt.Fprintf(o.Out, format+"\n", args...) })
		if err != nil {
			return res, interrupted(ctx, err)
		}
		run.Warmup = w
		if err := runfolder.WriteJSON(filepath.Join(dir, "run.json"), run); err != nil {
			return res, err
		}
	}

	return res, runCells(ctx, &o, plan, dir, stamp, c, info)
}

// setDefaults fills in the options a caller left empty and makes Out safe
// for concurrent use.
func (o *Options) setDefaults() error {
	if o.Out == nil {
		o.Out = io.Discard
	}
	o.live = isTerminal(o.Out)
	// The progress line, the steps and the members' exits write from
	// several goroutines.
	o.Out = &lockedWriter{w: o.Out}
	if o.ResultsDir == "" {
		o.ResultsDir = "results"
	}
	if o.Repeat < 1 {
		o.Repeat = 1
	}
	if o.Binary == "" {
		var err error
		if o.Binary, err = os.Executable(); err != nil {
			return err
		}
	}
	if o.Launcher == nil {
		o.Launcher = launcher.Local{Binary: o.Binary}
	}
	if err := CheckControl(o.Control); err != nil {
		return err
	}
	if o.Control == "" {
		o.Control = ControlStdin
	}
	return nil
}

// DefaultWarmup bounds a run's warm-up of a cluster it started.
const DefaultWarmup = maxWarm

// warmupBound is the warm-up's bound.
func (o *Options) warmupBound() time.Duration {
	if o.Warmup == 0 {
		return DefaultWarmup
	}
	return o.Warmup
}

// runStamp names a run's topics and groups: its start and a random tag.
// Two runs started in the same second (other results folders, one
// external cluster) must not share a topic.
func runStamp(started time.Time) string {
	var tag [3]byte
	_, _ = crand.Read(tag[:])
	return started.UTC().Format("20060102T150405Z") + "-" + hex.EncodeToString(tag[:])
}

// newRunRecord is run.json at the start of a run: every cell folder, and
// partial until the run ends.
func newRunRecord(o *Options) runfolder.Run {
	run := runfolder.Run{SchemaVersion: runfolder.SchemaVersion, Workload: o.Spec.Name, WorkloadFile: o.Spec.File,
		Seed: o.Spec.Seed, Repeat: o.Repeat, Control: o.Control, Command: kafkaconf.RedactArgs(o.Command)}
	for _, s := range schedule(o.Cells, o.Repeat) {
		run.Cells = append(run.Cells, cellFolder(s.cell, s.iter, o.Repeat))
	}
	run.Begin(time.Now())
	return run
}

// ClusterOptions are the cluster options Run opens its cluster with, its
// node logs going to logDir: for a caller that opens the cluster itself
// (Options.Open) for several runs of one workload.
func (o *Options) ClusterOptions(logDir string) cluster.Options {
	copts := clusterOptions(o, "")
	copts.Local.LogDir = logDir
	if o.Cluster.Local.LogDir != "" {
		copts.Local.LogDir = o.Cluster.Local.LogDir
	}
	return copts
}

// clusterOptions are the run's cluster options: the workload's broker
// settings under the caller's, at least the workload's brokers, and a
// local cluster's logs in the run folder.
func clusterOptions(o *Options, dir string) cluster.Options {
	copts := o.Cluster
	copts.Local.Settings = cluster.Settings(o.Spec.BrokerSettings()).Merge(copts.Local.Settings)
	if copts.Local.Nodes == 0 || copts.Local.Nodes < o.Spec.Broker.Brokers {
		copts.Local.Nodes = o.Spec.Broker.Brokers
	}
	if copts.Local.LogDir == "" {
		copts.Local.LogDir = filepath.Join(dir, "cluster-logs")
	}
	copts.Local.NetPaths = o.Spec.NetPaths()
	copts.Local.BrokerPaths = o.Spec.BrokerNetwork()
	return copts
}

// interrupted names an error that an interruption caused as the
// interruption (ErrInterrupted, with its cause), whatever it interrupted:
// a cluster still starting fails with "context canceled", which says
// nothing of the SIGINT behind it.
func interrupted(ctx context.Context, err error) error {
	if ctx.Err() == nil {
		return err
	}
	return fmt.Errorf("%w: %v (%v)", ErrInterrupted, context.Cause(ctx), err)
}

// runCells runs every cell, o.Repeat times each, in order. A failed cell
// is reported and the run goes on; an interruption ends it.
func runCells(ctx context.Context, o *Options, plan Plan, dir, stamp string, c cluster.Cluster, info cluster.Info) error {
	// The driver's clock, for every process to measure its own against.
	// The processes of a local run are on this host: the loopback.
	listen := o.ClockListen
	if listen == "" {
		listen = "127.0.0.1:0"
	}
	srv, err := clock.Serve(listen)
	if err != nil {
		return err
	}
	defer srv.Close()
	o.clockURL = srv.URL()
	if o.Control == ControlNetwork {
		// The members' control channel: an endpoint they connect out to,
		// on the time endpoint's host (the loopback for a local run's
		// processes), and the run's token, which they get in their
		// environment.
		if o.controlToken, err = control.NewToken(); err != nil {
			return err
		}
		host, _, err := net.SplitHostPort(listen)
		if err != nil {
			return fmt.Errorf("clock listen address %q: %w", listen, err)
		}
		o.control, err = control.Serve(net.JoinHostPort(host, "0"), o.controlToken, func(format string, args ...any) {
			fmt.Fprintf(o.Out, "%s"+format+"\n", append([]any{o.clearLine()}, args...)...)
		})
		if err != nil {
			return err
		}
		defer o.control.Close()
	}
	var failed []string
	for _, s := range schedule(o.Cells, o.Repeat) {
		cell, k := s.cell, s.iter
		if ctx.Err() != nil {
			return fmt.Errorf("%w: %v", ErrInterrupted, context.Cause(ctx))
		}
		cr := &cellRun{opts: o, cell: cell, iter: k, cluster: c, info: info,
			dir: filepath.Join(dir, cellFolder(cell, k, o.Repeat)), runDir: dir, plan: plan,
			stamp: stamp}
		if err := cr.run(ctx); err != nil {
			if ctx.Err() != nil {
				return fmt.Errorf("%w during %s: %v", ErrInterrupted, cell.Name, context.Cause(ctx))
			}
			fmt.Fprintf(o.Out, "%scell %s failed: %v\n", o.clearLine(), cell.Name, err)
			failed = append(failed, cell.Name)
		}
	}
	if len(failed) > 0 {
		return fmt.Errorf("%d cell(s) failed: %s", len(failed), strings.Join(failed, ", "))
	}
	return nil
}

// scheduled is one cell's iteration, in the order a run runs them.
type scheduled struct {
	cell workloads.Cell
	iter int
}

// schedule is the order a run runs its cells in: iteration by iteration,
// each iteration's cells rotated by one place from the previous one's,
// so that over n iterations of n cells each cell runs first once. The
// first cell of a run meets a cluster that has served nothing yet, and
// whatever the warm-up leaves of that, no strategy pays it in every
// iteration.
func schedule(cells []workloads.Cell, repeat int) []scheduled {
	var out []scheduled
	for k := 0; k < repeat; k++ {
		for i := range cells {
			out = append(out, scheduled{cells[(i+k)%len(cells)], k})
		}
	}
	return out
}

// cellFolder is a cell's folder in the run: <cell>, or <cell>/iter-<k>
// when cells repeat.
func cellFolder(c workloads.Cell, iter, repeat int) string {
	if repeat <= 1 {
		return c.Name
	}
	return filepath.Join(c.Name, fmt.Sprintf("iter-%d", iter))
}

// saveRunFiles writes what a run folder holds from the start: a copy of
// the workload file (when the workload came from one), plan.json and
// run.json, partial until the run ends.
func saveRunFiles(dir string, o *Options, plan Plan, run *runfolder.Run) error {
	if o.Spec.File != "" {
		b, err := os.ReadFile(o.Spec.File)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, "workload.yaml"), b, 0o644); err != nil {
			return err
		}
	}
	if err := runfolder.WriteJSON(filepath.Join(dir, "plan.json"), plan); err != nil {
		return err
	}
	return runfolder.WriteJSON(filepath.Join(dir, "run.json"), run)
}

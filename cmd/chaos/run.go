package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/chaosbench/chaosbench/internal/cli"
	"github.com/chaosbench/chaosbench/internal/cluster"
	"github.com/chaosbench/chaosbench/internal/kafkaconf"
	"github.com/chaosbench/chaosbench/internal/loadgen"
	"github.com/chaosbench/chaosbench/internal/member"
	"github.com/chaosbench/chaosbench/internal/runfolder"
	"github.com/chaosbench/chaosbench/internal/runner"
	"github.com/chaosbench/chaosbench/internal/vocab"
	"github.com/chaosbench/chaosbench/workloads"
)

func init() {
	register("run", "run a workload's cells (strategy x commit policy x client) under its chaos plan", runRun)
}

const runUsage = `usage: chaos run [flags] WORKLOAD

Runs every cell of the workload (strategy x commit policy x client) against
a Kafka cluster: a fresh topic, the producer, the member processes and the
seeded chaos plan per cell, then a drain. Results go to
results/<UTC time>-<workload>/<cell>/ and are never overwritten.

Flags:
`

func runRun(args []string) error {
	fs := cli.NewFlagSet("chaos run", os.Stderr)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), runUsage)
		fs.PrintDefaults()
	}
	_, err := runWorkload(fs, args, nil)
	return err
}

// maxRepeat bounds --repeat: a comparison's test needs five samples a
// side; a thousand is far past any use, and every one is a full run.
const maxRepeat = 1000

// runFlags are run's flags besides the cluster's.
type runFlags struct {
	cluster                       cluster.Flags
	strategies, policies, clients string
	repeat                        int
	results                       string
	dryRun                        bool
	duration                      time.Duration
	records                       int64
	members                       int
	warmup                        time.Duration
	// launch: local (child processes of this host) or kubernetes (a
	// Pod per incarnation).
	launch  launcherFlags
	control string
	history runner.HistoryOptions
	// overrides holds duration, records and members when given (cli.Given).
	overrides workloads.Overrides
}

func (f *runFlags) register(fs *flag.FlagSet) {
	f.cluster.Register(fs)
	fs.StringVar(&f.strategies, "strategies", "", "comma-separated strategies to run, of "+strings.Join(vocab.StrategyNames(), ", ")+" (default: the workload's)")
	fs.StringVar(&f.policies, "commit-policies", "", "comma-separated commit policies to run, of "+strings.Join(vocab.PolicyNames(), ", ")+" (default: the workload's)")
	fs.StringVar(&f.clients, "clients", "", "comma-separated clients to run each strategy on (those that implement it), of "+strings.Join(vocab.ClientNames(), ", ")+" (default: the workload's)")
	fs.IntVar(&f.repeat, "repeat", 1, "run every cell this many times (samples for chaos compare)")
	fs.StringVar(&f.results, "results", "results", "results root folder")
	fs.BoolVar(&f.dryRun, "dry-run", false, "print the cells and the chaos plan of each WORKLOAD (several may be given), start nothing")
	fs.DurationVar(&f.duration, "duration", 0, "override the workload's traffic duration")
	fs.Int64Var(&f.records, "records", 0, "override the workload's record count")
	fs.IntVar(&f.members, "members", 0, "override the workload's group size (consumer.members)")
	fs.StringVar(&f.control, "control", runner.ControlStdin, "the members' control channel: "+runner.ControlStdin+" (a pipe to each member's standard input) or "+runner.ControlNetwork+
		" (the driver's control endpoint, which each member connects out to with the run's token; the driver then learns whether the group formed, and who owns a partition, from the group's coordinator)")
	fs.StringVar(&f.history.Sink, "history-sink", runfolder.SinkFile, "where the members and the producer write their histories: file (their files in history/), topic (a history topic, split back into history/ by the run) or tee (both, the topic split into history-topic/ beside the files)")
	fs.StringVar(&f.history.Topic, "history-topic", "", "the history topic of --history-sink topic or tee, created if missing (default "+runner.DefaultHistoryTopic+")")
	fs.StringVar(&f.history.Bootstrap, "history-bootstrap", "", "bootstrap.servers of the history topic's cluster, with the run's -X and -F (default: the run's cluster)")
	fs.DurationVar(&f.warmup, "warmup", runner.DefaultWarmup, "warm a local cluster's brokers before the first cell, until their CPU stops falling or this long (0: no warm-up)")
	f.launch.register(fs)
}

// runWorkload adds run's flags to fs (which may hold a caller's own),
// parses args, calls check (if not nil) to validate the caller's flags, and
// runs the workload; it returns the results folder (empty when nothing was
// started). With --dry-run it checks and prints every workload given.
func runWorkload(fs *flag.FlagSet, args []string, check func() error) (string, error) {
	var f runFlags
	f.register(fs)
	if err := cli.Parse(fs, args); err != nil {
		return "", err
	}
	if cli.Given(fs, "duration") {
		f.overrides.Duration = &f.duration
	}
	if cli.Given(fs, "records") {
		f.overrides.Records = &f.records
	}
	if cli.Given(fs, "members") {
		f.overrides.Members = &f.members
	}
	if fs.NArg() == 0 || (fs.NArg() > 1 && !f.dryRun) {
		fs.Usage()
		return "", cli.Usagef("expected one workload file (several with --dry-run), got %d arguments", fs.NArg())
	}
	if f.warmup < 0 || f.warmup > 10*time.Minute {
		return "", cli.Usagef("--warmup %v: expected a duration from 0 (no warm-up) to 10m", f.warmup)
	}
	if f.control != runner.ControlStdin && f.control != runner.ControlNetwork {
		return "", cli.Usagef("--control %q: expected %s or %s", f.control, runner.ControlStdin, runner.ControlNetwork)
	}
	if f.repeat < 1 || f.repeat > maxRepeat {
		return "", cli.Usagef("--repeat %d: expected 1 to %d", f.repeat, maxRepeat)
	}
	if err := f.cluster.Check(); err != nil {
		return "", cli.Usage(err)
	}
	if err := f.launch.check(fs, &f.cluster); err != nil {
		return "", cli.Usage(err)
	}
	if err := runner.CheckHistory(f.history, f.cluster.Options("", nil)); err != nil {
		return "", cli.Usage(err)
	}
	if check != nil {
		if err := check(); err != nil {
			return "", cli.Usage(err)
		}
	}
	if f.dryRun {
		return "", dryRun(&f, fs.Args())
	}
	opts, err := f.prepare(fs.Arg(0))
	if err != nil {
		return "", err
	}
	plan := runner.NewPlan(&opts)
	plan.Print(os.Stdout)
	ctx, stop := cli.SignalContext(context.Background())
	defer stop()
	if f.launch.kubernetes() {
		l, results, closeKube, err := f.launch.start(ctx, []*workloads.Spec{opts.Spec}, opts.ResultsDir)
		if err != nil {
			return "", err
		}
		defer closeKube()
		opts.Launcher, opts.ResultsDir = l, results
	}
	res, err := runner.Run(ctx, opts)
	fmt.Println()
	if res.Dir != "" {
		state := "complete"
		if !res.Complete {
			state = "PARTIAL"
		}
		fmt.Printf("results (%s): %s\n", state, res.Dir)
	}
	if errors.Is(err, cluster.ErrNoProvider) {
		return res.Dir, cli.Usage(err)
	}
	return res.Dir, err
}

// dryRun checks every workload and prints its plan; each bad one is
// named, and any makes the status 2.
func dryRun(f *runFlags, files []string) error {
	var errs []error
	for i, file := range files {
		if len(files) > 1 {
			if i > 0 {
				fmt.Println()
			}
			fmt.Printf("== %s\n", file)
		}
		opts, err := f.prepare(file)
		if err != nil {
			fmt.Println("bad workload: the errors follow, at the end")
			errs = append(errs, err)
			continue
		}
		plan := runner.NewPlan(&opts)
		plan.Print(os.Stdout)
		if f.launch.kubernetes() {
			bootstrap := f.cluster.Bootstrap
			if bootstrap == "" {
				bootstrap = os.Getenv("KAFKA_BOOTSTRAP")
			}
			if err := f.launch.printPod(os.Stdout, opts, bootstrap); err != nil {
				errs = append(errs, cli.Usage(err))
			}
		}
	}
	if len(errs) > 0 {
		if len(files) > 1 {
			return cli.Usage(fmt.Errorf("%d of %d workloads are bad:\n%w", len(errs), len(files), errors.Join(errs...)))
		}
		return cli.Usage(errs[0])
	}
	return nil
}

// prepare loads a workload with the command line's overrides and
// selection, and refuses before anything starts what a member or the
// producer would refuse at start; it prints the workload's warnings.
func (f *runFlags) prepare(file string) (runner.Options, error) {
	spec, err := cli.LoadWorkload(file)
	if err != nil {
		return runner.Options{}, err
	}
	if err := spec.Override(f.overrides); err != nil {
		return runner.Options{}, cli.Usage(err)
	}
	if err := overrideClients(spec, f.clients); err != nil {
		return runner.Options{}, cli.Usage(err)
	}
	cells, err := selectCells(spec, f.strategies, f.policies, "")
	if err != nil {
		return runner.Options{}, cli.Usage(err)
	}
	props := kafkaconf.Props{}
	for k, v := range f.cluster.Props.Props {
		props[k] = v
	}
	for k, v := range spec.Consumer.Properties {
		props[k] = v
	}
	for _, c := range cells {
		cfg := member.WorkloadConfig(spec, c)
		cfg.Props = props
		if err := member.CheckConfig(cfg); err != nil {
			return runner.Options{}, cli.Usagef("%s: cell %s (the consumer section, -X, -F): %v", spec.File, c.Name, err)
		}
	}
	if err := loadgen.CheckClient(spec, f.cluster.Props.Props); err != nil {
		return runner.Options{}, cli.Usagef("%s: producer (producer.client %s, -X, -F): %v", spec.File, spec.Producer.Client, err)
	}
	if err := runner.CheckNetwork(spec, f.cluster.Options("", nil)); err != nil {
		return runner.Options{}, cli.Usage(err)
	}

	for _, w := range spec.Warnings {
		fmt.Fprintf(os.Stderr, "warning: %s: %s\n", spec.File, w)
	}
	warmup := f.warmup
	if warmup == 0 {
		warmup = -1
	}
	return runner.Options{Spec: spec, Cells: cells, Repeat: f.repeat, ResultsDir: f.results, Warmup: warmup, ClockListen: f.launch.clockListen,
		Control: f.control, History: f.history, Cluster: f.cluster.Options("", nil), Out: os.Stdout, Command: os.Args}, nil
}

// selectCells narrows the workload's cells to the given strategies,
// policies and clients; a name the workload does not run is an error.
func selectCells(spec *workloads.Spec, strategies, policies, clients string) ([]workloads.Cell, error) {
	all := spec.Cells()
	filter := func(flag, list string, get func(workloads.Cell) string) error {
		if list == "" {
			return nil
		}
		want := map[string]bool{}
		for _, s := range strings.Split(list, ",") {
			s = strings.TrimSpace(s)
			found := false
			for _, c := range all {
				found = found || get(c) == s
			}
			if !found {
				return fmt.Errorf("--%s %s: %s is not in the workload %s (its cells: %s)", flag, list, s, spec.File, cellNames(all))
			}
			want[s] = true
		}
		var kept []workloads.Cell
		for _, c := range all {
			if want[get(c)] {
				kept = append(kept, c)
			}
		}
		all = kept
		return nil
	}
	if err := filter("strategies", strategies, func(c workloads.Cell) string { return c.Strategy }); err != nil {
		return nil, err
	}
	if err := filter("commit-policies", policies, func(c workloads.Cell) string { return c.CommitPolicy }); err != nil {
		return nil, err
	}
	if err := filter("clients", clients, func(c workloads.Cell) string { return c.Client }); err != nil {
		return nil, err
	}
	if len(all) == 0 {
		return nil, fmt.Errorf("no cell of %s matches the selection", spec.File)
	}
	return all, nil
}

func cellNames(cells []workloads.Cell) string {
	var names []string
	for _, c := range cells {
		names = append(names, c.Name)
	}
	return strings.Join(names, ", ")
}

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/chaosbench/chaosbench/internal/cli"
	"github.com/chaosbench/chaosbench/internal/cluster"
	"github.com/chaosbench/chaosbench/internal/kafkaconf"
	"github.com/chaosbench/chaosbench/internal/runner"
	"github.com/chaosbench/chaosbench/internal/sweep"
	"github.com/chaosbench/chaosbench/workloads"
)

func init() {
	register("sweep", "run a workload over a grid of group sizes, partition counts and strategies, and write the capacity report", runSweep)
}

const sweepUsage = `usage: chaos sweep [flags] --vary NAME=V1,V2,... [--vary ...] WORKLOAD
       chaos sweep --resume SWEEP_DIR [cluster flags]

Runs the workload at every point of a grid (the product of the --vary
settings: members, partitions, strategy, commit_policy, client,
max_poll_records; the workload's own lists of strategies, commit policies
and clients join the grid when it does not vary them), each point twice,
on one cluster:

  capacity  the producer far ahead of the group (a backlog sized to take
            about --saturate to drain), no chaos: what the group sustains
            (records/s), per member and per partition;
  target    the workload at the target rate (targets.rate, --rate) with its
            chaos steps: lag, latency, pauses and recovery after a crash and
            a deploy, skew, movement.

Each run is a normal run folder under results/<UTC time>-<workload>-sweep/
<point>/ with its cells' histories and summaries. When every point has run,
capacity.json gathers the table and capacity.md and capacity.html give the
capacity report: throughput against members per strategy and where adding
members stops helping, and the smallest configuration that meets the
targets (workload targets:, or the flags below), with the measurements it
rests on (docs/capacity.md). Results are never overwritten. An
interrupted sweep keeps its finished runs: --resume runs the others again,
into new folders.

Flags:
`

// sweepFlags are sweep's flags besides the cluster's.
type sweepFlags struct {
	cluster   cluster.Flags
	vary      []string
	repeat    int
	results   string
	saturate  time.Duration
	resume    string
	only      string
	dryRun    bool
	all       bool
	targets   targetFlags
	setRepeat bool
	launch    launcherFlags
}

func (f *sweepFlags) register(fs *flag.FlagSet) {
	f.cluster.Register(fs)
	fs.Func("vary", "a setting and its values, NAME=V1,V2,... (members, partitions, strategy, commit_policy, client, max_poll_records), repeatable", func(s string) error {
		f.vary = append(f.vary, s)
		return nil
	})
	fs.IntVar(&f.repeat, "repeat", 1, "run every cell this many times (the report shows medians and spread)")
	fs.StringVar(&f.results, "results", "results", "results root folder")
	fs.DurationVar(&f.saturate, "saturate", sweep.DefaultSaturate, "how long a capacity run's backlog is sized to take to drain, at the rate the workload's model predicts")
	fs.StringVar(&f.resume, "resume", "", "resume the sweep in this folder: its finished runs are kept, the others run again into new folders")
	fs.StringVar(&f.only, "only", "", "run one kind of run only: capacity or target (default both)")
	fs.BoolVar(&f.dryRun, "dry-run", false, "print the grid, the points and their runs, start nothing")
	fs.BoolVar(&f.all, "all-targets", false, "run every point at the target rate, even those whose capacity run sustained less (by default they are skipped: they cannot meet it)")
	f.targets.register(fs)
	f.launch.register(fs)
}

func runSweep(args []string) error {
	fs := cli.NewFlagSet("chaos sweep", os.Stderr)
	fs.Usage = func() { fmt.Fprint(fs.Output(), sweepUsage); fs.PrintDefaults() }
	var f sweepFlags
	f.register(fs)
	if err := cli.Parse(fs, args); err != nil {
		return err
	}
	fs.Visit(func(fl *flag.Flag) { f.setRepeat = f.setRepeat || fl.Name == "repeat" || fl.Name == "saturate" })
	if err := f.cluster.Check(); err != nil {
		return cli.Usage(err)
	}
	if err := f.launch.check(fs, &f.cluster); err != nil {
		return cli.Usage(err)
	}
	if f.only != "" && !slices.Contains(sweep.Kinds, f.only) {
		return cli.Usagef("--only %q: expected %s", f.only, strings.Join(sweep.Kinds, " or "))
	}
	var opts runner.SweepOptions
	var err error
	if f.resume != "" {
		if fs.NArg() > 0 || len(f.vary) > 0 || f.setRepeat || f.targets.any() {
			return cli.Usagef("--resume %s: takes no workload, --vary, --repeat, --saturate or targets: the sweep's are in %s (chaos capacity re-judges a sweep against other targets)", f.resume, filepath.Join(f.resume, sweep.RecordFile))
		}
		opts, err = resumeSweep(&f)
	} else {
		if fs.NArg() != 1 {
			fs.Usage()
			return cli.Usagef("expected one workload file, got %d arguments", fs.NArg())
		}
		opts, err = newSweep(&f, fs.Arg(0))
	}
	if err != nil {
		return err
	}
	plan, err := runner.PlanSweep(opts)
	if err != nil {
		return cli.Usage(err)
	}
	for _, w := range opts.Workload.Warnings {
		fmt.Fprintf(os.Stderr, "warning: %s: %s\n", opts.File, w)
	}
	printSweep(plan)
	if f.dryRun {
		return nil
	}
	ctx, stop := cli.SignalContext(context.Background())
	defer stop()
	plan.ClockListen = f.launch.clockListen
	if f.launch.kubernetes() {
		// The Pods mount the folder that holds the sweep's: the results
		// root, or a resumed sweep's parent. Every run's cells are
		// bounded by the longest.
		root := plan.ResultsDir
		if plan.Dir != "" {
			root = filepath.Dir(plan.Dir)
		}
		specs := make([]*workloads.Spec, len(plan.Runs))
		for i, r := range plan.Runs {
			specs[i] = r.Spec
		}
		l, abs, closeKube, err := f.launch.start(ctx, specs, root)
		if err != nil {
			return err
		}
		defer closeKube()
		plan.Launcher = l
		if plan.Dir != "" {
			plan.Dir = filepath.Join(abs, filepath.Base(plan.Dir))
		} else {
			plan.ResultsDir = abs
		}
	}
	res, err := runner.Sweep(ctx, plan)
	if errors.Is(err, cluster.ErrNoProvider) {
		return cli.Usage(err)
	}
	if !res.Ended {
		return err
	}
	if rerr := writeCapacity(res.Dir, plan.Record.Targets); rerr != nil {
		return errors.Join(err, rerr)
	}
	return err
}

// newSweep reads the workload and the flags into a new sweep.
func newSweep(f *sweepFlags, file string) (runner.SweepOptions, error) {
	if f.repeat < 1 || f.repeat > maxRepeat {
		return runner.SweepOptions{}, cli.Usagef("--repeat %d: expected 1 to %d", f.repeat, maxRepeat)
	}
	if f.saturate < time.Second || f.saturate > time.Hour {
		return runner.SweepOptions{}, cli.Usagef("--saturate %v: expected a duration from 1s to 1h", f.saturate)
	}
	base, err := cli.LoadWorkload(file)
	if err != nil {
		return runner.SweepOptions{}, err
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return runner.SweepOptions{}, cli.Usage(err)
	}
	var given []sweep.Dim
	for _, v := range f.vary {
		d, err := sweep.ParseVary(v)
		if err != nil {
			return runner.SweepOptions{}, cli.Usage(err)
		}
		given = append(given, d)
	}
	grid, err := sweep.Grid(base, given)
	if err != nil {
		return runner.SweepOptions{}, cli.Usage(err)
	}
	targets, err := f.targets.apply(base.Targets)
	if err != nil {
		return runner.SweepOptions{}, cli.Usage(err)
	}
	rec := &sweep.Record{SchemaVersion: sweep.SchemaVersion, Workload: base.Name, WorkloadFile: file,
		Grid: grid, Points: sweep.Points(grid), Repeat: f.repeat, Saturate: f.saturate, Targets: targets,
		Command: kafkaconf.RedactArgs(os.Args)}
	return f.options(rec, base, file, data, ""), nil
}

// resumeSweep reads a sweep folder's record and workload, to resume it.
func resumeSweep(f *sweepFlags) (runner.SweepOptions, error) {
	rec, err := sweep.ReadRecord(f.resume)
	if err != nil {
		return runner.SweepOptions{}, cli.Usage(err)
	}
	file := filepath.Join(f.resume, sweep.WorkloadFile)
	data, err := os.ReadFile(file)
	if err != nil {
		return runner.SweepOptions{}, cli.Usage(err)
	}
	base, err := workloads.Parse(file, data)
	if err != nil {
		return runner.SweepOptions{}, cli.Usage(err)
	}
	return f.options(rec, base, file, data, f.resume), nil
}

// options are the sweep's options: its record and workload, and the
// flags'.
func (f *sweepFlags) options(rec *sweep.Record, base *workloads.Spec, file string, data []byte, dir string) runner.SweepOptions {
	return runner.SweepOptions{Record: rec, Workload: base, File: file, Data: data, Dir: dir, ResultsDir: f.results,
		Only: f.only, AllTargets: f.all, Cluster: f.cluster.Options("", nil), Out: os.Stdout, Command: os.Args}
}

// printSweep writes the plan for a person to read.
func printSweep(p *runner.SweepPlan) {
	r := p.Record
	var grid []string
	for _, d := range r.Grid {
		grid = append(grid, d.Name+"="+strings.Join(d.Values, ","))
	}
	fmt.Printf("sweep of %s: %s; %d points x %d runs x %d iteration(s)\n", r.Workload, strings.Join(grid, " "), len(r.Points), len(p.Runs)/max(len(r.Points), 1), r.Repeat)
	fmt.Printf("targets: %s\n", describeTargets(r.Targets))
	for _, run := range p.Runs {
		what := ""
		switch run.Kind {
		case sweep.KindCapacity:
			model := sweep.ModelCapacity(run.Spec)
			what = fmt.Sprintf("backlog of %d records, unlimited producer, no chaos", run.Spec.Records)
			if model > 0 {
				what += fmt.Sprintf(" (model: %.0f records/s, so about %s)", model, time.Duration(float64(run.Spec.Records)/model*float64(time.Second)).Round(time.Second))
			}
		case sweep.KindTarget:
			what = fmt.Sprintf("%s at %s records/s, %d chaos step(s)", traffic(run.Spec), formatRate(run.Spec.Producer.Rate), len(run.Spec.ChaosPlan()))
		}
		fmt.Printf("  %-36s %-9s %s\n", run.Point.Name, run.Kind, what)
	}
}

func traffic(s *workloads.Spec) string {
	if s.Records > 0 {
		return fmt.Sprintf("%d records", s.Records)
	}
	return s.Duration.String()
}

func formatRate(r float64) string {
	if r == 0 {
		return "unlimited"
	}
	return fmt.Sprintf("%g", r)
}

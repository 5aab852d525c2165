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
	"github.com/chaosbench/chaosbench/internal/loadgen"
	"github.com/chaosbench/chaosbench/internal/member"
	"github.com/chaosbench/chaosbench/internal/runfolder"
	"github.com/chaosbench/chaosbench/internal/runner"
	"github.com/chaosbench/chaosbench/internal/stat"
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
	if f.only != "" && !slices.Contains(sweep.Kinds, f.only) {
		return cli.Usagef("--only %q: expected %s", f.only, strings.Join(sweep.Kinds, " or "))
	}
	var plan *sweepPlan
	var err error
	if f.resume != "" {
		if fs.NArg() > 0 || len(f.vary) > 0 || f.setRepeat || f.targets.any() {
			return cli.Usagef("--resume %s: takes no workload, --vary, --repeat, --saturate or targets: the sweep's are in %s (chaos capacity re-judges a sweep against other targets)", f.resume, filepath.Join(f.resume, sweep.RecordFile))
		}
		plan, err = resumePlan(&f)
	} else {
		if fs.NArg() != 1 {
			fs.Usage()
			return cli.Usagef("expected one workload file, got %d arguments", fs.NArg())
		}
		plan, err = newSweepPlan(&f, fs.Arg(0))
	}
	if err != nil {
		return err
	}
	plan.print()
	if f.dryRun {
		return nil
	}
	return plan.run()
}

// sweepPlan is a sweep ready to run: its record, the workload it runs,
// and every run of every point, checked before anything starts.
type sweepPlan struct {
	f      *sweepFlags
	dir    string // the sweep folder; "" until created
	file   string // the workload file the points are derived from
	data   []byte
	base   *workloads.Spec
	rec    *sweep.Record
	runs   []plannedRun
	resume bool
}

// plannedRun is one run of one point.
type plannedRun struct {
	point sweep.Point
	kind  string
	spec  *workloads.Spec
}

// newSweepPlan reads the workload and the flags into a new sweep's plan.
func newSweepPlan(f *sweepFlags, file string) (*sweepPlan, error) {
	if f.repeat < 1 || f.repeat > maxRepeat {
		return nil, cli.Usagef("--repeat %d: expected 1 to %d", f.repeat, maxRepeat)
	}
	if f.saturate < time.Second || f.saturate > time.Hour {
		return nil, cli.Usagef("--saturate %v: expected a duration from 1s to 1h", f.saturate)
	}
	base, err := cli.LoadWorkload(file)
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, cli.Usage(err)
	}
	var given []sweep.Dim
	for _, v := range f.vary {
		d, err := sweep.ParseVary(v)
		if err != nil {
			return nil, cli.Usage(err)
		}
		given = append(given, d)
	}
	grid, err := sweep.Grid(base, given)
	if err != nil {
		return nil, cli.Usage(err)
	}
	targets, err := f.targets.apply(base.Targets)
	if err != nil {
		return nil, cli.Usage(err)
	}
	rec := &sweep.Record{SchemaVersion: sweep.SchemaVersion, Workload: base.Name, WorkloadFile: file,
		Grid: grid, Points: sweep.Points(grid), Repeat: f.repeat, Saturate: f.saturate, Targets: targets,
		Command: kafkaconf.RedactArgs(os.Args)}
	p := &sweepPlan{f: f, file: file, data: data, base: base, rec: rec}
	return p, p.derive()
}

// resumePlan reads a sweep folder's record and workload into its plan.
func resumePlan(f *sweepFlags) (*sweepPlan, error) {
	rec, err := sweep.ReadRecord(f.resume)
	if err != nil {
		return nil, cli.Usage(err)
	}
	file := filepath.Join(f.resume, sweep.WorkloadFile)
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, cli.Usage(err)
	}
	base, err := workloads.Parse(file, data)
	if err != nil {
		return nil, cli.Usage(err)
	}
	p := &sweepPlan{f: f, dir: f.resume, file: file, data: data, base: base, rec: rec, resume: true}
	return p, p.derive()
}

// derive builds every run of every point and refuses, before anything
// starts, what the driver, a member or the producer would refuse.
func (p *sweepPlan) derive() error {
	props := kafkaconf.Props{}
	for k, v := range p.f.cluster.Props.Props {
		props[k] = v
	}
	for k, v := range p.base.Consumer.Properties {
		props[k] = v
	}
	// Every capacity run first: a point whose capacity is below the target
	// rate need not run at it (runAll).
	for _, kind := range sweep.Kinds {
		for _, pt := range p.rec.Points {
			if p.f.only != "" && kind != p.f.only {
				continue
			}
			var s *workloads.Spec
			var err error
			if kind == sweep.KindCapacity {
				s, err = pt.CapacitySpec(p.file, p.data, p.rec.Saturate)
			} else {
				s, err = pt.TargetSpec(p.file, p.data, p.rec.Targets)
			}
			if err != nil {
				return cli.Usage(err)
			}
			for _, c := range s.Cells() {
				if err := member.CheckClient(c.Client, c.Strategy, s.Consumer.StaticMembership, props); err != nil {
					return cli.Usagef("%s: point %s, cell %s (consumer.static_membership, consumer.properties, -X, -F): %v", p.file, pt.Label(), c.Name, err)
				}
			}
			if err := loadgen.CheckClient(s, p.f.cluster.Props.Props); err != nil {
				return cli.Usagef("%s: producer (producer.client %s, -X, -F): %v", p.file, s.Producer.Client, err)
			}
			p.runs = append(p.runs, plannedRun{point: pt, kind: kind, spec: s})
		}
	}
	for _, w := range p.base.Warnings {
		fmt.Fprintf(os.Stderr, "warning: %s: %s\n", p.file, w)
	}
	return nil
}

// print writes the plan for a person to read.
func (p *sweepPlan) print() {
	r := p.rec
	var grid []string
	for _, d := range r.Grid {
		grid = append(grid, d.Name+"="+strings.Join(d.Values, ","))
	}
	fmt.Printf("sweep of %s: %s; %d points x %d runs x %d iteration(s)\n", r.Workload, strings.Join(grid, " "), len(r.Points), len(p.runs)/max(len(r.Points), 1), r.Repeat)
	fmt.Printf("targets: %s\n", describeTargets(r.Targets))
	for _, run := range p.runs {
		what := ""
		switch run.kind {
		case sweep.KindCapacity:
			model := sweep.ModelCapacity(run.spec)
			what = fmt.Sprintf("backlog of %d records, unlimited producer, no chaos", run.spec.Records)
			if model > 0 {
				what += fmt.Sprintf(" (model: %.0f records/s, so about %s)", model, time.Duration(float64(run.spec.Records)/model*float64(time.Second)).Round(time.Second))
			}
		case sweep.KindTarget:
			what = fmt.Sprintf("%s at %s records/s, %d chaos step(s)", traffic(run.spec), formatRate(run.spec.Producer.Rate), len(run.spec.ChaosPlan()))
		}
		fmt.Printf("  %-36s %-9s %s\n", run.point.Name, run.kind, what)
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

// run runs every run not yet finished, then analyses the sweep and
// writes its report.
func (p *sweepPlan) run() (err error) {
	ctx, stop := cli.SignalContext(context.Background())
	defer stop()
	started := time.Now()
	if p.dir == "" {
		if p.dir, err = runfolder.NewRunDir(p.f.results, p.base.Name+"-sweep", started); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(p.dir, sweep.WorkloadFile), p.data, 0o644); err != nil {
			return err
		}
	} else {
		p.rec.Resumes = append(p.rec.Resumes, sweep.Resume{Start: started.UTC(), Command: kafkaconf.RedactArgs(os.Args)})
	}
	p.rec.Begin(started)
	if err := sweep.WriteRecord(p.dir, p.rec); err != nil {
		return err
	}
	fmt.Printf("sweep: %s\n", p.dir)
	defer func() {
		if !p.rec.Finished() {
			p.rec.Finish(time.Now(), err)
		}
		if werr := sweep.WriteRecord(p.dir, p.rec); werr != nil && err == nil {
			err = werr
		}
	}()

	c, err := p.openCluster(ctx)
	if err != nil {
		if errors.Is(err, cluster.ErrNoProvider) {
			return cli.Usage(err)
		}
		return err
	}
	runErr := p.runAll(ctx, c)
	if cerr := c.Close(context.Background()); cerr != nil && runErr == nil {
		runErr = fmt.Errorf("stop cluster: %w", cerr)
	}
	fmt.Println()
	fmt.Printf("sweep (%s): %s, %s\n", map[bool]string{true: "complete", false: "PARTIAL"}[runErr == nil], p.dir, time.Since(started).Round(time.Second))
	if ctx.Err() != nil {
		return runErr
	}
	// The record says how the sweep ended before the report reads it.
	p.rec.Finish(time.Now(), runErr)
	if err := sweep.WriteRecord(p.dir, p.rec); err != nil {
		return errors.Join(runErr, err)
	}
	if rerr := writeCapacity(p.dir, p.rec.Targets); rerr != nil {
		return errors.Join(runErr, rerr)
	}
	return runErr
}

// openCluster opens the one cluster every run of the sweep runs on, with
// the broker settings every point's workload needs.
func (p *sweepPlan) openCluster(ctx context.Context) (cluster.Cluster, error) {
	settings := cluster.Settings{}
	brokers := p.f.cluster.Brokers
	for _, r := range p.runs {
		settings = settings.Merge(r.spec.BrokerSettings())
		brokers = max(brokers, r.spec.Broker.Brokers)
	}
	copts := p.f.cluster.Options(filepath.Join(p.dir, "cluster-logs"), settings)
	copts.Local.Nodes = brokers
	start := time.Now()
	c, err := cluster.Open(ctx, copts)
	if err != nil {
		return nil, fmt.Errorf("cluster: %w", err)
	}
	info, err := c.Info(ctx)
	if err != nil {
		c.Close(context.Background())
		return nil, fmt.Errorf("cluster: %w", err)
	}
	fmt.Printf("cluster: %s, Kafka %s (the broker reports %s), %d broker(s) at %s (ready in %s)\n",
		info.Provider, info.KafkaVersion, info.BrokerVersion, info.Brokers, info.Bootstrap, time.Since(start).Round(100*time.Millisecond))
	return c, nil
}

// belowTarget says why a point need not run at the target rate: its
// capacity run finished and sustained less than the rate, so it cannot
// meet it. "" when it should run.
func (p *sweepPlan) belowTarget(pt sweep.Point) string {
	rate := p.rec.Targets.Rate
	if rate <= 0 {
		return ""
	}
	run, err := sweep.Finished(p.dir, pt.Name, sweep.KindCapacity)
	if err != nil || run == "" {
		return ""
	}
	cells, err := runfolder.FindCells(run)
	if err != nil {
		return ""
	}
	var thr []float64
	for _, c := range cells {
		m, err := sweep.MeasureCapacity(runfolder.HistoryDir(c))
		if err != nil {
			return ""
		}
		thr = append(thr, m.Throughput)
	}
	if med := stat.Median(thr); med < rate {
		return fmt.Sprintf("its capacity run sustained %.0f records/s, below the target rate %s (--all-targets runs it anyway)", med, formatRate(rate))
	}
	return ""
}

// runAll runs every planned run whose point has no finished run of its
// kind; a run that fails leaves the sweep partial and the others run on,
// an interruption ends it.
func (p *sweepPlan) runAll(ctx context.Context, c cluster.Cluster) error {
	var failed []string
	for i, r := range p.runs {
		if ctx.Err() != nil {
			return fmt.Errorf("%w: %v", runner.ErrInterrupted, context.Cause(ctx))
		}
		done, err := sweep.Finished(p.dir, r.point.Name, r.kind)
		if err != nil {
			return err
		}
		if done != "" {
			fmt.Printf("\n== %d/%d %s %s: finished in %s, kept\n", i+1, len(p.runs), r.point.Name, r.kind, done)
			continue
		}
		if r.kind == sweep.KindTarget && !p.f.all {
			if why := p.belowTarget(r.point); why != "" {
				fmt.Printf("\n== %d/%d %s %s: skipped: %s\n", i+1, len(p.runs), r.point.Name, r.kind, why)
				continue
			}
		}
		dir, err := sweep.NextRun(p.dir, r.point.Name, r.kind)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
			return err
		}
		fmt.Printf("\n== %d/%d %s (%s): %s run\n", i+1, len(p.runs), r.point.Name, r.point.Label(), r.kind)
		opts := runner.Options{Spec: r.spec, Cells: r.spec.Cells(), Repeat: p.rec.Repeat, RunDir: dir, Open: c,
			Out: os.Stdout, Command: os.Args}
		before, _ := sweep.LoadAverage()
		_, err = runner.Run(ctx, opts)
		after, _ := sweep.LoadAverage()
		rel, _ := filepath.Rel(p.dir, dir)
		p.rec.Load = append(p.rec.Load, sweep.RunLoad{Run: rel, Before: before, After: after})
		if werr := sweep.WriteRecord(p.dir, p.rec); werr != nil && err == nil {
			err = werr
		}
		if err != nil {
			if ctx.Err() != nil {
				return fmt.Errorf("%w during %s %s: %v", runner.ErrInterrupted, r.point.Name, r.kind, context.Cause(ctx))
			}
			fmt.Printf("%s %s failed: %v\n", r.point.Name, r.kind, err)
			failed = append(failed, r.point.Name+" "+r.kind)
		}
	}
	if len(failed) > 0 {
		return fmt.Errorf("%d run(s) failed (chaos sweep --resume runs them again): %s", len(failed), strings.Join(failed, ", "))
	}
	return nil
}

package runner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/chaosbench/chaosbench/internal/cluster"
	"github.com/chaosbench/chaosbench/internal/kafkaconf"
	"github.com/chaosbench/chaosbench/internal/runfolder"
	"github.com/chaosbench/chaosbench/internal/sweep"
)

// SweepResult is where a sweep ran and how it ended.
type SweepResult struct {
	// Dir is the sweep folder; "" when none was created.
	Dir string
	// Ended: the sweep went through every run (some may have failed: it
	// is then partial) and its record says how it ended, so its table can
	// be judged. False when it was interrupted or could not run.
	Ended bool
}

// Sweep runs every run of the plan whose point has no finished run of
// its kind, on one cluster, into the sweep folder (a new one under
// ResultsDir, or the resumed Dir), with sweep.json begun before the first
// and finished after the last. A run that fails leaves the sweep partial
// and the others run on; an interruption ends it. Nothing is overwritten:
// each run goes to the next free folder of its kind.
func Sweep(ctx context.Context, p *SweepPlan) (res SweepResult, err error) {
	started := time.Now()
	rec := p.Record
	if p.Dir == "" {
		if res.Dir, err = runfolder.NewRunDir(p.ResultsDir, p.Workload.Name+"-sweep", started); err != nil {
			return res, err
		}
		if err := os.WriteFile(filepath.Join(res.Dir, sweep.WorkloadFile), p.Data, 0o644); err != nil {
			return res, err
		}
	} else {
		res.Dir = p.Dir
		rec.Resumes = append(rec.Resumes, sweep.Resume{Start: started.UTC(), Command: kafkaconf.RedactArgs(p.Command)})
	}
	rec.Begin(started)
	if err := sweep.WriteRecord(res.Dir, rec); err != nil {
		return res, err
	}
	fmt.Fprintf(p.Out, "sweep: %s\n", res.Dir)
	defer func() {
		if !rec.Finished() {
			rec.Finish(time.Now(), err)
		}
		if werr := sweep.WriteRecord(res.Dir, rec); werr != nil && err == nil {
			err = werr
		}
	}()

	c, err := p.openCluster(ctx, res.Dir)
	if err != nil {
		return res, err
	}
	runErr := p.runAll(ctx, c, res.Dir)
	if cerr := c.Close(context.Background()); cerr != nil && runErr == nil {
		runErr = fmt.Errorf("stop cluster: %w", cerr)
	}
	fmt.Fprintln(p.Out)
	fmt.Fprintf(p.Out, "sweep (%s): %s, %s\n", map[bool]string{true: "complete", false: "PARTIAL"}[runErr == nil], res.Dir, time.Since(started).Round(time.Second))
	if ctx.Err() != nil {
		return res, runErr
	}
	// The record says how the sweep ended before anything judges it.
	rec.Finish(time.Now(), runErr)
	if err := sweep.WriteRecord(res.Dir, rec); err != nil {
		return res, errors.Join(runErr, err)
	}
	res.Ended = true
	return res, runErr
}

// openCluster opens the one cluster every run of the sweep runs on, with
// the broker settings every point's workload needs; a local one's logs go
// to the sweep folder's cluster-logs.
func (p *SweepPlan) openCluster(ctx context.Context, dir string) (cluster.Cluster, error) {
	settings := cluster.Settings{}
	copts := p.Cluster
	paths := map[string]bool{}
	for _, r := range p.Runs {
		settings = settings.Merge(r.Spec.BrokerSettings())
		copts.Local.Nodes = max(copts.Local.Nodes, r.Spec.Broker.Brokers)
		copts.Local.BrokerPaths = copts.Local.BrokerPaths || r.Spec.BrokerNetwork()
		for _, n := range r.Spec.NetPaths() {
			if !paths[n] {
				paths[n] = true
				copts.Local.NetPaths = append(copts.Local.NetPaths, n)
			}
		}
	}
	copts.Local.LogDir = filepath.Join(dir, "cluster-logs")
	copts.Local.Settings = settings.Merge(copts.Local.Settings)
	start := time.Now()
	c, err := cluster.Open(ctx, copts)
	if err != nil {
		return nil, fmt.Errorf("cluster: %w", err)
	}
	for _, r := range p.Runs {
		if err := checkNetPaths(r.Spec, c); err != nil {
			_ = c.Close(context.Background())
			return nil, fmt.Errorf("cluster: %w", err)
		}
	}
	info, err := c.Info(ctx)
	if err != nil {
		c.Close(context.Background())
		return nil, fmt.Errorf("cluster: %w", err)
	}
	fmt.Fprintf(p.Out, "cluster: %s, Kafka %s (the broker reports %s), %d broker(s) at %s (ready in %s)\n",
		info.Provider, info.KafkaVersion, info.BrokerVersion, info.Brokers, info.Bootstrap, time.Since(start).Round(100*time.Millisecond))
	// The sweep's runs share the cluster: it is warmed once, before the
	// first point, as a run warms the cluster it starts.
	if _, err := warmUp(ctx, c, info, DefaultWarmup, func(format string, args ...any) { fmt.Fprintf(p.Out, format+"\n", args...) }); err != nil {
		c.Close(context.Background())
		return nil, fmt.Errorf("cluster: %w", err)
	}
	return c, nil
}

// belowTarget says why a point need not run at the target rate: its
// capacity run finished and sustained less than the rate (the capacity
// the judgement holds it to: sweep.PointCapacity), so it cannot meet it.
// "" when it should run.
func (p *SweepPlan) belowTarget(dir string, pt sweep.Point) string {
	rate := p.Record.Targets.Rate
	if rate <= 0 {
		return ""
	}
	c, err := sweep.PointCapacity(dir, pt)
	if err != nil || !sweep.BelowRate(c, rate) {
		return ""
	}
	return fmt.Sprintf("its capacity run sustained %.0f records/s, below the target rate %g (--all-targets runs it anyway)", c.Median, rate)
}

// runAll runs every planned run whose point has no finished run of its
// kind; a run that fails leaves the sweep partial and the others run on,
// an interruption ends it.
func (p *SweepPlan) runAll(ctx context.Context, c cluster.Cluster, sweepDir string) error {
	var failed []string
	for i, r := range p.Runs {
		if ctx.Err() != nil {
			return fmt.Errorf("%w: %v", ErrInterrupted, context.Cause(ctx))
		}
		done, err := sweep.Finished(sweepDir, r.Point.Name, r.Kind)
		if err != nil {
			return err
		}
		if done != "" {
			fmt.Fprintf(p.Out, "\n== %d/%d %s %s: finished in %s, kept\n", i+1, len(p.Runs), r.Point.Name, r.Kind, done)
			continue
		}
		if r.Kind == sweep.KindTarget && !p.AllTargets {
			if why := p.belowTarget(sweepDir, r.Point); why != "" {
				fmt.Fprintf(p.Out, "\n== %d/%d %s %s: skipped: %s\n", i+1, len(p.Runs), r.Point.Name, r.Kind, why)
				continue
			}
		}
		dir, err := sweep.NextRun(sweepDir, r.Point.Name, r.Kind)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
			return err
		}
		fmt.Fprintf(p.Out, "\n== %d/%d %s (%s): %s run\n", i+1, len(p.Runs), r.Point.Name, r.Point.Label(), r.Kind)
		opts := Options{Spec: r.Spec, Cells: r.Spec.Cells(), Repeat: p.Record.Repeat, RunDir: dir, Open: c,
			Out: p.Out, Command: p.Command, Launcher: p.Launcher, ClockListen: p.ClockListen}
		before, _ := sweep.LoadAverage()
		_, err = Run(ctx, opts)
		after, _ := sweep.LoadAverage()
		rel, _ := filepath.Rel(sweepDir, dir)
		p.Record.Load = append(p.Record.Load, sweep.RunLoad{Run: rel, Before: before, After: after})
		if werr := sweep.WriteRecord(sweepDir, p.Record); werr != nil && err == nil {
			err = werr
		}
		if err != nil {
			if ctx.Err() != nil {
				return fmt.Errorf("%w during %s %s: %v", ErrInterrupted, r.Point.Name, r.Kind, context.Cause(ctx))
			}
			fmt.Fprintf(p.Out, "%s %s failed: %v\n", r.Point.Name, r.Kind, err)
			failed = append(failed, r.Point.Name+" "+r.Kind)
		}
	}
	if len(failed) > 0 {
		return fmt.Errorf("%d run(s) failed (chaos sweep --resume runs them again): %s", len(failed), strings.Join(failed, ", "))
	}
	return nil
}

package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/chaosbench/chaosbench/internal/check"
	"github.com/chaosbench/chaosbench/internal/cli"
	"github.com/chaosbench/chaosbench/internal/stat"
	"github.com/chaosbench/chaosbench/internal/sweep"
	"github.com/chaosbench/chaosbench/internal/sweep/groupmodel"
	"github.com/chaosbench/chaosbench/internal/version"
	"github.com/chaosbench/chaosbench/report"
	"github.com/chaosbench/chaosbench/workloads"
)

func init() {
	register("capacity", "measure a sweep's points again and write its capacity report, against its targets or others", runCapacity)
}

const capacityUsage = `usage: chaos capacity [flags] SWEEP_DIR

Measures every point of a sweep (chaos sweep) from its saved runs, writes
capacity.json, and writes the capacity report: capacity.md (fit for a CI
job summary), capacity.html and plots/ in SWEEP_DIR. The targets are the
sweep's (the workload's targets:, and the flags it ran with), each
replaced by the flag of the same name given here: a sweep can be judged
against other targets without running it again. Prints the
recommendation and the path of capacity.html.

Flags:
`

func runCapacity(args []string) error {
	fs := cli.NewFlagSet("chaos capacity", os.Stderr)
	fs.Usage = func() { fmt.Fprint(fs.Output(), capacityUsage); fs.PrintDefaults() }
	var tf targetFlags
	tf.register(fs)
	if err := cli.Parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return cli.Usagef("expected one SWEEP_DIR, got %d arguments", fs.NArg())
	}
	dir := fs.Arg(0)
	rec, err := sweep.ReadRecord(dir)
	if err != nil {
		return cli.Usage(err)
	}
	if _, err := workloads.Load(filepath.Join(dir, sweep.WorkloadFile)); err != nil {
		return cli.Usage(err)
	}
	targets, err := tf.apply(rec.Targets)
	if err != nil {
		return cli.Usage(err)
	}
	return writeCapacity(dir, targets)
}

// writeCapacity measures a sweep, writes capacity.json and the report,
// and prints the recommendation.
func writeCapacity(dir string, targets workloads.Targets) error {
	t, err := sweep.Analyze(dir, check.Options{Version: version.Chaosbench()}.Summarize)
	if err != nil {
		return err
	}
	if err := sweep.WriteTable(dir, t); err != nil {
		return err
	}
	spec, err := workloads.Load(filepath.Join(dir, sweep.WorkloadFile))
	if err != nil {
		return err
	}
	c := sweep.JudgeCrash(dir, t, spec, targets, groupmodel.Production, groupmodel.CrashLeft)
	if err := report.WriteCapacity(c); err != nil {
		return err
	}
	fmt.Printf("\ntargets: %s\n", report.DescribeTargets(targets))
	if c.Best != nil {
		fmt.Printf("recommended: %s (sustains %s records/s)\n", report.ConfigName(c.Best), fmtSpread(c.Best.Capacity))
	} else {
		fmt.Println("recommended: none: no configuration of the grid meets every target (see the report)")
	}
	abs, err := filepath.Abs(filepath.Join(dir, report.CapacityHTMLFile))
	if err != nil {
		abs = filepath.Join(dir, report.CapacityHTMLFile)
	}
	fmt.Printf("capacity report: %s\n", abs)
	return nil
}

func fmtSpread(s stat.Spread) string {
	if s.N > 1 && s.Min != s.Max {
		return fmt.Sprintf("%.0f [%.0f – %.0f]", s.Median, s.Min, s.Max)
	}
	return fmt.Sprintf("%.0f", s.Median)
}

// targetFlags replace the targets of a workload (or of a sweep) one by
// one.
type targetFlags struct {
	rate                  float64
	maxLag                int64
	maxPause, maxCatchUp  time.Duration
	prodMembers, prodPart int
	set                   map[string]bool
}

func (f *targetFlags) register(fs *flag.FlagSet) {
	f.set = map[string]bool{}
	mark := func(name string, fn func(string) error) {
		fs.Func(name, targetUsage[name], func(s string) error {
			f.set[name] = true
			return fn(s)
		})
	}
	mark("rate", func(s string) error { return parseFlag(s, &f.rate) })
	mark("max-lag", func(s string) error { return parseFlag(s, &f.maxLag) })
	mark("max-pause", func(s string) error { return parseFlag(s, &f.maxPause) })
	mark("max-catch-up", func(s string) error { return parseFlag(s, &f.maxCatchUp) })
	mark("production-members", func(s string) error { return parseFlag(s, &f.prodMembers) })
	mark("production-partitions", func(s string) error { return parseFlag(s, &f.prodPart) })
}

var targetUsage = map[string]string{
	"rate":                  "target: the peak rate the group must sustain, records/s, also with one member crashed (default: targets.rate)",
	"max-lag":               "target: the most records the group may be behind at the target rate (default: targets.max_lag)",
	"max-pause":             "target: the longest a partition may stop after a crash or in a rolling deploy, e.g. 10s (default: targets.max_pause)",
	"max-catch-up":          "target: the longest the group may take to drain the backlog of a crash, e.g. 1m (default: targets.max_catch_up)",
	"production-members":    "the real group's members, for the models of the report (default: targets.production.members)",
	"production-partitions": "the real topic's partitions, for the models of the report (default: targets.production.partitions)",
}

// parseFlag reads a flag's value into v by its type.
func parseFlag(s string, v any) error {
	var err error
	switch p := v.(type) {
	case *float64:
		_, err = fmt.Sscan(s, p)
	case *int64:
		_, err = fmt.Sscan(s, p)
	case *int:
		_, err = fmt.Sscan(s, p)
	case *time.Duration:
		*p, err = time.ParseDuration(s)
	}
	if err != nil {
		return fmt.Errorf("%q: not a valid value", s)
	}
	return nil
}

func (f *targetFlags) any() bool { return len(f.set) > 0 }

// apply returns t with the flags given over it, each checked.
func (f *targetFlags) apply(t workloads.Targets) (workloads.Targets, error) {
	if f.set["rate"] {
		if !(f.rate > 0 && f.rate <= workloads.MaxRate) {
			return t, fmt.Errorf("--rate %v: expected a rate in records/s > 0 and at most %d", f.rate, workloads.MaxRate)
		}
		t.Rate = f.rate
	}
	if f.set["max-lag"] {
		if f.maxLag < 1 || f.maxLag > workloads.MaxRecords {
			return t, fmt.Errorf("--max-lag %d: expected a number of records from 1 to %d", f.maxLag, int64(workloads.MaxRecords))
		}
		t.MaxLag = f.maxLag
	}
	if f.set["max-pause"] {
		if f.maxPause <= 0 || f.maxPause > workloads.MaxDuration {
			return t, fmt.Errorf("--max-pause %v: expected a duration > 0 and at most %v, e.g. 10s", f.maxPause, workloads.MaxDuration)
		}
		t.MaxPause = f.maxPause
	}
	if f.set["max-catch-up"] {
		if f.maxCatchUp <= 0 || f.maxCatchUp > workloads.MaxDuration {
			return t, fmt.Errorf("--max-catch-up %v: expected a duration > 0 and at most %v, e.g. 1m", f.maxCatchUp, workloads.MaxDuration)
		}
		t.MaxCatchUp = f.maxCatchUp
	}
	if f.set["production-members"] || f.set["production-partitions"] {
		p := workloads.Production{}
		if t.Production != nil {
			p = *t.Production
		}
		if f.set["production-members"] {
			p.Members = f.prodMembers
		}
		if f.set["production-partitions"] {
			p.Partitions = f.prodPart
		}
		if p.Members < 1 || p.Members > workloads.MaxProductionMembers {
			return t, fmt.Errorf("--production-members %d: expected a number of members from 1 to %d (both --production-members and --production-partitions, or targets.production)", p.Members, workloads.MaxProductionMembers)
		}
		if p.Partitions < 1 || p.Partitions > workloads.MaxProductionPartitions {
			return t, fmt.Errorf("--production-partitions %d: expected a partition count from 1 to %d", p.Partitions, workloads.MaxProductionPartitions)
		}
		t.Production = &p
	}
	return t, nil
}

// describeTargets is the report's description of targets.
func describeTargets(t workloads.Targets) string { return report.DescribeTargets(t) }

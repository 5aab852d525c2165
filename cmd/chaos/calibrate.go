package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/chaosbench/chaosbench/internal/cli"
	"github.com/chaosbench/chaosbench/internal/clip"
	"github.com/chaosbench/chaosbench/internal/runfolder"
	"github.com/chaosbench/chaosbench/internal/vocab"
	"github.com/chaosbench/chaosbench/report"
)

func init() {
	register("calibrate", "measure how often the nightly comparison is red on unchanged code and on regressions, and set its thresholds", runCalibrate)
}

const calibrateUsage = `usage: chaos calibrate [flags] UNCHANGED [--regression NAME=DIR ...]

Calibrates the nightly comparison (chaos compare, as chaos bench --compare
runs it) on real runs. UNCHANGED holds repeated iterations of unchanged
code (chaos run --repeat N): they are resampled into --splits random
baseline/candidate splits of -baseline-iterations and
-candidate-iterations per group, drawn apart. Each split is a night on which nothing changed; it
should be green. From the change each metric shows between the sides of
these splits, its threshold per group is set at the --quantile of that
change. Each --regression is a candidate that carries a deliberate
regression (a run of the same cells with one setting or the code made
worse; its groups replace the unchanged candidate's): such nights should
be red.

Writes into the new folder -o: calibration.md (how often each way of
judging a night was red, on unchanged code and on each regression, with
examples; each metric's spread and threshold) and thresholds.json, which
chaos compare reads when it lies in the baseline's folder. With
--save-baseline, the first -baseline-iterations iterations of each group of
UNCHANGED (one run folder) are also saved as a new baseline folder, with
thresholds.json in it: the baseline a nightly then compares with, recorded
by the code being calibrated.

A regression's DIR may be followed by ,FROM->TO: its cells of strategy
FROM count as strategy TO's (an eager strategy in place of an incremental
one: DIR,range->cooperative-sticky).

Flags:
`

// regressionFlags is the repeatable --regression flag.
type regressionFlags []regressionSpec

type regressionSpec struct {
	name, dir string
	relabel   map[string]string
}

func (r *regressionFlags) String() string { return "" }

func (r *regressionFlags) Set(s string) error {
	name, rest, ok := strings.Cut(s, "=")
	if !ok || strings.TrimSpace(name) == "" || rest == "" {
		return fmt.Errorf("%s: expected NAME=DIR[,FROM->TO...]", clip.Quote(s))
	}
	parts := strings.Split(rest, ",")
	spec := regressionSpec{name: strings.TrimSpace(name), dir: parts[0], relabel: map[string]string{}}
	for _, p := range parts[1:] {
		from, to, ok := strings.Cut(p, "->")
		if !ok {
			return fmt.Errorf("%s: %s: expected FROM->TO, two strategies", clip.Quote(s), clip.Quote(p))
		}
		for _, st := range []string{from, to} {
			if _, known := vocab.LookupStrategy(st); !known {
				return fmt.Errorf("%s: %s: not a strategy (expected one of %s)", clip.Quote(s), clip.Quote(st), strings.Join(vocab.StrategyNames(), ", "))
			}
		}
		spec.relabel[from] = to
	}
	*r = append(*r, spec)
	return nil
}

// Bounds of the calibration's flags: a split needs two iterations a side
// for the rank test; ten thousand splits already take minutes.
const (
	maxCalibrateSplits = 10_000
	maxCalibrateSide   = 1000
)

func runCalibrate(args []string) error {
	fs := cli.NewFlagSet("calibrate", os.Stderr)
	fs.Usage = func() { fmt.Fprint(fs.Output(), calibrateUsage); fs.PrintDefaults() }
	var regs regressionFlags
	fs.Var(&regs, "regression", "NAME=DIR[,FROM->TO]: a run with a deliberate regression (repeatable)")
	var cf checkFlags
	cf.register(fs)
	nb := fs.Int("baseline-iterations", 10, "iterations per group of the baseline a split draws (the committed baseline's)")
	nc := fs.Int("candidate-iterations", 8, "iterations per group of the candidate a split draws (the nightly's --repeat)")
	splits := fs.Int("splits", 200, "random baseline/candidate splits")
	seed := fs.Uint64("seed", 1, "seed of the splits")
	q := fs.Float64("quantile", 0.95, "a threshold is this quantile of the change unchanged splits show")
	alpha := fs.Float64("alpha", 0.05, "family-wise significance level, as chaos compare's")
	out := fs.String("o", "", "the new folder to write calibration.md and thresholds.json into (required)")
	saveTo := fs.String("save-baseline", "", "also save UNCHANGED's first -baseline-iterations iterations per group, with thresholds.json, as this new baseline folder")
	if err := cli.Parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return cli.Usagef("calibrate: expected one UNCHANGED folder, got %d arguments", fs.NArg())
	}
	switch {
	case *out == "":
		return cli.Usagef("-o: required: the new folder for calibration.md and thresholds.json")
	case *nb < 2 || *nb > maxCalibrateSide || *nc < 2 || *nc > maxCalibrateSide:
		return cli.Usagef("-baseline-iterations %d, -candidate-iterations %d: expected 2 to %d each", *nb, *nc, maxCalibrateSide)
	case *splits < 1 || *splits > maxCalibrateSplits:
		return cli.Usagef("-splits %d: expected 1 to %d", *splits, maxCalibrateSplits)
	case !(*q > 0 && *q <= 1):
		return cli.Usagef("-quantile %g: expected a share above 0 and at most 1, such as 0.95", *q)
	case *alpha <= 0 || *alpha >= 1:
		return cli.Usagef("-alpha %g: expected a level between 0 and 1, such as 0.05", *alpha)
	}
	if _, err := os.Lstat(*out); err == nil {
		return cli.Usagef("-o %s: exists (results are never overwritten: choose another folder)", clip.Quote(*out))
	}
	var baselineRun string
	if *saveTo != "" {
		if _, err := os.Lstat(*saveTo); err == nil {
			return cli.Usagef("--save-baseline %s: exists (baselines are never overwritten: move the old one away first)", clip.Quote(*saveTo))
		}
		d, err := oneRun(fs.Arg(0))
		if err != nil {
			return cli.Usage(fmt.Errorf("--save-baseline: %w", err))
		}
		baselineRun = d
	}
	opts, err := cf.options()
	if err != nil {
		return err
	}
	lo := report.LoadOptions{Analyze: analyzer(opts)}
	dirs := []string{fs.Arg(0)}
	for _, r := range regs {
		dirs = append(dirs, r.dir)
	}
	for _, d := range dirs {
		if err := report.CheckInput(d, lo); err != nil {
			return cli.Usage(err)
		}
	}
	unchanged, err := report.Load(fs.Arg(0), lo)
	if err != nil {
		return cli.Usage(err)
	}
	runs := []*report.Run{unchanged}
	var regressions []report.Regression
	for _, r := range regs {
		run, err := report.Load(r.dir, lo)
		if err != nil {
			return cli.Usage(fmt.Errorf("--regression %s: %w", r.name, err))
		}
		runs = append(runs, run)
		regressions = append(regressions, report.Regression{Name: r.name, Run: relabel(run, r.relabel)})
	}
	cal, err := report.Calibrate(unchanged, regressions, report.CalibrateOptions{BaselineSize: *nb, CandidateSize: *nc,
		Splits: *splits, Seed: *seed, Quantile: *q, Alpha: *alpha})
	if err != nil {
		return cli.Usage(err)
	}
	for _, r := range runs {
		if err := r.WriteSummaries(); err != nil {
			return err
		}
	}
	var md bytes.Buffer
	if err := report.WriteCalibration(&md, cal); err != nil {
		return err
	}
	th, err := json.MarshalIndent(cal.Thresholds, "", "  ")
	if err != nil {
		return err
	}
	if err := os.Mkdir(*out, 0o755); err != nil {
		return err
	}
	if err := runfolder.CreateFile(filepath.Join(*out, "calibration.md"), md.Bytes()); err != nil {
		return err
	}
	if err := runfolder.CreateFile(filepath.Join(*out, report.ThresholdsFile), append(th, '\n')); err != nil {
		return err
	}
	os.Stdout.Write(md.Bytes())
	if baselineRun != "" {
		if err := saveBaseline(baselineRun, *saveTo, *nb, map[string][]byte{report.ThresholdsFile: append(th, '\n')}); err != nil {
			return err
		}
		fmt.Printf("\ncalibration: %s\nbaseline: %s (the first %d iterations of each group of %s, with %s)\n", *out, *saveTo, *nb, baselineRun, report.ThresholdsFile)
		return nil
	}
	fmt.Printf("\ncalibration: %s (copy %s into the baseline's folder for chaos compare to use it)\n", *out, report.ThresholdsFile)
	return nil
}

// oneRun returns the run folder dir is or holds: dir itself when it has
// run.json, else its only subfolder that has one.
func oneRun(dir string) (string, error) {
	if _, err := os.Stat(filepath.Join(dir, "run.json")); err == nil {
		return dir, nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", err
	}
	var runs []string
	for _, e := range entries {
		if _, err := os.Stat(filepath.Join(dir, e.Name(), "run.json")); e.IsDir() && err == nil {
			runs = append(runs, filepath.Join(dir, e.Name()))
		}
	}
	if len(runs) != 1 {
		return "", fmt.Errorf("%s: expected one run folder (with run.json), found %d", dir, len(runs))
	}
	return runs[0], nil
}

// relabel returns r with the cells of each strategy FROM counted as
// strategy TO's, regrouped.
func relabel(r *report.Run, as map[string]string) *report.Run {
	if len(as) == 0 {
		return r
	}
	out := &report.Run{Dir: r.Dir, Meta: r.Meta, Verdict: r.Verdict}
	for _, c := range r.Cells {
		to, ok := as[c.S.Cell.Strategy]
		if !ok {
			continue
		}
		s := *c.S
		s.Cell.Strategy = to
		cc := *c
		cc.S = &s
		out.Cells = append(out.Cells, &cc)
	}
	out.Groups = report.GroupCells(out.Cells)
	return out
}

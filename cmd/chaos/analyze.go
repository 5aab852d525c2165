package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/chaosbench/chaosbench/internal/check"
	"github.com/chaosbench/chaosbench/internal/cli"
	"github.com/chaosbench/chaosbench/report"
)

const analyzeUsage = `usage: chaos analyze [flags] RESULTS_DIR

Runs the checkers over every cell under RESULTS_DIR (a run folder, a cell
folder, or a folder of runs: wherever a cell.json is) and writes each
cell's summary.json and latency.hlog. A saved run can be analysed again at
any time; nothing else in it changes. Findings other checkers left in
<cell>/findings/*.json are folded in (docs/summary.md).

Exit status: 0 when no cell is invalid, 1 when one is (or unknown, with
-fail-on unknown), 2 on bad input (nothing is written then).

Flags:
`

func init() {
	register("analyze", "run the checkers over a saved run: summary.json for every cell", runAnalyze)
}

// checkFlags are the analysis options analyze and report share.
type checkFlags struct {
	grace, baseline, rateWindow time.Duration
	examples                    int
}

func (c *checkFlags) register(fs *flag.FlagSet) {
	fs.DurationVar(&c.grace, "grace", 5*time.Second, "an ownership change this soon after a disruption's last activity belongs to it")
	fs.DurationVar(&c.baseline, "baseline", 10*time.Second, "how far before a disruption the rate and lag it must recover to are measured")
	fs.DurationVar(&c.rateWindow, "rate-window", time.Second, "the trailing window of the processing rate the recovery compares")
	fs.IntVar(&c.examples, "examples", 5, "examples kept per anomaly")
}

func (c *checkFlags) options() (check.Options, error) {
	if c.grace <= 0 || c.baseline <= 0 || c.rateWindow <= 0 {
		return check.Options{}, cli.Usagef("-grace, -baseline and -rate-window must be positive durations (such as 5s)")
	}
	if c.examples < 1 {
		return check.Options{}, cli.Usagef("-examples: %d (expected 1 or more)", c.examples)
	}
	return check.Options{MaxExamples: c.examples, RebalanceGrace: c.grace, BaselineWindow: c.baseline, RateWindow: c.rateWindow}, nil
}

// failOn is the -fail-on flag: which run verdicts exit with status 1.
type failOn string

func (f *failOn) String() string { return string(*f) }
func (f *failOn) Set(v string) error {
	switch v {
	case "invalid", "unknown", "never":
		*f = failOn(v)
		return nil
	}
	return fmt.Errorf("%q (expected invalid, unknown or never)", v)
}

func (f failOn) check(v check.Verdict) error {
	switch {
	case f == "never":
		return nil
	case v == check.Invalid:
		return &cli.ExitError{Status: cli.ExitFailure, Err: fmt.Errorf("verdict: invalid")}
	case v == check.Unknown && f == "unknown":
		return &cli.ExitError{Status: cli.ExitFailure, Err: fmt.Errorf("verdict: unknown")}
	}
	return nil
}

func runAnalyze(args []string) error {
	fs := cli.NewFlagSet("analyze", os.Stderr)
	fs.Usage = func() { fmt.Fprint(os.Stderr, analyzeUsage); fs.PrintDefaults() }
	var cf checkFlags
	cf.register(fs)
	fail := failOn("invalid")
	fs.Var(&fail, "fail-on", "exit with status 1 when the run's verdict is this bad: invalid, unknown or never")
	quiet := fs.Bool("q", false, "print nothing but errors")
	if err := cli.Parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return cli.Usagef("analyze: expected one RESULTS_DIR, got %d arguments", fs.NArg())
	}
	opts, err := cf.options()
	if err != nil {
		return err
	}
	dir := fs.Arg(0)
	dirs, err := check.FindCells(dir)
	if err != nil {
		return cli.Usage(err)
	}
	// Reject bad input before writing anything.
	for _, d := range dirs {
		if _, err := check.ReadCellInfo(d); err != nil {
			return cli.Usage(err)
		}
		if _, err := check.ReadFindings(d); err != nil {
			return cli.Usage(err)
		}
	}
	var cells []*report.Cell
	verdict := check.Valid
	for _, d := range dirs {
		start := time.Now()
		s, err := check.AnalyzeCell(d, opts)
		if err != nil {
			return err
		}
		if err := check.WriteCell(d, s); err != nil {
			return err
		}
		secs := time.Since(start).Seconds()
		if !*quiet {
			fmt.Printf("%s: %s, %d events in %.1fs (%.0f events/s)\n", d, s.Verdict, s.History.Events, secs, float64(s.History.Events)/secs)
		}
		cells = append(cells, &report.Cell{Dir: d, S: s})
		verdict = check.Worst(verdict, s.Verdict)
	}
	if !*quiet {
		fmt.Println()
		r := &report.Run{Dir: dir, Cells: cells, Groups: report.GroupCells(cells), Verdict: verdict}
		if err := report.SummaryTable(os.Stdout, r); err != nil {
			return err
		}
	}
	return fail.check(verdict)
}

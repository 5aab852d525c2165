package main

import (
	"context"
	"flag"
	"fmt"
	"iter"
	"os"
	"time"

	"github.com/chaosbench/chaosbench/assign"
	"github.com/chaosbench/chaosbench/internal/check"
	"github.com/chaosbench/chaosbench/internal/cli"
	"github.com/chaosbench/chaosbench/internal/clip"
	"github.com/chaosbench/chaosbench/internal/history"
	"github.com/chaosbench/chaosbench/internal/historytopic"
	"github.com/chaosbench/chaosbench/internal/kafkaconf"
	"github.com/chaosbench/chaosbench/internal/runfolder"
	"github.com/chaosbench/chaosbench/internal/summary"
	"github.com/chaosbench/chaosbench/internal/version"
	"github.com/chaosbench/chaosbench/report"
)

const analyzeUsage = `usage: chaos analyze [flags] RESULTS_DIR

Runs the checkers over every cell under RESULTS_DIR (a run folder, a cell
folder, or a folder of runs: wherever a cell.json is) and writes each
cell's summary.json and latency.hlog. A saved run can be analysed again at
any time; nothing else in it changes. Findings other checkers left in
<cell>/findings/*.json are folded in (docs/summary.md).

A cell whose members and producer wrote to a history topic (chaos run
--history-sink topic) and whose split into history/ did not complete
(the run was interrupted) is split first, while the topic's cluster is
reachable: at the address cell.json records, or -history-bootstrap, with
-X and -F; otherwise it is analysed as partial.

Exit status: 0 when no cell is invalid, 1 when one is (or unknown, with
-fail-on unknown), 2 on bad input (nothing is written then).

Flags:
`

func init() {
	register("analyze", "run the checkers over a saved run: summary.json for every cell", runAnalyze)
}

// checkFlags are the analysis options analyze, report and compare share.
type checkFlags struct {
	grace, baseline, rateWindow time.Duration
	examples                    int
	oracle                      bool
}

func (c *checkFlags) register(fs *flag.FlagSet) {
	fs.DurationVar(&c.grace, "grace", 5*time.Second, "an ownership change this soon after a disruption's last activity belongs to it")
	fs.DurationVar(&c.baseline, "baseline", 10*time.Second, "how far before a disruption the rate and lag it must recover to are measured")
	fs.DurationVar(&c.rateWindow, "rate-window", time.Second, "the trailing window of the processing rate the recovery compares")
	fs.IntVar(&c.examples, "examples", 5, "examples kept per anomaly")
	fs.BoolVar(&c.oracle, "oracle", true, "also check every assignment against the strategy's model (package assign), in the same pass")
}

// Bounds of the analysis flags: a window of an hour spans any
// disruption's recovery; examples are for a reader, who reads a few.
const (
	maxWindow   = time.Hour
	maxExamples = 1000
)

func (c *checkFlags) options() (check.Options, error) {
	for _, w := range []struct {
		flag string
		d    time.Duration
	}{{"-grace", c.grace}, {"-baseline", c.baseline}, {"-rate-window", c.rateWindow}} {
		if w.d <= 0 || w.d > maxWindow {
			return check.Options{}, cli.Usagef("%s %v: expected a duration > 0 and at most %v (such as 5s)", w.flag, w.d, maxWindow)
		}
	}
	if c.examples < 1 || c.examples > maxExamples {
		return check.Options{}, cli.Usagef("-examples: %d (expected 1 to %d)", c.examples, maxExamples)
	}
	o := check.Options{MaxExamples: c.examples, RebalanceGrace: c.grace, BaselineWindow: c.baseline, RateWindow: c.rateWindow,
		Version: version.Chaosbench()}
	if c.oracle {
		o.Also = assignOracle(c.examples)
	}
	return o, nil
}

// analyzer is the analysis as report.Load runs it: the checkers with
// opts, in memory until everything is read.
func analyzer(opts check.Options) *report.Analyzer {
	return &report.Analyzer{Check: check.CheckCells, Analyze: opts.AnalyzeInMemory}
}

// oracleVerdicts says what each kind of the assignment oracle's findings
// does to a cell (docs/summary.md): a partition handed to a member while
// another live member still owned it breaks the group protocol; the
// others say the strategy behaved otherwise than its model, which is
// worth seeing but says nothing about the records.
var oracleVerdicts = map[string]summary.Verdict{
	"handed_over_while_owned": summary.Invalid,
	"differs_from_model":      summary.Valid,
	"unbalanced":              summary.Valid,
	"not_sticky":              summary.Valid,
}

// assignOracle runs assign.CheckHistory in the analyser's pass and turns
// its report into findings, one per kind, with capped examples. Cells of a
// strategy the oracle does not model get no findings.
func assignOracle(maxExamples int) check.Also {
	return func(cell summary.CellInfo, events iter.Seq[*history.Event]) ([]summary.Finding, error) {
		if _, err := assign.Lookup(cell.Strategy); err != nil {
			return nil, nil // the analyser reads the rest of the history
		}
		rep, err := assign.CheckHistory(cell.Strategy, cell.Topic, cell.Partitions, events)
		if err != nil {
			return nil, err
		}
		byKind := map[string]*summary.Finding{}
		var kinds []string
		for _, f := range rep.Findings {
			cf := byKind[f.Kind]
			if cf == nil {
				v, ok := oracleVerdicts[f.Kind]
				if !ok {
					v = summary.Unknown // a kind this build does not know
				}
				cf = &summary.Finding{Checker: "assign", Kind: f.Kind, Verdict: v}
				byKind[f.Kind] = cf
				kinds = append(kinds, f.Kind)
			}
			cf.Count++
			if len(cf.Examples) < maxExamples {
				gen := f.Gen
				cf.Examples = append(cf.Examples, summary.Example{T: f.T, Generation: &gen, Members: f.Members, Partitions: f.Partitions, Detail: f.Detail})
			}
		}
		out := make([]summary.Finding, 0, len(kinds))
		for _, k := range kinds {
			f := byKind[k]
			f.Message = fmt.Sprintf("%s, against the %s strategy's model (%d settled points checked, %d skipped as unsettled)",
				oracleKindText(k, f.Count), cell.Strategy, rep.Settled, rep.Unsettled)
			out = append(out, *f)
		}
		return out, nil
	}
}

func oracleKindText(kind string, n int64) string {
	what := map[string]string{
		"handed_over_while_owned": "partition handed to a member while another live member owned it",
		"differs_from_model":      "assignment that differs from the model's",
		"unbalanced":              "unbalanced assignment",
		"not_sticky":              "rebalance that moved more partitions than needed",
	}[kind]
	if what == "" {
		what = kind
	}
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d × %s", n, what)
}

// splitHistory finishes the split of a cell's history topic into its
// files, when its run could not (historytopic.SplitCell).
func splitHistory(dir string, cfg historytopic.Config, quiet bool) error {
	split, err := historytopic.SplitCell(context.Background(), dir, cfg)
	if err != nil {
		return err
	}
	if split && !quiet {
		s, _, _ := runfolder.ReadHistorySplit(dir)
		fmt.Printf("%s: history topic %s split into %s: %d records, %d files\n", dir, s.Topic, s.Dir, s.Records, len(s.Files))
	}
	return nil
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
	return fmt.Errorf("%s (expected invalid, unknown or never)", clip.Quote(v))
}

func (f failOn) check(v summary.Verdict) error {
	switch {
	case f == "never":
		return nil
	case v == summary.Invalid:
		return &cli.ExitError{Status: cli.ExitFailure, Err: fmt.Errorf("verdict: invalid")}
	case v == summary.Unknown && f == "unknown":
		return &cli.ExitError{Status: cli.ExitFailure, Err: fmt.Errorf("verdict: unknown")}
	}
	return nil
}

func runAnalyze(args []string) error {
	fs := cli.NewFlagSet("analyze", os.Stderr)
	fs.Usage = func() { fmt.Fprint(fs.Output(), analyzeUsage); fs.PrintDefaults() }
	var cf checkFlags
	cf.register(fs)
	fail := failOn("invalid")
	fs.Var(&fail, "fail-on", "exit with status 1 when the run's verdict is this bad: invalid, unknown or never")
	quiet := fs.Bool("q", false, "print nothing but errors")
	historyBootstrap := fs.String("history-bootstrap", "", "bootstrap.servers of the history topic's cluster, for cells whose split is not complete (default: the one cell.json records)")
	var props kafkaconf.Flag
	props.Register(fs)
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
	dirs, err := runfolder.FindCells(dir)
	if err != nil {
		return cli.Usage(err)
	}
	conn, err := props.Props.Connection().FranzOpts()
	if err != nil {
		return cli.Usage(err)
	}
	for _, d := range dirs {
		if err := splitHistory(d, historytopic.Config{Bootstrap: *historyBootstrap, Opts: conn}, *quiet); err != nil {
			fmt.Fprintf(os.Stderr, "warning: %s: %v (the cell is analysed as partial)\n", d, err)
		}
	}
	// Reject bad input before writing anything.
	if err := check.CheckCells(dirs); err != nil {
		return cli.Usage(err)
	}
	// Every cell is analysed before any is written: a cell that is bad
	// input (its history missing or unreadable) leaves the whole run as
	// it was. What is written is held encoded, not as the analysis.
	var cells []*report.Cell
	var files []*check.CellFiles
	verdict := summary.Valid
	for _, d := range dirs {
		start := time.Now()
		s, err := check.AnalyzeCell(d, opts)
		if err != nil {
			return cli.Usage(err)
		}
		f, err := check.EncodeCell(s)
		if err != nil {
			return err
		}
		secs := time.Since(start).Seconds()
		if !*quiet {
			fmt.Printf("%s: %s, %d events in %.1fs (%.0f events/s)\n", d, s.Verdict, s.History.Events, secs, float64(s.History.Events)/secs)
			if h := report.HostLine(s.Summary); h != "" {
				fmt.Printf("  %s\n", h)
			}
		}
		cells = append(cells, &report.Cell{Dir: d, S: s.Summary})
		files = append(files, f)
		verdict = summary.Worst(verdict, s.Verdict)
	}
	for i, d := range dirs {
		if err := files[i].Write(d); err != nil {
			return err
		}
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

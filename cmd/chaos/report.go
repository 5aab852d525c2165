package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/chaosbench/chaosbench/internal/cli"
	"github.com/chaosbench/chaosbench/report"
)

const reportUsage = `usage: chaos report [flags] RESULTS_DIR

Writes report.md (the strategies side by side, fit for a CI job summary),
report.html (one self-contained page: every table and plot) and plots/
(PNG and SVG) into RESULTS_DIR, from the summary.json of every cell under
it; cells without one are analysed first. Prints the summary table and the
path of report.html.

Exit status: 0, or 1 when the run's verdict is as bad as -fail-on says
(default never: a report is written whatever it says), 2 on bad input.

Flags:
`

func init() {
	register("report", "write report.md, report.html and plots for a run", runReport)
}

func runReport(args []string) error {
	fs := cli.NewFlagSet("report", os.Stderr)
	fs.Usage = func() { fmt.Fprint(fs.Output(), reportUsage); fs.PrintDefaults() }
	var cf checkFlags
	cf.register(fs)
	reanalyze := fs.Bool("reanalyze", false, "run the checkers again on every cell, even those with a summary.json")
	fail := failOn("never")
	fs.Var(&fail, "fail-on", "exit with status 1 when the run's verdict is this bad: invalid, unknown or never")
	if err := cli.Parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return cli.Usagef("report: expected one RESULTS_DIR, got %d arguments", fs.NArg())
	}
	opts, err := cf.options()
	if err != nil {
		return err
	}
	dir := fs.Arg(0)
	lo := report.LoadOptions{Analyze: analyzer(opts), Reanalyze: *reanalyze}
	if err := report.CheckInput(dir, lo); err != nil {
		return cli.Usage(err)
	}
	// Load writes nothing: its errors, a cell's history missing or
	// unreadable, are bad input with the folder as it was.
	r, err := report.Load(dir, lo)
	if err != nil {
		return cli.Usage(err)
	}
	if err := report.WriteAll(r); err != nil {
		return err
	}
	if err := report.SummaryTable(os.Stdout, r); err != nil {
		return err
	}
	abs, err := filepath.Abs(filepath.Join(dir, report.HTMLFile))
	if err != nil {
		abs = filepath.Join(dir, report.HTMLFile)
	}
	fmt.Printf("report: %s\n", abs)
	return fail.check(r.Verdict)
}

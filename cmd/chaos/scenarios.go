package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/chaosbench/chaosbench/internal/cli"
	"github.com/chaosbench/chaosbench/report"
)

const scenariosUsage = `usage: chaos scenarios [flags] DIR

Puts the scenario catalogue side by side: DIR holds several runs, one per
scenario (make scenarios runs workloads/scenarios/*.yaml into one), and
scenarios.md, written into DIR, gives the scenarios by strategies, then
each scenario's statement and every prediction of its expect section,
judged against its run: held, did not hold, or unknown (no value, or a
timing measured on a saturated host). Cells without a summary.json are
analysed first. Prints one line per scenario and the path of
scenarios.md.

Exit status: 0, or 1 when a prediction did not hold, 2 on bad input.

Flags:
`

func init() {
	register("scenarios", "judge the scenario catalogue's predictions and put its runs side by side", runScenarios)
}

func runScenarios(args []string) error {
	fs := cli.NewFlagSet("scenarios", os.Stderr)
	fs.Usage = func() { fmt.Fprint(fs.Output(), scenariosUsage); fs.PrintDefaults() }
	var cf checkFlags
	cf.register(fs)
	if err := cli.Parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return cli.Usagef("scenarios: expected one DIR, got %d arguments", fs.NArg())
	}
	opts, err := cf.options()
	if err != nil {
		return err
	}
	dir := fs.Arg(0)
	lo := report.LoadOptions{Analyze: analyzer(opts)}
	if err := report.CheckInput(dir, lo); err != nil {
		return cli.Usage(err)
	}
	scs, err := report.LoadScenarios(dir, lo)
	if err != nil {
		return err
	}
	if err := report.WriteScenariosFile(dir, scs); err != nil {
		return err
	}
	for _, sc := range scs {
		h, nh, u := 0, 0, 0
		for _, c := range sc.Checks {
			switch c.Outcome {
			case report.Held:
				h++
			case report.NotHeld:
				nh++
			default:
				u++
			}
		}
		name := filepath.Base(sc.Run.Dir)
		if sc.Spec != nil {
			name = sc.Spec.Name
		}
		fmt.Printf("%-20s %-9s predictions: %d held, %d did not hold, %d unknown\n", name, sc.Run.Verdict, h, nh, u)
	}
	abs, err := filepath.Abs(filepath.Join(dir, report.ScenariosFile))
	if err != nil {
		abs = filepath.Join(dir, report.ScenariosFile)
	}
	fmt.Printf("scenarios: %s\n", abs)
	if report.ScenariosVerdict(scs) == report.NotHeld {
		return &cli.ExitError{Status: cli.ExitFailure, Err: fmt.Errorf("a prediction did not hold")}
	}
	return nil
}

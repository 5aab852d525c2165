package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/chaosbench/chaosbench/internal/cli"
	"github.com/chaosbench/chaosbench/internal/runfolder"
)

func init() {
	register("bench", "run a workload, analyse it and write its report (what `make bench` runs)", runBench)
}

const benchUsage = `usage: chaos bench [flags] WORKLOAD

chaos run, then chaos report on its results: the summary table and the
path of report.html come last. A run that failed or was interrupted is
still analysed and reported, marked partial. With --compare, the run is
then compared with a baseline (chaos compare; exit status 1 on a
regression); with --save-baseline, its cell records and summaries are
copied into a new baseline folder.

Flags:
`

func runBench(args []string) error {
	fs := cli.NewFlagSet("chaos bench", os.Stderr)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), benchUsage)
		fs.PrintDefaults()
	}
	baseline := fs.String("compare", "", "compare the run with this baseline folder (writes compare.md and compare.json into the run)")
	save := fs.String("save-baseline", "", "copy the run's cell.json and summary.json files into this new folder, a baseline for --compare")
	dir, runErr := runWorkload(fs, args, func() error {
		if *save == "" {
			return nil
		}
		if _, err := os.Stat(*save); err == nil {
			return fmt.Errorf("--save-baseline %s: exists (baselines are never overwritten)", *save)
		}
		return nil
	})
	if dir == "" {
		return runErr
	}
	fmt.Println()
	if err := runReport([]string{dir}); err != nil {
		return errors.Join(runErr, err)
	}
	if runErr != nil {
		fmt.Fprintf(os.Stderr, "chaos bench: the run did not finish: %v\n", runErr)
		return runErr
	}
	if *save != "" {
		if err := saveBaseline(dir, *save, 0, nil); err != nil {
			return err
		}
		fmt.Printf("baseline: %s\n", *save)
	}
	if *baseline != "" {
		fmt.Println()
		return runCompare([]string{"-o", filepath.Join(dir, "compare.md"), "-json", filepath.Join(dir, "compare.json"), *baseline, dir})
	}
	return nil
}

// saveBaseline copies what a comparison needs of a run (run.json,
// plan.json, and every cell's cell.json and summary.json, at the same
// relative paths) into a new folder: every iteration, or only the first
// iterations of each cell when iterations > 0. extra files (name to
// content) are written beside them. The folder appears whole or not at all.
func saveBaseline(run, dst string, iterations int, extra map[string][]byte) error {
	cells, err := runfolder.FindCells(run)
	if err != nil {
		return err
	}
	tmp := dst + ".tmp"
	if err := os.RemoveAll(tmp); err != nil {
		return err
	}
	copyFile := func(rel string) error {
		in, err := os.Open(filepath.Join(run, rel))
		if err != nil {
			return err
		}
		defer in.Close()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(tmp, rel)), 0o755); err != nil {
			return err
		}
		out, err := os.Create(filepath.Join(tmp, rel))
		if err != nil {
			return err
		}
		if _, err := io.Copy(out, in); err != nil {
			out.Close()
			return err
		}
		return out.Close()
	}
	fail := func(err error) error {
		os.RemoveAll(tmp)
		return err
	}
	for _, f := range []string{"run.json", "plan.json"} {
		if err := copyFile(f); err != nil {
			return fail(err)
		}
	}
	for _, c := range cells {
		if iterations > 0 {
			rec, err := runfolder.ReadCell(c)
			if err != nil {
				return fail(err)
			}
			if rec.Iteration >= iterations {
				continue
			}
		}
		rel, err := filepath.Rel(run, c)
		if err != nil {
			return fail(err)
		}
		for _, f := range []string{"cell.json", "summary.json"} {
			if err := copyFile(filepath.Join(rel, f)); err != nil {
				return fail(err)
			}
		}
	}
	for name, b := range extra {
		if err := runfolder.CreateFile(filepath.Join(tmp, name), b); err != nil {
			return fail(err)
		}
	}
	return os.Rename(tmp, dst)
}

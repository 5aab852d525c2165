package main

import (
	"errors"
	"fmt"
	"os"
)

func init() {
	register("bench", "run a workload, analyse it and write its report (what `make bench` runs)", runBench)
}

// runBench is `chaos run` followed by `chaos report` on its results: the
// summary table and the path of report.html come last. A run that failed
// or was interrupted is still analysed and reported, marked partial.
func runBench(args []string) error {
	dir, runErr := runWorkload("chaos bench", args)
	if dir == "" {
		return runErr
	}
	fmt.Println()
	if err := runReport([]string{dir}); err != nil {
		return errors.Join(runErr, err)
	}
	if runErr != nil {
		fmt.Fprintf(os.Stderr, "chaos bench: the run did not finish: %v\n", runErr)
	}
	return runErr
}

// Command hostexp tabulates the host check's experiment (make
// host-check-experiment, docs/host-check.md): the same workload's cells
// run quiet and beside CPU hogs of several sizes and priorities, one
// folder of runs per condition (quiet first). For each condition and
// strategy it prints the host check's signals (CPU busy, the probes'
// timer drift and scheduling latency, the producer's lag, the members'
// overruns) beside the figures the check protects (the crash's and the
// stop's pauses, the kept partitions' stall, the group stop, latency),
// each the median of the condition's iterations with their range, and
// marks a figure that left the quiet condition's range by more than its
// own tolerance: where a signal starts to move the figures.
//
//	hostexp DIR    DIR holds one folder of runs per condition
package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/chaosbench/chaosbench/internal/stat"
	"github.com/chaosbench/chaosbench/internal/summary"
	"github.com/chaosbench/chaosbench/report"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: hostexp DIR (one folder of runs per condition)")
		os.Exit(2)
	}
	if err := run(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "hostexp:", err)
		os.Exit(1)
	}
}

// column is one figure of the table, read from a summary.
type column struct {
	name string
	get  func(*summary.Summary) (float64, bool)
	// figure: one the check protects (compared with the quiet runs);
	// else a signal of the check.
	figure bool
	// tolerance is how far beyond the quiet runs' range a figure may go
	// and still be said not to have moved (ms): the resolution a figure
	// is read at.
	tolerance float64
}

func ptrValue(p *float64) (float64, bool) {
	if p == nil {
		return 0, false
	}
	return *p, true
}

// metric reads a report metric.
func metric(name string) func(*summary.Summary) (float64, bool) {
	m, ok := report.MetricByName(name)
	if !ok {
		panic("no metric " + name)
	}
	return func(s *summary.Summary) (float64, bool) { return m.Value(s) }
}

var columns = []column{
	{name: "CPU busy p50 (%)", get: func(s *summary.Summary) (float64, bool) { return 100 * s.Host.CPUBusyP50, s.Host.CPUSeconds > 0 }},
	{name: "drift p99 (ms)", get: func(s *summary.Summary) (float64, bool) { return ptrValue(s.Host.DriftP99Ms) }},
	{name: "sched p99 (ms)", get: func(s *summary.Summary) (float64, bool) { return ptrValue(s.Host.SchedP99Ms) }},
	{name: "producer lag p99 (ms)", get: func(s *summary.Summary) (float64, bool) { return ptrValue(s.Host.ProducerLagP99Ms) }},
	{name: "overrun max (ms)", get: func(s *summary.Summary) (float64, bool) { return ptrValue(s.Host.OverrunMaxMs) }},
	{name: "crash pause p50 (ms)", get: crashPause, figure: true, tolerance: 250},
	{name: "stop pause max (ms)", get: stopPause, figure: true, tolerance: 100},
	{name: "kept stall (ms)", get: metric("kept_stall_ms"), figure: true, tolerance: 50},
	{name: "group stop (ms)", get: metric("group_stop_ms"), figure: true, tolerance: 100},
	{name: "latency p99, steady (ms)", get: metric("latency_p99_steady_ms"), figure: true, tolerance: 10},
}

// crashPause is the median pause of the killed member's partitions;
// stopPause the longest pause of the graceful stop.
func crashPause(s *summary.Summary) (float64, bool) {
	return stepPause(s, "kill", func(d summary.Disruption) summary.Stats { return d.TargetPause }, func(st summary.Stats) float64 { return st.P50 })
}

func stopPause(s *summary.Summary) (float64, bool) {
	return stepPause(s, "stop", func(d summary.Disruption) summary.Stats { return d.Pause }, func(st summary.Stats) float64 { return st.Max })
}

func stepPause(s *summary.Summary, action string, pop func(summary.Disruption) summary.Stats, f func(summary.Stats) float64) (float64, bool) {
	for _, d := range s.Disruptions {
		if st := pop(d); d.Action == action && st.Count > 0 {
			return f(st), true
		}
	}
	return 0, false
}

// condition is one folder of runs.
type condition struct {
	name string
	run  *report.Run
}

func run(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	var conds []condition
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		r, err := report.Load(filepath.Join(dir, e.Name()), report.LoadOptions{})
		if err != nil {
			return fmt.Errorf("%s (run chaos analyze on it first): %w", e.Name(), err)
		}
		conds = append(conds, condition{e.Name(), r})
	}
	// Quiet first, then by name.
	sort.SliceStable(conds, func(i, j int) bool {
		qi, qj := strings.HasPrefix(conds[i].name, "quiet"), strings.HasPrefix(conds[j].name, "quiet")
		return qi && !qj || qi == qj && conds[i].name < conds[j].name
	})
	if len(conds) == 0 || !strings.HasPrefix(conds[0].name, "quiet") {
		return fmt.Errorf("%s: expected a folder quiet beside the hogs' folders", dir)
	}
	strategies := map[string]bool{}
	for _, c := range conds {
		for _, g := range c.run.Groups {
			strategies[g.Key.Strategy] = true
		}
	}
	var names []string
	for s := range strategies {
		names = append(names, s)
	}
	sort.Strings(names)
	for _, st := range names {
		fmt.Printf("\n### %s\n\n| condition | saturated |", st)
		for _, c := range columns {
			fmt.Printf(" %s |", c.name)
		}
		fmt.Printf("\n|---|---|%s\n", strings.Repeat("--:|", len(columns)))
		quiet := values(conds[0].run, st)
		for _, c := range conds {
			v := values(c.run, st)
			fmt.Printf("| %s | %s |", c.name, saturated(c.run, st))
			for i, col := range columns {
				cell := spreadText(v[i])
				if col.figure && c.name != conds[0].name && moved(quiet[i], v[i], col.tolerance) {
					cell = "**" + cell + "**"
				}
				fmt.Printf(" %s |", cell)
			}
			fmt.Println()
		}
	}
	fmt.Println("\nMedian [min – max] over each condition's iterations; a figure in bold left the quiet runs' range by more than its tolerance (a crash's pause 250 ms, a stop's 100 ms, a kept stall 50 ms, a group stop 100 ms, latency 10 ms).")
	return nil
}

// values are each column's samples over a strategy's cells.
func values(r *report.Run, strategy string) [][]float64 {
	out := make([][]float64, len(columns))
	for _, g := range r.Groups {
		if g.Key.Strategy != strategy {
			continue
		}
		for _, cell := range g.Cells {
			for i, col := range columns {
				if v, ok := col.get(cell.S); ok {
					out[i] = append(out[i], v)
				}
			}
		}
	}
	return out
}

// saturated counts a strategy's cells the host check called saturated.
func saturated(r *report.Run, strategy string) string {
	n, of := 0, 0
	for _, g := range r.Groups {
		if g.Key.Strategy != strategy {
			continue
		}
		for _, c := range g.Cells {
			of++
			if c.S.Host.Saturated {
				n++
			}
		}
	}
	return fmt.Sprintf("%d of %d", n, of)
}

// moved reports whether a condition's median left the quiet samples'
// range by more than tol.
func moved(quiet, cond []float64, tol float64) bool {
	if len(quiet) == 0 || len(cond) == 0 {
		return false
	}
	s := stat.SpreadOf(quiet)
	m := stat.Median(cond)
	return m > s.Max+tol || m < s.Min-tol
}

func spreadText(xs []float64) string {
	if len(xs) == 0 {
		return "–"
	}
	s := stat.SpreadOf(xs)
	f := func(v float64) string {
		if math.Abs(v) >= 100 {
			return fmt.Sprintf("%.0f", v)
		}
		return fmt.Sprintf("%.1f", v)
	}
	if s.N == 1 || s.Min == s.Max {
		return f(s.Median)
	}
	return fmt.Sprintf("%s [%s – %s]", f(s.Median), f(s.Min), f(s.Max))
}

// Command benchanalyze measures the analyser on a generated history of
// about ten million events (make bench-analyze): events per second and
// peak memory of the full analysis, side by side with reading alone (the
// history package's Merger, and the parallel source the analyser uses).
// Each measurement runs in its own child process, so that its peak RSS is
// its own.
//
//	benchanalyze [-events N] [-dir DIR]
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"syscall"
	"time"

	"github.com/chaosbench/chaosbench/internal/check"
	"github.com/chaosbench/chaosbench/internal/check/synth"
	"github.com/chaosbench/chaosbench/internal/history"
	"github.com/chaosbench/chaosbench/internal/runfolder"
)

type result struct {
	Mode      string  `json:"mode"`
	Events    int64   `json:"events"`
	Seconds   float64 `json:"seconds"`
	CPU       float64 `json:"cpu_seconds"`
	PeakRSS   int64   `json:"peak_rss_bytes"`
	PeakHeap  uint64  `json:"peak_heap_bytes"`
	HeapAfter uint64  `json:"heap_after_bytes"`
}

func main() {
	events := flag.Int64("events", 10_000_000, "approximate number of events to generate")
	dir := flag.String("dir", filepath.Join(".chaosbench", "bench-analyze"), "where the generated cell is kept (reused when it exists)")
	measure := flag.String("measure", "", "internal: run one measurement (merger, parallel, analyze) and print it as JSON")
	flag.Parse()
	if *measure != "" {
		if err := runOne(*measure, *dir); err != nil {
			fmt.Fprintln(os.Stderr, "benchanalyze:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(*events, *dir); err != nil {
		fmt.Fprintln(os.Stderr, "benchanalyze:", err)
		os.Exit(1)
	}
}

func run(events int64, dir string) error {
	cell := filepath.Join(dir, fmt.Sprintf("cell-%d", events))
	if _, err := os.Stat(filepath.Join(cell, "cell.json")); errors.Is(err, os.ErrNotExist) {
		fmt.Printf("generating a history of about %d events in %s ...\n", events, cell)
		start := time.Now()
		tmp := cell + ".tmp"
		os.RemoveAll(tmp)
		// About two events per record (produced, processed), plus commits
		// and redeliveries.
		exp, err := synth.Write(tmp, synth.Config{
			Seed: 1, Partitions: 64, Members: 8, Keys: 100_000,
			Records: int(events / 2), Rate: 50_000,
			Latency: 5 * time.Millisecond, CommitEvery: time.Second,
			Kills:    []synth.Kill{{At: 30 * time.Second, Member: 3}},
			Takeover: 6 * time.Second,
		})
		if err != nil {
			return err
		}
		if err := os.Rename(tmp, cell); err != nil {
			return err
		}
		fmt.Printf("generated %d events in %.1fs\n", exp.Events, time.Since(start).Seconds())
	} else if err != nil {
		return err
	}
	size, files := historySize(cell)
	fmt.Printf("history: %s, %d files, %.0f MB\n\n", cell, files, float64(size)/1e6)
	self, err := os.Executable()
	if err != nil {
		return err
	}
	var results []result
	for _, mode := range []string{"merger", "parallel", "analyze"} {
		cmd := exec.Command(self, "-measure", mode, "-dir", cell)
		cmd.Stderr = os.Stderr
		out, err := cmd.Output()
		if err != nil {
			return fmt.Errorf("%s: %w", mode, err)
		}
		var r result
		if err := json.Unmarshal(out, &r); err != nil {
			return fmt.Errorf("%s: %w", mode, err)
		}
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			r.PeakRSS = ru.Maxrss * 1024
			r.CPU = time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
		}
		results = append(results, r)
	}
	base := results[0]
	fmt.Printf("%-34s %12s %9s %14s %9s %16s %10s %10s %8s\n", "", "events", "seconds", "events/s", "CPU s", "events/CPU-s", "peak RSS", "peak heap", "vs read")
	names := map[string]string{
		"merger":   "read: history.Merger",
		"parallel": "read: check.ParallelSource",
		"analyze":  "analyze (ParallelSource + checks)",
	}
	for _, r := range results {
		rate := float64(r.Events) / r.Seconds
		fmt.Printf("%-34s %12d %9.2f %14.0f %9.2f %16.0f %8.0fMB %8.0fMB %7.2fx\n", names[r.Mode], r.Events, r.Seconds, rate,
			r.CPU, float64(r.Events)/r.CPU, float64(r.PeakRSS)/1e6, float64(r.PeakHeap)/1e6, rate/(float64(base.Events)/base.Seconds))
	}
	fmt.Printf("\n(GOMAXPROCS %d on %d CPUs; CPU s is user+system time of the measurement's process, a fairer figure on a shared machine;\n the last column is the rate relative to history.Merger alone, measured in this run)\n", runtime.GOMAXPROCS(0), runtime.NumCPU())
	return nil
}

func historySize(cell string) (int64, int) {
	paths, _ := history.Files(runfolder.HistoryDir(cell))
	var n int64
	for _, p := range paths {
		if fi, err := os.Stat(p); err == nil {
			n += fi.Size()
		}
	}
	return n, len(paths)
}

// runOne performs one measurement in this process and prints it.
func runOne(mode, cell string) error {
	var peak uint64
	done := make(chan struct{})
	go func() { // sample the heap: the peak, not just the end
		var ms runtime.MemStats
		t := time.NewTicker(50 * time.Millisecond)
		defer t.Stop()
		for {
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapInuse)
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	start := time.Now()
	var n int64
	switch mode {
	case "merger":
		m, err := history.OpenDir(runfolder.HistoryDir(cell))
		if err != nil {
			return err
		}
		for {
			_, err := m.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				return err
			}
			n++
		}
		m.Close()
	case "parallel":
		paths, err := history.Files(runfolder.HistoryDir(cell))
		if err != nil {
			return err
		}
		src, err := check.OpenParallel(paths)
		if err != nil {
			return err
		}
		for {
			_, err := src.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				return err
			}
			n++
		}
		src.Close()
	case "analyze":
		s, err := check.AnalyzeCell(cell, check.Options{})
		if err != nil {
			return err
		}
		n = s.History.Events
	default:
		return fmt.Errorf("unknown mode %q", mode)
	}
	secs := time.Since(start).Seconds()
	close(done)
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return json.NewEncoder(os.Stdout).Encode(result{Mode: mode, Events: n, Seconds: secs, PeakHeap: max(peak, ms.HeapInuse), HeapAfter: ms.HeapInuse})
}

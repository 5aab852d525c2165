// Command benchanalyze measures the analyser on a generated history of
// about ten million events (make bench-analyze): events per second and
// peak memory of the full analysis, side by side with reading alone
// (every file decoded on one goroutine, one after another; and
// history.Merger, which decodes the files in parallel and merges them in
// time order), and with the analysis held to one core (GOMAXPROCS=1).
// Each measurement runs in its own child process, so that its peak RSS is
// its own. -summary writes the summary of the analysis (two cores) into a
// folder, for comparing what two builds compute (cmp).
//
//	benchanalyze [-events N] [-dir DIR] [-cpuprofile FILE] [-summary DIR]
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
	"runtime/pprof"
	"strconv"
	"strings"
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
	measure := flag.String("measure", "", "internal: run one measurement (decode, merger, analyze) and print it as JSON")
	profile := flag.String("cpuprofile", "", "write a CPU profile of each measurement to this path, suffixed by its number (1-4)")
	summary := flag.String("summary", "", "write summary.json and latency.hlog of the analysis into this folder (created)")
	flag.Parse()
	if *measure != "" {
		if err := runOne(*measure, *dir, *profile, *summary); err != nil {
			fmt.Fprintln(os.Stderr, "benchanalyze:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(*events, *dir, *profile, *summary); err != nil {
		fmt.Fprintln(os.Stderr, "benchanalyze:", err)
		os.Exit(1)
	}
}

func run(events int64, dir, profile, summary string) error {
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
	type run struct {
		mode, name string
		env        []string
	}
	runs := []run{
		{"decode", "read: FileReader, one goroutine", nil},
		{"merger", "read: history.Merger", nil},
		{"analyze", "analyze (Merger + checks)", nil},
		{"analyze", "analyze, GOMAXPROCS=1", []string{"GOMAXPROCS=1"}},
	}
	var results []result
	for i, r := range runs {
		args := []string{"-measure", r.mode, "-dir", cell}
		if profile != "" {
			args = append(args, "-cpuprofile", fmt.Sprintf("%s.%d", profile, i+1))
		}
		if summary != "" && r.mode == "analyze" && r.env == nil {
			args = append(args, "-summary", summary)
		}
		cmd := exec.Command(self, args...)
		cmd.Env = append(os.Environ(), r.env...)
		cmd.Stderr = os.Stderr
		out, err := cmd.Output()
		if err != nil {
			return fmt.Errorf("%s: %w", r.name, err)
		}
		var res result
		if err := json.Unmarshal(out, &res); err != nil {
			return fmt.Errorf("%s: %w", r.name, err)
		}
		res.Mode = r.name
		results = append(results, res)
	}
	base := results[0]
	fmt.Printf("%-34s %12s %9s %14s %9s %16s %10s %10s %9s\n", "", "events", "seconds", "events/s", "CPU s", "events/CPU-s", "peak RSS", "peak heap", "vs first")
	for _, r := range results {
		rate := float64(r.Events) / r.Seconds
		fmt.Printf("%-34s %12d %9.2f %14.0f %9.2f %16.0f %8.0fMB %8.0fMB %8.2fx\n", r.Mode, r.Events, r.Seconds, rate,
			r.CPU, float64(r.Events)/r.CPU, float64(r.PeakRSS)/1e6, float64(r.PeakHeap)/1e6, rate/(float64(base.Events)/base.Seconds))
	}
	fmt.Printf("\n(GOMAXPROCS %d on %d CPUs; CPU s is user+system time of the measurement's process, a fairer figure on a shared machine;\n peak RSS is the process's own high-water mark (VmHWM); the last column is the rate relative to the first row, measured in this run)\n", runtime.GOMAXPROCS(0), runtime.NumCPU())
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

// runOne performs one measurement in this process and prints it; the
// summary of an analysis goes into the folder summary, if one is given,
// once measured.
func runOne(mode, cell, profile, summary string) error {
	if profile != "" {
		f, err := os.Create(profile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	peakHeap := sampleHeap()
	start := time.Now()
	n, s, err := measure(mode, cell)
	if err != nil {
		return err
	}
	secs := time.Since(start).Seconds()
	cpu := cpuSeconds()
	peak := peakHeap()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	if err := json.NewEncoder(os.Stdout).Encode(result{Mode: mode, Events: n, Seconds: secs, CPU: cpu, PeakRSS: peakRSS(),
		PeakHeap: max(peak, ms.HeapInuse), HeapAfter: ms.HeapInuse}); err != nil {
		return err
	}
	if summary == "" || s == nil {
		return nil
	}
	if err := os.MkdirAll(summary, 0o755); err != nil {
		return err
	}
	return check.WriteCell(summary, s)
}

// sampleHeap samples the heap in use every 50 ms, for its peak, not just
// its size at the end; the function it returns stops the sampling and
// returns the peak.
func sampleHeap() (stop func() uint64) {
	var peak uint64
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
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
	return func() uint64 {
		close(done)
		<-stopped
		return peak
	}
}

// measure does the work of one mode over the cell and returns how many
// events it went through, and the summary of an analysis.
func measure(mode, cell string) (int64, *check.Summary, error) {
	var n int64
	switch mode {
	case "decode":
		// Each file on its own, on this goroutine: what decoding costs
		// one core.
		paths, err := history.Files(runfolder.HistoryDir(cell))
		if err != nil {
			return 0, nil, err
		}
		for _, p := range paths {
			r, err := history.OpenFile(p)
			if err != nil {
				return 0, nil, err
			}
			for {
				_, err := r.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					return 0, nil, err
				}
				n++
			}
			r.Close()
		}
	case "merger":
		m, err := history.OpenDir(runfolder.HistoryDir(cell))
		if err != nil {
			return 0, nil, err
		}
		for {
			_, err := m.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				return 0, nil, err
			}
			n++
		}
		m.Close()
	case "analyze":
		s, err := check.AnalyzeCell(cell, check.Options{})
		if err != nil {
			return 0, nil, err
		}
		return s.History.Events, s, nil
	default:
		return 0, nil, fmt.Errorf("unknown mode %q", mode)
	}
	return n, nil, nil
}

// cpuSeconds returns the user and system time this process has used.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

// peakRSS returns this process's resident-set high-water mark (VmHWM in
// /proc/self/status), 0 where there is none. The rusage a parent gets
// for its child is no substitute: Linux carries the parent's own peak
// over to the child at exec.
func peakRSS() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				return 0
			}
			return kb * 1024
		}
	}
	return 0
}

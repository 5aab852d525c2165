// Command benchanalyze measures the analyser on a generated history of
// about ten million events (make bench-analyze): events per second,
// events per CPU-second and peak memory of the full analysis, side by
// side with reading alone (every file decoded on one goroutine, one after
// another; and history.Merger, which decodes the files in parallel and
// merges them in time order), and with the analysis held to one core
// (GOMAXPROCS=1). Each measurement runs in its own child process, so that
// its CPU time and peak RSS are its own.
//
// -before names a benchanalyze built from another revision (make
// bench-analyze BENCH_ANALYZE_BEFORE=main builds one): every round then
// runs each measurement with both builds, one after the other on the same
// history, their order alternating from round to round, and the table
// gives each build's median with its spread (min-max over the rounds)
// and the ratio of the two: the median of each round's ratio, with their
// spread. Both builds' summaries of the analysis must be the same bytes.
// -summary writes the summary of the analysis (two cores) into a folder
// (with -before, each build's into a folder of its name there).
//
//	benchanalyze [-events N] [-dir DIR] [-before BIN] [-rounds N] [-cpuprofile FILE] [-summary DIR]
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
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
	before := flag.String("before", "", "a benchanalyze binary built from another revision: its measurements alternate with this one's, on the same history")
	rounds := flag.Int("rounds", 0, "rounds of every measurement (default 1, or 5 with -before)")
	flag.Parse()
	if *rounds == 0 {
		*rounds = 1
		if *before != "" {
			*rounds = 5
		}
	}
	if *measure != "" {
		if err := runOne(*measure, *dir, *profile, *summary); err != nil {
			fmt.Fprintln(os.Stderr, "benchanalyze:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(*events, *dir, *profile, *summary, *before, *rounds); err != nil {
		fmt.Fprintln(os.Stderr, "benchanalyze:", err)
		os.Exit(1)
	}
}

func run(events int64, dir, profile, summary, before string, rounds int) error {
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
	builds := []build{{"after", self}}
	if before != "" {
		builds = []build{{"before", before}, {"after", self}}
	}
	res, err := measureAll(cell, builds, rounds, profile, summary)
	if err != nil {
		return err
	}
	printTable(res, builds, rounds)
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
func measure(mode, cell string) (int64, *check.Analysis, error) {
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

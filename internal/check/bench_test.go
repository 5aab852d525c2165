package check

import (
	"io"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/chaosbench/chaosbench/internal/check/synth"
	"github.com/chaosbench/chaosbench/internal/history"
	"github.com/chaosbench/chaosbench/internal/runfolder"
)

// benchCell writes a synthetic cell of about 400,000 events (16 partitions,
// 4 members, 10,000 keys, one kill), the benchanalyze history in small.
func benchCell(b *testing.B) (string, int64) {
	b.Helper()
	dir := filepath.Join(b.TempDir(), "cell")
	exp, err := synth.Write(dir, synth.Config{
		Seed: 1, Partitions: 16, Members: 4, Keys: 10_000,
		Records: 200_000, Rate: 20_000,
		Latency: 5 * time.Millisecond, CommitEvery: time.Second,
		Kills:    []synth.Kill{{At: 4 * time.Second, Member: 1}},
		Takeover: 2 * time.Second,
	})
	if err != nil {
		b.Fatal(err)
	}
	return dir, exp.Events
}

// perEvent reports events per second, and wall and CPU time per event
// (CPU time since cpu, cpuTime's: on a shared machine, the steadier
// figure).
func perEvent(b *testing.B, events int64, cpu time.Duration) {
	b.ReportMetric(float64(events)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(events*int64(b.N)), "ns/event")
	b.ReportMetric(float64(cpuTime()-cpu)/float64(events*int64(b.N)), "cpu-ns/event")
}

// cpuTime is the process's user and system time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkAnalyze measures the analysis of one cell: reading alone
// (history.Merger), the checkers alone (on events already in memory),
// and both (AnalyzeCell, what chaos analyze runs).
func BenchmarkAnalyze(b *testing.B) {
	dir, events := benchCell(b)
	paths, err := history.Files(runfolder.HistoryDir(dir))
	if err != nil {
		b.Fatal(err)
	}
	b.Run("read", func(b *testing.B) {
		b.ReportAllocs()
		cpu := cpuTime()
		for b.Loop() {
			src, err := history.OpenMerged(paths...)
			if err != nil {
				b.Fatal(err)
			}
			var n int64
			for {
				_, err := src.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					b.Fatal(err)
				}
				n++
			}
			src.Close()
			if n != events {
				b.Fatalf("read %d events, want %d", n, events)
			}
		}
		perEvent(b, events, cpu)
	})
	b.Run("checks", func(b *testing.B) {
		info, err := ReadCellInfo(dir)
		if err != nil {
			b.Fatal(err)
		}
		m, err := history.OpenMerged(paths...)
		if err != nil {
			b.Fatal(err)
		}
		var evs []history.Event
		for {
			e, err := m.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			c := *e
			c.Partitions = append([]int32(nil), e.Partitions...)
			evs = append(evs, c)
		}
		m.Close()
		b.ReportAllocs()
		cpu := cpuTime()
		for b.Loop() {
			if _, err := Analyze(&sliceSource{evs: evs}, info, Options{}); err != nil {
				b.Fatal(err)
			}
		}
		perEvent(b, events, cpu)
	})
	b.Run("cell", func(b *testing.B) {
		b.ReportAllocs()
		cpu := cpuTime()
		for b.Loop() {
			s, err := AnalyzeCell(dir, Options{})
			if err != nil {
				b.Fatal(err)
			}
			if s.History.Events != events {
				b.Fatalf("analysed %d events, want %d", s.History.Events, events)
			}
		}
		perEvent(b, events, cpu)
	})
}

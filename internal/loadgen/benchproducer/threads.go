package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// threadCPU samples the CPU time of every thread of a running process from
// /proc/<pid>/task/*/stat, grouped by thread name, to tell where a
// producer's CPU goes beyond what a Go profile sees: librdkafka's own
// threads (rdk:main, rdk:broker...), or the JVM's (the producer's network
// thread, JIT compilers, garbage collection). A thread's last sample
// counts, so a thread that ends between two samples loses up to one
// interval.
type threadCPU struct {
	pid   int
	ticks map[int]threadTicks // by thread id
	stop  chan struct{}
	done  chan struct{}
}

type threadTicks struct {
	name  string
	ticks int64 // utime + stime, clock ticks
}

// clockTick is USER_HZ, 100 on Linux.
const clockTick = 10 * time.Millisecond

func sampleThreads(pid int) *threadCPU {
	t := &threadCPU{pid: pid, ticks: map[int]threadTicks{}, stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(t.done)
		tk := time.NewTicker(50 * time.Millisecond)
		defer tk.Stop()
		for {
			t.sample()
			select {
			case <-t.stop:
				return
			case <-tk.C:
			}
		}
	}()
	return t
}

func (t *threadCPU) sample() {
	dir := fmt.Sprintf("/proc/%d/task", t.pid)
	tids, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, d := range tids {
		tid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, d.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ... utime(14) stime(15): comm may hold
		// spaces, so the fields are counted from its closing parenthesis.
		s := string(b)
		open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
		if open < 0 || end < open {
			continue
		}
		f := strings.Fields(s[end+1:])
		if len(f) < 13 {
			continue
		}
		ut, _ := strconv.ParseInt(f[11], 10, 64)
		st, _ := strconv.ParseInt(f[12], 10, 64)
		t.ticks[tid] = threadTicks{name: s[open+1 : end], ticks: ut + st}
	}
}

// end stops sampling; call it before the process is reaped.
func (t *threadCPU) end() {
	close(t.stop)
	<-t.done
}

// write writes the CPU per thread group, largest first, with each
// group's share of total; groups that used no CPU are left out. Linux
// keeps 15 bytes of a thread's name.
func (t *threadCPU) write(w io.Writer, total time.Duration) {
	groups := map[string]int64{}
	for _, th := range t.ticks {
		groups[threadGroup(th.name)] += th.ticks
	}
	names := make([]string, 0, len(groups))
	for n := range groups {
		names = append(names, n)
	}
	slices.SortFunc(names, func(a, b string) int { return int(groups[b] - groups[a]) })
	fmt.Fprintf(w, "CPU %.2fs (rusage); by thread (sampled):\n", total.Seconds())
	for _, n := range names {
		if groups[n] == 0 {
			continue
		}
		d := time.Duration(groups[n]) * clockTick
		fmt.Fprintf(w, "  %-34s %6.2fs  %5.1f%%\n", n, d.Seconds(), 100*d.Seconds()/max(total.Seconds(), 1e-9))
	}
}

// threadGroup folds numbered threads together: "GC Thread#3" and
// "GC Thread#0" are one group, as are Go's threads (all named after the
// command).
func threadGroup(name string) string {
	return strings.TrimRight(name, "0123456789#-: ")
}

// Package probe records how a harness process and its host fared while a
// cell ran, so that the analysis can tell a number that describes the
// group from one that describes the machine (docs/summary.md, `host`).
// Every process of a cell (the driver, which runs the producer, and each
// member) runs a probe: once a second it appends a `probe` event to the
// process's own history, its measurements as the event's params
// (docs/history.md):
//
//   - drift_max_ms: the longest lateness, in that second, of a timer that
//     should fire every 10 ms. A process the operating system does not
//     schedule (a saturated host), or that the Go runtime stops (a GC
//     pause), wakes late; so do its poll loop and its sends.
//   - gc_pause_ms, gc_pause_max_ms: the Go runtime's stop-the-world pauses
//     in that second (runtime/metrics /gc/pauses:seconds), their sum and
//     the longest (the bucket's upper bound).
//   - sched_p99_ms: the 99th percentile of the time goroutines waited to
//     run in that second (/sched/latencies:seconds).
//   - cpu_busy, cpu_steal (the driver's probe only, Options.Host): the
//     share of the host's CPU time, over all its cores, that was busy
//     (anything but idle and I/O wait; steal included) and stolen by the
//     hypervisor, from /proc/stat; cpus, the cores it counted;
//     cpu_harness, the share the probe's process and its descendants used
//     (the driver, the producer, the members, a local cluster's brokers:
//     /proc/<pid>/stat), so that a busy host tells the harness's own load
//     from other work's; and that share by process, so that a saturated
//     cell says who used the CPU: cpu_driver (the driver and the producer
//     it runs), cpu_broker (a local cluster's brokers), cpu_member_<client>
//     (the members of each client, a Java member's JVM included) and
//     cpu_other (any other descendant: a build, a tool).
//   - whatever Options.Extra adds (a member's poll gaps).
//
// A probe costs a goroutine that wakes every 10 ms and one small event a
// second.
package probe

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/chaosbench/chaosbench/internal/history"
)

// Tick is the drift timer's period.
const Tick = 10 * time.Millisecond

// Options configure a probe.
type Options struct {
	// Sink receives the probe events.
	Sink history.Sink
	// Host adds the host's CPU figures (one process per host is enough:
	// the driver's).
	Host bool
	// Extra, if not nil, is called once a second for more measurements
	// to record in the same event.
	Extra func() map[string]float64
	// Every is the period of the events; default 1s.
	Every time.Duration
}

// Run runs the probe until ctx ends. It never fails: a measurement it
// cannot take is left out of the event.
func Run(ctx context.Context, o Options) {
	if o.Every <= 0 {
		o.Every = time.Second
	}
	var drift atomic.Int64 // the longest lateness since the last event, ns
	go func() {
		next := time.Now().Add(Tick)
		for ctx.Err() == nil {
			time.Sleep(time.Until(next))
			late := time.Since(next)
			if late > time.Duration(drift.Load()) {
				drift.Store(int64(late))
			}
			next = next.Add(Tick)
			if now := time.Now(); next.Before(now) {
				next = now.Add(Tick) // a long stall: start again from now
			}
		}
	}()
	rt := newRuntimeSampler()
	var cpu cpuSampler
	if o.Host {
		cpu.tree.sample()
		cpu.sample()
	}
	t := time.NewTicker(o.Every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		m := map[string]float64{"drift_max_ms": ms(drift.Swap(0))}
		rt.sample(m)
		if o.Host {
			cpu.measure(m)
		}
		if o.Extra != nil {
			for k, v := range o.Extra() {
				m[k] = v
			}
		}
		b, err := json.Marshal(rounded(m))
		if err != nil {
			continue
		}
		if o.Sink.Append(&history.Event{Kind: history.Probe, Params: string(b)}) == nil {
			_ = o.Sink.Flush()
		}
	}
}

func ms(ns int64) float64 { return float64(ns) / 1e6 }

// rounded keeps three decimals: the events stay small.
func rounded(m map[string]float64) map[string]float64 {
	for k, v := range m {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			delete(m, k)
			continue
		}
		m[k] = math.Round(v*1000) / 1000
	}
	return m
}

// runtimeSampler reads the Go runtime's pause and scheduling histograms
// and gives what changed since the previous sample.
type runtimeSampler struct {
	samples []metrics.Sample
	prev    [2]*metrics.Float64Histogram
}

func newRuntimeSampler() *runtimeSampler {
	r := &runtimeSampler{samples: []metrics.Sample{{Name: "/gc/pauses:seconds"}, {Name: "/sched/latencies:seconds"}}}
	metrics.Read(r.samples)
	for i, s := range r.samples {
		if s.Value.Kind() == metrics.KindFloat64Histogram {
			r.prev[i] = copyHist(s.Value.Float64Histogram())
		}
	}
	return r
}

func (r *runtimeSampler) sample(m map[string]float64) {
	metrics.Read(r.samples)
	for i, s := range r.samples {
		if s.Value.Kind() != metrics.KindFloat64Histogram {
			continue
		}
		h := s.Value.Float64Histogram()
		d := delta(h, r.prev[i])
		r.prev[i] = copyHist(h)
		switch i {
		case 0:
			sum, top := 0.0, 0.0
			for j, n := range d {
				if n == 0 {
					continue
				}
				mid := bucketValue(h.Buckets, j)
				sum += float64(n) * mid
				top = max(top, upper(h.Buckets, j))
			}
			m["gc_pause_ms"] = sum * 1e3
			m["gc_pause_max_ms"] = top * 1e3
		case 1:
			if p := quantile(h.Buckets, d, 0.99); p >= 0 {
				m["sched_p99_ms"] = p * 1e3
			}
		}
	}
}

func copyHist(h *metrics.Float64Histogram) *metrics.Float64Histogram {
	return &metrics.Float64Histogram{Counts: append([]uint64(nil), h.Counts...), Buckets: h.Buckets}
}

func delta(h, prev *metrics.Float64Histogram) []uint64 {
	d := make([]uint64, len(h.Counts))
	for i, n := range h.Counts {
		d[i] = n
		if prev != nil && i < len(prev.Counts) {
			d[i] -= prev.Counts[i]
		}
	}
	return d
}

// upper is bucket j's upper bound (the last finite bound for the open
// last bucket); bucketValue the middle of a finite bucket.
func upper(b []float64, j int) float64 {
	if math.IsInf(b[j+1], 1) {
		return b[j]
	}
	return b[j+1]
}

func bucketValue(b []float64, j int) float64 {
	lo, hi := b[j], upper(b, j)
	if math.IsInf(lo, -1) {
		return hi
	}
	return (lo + hi) / 2
}

// quantile returns the upper bound of the bucket holding quantile q of
// counts, -1 when there are none.
func quantile(b []float64, counts []uint64, q float64) float64 {
	var total uint64
	for _, n := range counts {
		total += n
	}
	if total == 0 {
		return -1
	}
	rank := uint64(math.Ceil(q * float64(total)))
	var seen uint64
	for j, n := range counts {
		seen += n
		if seen >= rank {
			return upper(b, j)
		}
	}
	return upper(b, len(counts)-1)
}

// cpuSampler reads /proc/stat's first line: the host's CPU time in each
// state, over all cores.
type cpuSampler struct {
	busy, steal, total uint64
	cpus               int
	ok                 bool
	tree               treeSampler
}

func (c *cpuSampler) sample() (busy, steal, total uint64, ok bool) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, 0, 0, false
	}
	lines := strings.Split(string(b), "\n")
	f := strings.Fields(lines[0])
	if len(f) < 5 || f[0] != "cpu" {
		return 0, 0, 0, false
	}
	var v []uint64
	for _, s := range f[1:] {
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return 0, 0, 0, false
		}
		v = append(v, n)
	}
	// user nice system idle iowait irq softirq steal guest guest_nice:
	// guest time is counted in user already.
	for i, n := range v {
		if i < 8 {
			total += n
		}
	}
	idle := v[3]
	if len(v) > 4 {
		idle += v[4]
	}
	if len(v) > 7 {
		steal = v[7]
	}
	busy = total - idle
	cpus := 0
	for _, l := range lines[1:] {
		if strings.HasPrefix(l, "cpu") {
			cpus++
		}
	}
	prevBusy, prevSteal, prevTotal, prevOK := c.busy, c.steal, c.total, c.ok
	c.busy, c.steal, c.total, c.cpus, c.ok = busy, steal, total, cpus, true
	if !prevOK {
		return 0, 0, 0, false
	}
	return busy - prevBusy, steal - prevSteal, total - prevTotal, true
}

func (c *cpuSampler) measure(m map[string]float64) {
	tree, treeOK := c.tree.sample()
	busy, steal, total, ok := c.sample()
	if !ok || total == 0 {
		return
	}
	m["cpu_busy"] = float64(busy) / float64(total)
	m["cpu_steal"] = float64(steal) / float64(total)
	m["cpus"] = float64(c.cpus)
	if treeOK {
		m["cpu_harness"] = min(float64(tree.all)/float64(total), 1)
		for role, t := range tree.byRole {
			m["cpu_"+role] = min(float64(t)/float64(total), 1)
		}
	}
}

// treeUse is what the harness's processes used in a second, in clock
// ticks: in all and by role (roleOf).
type treeUse struct {
	all    uint64
	byRole map[string]uint64
}

// treeSampler sums the CPU time (user and system, in clock ticks, the
// unit of /proc/stat) of this process and its descendants, and gives
// what they used since the previous sample, in all and by role. A
// process that exited in between takes its last second with it.
type treeSampler struct {
	prev  map[int]uint64
	roles map[int]string // by pid, read once from its command line
}

func (t *treeSampler) sample() (used treeUse, ok bool) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return treeUse{}, false
	}
	parent := map[int]int{}
	ticks := map[int]uint64{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid ... utime stime: comm may hold spaces.
		i := strings.LastIndexByte(string(b), ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(b[i+1:]))
		if len(f) < 13 {
			continue
		}
		pp, _ := strconv.Atoi(f[1])
		ut, _ := strconv.ParseUint(f[11], 10, 64)
		st, _ := strconv.ParseUint(f[12], 10, 64)
		parent[pid], ticks[pid] = pp, ut+st
	}
	self := os.Getpid()
	in := map[int]bool{self: true}
	var mine func(pid int) bool
	mine = func(pid int) bool {
		if v, ok := in[pid]; ok {
			return v
		}
		in[pid] = false // cycles and unknown parents end here
		pp, ok := parent[pid]
		v := ok && pp > 0 && mine(pp)
		in[pid] = v
		return v
	}
	now := map[int]uint64{}
	roles := map[int]string{}
	used.byRole = map[string]uint64{}
	for pid, tk := range ticks {
		if !mine(pid) {
			continue
		}
		now[pid] = tk
		role, known := t.roles[pid]
		if !known {
			role = roleOf(pid, self)
		}
		roles[pid] = role
		if t.prev != nil {
			d := tk - min(t.prev[pid], tk)
			used.all += d
			used.byRole[role] += d
		}
	}
	first := t.prev == nil
	t.prev, t.roles = now, roles
	return used, !first
}

// roleOf names what a harness process is, from its command line: the
// driver itself, a broker of a local cluster (Kafka's main class), a
// member by its client (its --client flag: a Java member's JVM carries
// the flags of the chaos member it replaced), or other.
func roleOf(pid, self int) string {
	if pid == self {
		return "driver"
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil {
		return "other"
	}
	args := strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
	member := false
	for _, a := range args {
		switch {
		case a == "kafka.Kafka":
			return "broker"
		case a == "member" || a == "chaosbench.member.Main":
			member = true
		case member && strings.HasPrefix(a, "--client="):
			if c := strings.TrimPrefix(a, "--client="); c != "" && !strings.ContainsAny(c, " /") {
				return "member_" + c
			}
		}
	}
	if member {
		return "member"
	}
	return "other"
}

// Processes measures the share of the host's CPU a set of processes used
// between one Sample and the next (their user and system time over the
// host's, both from /proc): a broker's, while the driver warms it; and
// the share their JIT compiler threads used (a JVM's threads named
// "C1 CompilerThread…", "C2 CompilerThread…"), which is what a JVM that
// has just started spends its first minutes on.
type Processes struct {
	pids               []int
	prevTicks, prevJIT uint64
	havePrev           bool
	host               cpuSampler
}

// NewProcesses starts measuring the processes of pids.
func NewProcesses(pids []int) *Processes {
	p := &Processes{pids: pids}
	p.Sample()
	return p
}

// Sample returns the shares of the host's CPU (0 to 1, over all its
// cores) the processes, and their JIT compiler threads, used since the
// previous Sample; ok is false for the first, or when /proc cannot be
// read.
func (p *Processes) Sample() (share, jit float64, ok bool) {
	var ticks, jitTicks uint64
	for _, pid := range p.pids {
		if t, ok := statTicks("/proc/" + strconv.Itoa(pid) + "/stat"); ok {
			ticks += t
		}
		tasks, err := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/task")
		if err != nil {
			continue
		}
		for _, task := range tasks {
			path := "/proc/" + strconv.Itoa(pid) + "/task/" + task.Name()
			comm, err := os.ReadFile(path + "/comm")
			if err != nil || !strings.Contains(string(comm), "CompilerThre") {
				continue
			}
			if t, ok := statTicks(path + "/stat"); ok {
				jitTicks += t
			}
		}
	}
	_, _, total, hostOK := p.host.sample()
	prev, prevJIT, had := p.prevTicks, p.prevJIT, p.havePrev
	p.prevTicks, p.prevJIT, p.havePrev = ticks, jitTicks, true
	if !had || !hostOK || total == 0 {
		return 0, 0, false
	}
	share = min(float64(ticks-min(prev, ticks))/float64(total), 1)
	jit = min(float64(jitTicks-min(prevJIT, jitTicks))/float64(total), 1)
	return share, jit, true
}

// ProcessCPU returns the user and system time process pid has used so
// far, from /proc/<pid>/stat; false if it cannot be read (the process has
// gone, or there is no /proc).
func ProcessCPU(pid int) (time.Duration, bool) {
	ticks, ok := statTicks(fmt.Sprintf("/proc/%d/stat", pid))
	return time.Duration(ticks) * time.Second / userHZ, ok
}

// userHZ is the unit of the times of /proc/<pid>/stat (the kernel's
// USER_HZ, 100 on every architecture Linux exposes to user space).
const userHZ = 100

// statTicks reads a process's or a thread's user and system time, in
// clock ticks, from its stat file.
func statTicks(path string) (uint64, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	// pid (comm) state ppid ... utime stime: comm may hold spaces.
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0, false
	}
	ut, _ := strconv.ParseUint(f[11], 10, 64)
	st, _ := strconv.ParseUint(f[12], 10, 64)
	return ut + st, true
}

package check

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/chaosbench/chaosbench/internal/history"
	"github.com/chaosbench/chaosbench/internal/summary"
)

// The host check (docs/summary.md, `host`): whether the machine, not the
// group, set the cell's timings. A number is only worth something if its
// host was not the bottleneck. Four signals, over the measured time (the
// steady phase to the end of the drain):
//
//   - CPU: the host's CPU busy share, once a second (the driver's probe,
//     from /proc/stat), and who used it (the driver, the brokers, the
//     members by client). A busy CPU is a cause, not a symptom: a host
//     can be busy and still serve every process in time. It decides only
//     when nothing measures its effect directly (no probe drift, no send
//     times): then the host is saturated when at least HostOptions.CPUBusy
//     (95%) busy in at least HostOptions.CPUSeconds (half) of the seconds.
//     Otherwise the direct signals below decide, and the CPU figures say
//     who to blame when they do.
//   - The producer's lag behind its schedule: a record's send minus its
//     intended send time (the pacer's, in every produced event). Beyond
//     HostOptions.ProducerLag (100 ms) at p99, the traffic was not the
//     workload's: records bunch up, and latencies and lags are the
//     producer's, not the group's.
//   - Stalls of the harness processes: the longest lateness, each second,
//     of a 10 ms timer in the driver and in every member (their probes);
//     it takes scheduling delays and GC pauses of the process. Beyond
//     HostOptions.Drift (100 ms) at p99 over the processes' seconds, a
//     process of the harness was regularly not running when it should
//     have, by more than a two-core machine gives with no figure moving
//     (up to about 60 ms in the host-check experiment, quiet or beside
//     CPU hogs: docs/host-check.md).
//   - Members' poll-loop overruns no chaos step explains: how much longer
//     than intended (its processing costs, a slow step's stall included)
//     a member's batch took, the longest each second. A second in which a
//     chaos step acted on that member (its pause, its stop) explains its
//     overrun. Beyond HostOptions.Overrun (1 s, the shipped workloads'
//     heartbeat interval) a member's loop fell behind by more than a
//     heartbeat: its group could have seen it as stalled.
//
// A cell measured on a saturated host keeps its correctness verdicts
// (loss, duplicates, order: the host cannot excuse them), but its timing
// checks (pause, group stop, recovery, latency) become unknown, with the
// reason and the figures: their numbers describe the machine. A history
// without probe events (older runs, another member client) has the
// signals it has; with none at all the check is unknown, and leaves the
// timing verdicts alone.
type hostCheck struct {
	g *model
	// cpu: seconds sampled, and seconds at or above the busy threshold;
	// busy and steal in permille, for their percentiles.
	cpuSeconds, cpuSaturated int
	busy, steal, harness     [1001]int
	cpus                     int
	// byRole: each role's share of the host's CPU, in permille
	// (probe: cpu_driver, cpu_broker, cpu_member_<client>, cpu_other).
	byRole map[string]*[1001]int
	// drift and overrun: the processes' per-second maxima (µs); sched the
	// processes' per-second p99 of their goroutines' wait to run (µs).
	drift, overrun, sched *hdrhistogram.Histogram
	driftMax, schedMax    float64
	overrunMax            float64
	overrunWorst          string
	explained             int // member seconds an act of chaos explained
	gcMax                 float64
	// prodLag: the producer's send minus intended time (µs).
	prodLag *hdrhistogram.Histogram
	probes  int
	// last is each process's previous probe event: the time the next one
	// covers begins there.
	last map[memberKey]int64
}

// hostDefaults gives the thresholds left zero their defaults.
func hostDefaults(o summary.HostOptions) summary.HostOptions {
	if o.CPUBusy <= 0 {
		o.CPUBusy = 0.95
	}
	if o.CPUSeconds <= 0 {
		o.CPUSeconds = 0.5
	}
	if o.ProducerLag <= 0 {
		o.ProducerLag = 100
	}
	if o.Drift <= 0 {
		o.Drift = 100
	}
	if o.Overrun <= 0 {
		o.Overrun = 1000
	}
	return o
}

func newHostCheck(g *model) *hostCheck {
	return &hostCheck{g: g, drift: newLatencyHistogram(), overrun: newLatencyHistogram(), sched: newLatencyHistogram(), prodLag: newLatencyHistogram(),
		last: map[memberKey]int64{}, byRole: map[string]*[1001]int{}}
}

// measured reports whether the pass is in the measured time.
func (c *hostCheck) measured() bool {
	return !summary.PreSteady(c.g.phase) && !c.g.shutdown
}

// produced: a record was acknowledged or failed; its send's lag behind
// the schedule counts either way.
func (c *hostCheck) produced(e *history.Event) {
	if e.SentT == 0 || e.IntendedT == 0 || !c.measured() {
		return
	}
	us := max((e.SentT-e.IntendedT)/1000, 0)
	if us > latencyMaxUs {
		us = latencyMaxUs
	}
	_ = c.prodLag.RecordValue(us)
}

// probe takes in one probe event.
func (c *hostCheck) probe(e *history.Event) {
	if !c.measured() || e.Params == "" {
		return
	}
	var m map[string]float64
	if json.Unmarshal([]byte(e.Params), &m) != nil {
		return
	}
	c.probes++
	if b, ok := m["cpu_busy"]; ok {
		c.cpuSeconds++
		c.busy[permille(b)]++
		c.steal[permille(m["cpu_steal"])]++
		c.harness[permille(m["cpu_harness"])]++
		c.roles(m)
		if b >= c.g.opts.Host.CPUBusy {
			c.cpuSaturated++
		}
		c.cpus = max(c.cpus, int(min(max(m["cpus"], 0), maxCPUs)))
	}
	k := memberKey{e.Proc, e.Inc}
	from, ok := c.last[k]
	if !ok {
		from = e.T - 1e9
	}
	c.last[k] = e.T
	explained := e.Proc != "chaos" && c.acted(e.Proc, from, e.T)
	if d, ok := m["drift_max_ms"]; ok {
		if explained {
			c.explained++
		} else {
			_ = c.drift.RecordValue(usOf(d))
			c.driftMax = max(c.driftMax, d)
		}
	}
	if s, ok := m["sched_p99_ms"]; ok && !explained {
		_ = c.sched.RecordValue(usOf(s))
		c.schedMax = max(c.schedMax, s)
	}
	if o, ok := m["poll_overrun_max_ms"]; ok && !explained {
		_ = c.overrun.RecordValue(usOf(o))
		if o > c.overrunMax {
			c.overrunMax, c.overrunWorst = o, fmt.Sprintf("%s.%d", e.Proc, e.Inc)
		}
	}
	c.gcMax = max(c.gcMax, m["gc_pause_max_ms"])
}

// maxRoles bounds the roles a cell's probes may name: a driver, brokers,
// the three clients' members and others, far below it.
const maxRoles = 16

// roles takes in the CPU each role used in a probe's second; a second in
// which a role used nothing counts as 0 for it, so that every role's
// median is over the same seconds.
func (c *hostCheck) roles(m map[string]float64) {
	for k := range m {
		role, ok := strings.CutPrefix(k, "cpu_")
		if !ok || role == "busy" || role == "steal" || role == "harness" || len(role) > 40 {
			continue
		}
		if _, seen := c.byRole[role]; !seen && len(c.byRole) < maxRoles {
			c.byRole[role] = &[1001]int{}
			c.byRole[role][0] = c.cpuSeconds - 1 // the seconds before it appeared
		}
	}
	for role, h := range c.byRole {
		h[permille(m["cpu_"+role])]++
	}
}

// acted reports whether a chaos step acted on member proc during the
// time a probe event covers (from the process's previous probe event, or
// a second before t, to t): a step targeting it whose act (from the step
// to its end: a pause's resume, a slow step's stall) overlaps that time.
func (c *hostCheck) acted(proc string, from, t int64) bool {
	for i := len(c.g.disr) - 1; i >= 0; i-- {
		d := c.g.disr[i]
		if d.subject == proc && d.out.StartT <= t && d.actEnd >= from {
			return true
		}
	}
	return false
}

// maxCPUs bounds a probe's count of CPUs (its value is the host's, read
// from /proc/stat; a larger one is no host's).
const maxCPUs = 1 << 16

func permille(f float64) int { return int(math.Round(min(max(f, 0), 1) * 1000)) }

// usOf is ms in microseconds within the histogram's range, clamped as a
// float first: a probe's value converted beyond int64 has no defined
// result.
func usOf(ms float64) int64 { return int64(min(max(ms*1000, 0), latencyMaxUs)) }

// quantilePermille is the q-th quantile (0..1) of a permille histogram.
func quantilePermille(h *[1001]int, n int, q float64) float64 {
	if n == 0 {
		return 0
	}
	rank := int(math.Ceil(q * float64(n)))
	seen := 0
	for v, k := range h {
		seen += k
		if seen >= max(rank, 1) {
			return float64(v) / 1000
		}
	}
	return 1
}

func (c *hostCheck) result(s *summary.Summary) {
	o := c.g.opts.Host
	r := &s.Host
	r.Thresholds = o
	r.Probes = c.probes
	r.CPUSeconds, r.CPUSaturatedSeconds, r.CPUs = c.cpuSeconds, c.cpuSaturated, c.cpus
	r.CPUBusyP50 = quantilePermille(&c.busy, c.cpuSeconds, 0.5)
	r.CPUBusyP90 = quantilePermille(&c.busy, c.cpuSeconds, 0.9)
	r.CPUStealP50 = quantilePermille(&c.steal, c.cpuSeconds, 0.5)
	r.CPUHarnessP50 = quantilePermille(&c.harness, c.cpuSeconds, 0.5)
	for role, h := range c.byRole {
		if r.CPUByProcess == nil {
			r.CPUByProcess = map[string]float64{}
		}
		r.CPUByProcess[role] = quantilePermille(h, c.cpuSeconds, 0.5)
	}
	ms := func(h *hdrhistogram.Histogram, q float64) float64 { return float64(h.ValueAtQuantile(q)) / 1e3 }
	if c.prodLag.TotalCount() > 0 {
		r.ProducerLagP99Ms, r.ProducerLagMaxMs = ptr(ms(c.prodLag, 99)), ptr(float64(c.prodLag.Max())/1e3)
	}
	if c.drift.TotalCount() > 0 {
		r.DriftP99Ms, r.DriftMaxMs = ptr(ms(c.drift, 99)), ptr(c.driftMax)
	}
	if c.sched.TotalCount() > 0 {
		r.SchedP99Ms, r.SchedMaxMs = ptr(ms(c.sched, 99)), ptr(c.schedMax)
	}
	if c.overrun.TotalCount() > 0 {
		r.OverrunP99Ms, r.OverrunMaxMs, r.OverrunMember = ptr(ms(c.overrun, 99)), ptr(c.overrunMax), c.overrunWorst
	}
	r.ExplainedSeconds = c.explained
	r.GCPauseMaxMs = c.gcMax
	var why []string
	direct := r.DriftP99Ms != nil || r.ProducerLagP99Ms != nil
	if !direct && c.cpuSeconds > 0 && float64(c.cpuSaturated) >= o.CPUSeconds*float64(c.cpuSeconds) {
		why = append(why, fmt.Sprintf("CPU at least %.0f%% busy in %d of %d s (median %.0f%%, the harness's own %.0f%%, steal %.0f%%, %d cores), and nothing measured its effect directly",
			o.CPUBusy*100, c.cpuSaturated, c.cpuSeconds, r.CPUBusyP50*100, r.CPUHarnessP50*100, r.CPUStealP50*100, c.cpus))
	}
	if r.ProducerLagP99Ms != nil && *r.ProducerLagP99Ms > o.ProducerLag {
		why = append(why, fmt.Sprintf("producer behind its schedule by %s at p99 (max %s)", msText(*r.ProducerLagP99Ms), msText(*r.ProducerLagMaxMs)))
	}
	if r.DriftP99Ms != nil && *r.DriftP99Ms > o.Drift {
		why = append(why, fmt.Sprintf("harness processes woke %s late at p99 (max %s)", msText(*r.DriftP99Ms), msText(*r.DriftMaxMs)))
	}
	if r.OverrunMaxMs != nil && *r.OverrunMaxMs > o.Overrun {
		why = append(why, fmt.Sprintf("member %s's poll loop overran by %s with no chaos step to explain it", r.OverrunMember, msText(*r.OverrunMaxMs)))
	}
	r.Measured = c.probes > 0 || r.ProducerLagP99Ms != nil
	switch {
	case !r.Measured:
		// A history written before the probes: nothing says either way,
		// and the timing checks keep their verdicts.
		r.Check = summary.Check{Verdict: summary.Valid, Expect: "the host was not the bottleneck; not measured (no probe events, no send times)"}
	case len(why) > 0:
		r.Saturated = true
		if used := r.CPUUsers(); used != "" {
			why = append(why, "CPU by process: "+used)
		}
		r.Check = summary.Check{Verdict: summary.Unknown, Expect: "the host was not the bottleneck",
			Reason: "host saturated: " + strings.Join(why, "; ") + ": the timing checks (pause, group stop, recovery, latency) are unknown; loss, duplicates and order stay judged"}
	default:
		r.Check = summary.Check{Verdict: summary.Valid, Expect: "the host was not the bottleneck"}
	}
}

// msText renders milliseconds for a reason.
func msText(v float64) string {
	if v >= 1000 {
		return fmt.Sprintf("%.1f s", v/1000)
	}
	return fmt.Sprintf("%.0f ms", v)
}

package runner_test

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chaosbench/chaosbench/internal/check"
	"github.com/chaosbench/chaosbench/internal/cluster"
	"github.com/chaosbench/chaosbench/internal/history"
	"github.com/chaosbench/chaosbench/internal/kafkatest"
	"github.com/chaosbench/chaosbench/internal/runfolder"
	"github.com/chaosbench/chaosbench/internal/runner"
	"github.com/chaosbench/chaosbench/internal/summary"
)

// skewed is a short cell with a crash in it: the metrics that join two
// processes' clocks (the pause from the driver's kill to a member's first
// record, latency from the producer's intended time to a member's
// processing) move by seconds when the clocks disagree.
const skewed = `
name: clock-skew
seed: 3
duration: 14s
topic: {name: clock-skew, partitions: 6, replication: 1}
keys: {count: 200, format: "k%04d", distribution: uniform}
producer: {client: franz, rate: 300, partitioner: murmur2}
consumer:
  members: 3
  processing: {cost: 1ms, distribution: fixed}
  session_timeout: 3s
  heartbeat_interval: 500ms
  max_poll_interval: 20s
strategies: [cooperative-sticky]
commit_policies: [sync-batch]
clients: [franz]
broker: {config: {group.initial.rebalance.delay.ms: "0"}}
chaos:
  warmup: 2s
  drain_timeout: 60s
  steps:
    - {at: 5s, action: kill, target: m1}
`

// The injected clocks: a member 2 s ahead (killed: it measures only at
// its start), one 0.5 s behind, one 0.75 s ahead, the producer 1.5 s
// behind.
var skews = map[string]time.Duration{
	"m1": 2 * time.Second, "m2": -500 * time.Millisecond, "m3": 750 * time.Millisecond,
	"producer-0": -1500 * time.Millisecond,
}

// A real run whose processes' clocks are skewed gives the verdicts and
// the metrics of the same run on one clock, within what two runs of one
// workload differ by on this host; the same history without its clock
// events does not. Each process measured its skew within its error bound.
func TestRunClockSkewCorrected(t *testing.T) {
	kafkatest.Require(t)
	ctx, cancel := context.WithTimeout(context.Background(), 9*time.Minute)
	defer cancel()
	o := runner.Options{Spec: loadWorkload(t, skewed), Binary: chaosBinary, Warmup: -1,
		Cluster: cluster.Options{Provider: cluster.ProviderLocal, Local: cluster.LocalConfig{HeapMB: 512}}}
	c, err := cluster.Open(ctx, o.ClusterOptions(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	// The Go members' clocks and the Java member's (its own History and
	// ClockMeasure), each against the Go producer's.
	for _, client := range []string{"franz", "java"} {
		t.Run(client, func(t *testing.T) {
			o := o
			if client == "java" {
				kafkatest.RequireJava(t)
				o.Spec = loadWorkload(t, strings.Replace(skewed, "clients: [franz]", "clients: [java]", 1))
			}
			skewedRuns(ctx, t, c, o)
		})
	}
}

// skewedRuns runs o's cell on c twice, on one clock and with skews, and
// checks them against each other.
func skewedRuns(ctx context.Context, t *testing.T, c cluster.Cluster, o runner.Options) {
	run := func(skew map[string]time.Duration) string {
		var out strings.Builder
		o := o
		o.Open, o.ResultsDir, o.Out, o.ClockSkew = c, t.TempDir(), &out, skew
		res, err := runner.Run(ctx, o)
		if err != nil || !res.Complete || len(res.Cells) != 1 {
			t.Fatalf("run: %v %+v\n%s", err, res, out.String())
		}
		return filepath.Join(res.Dir, res.Cells[0])
	}
	plain, skewedCell := run(nil), run(skews)

	// Each process measured its clock: the injected skew, within the
	// bound it gives (and a microsecond of the host's own clock read
	// twice).
	var worstErr, worstResidual [2]time.Duration
	for i, cell := range []string{plain, skewedCell} {
		files, err := history.Files(runfolder.HistoryDir(cell))
		if err != nil {
			t.Fatal(err)
		}
		measured := map[string]int{}
		for _, f := range files {
			evs, err := history.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range evs {
				if e.Kind != history.Clock {
					continue
				}
				measured[e.Proc]++
				want := time.Duration(0)
				if i == 1 {
					want = skews[e.Proc]
				}
				residual := time.Duration(e.ClockOffset) - want
				worstErr[i] = max(worstErr[i], time.Duration(e.ClockError))
				worstResidual[i] = max(worstResidual[i], residual.Abs())
				if residual.Abs() > time.Duration(e.ClockError)+time.Microsecond {
					t.Errorf("%s: %s measured %v +- %v, the clock is %v off", filepath.Base(f), e.Proc, time.Duration(e.ClockOffset), time.Duration(e.ClockError), want)
				}
			}
		}
		// Every process but the driver measures at its start; all but the
		// killed m1 at their end too.
		for _, p := range []string{"producer-0", "m2", "m3"} {
			if measured[p] < 2 {
				t.Errorf("run %d: %s recorded %d clock events, want its start and end", i, p, measured[p])
			}
		}
		if measured["m1"] < 1 || measured["chaos"] != 0 {
			t.Errorf("run %d: clock events by process %v", i, measured)
		}
	}
	t.Logf("clock measurements: error bounds up to %v (one clock) and %v (skewed); offsets off the true one by up to %v and %v",
		worstErr[0], worstErr[1], worstResidual[0], worstResidual[1])

	a := analyze(t, plain)
	b := analyze(t, skewedCell)
	truth := analyze(t, rewound(t, skewedCell, skews))
	raw := analyze(t, rewound(t, skewedCell, nil))
	t.Logf("one clock: %s", figures(a))
	t.Logf("skewed, corrected: %s", figures(b))
	t.Logf("skewed, the injected skews taken out exactly: %s", figures(truth))
	t.Logf("skewed, uncorrected: %s", figures(raw))
	// The same run: corrected by the measurements, or by the skews as
	// injected, it must give the same numbers to the measurements' error.
	// Two processes' errors apart, and the histograms' millisecond.
	tol := 1 + 2*float64(worstErr[1])/1e6
	if d := sameHistory(truth, b, tol); d != "" {
		t.Errorf("the skewed run, corrected by its clock events, differs from it with the skews taken out exactly: %s", d)
	}
	// Another run: the same verdicts, numbers within run-to-run spread.
	if d := sameRun(a, b); d != "" {
		t.Errorf("the skewed run, corrected, differs from the run on one clock: %s", d)
	}
	// The records' timestamps bound each member's corrected clock from
	// below, independently of the endpoint: corrected, no member is
	// behind them; uncorrected, m2 (0.5 s behind) is.
	for _, x := range []struct {
		name string
		s    *check.Analysis
		want string
	}{{"one clock", a, ""}, {"corrected", b, ""}, {"uncorrected", raw, "m2.0"}} {
		var got []string
		for _, f := range x.s.Findings {
			if f.Kind == "processed_before_timestamp" {
				for _, e := range f.Examples {
					got = append(got, e.Proc)
				}
			}
		}
		if strings.Join(got, ",") != x.want {
			t.Errorf("%s: members processing before the records' timestamps: %v, want %q", x.name, got, x.want)
		}
	}
	if sameRun(a, raw) == "" || sameHistory(truth, raw, tol) == "" {
		t.Errorf("the skewed run without its clock events agrees with the run on one clock: the skews never reached the metrics")
	}
}

// sameHistory says how two analyses of one history, its times corrected
// two ways, differ by more than the clock measurements' error (tens of
// microseconds for a Go process, a few milliseconds for a Java member's
// first measurement): the figures may differ by tol ms (the
// measurements' error, and the latency histograms' resolution).
func sameHistory(a, b *check.Analysis, tol float64) string {
	var d []string
	if a.Verdict != b.Verdict || a.Loss.Lost != b.Loss.Lost || a.Overlap.Events != b.Overlap.Events || a.Overlap.Unowned != b.Overlap.Unowned || a.Latency.Negative != b.Latency.Negative {
		d = append(d, figures(a)+" against "+figures(b))
	}
	// The latency of every record: its split between the steady state
	// and the disruptions is not compared. A disruption's catch-up ends
	// when the lag is back to its level before, a test of which events
	// come first: a measurement's microseconds can move it by a record
	// or two, and with them whole stretches of records, and the tail
	// percentiles of each side. The union's count, mean and maximum do
	// not move with the split.
	union := func(s *check.Analysis) (n int64, mean, most float64) {
		st, di := s.Latency.Steady, s.Latency.Disruption
		n = st.Count + di.Count
		if n > 0 {
			mean = (float64(st.Count)*st.Mean + float64(di.Count)*di.Mean) / float64(n)
		}
		return n, mean, max(st.Max, di.Max)
	}
	an, amean, amax := union(a)
	bn, bmean, bmax := union(b)
	// Latency counts the records processed from the steady phase on: one
	// processed within the measurements' error of that phase's start
	// may fall on either side of it.
	if diff := an - bn; diff > max(an/1000, 2) || -diff > max(an/1000, 2) {
		d = append(d, fmt.Sprintf("latency of %d records, %d", an, bn))
	}
	for _, x := range []struct {
		name string
		x, y float64
	}{
		{"pause max", a.Pause.Stats.Max, b.Pause.Stats.Max},
		{"pause p50", a.Pause.Stats.P50, b.Pause.Stats.P50},
		{"group stop", a.GroupStop.MaxMs, b.GroupStop.MaxMs},
		{"latency mean", amean, bmean},
		{"latency max", amax, bmax},
		{"latency steady p50", a.Latency.Steady.P50, b.Latency.Steady.P50},
	} {
		if math.Abs(x.x-x.y) > tol {
			d = append(d, fmt.Sprintf("%s %.3f ms, %.3f ms", x.name, x.x, x.y))
		}
	}
	return strings.Join(d, "; ")
}

func analyze(t *testing.T, cell string) *check.Analysis {
	t.Helper()
	s, err := check.AnalyzeCell(cell, check.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// figures are the numbers sameRun compares.
func figures(s *check.Analysis) string {
	return fmt.Sprintf("verdict %s %v, lost %d, overlap %d, unowned %d, pause max %.0f ms, latency steady p50 %.1f ms p99 %.1f ms, disruption p50 %.1f ms, negative %d",
		s.Verdict, s.VerdictReasons, s.Loss.Lost, s.Overlap.Events, s.Overlap.Unowned, s.Pause.Stats.Max, s.Latency.Steady.P50, s.Latency.Steady.P99, s.Latency.Disruption.P50, s.Latency.Negative)
}

// The tolerance between two runs of the workload on this host: the pause
// after the kill is the session timeout and a rebalance, which two runs
// on a shared two-core host put up to 1.4 s apart (Java members, 2.9 s
// and 4.3 s); so 2 s; the steady latency's
// median is a few milliseconds of processing and polling, up to 250 ms
// apart under load. The skews are 0.5 to 2 s, and move latency by their
// differences (m3 against the producer: 2.25 s). The latency in the
// disruption is left out: its median is either a healthy partition's
// record or one that waited out the kill, and two runs differ in which
// (25 ms and 300 ms were seen on a busy host).
const (
	pauseTolerance   = 2000.0 // ms
	latencyTolerance = 250.0  // ms
)

// sameRun says how two analyses of the workload differ beyond what two
// runs of it differ by; "" when they do not.
func sameRun(a, b *check.Analysis) string {
	var d []string
	// The cell's verdict is compared when neither run was timed on a
	// saturated host: the host check (what else ran on this machine
	// then) makes the timing checks unknown, run by run. The checks
	// that stay judged on a saturated host are compared always.
	if a.Host.Verdict == summary.Valid && b.Host.Verdict == summary.Valid && a.Verdict != b.Verdict {
		d = append(d, fmt.Sprintf("verdict %s, %s", a.Verdict, b.Verdict))
	}
	for _, c := range []struct {
		name string
		x, y summary.Verdict
	}{
		{"loss", a.Loss.Verdict, b.Loss.Verdict},
		{"duplicates", a.Duplicates.Verdict, b.Duplicates.Verdict},
		{"ordering", a.Ordering.Verdict, b.Ordering.Verdict},
		{"overlap", a.Overlap.Verdict, b.Overlap.Verdict},
	} {
		if c.x != c.y {
			d = append(d, fmt.Sprintf("%s verdict %s, %s", c.name, c.x, c.y))
		}
	}
	verdicts := func(s *check.Analysis) map[string]summary.Verdict {
		m := map[string]summary.Verdict{}
		for _, f := range s.Findings {
			m[f.Checker+"/"+f.Kind] = summary.Worst(m[f.Checker+"/"+f.Kind], f.Verdict)
		}
		return m
	}
	va, vb := verdicts(a), verdicts(b)
	for k, v := range va {
		if vb[k] != v {
			d = append(d, fmt.Sprintf("finding %s: %s, %s", k, v, vb[k]))
		}
	}
	for k, v := range vb {
		if _, ok := va[k]; !ok {
			d = append(d, fmt.Sprintf("finding %s: only in the second (%s)", k, v))
		}
	}
	if a.Loss.Lost != b.Loss.Lost || a.Overlap.Events != b.Overlap.Events || a.Overlap.Unowned != b.Overlap.Unowned {
		d = append(d, fmt.Sprintf("lost %d, %d; overlap %d, %d; unowned %d, %d", a.Loss.Lost, b.Loss.Lost,
			a.Overlap.Events, b.Overlap.Events, a.Overlap.Unowned, b.Overlap.Unowned))
	}
	if a.Latency.Negative != 0 || b.Latency.Negative != 0 {
		d = append(d, fmt.Sprintf("records processed before they were meant to be sent: %d, %d", a.Latency.Negative, b.Latency.Negative))
	}
	if x, y := a.Pause.Stats.Max, b.Pause.Stats.Max; math.Abs(x-y) > pauseTolerance {
		d = append(d, fmt.Sprintf("pause max %.0f ms, %.0f ms", x, y))
	}
	for _, l := range []struct {
		name string
		x, y float64
	}{{"steady p50", a.Latency.Steady.P50, b.Latency.Steady.P50}} {
		if math.Abs(l.x-l.y) > latencyTolerance {
			d = append(d, fmt.Sprintf("latency %s %.1f ms, %.1f ms", l.name, l.x, l.y))
		}
	}
	return strings.Join(d, "; ")
}

// rewound copies a cell folder with its history's clock events left
// out and each process's times moved back by its skew: with the skews
// as injected, the history as the processes would have written it on the
// driver's clock; with none, the history as their clocks wrote it, with
// nothing to correct it by.
func rewound(t *testing.T, cell string, skew map[string]time.Duration) string {
	t.Helper()
	out := t.TempDir()
	b, err := os.ReadFile(filepath.Join(cell, "cell.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(out, "cell.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(runfolder.HistoryDir(out), 0o755); err != nil {
		t.Fatal(err)
	}
	files, err := history.Files(runfolder.HistoryDir(cell))
	if err != nil {
		t.Fatal(err)
	}
	back := func(t int64, proc string) int64 {
		if t == 0 {
			return 0
		}
		return t - int64(skew[proc])
	}
	for _, f := range files {
		evs, err := history.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var keep []byte
		for _, e := range evs {
			if e.Kind == history.Clock {
				continue
			}
			e.T = back(e.T, e.Proc)
			switch e.Kind {
			case history.Produced:
				e.IntendedT, e.SentT = back(e.IntendedT, e.Proc), back(e.SentT, e.Proc)
			case history.Processed:
				e.IntendedT = back(e.IntendedT, e.Producer)
			}
			keep = append(history.AppendJSON(keep, &e), '\n')
		}
		if err := os.WriteFile(filepath.Join(runfolder.HistoryDir(out), filepath.Base(f)), keep, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

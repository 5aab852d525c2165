package runner_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chaosbench/chaosbench/internal/cluster"
	"github.com/chaosbench/chaosbench/internal/history"
	"github.com/chaosbench/chaosbench/internal/kafkatest"
	"github.com/chaosbench/chaosbench/internal/member"
	"github.com/chaosbench/chaosbench/internal/runfolder"
	"github.com/chaosbench/chaosbench/internal/runner"
	"github.com/chaosbench/chaosbench/workloads"
)

var chaosBinary string

func TestMain(m *testing.M) { kafkatest.MainWithChaos(m, &chaosBinary) }

// everyStep is a short workload that takes every member action once. The
// member processes for 3 ms a record at 600 records/s over three members:
// busy most of the time, so the pause (longer than the session timeout)
// catches it mid-batch and it goes on processing partitions that the group
// has given to others: a zombie.
const everyStep = `
name: every-step
seed: 11
duration: 22s
topic: {name: every-step, partitions: 6, replication: 1}
keys: {count: 200, format: "k%04d", distribution: zipf, zipf: {exponent: 1.2}}
value: {size: 64}
producer: {client: confluent, rate: 600, partitioner: murmur2}
consumer:
  members: 3
  processing: {cost: 3ms, distribution: fixed}
  max_poll_records: 50
  session_timeout: 2s
  heartbeat_interval: 300ms
  max_poll_interval: 20s
  # Members learn of added partitions on their next metadata refresh:
  # librdkafka's default is 5 minutes.
  properties: {topic.metadata.refresh.interval.ms: "1000"}
strategies: [cooperative-sticky]
commit_policies: [async-sync-on-revoke]
broker: {config: {group.initial.rebalance.delay.ms: "0"}}
chaos:
  warmup: 2s
  # The drain must complete; its bound is generous because a java cell,
  # whose JVMs start slowly, drained in 60 s alone but not beside the
  # rest of the test suite on two cores.
  drain_timeout: 180s
  steps:
    - {at: 3s, action: pause, target: m1, duration: 5s}
    - {at: 10s, action: kill, target: "owner:0"}
    - {at: 12s, action: add, count: 1}
    - {at: 14s, action: restart, target: m3}
    - {at: 16s, action: add_partitions, partitions: 8}
    - {at: 18s, action: slow, target: m4, duration: 1s}
`

func loadWorkload(t *testing.T, text string) *workloads.Spec {
	t.Helper()
	path := filepath.Join(t.TempDir(), "workload.yaml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	spec, err := workloads.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return spec
}

func readHistory(t *testing.T, dir string) []history.Event {
	t.Helper()
	m, err := history.OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	var evs []history.Event
	for {
		e, err := m.Next()
		if errors.Is(err, io.EOF) {
			return evs
		}
		if err != nil {
			t.Fatalf("history: %v", err)
		}
		c := *e
		c.Partitions = append([]int32(nil), e.Partitions...)
		evs = append(evs, c)
	}
}

// timeline lists the run's phases, chaos steps and member states, and
// each incarnation's first assignment, in seconds from the first event:
// what a failure needs to tell a slow member from a missing one.
func timeline(evs []history.Event) string {
	var b strings.Builder
	first := map[string]bool{}
	for _, e := range evs {
		who := fmt.Sprintf("%s.%d", e.Proc, e.Inc)
		var line string
		switch e.Kind {
		case history.Phase:
			line = "phase " + e.Phase
		case history.Chaos:
			line = fmt.Sprintf("chaos %s %s", e.Action, e.Target)
		case history.Member:
			line = fmt.Sprintf("%s %s", who, e.State)
			if e.Proc == "chaos" {
				line = fmt.Sprintf("%s %s", e.Target, e.State)
			}
		case history.Assigned:
			if first[who] {
				continue
			}
			first[who] = true
			line = fmt.Sprintf("%s first assigned %v", who, e.Partitions)
		default:
			continue
		}
		fmt.Fprintf(&b, "  %6.2fs %s\n", float64(e.T-evs[0].T)/1e9, line)
	}
	return b.String()
}

// overlaps counts processed events of a member for a partition that
// another member holds under a newer assignment (docs/design.md, "Overlap").
func overlaps(evs []history.Event) int {
	held := map[string]map[int32]int64{}
	n := 0
	for _, e := range evs {
		who := fmt.Sprintf("%s.%d", e.Proc, e.Inc)
		switch e.Kind {
		case history.Assigned:
			if held[who] == nil {
				held[who] = map[int32]int64{}
			}
			for _, p := range e.Partitions {
				held[who][p] = e.T
			}
		case history.Revoked, history.Lost:
			for _, p := range e.Partitions {
				delete(held[who], p)
			}
		case history.Processed:
			mine, ok := held[who][e.Partition]
			for other, ps := range held {
				if t, has := ps[e.Partition]; other != who && has && (!ok || t > mine) {
					n++
					break
				}
			}
		}
	}
	return n
}

// takenWhilePaused reports whether, after the first step of action on
// member, another process was assigned a partition member held when the
// step began.
func takenWhilePaused(evs []history.Event, member, action string) bool {
	held := map[int32]bool{}
	paused := false
	for _, e := range evs {
		switch {
		case !paused && e.Kind == history.Chaos && e.Action == action && e.Target == member:
			paused = true
		case !paused && e.Proc == member && e.Kind == history.Assigned:
			for _, p := range e.Partitions {
				held[p] = true
			}
		case !paused && e.Proc == member && (e.Kind == history.Revoked || e.Kind == history.Lost):
			for _, p := range e.Partitions {
				delete(held, p)
			}
		case paused && e.Proc != member && e.Kind == history.Assigned:
			for _, p := range e.Partitions {
				if held[p] {
					return true
				}
			}
		}
	}
	return false
}

// TestRunEveryStep runs everyStep on each client: the members are
// confluent-kafka-go's (the strategy's default) and Kafka's Java client's.
func TestRunEveryStep(t *testing.T) {
	kafkatest.Require(t)
	for _, client := range []string{"confluent", "java"} {
		t.Run(client, func(t *testing.T) {
			w := everyStep + "clients: [" + client + "]\n"
			if client == "java" {
				kafkatest.RequireJava(t)
				// Kafka's Java client refreshes its metadata under its
				// own name for the setting.
				w = strings.Replace(w, "topic.metadata.refresh.interval.ms", "metadata.max.age.ms", 1)
				// A new JVM member takes 10-13 s from spawn to its first
				// partitions on a busy two-core host (JVM start, client
				// start, then the cooperative rebalances of the steps
				// around it). The traffic runs on long enough that the
				// added member and the restarted one take partitions
				// before the drain, whoever drains fastest.
				w = strings.Replace(w, "duration: 22s", "duration: 40s", 1)
			}
			runEveryStep(t, w)
		})
	}
}

// runComplete runs spec on a local broker of its own, into a fresh
// results folder, and fails the test unless the run completes with the
// given number of cells; it returns the result and the run's output.
func runComplete(t *testing.T, spec *workloads.Spec, cells int) (runner.Result, string) {
	t.Helper()
	var out strings.Builder
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	res, err := runner.Run(ctx, runner.Options{Spec: spec, ResultsDir: t.TempDir(), Binary: chaosBinary, Warmup: -1,
		Cluster: cluster.Options{Provider: cluster.ProviderLocal, Local: cluster.LocalConfig{HeapMB: 512}}, Out: &out})
	if err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	if !res.Complete || len(res.Cells) != cells {
		t.Fatalf("result %+v", res)
	}
	return res, out.String()
}

func runEveryStep(t *testing.T, workload string) {
	res, out := runComplete(t, loadWorkload(t, workload), 1)
	run, err := runfolder.ReadRun(res.Dir)
	if err != nil || !run.Complete || run.PartialReason != "" {
		t.Errorf("run.json: %+v %v", run, err)
	}
	// Out is not a terminal: plain progress lines, no redrawing.
	if strings.ContainsAny(out, "\r\033") {
		t.Errorf("terminal control characters in output to a non-terminal:\n%q", out)
	}
	if n := strings.Count(out, "rec/s  acked"); n < 2 {
		t.Errorf("%d progress lines, want one every %s of traffic:\n%s", n, 10*time.Second, out)
	}
	for _, f := range []string{"workload.yaml", "plan.json", "cluster-logs/node-1.log"} {
		if _, err := os.Stat(filepath.Join(res.Dir, f)); err != nil {
			t.Error(err)
		}
	}
	cellDir := filepath.Join(res.Dir, res.Cells[0])
	cell, err := runfolder.ReadCell(cellDir)
	if err != nil {
		t.Fatal(err)
	}
	if !cell.Complete || !cell.DrainComplete || cell.Cluster.KafkaVersion != cluster.KafkaVersion || cell.Versions.Librdkafka == "" {
		t.Errorf("cell.json: complete %v drain %v kafka %q librdkafka %q", cell.Complete, cell.DrainComplete, cell.Cluster.KafkaVersion, cell.Versions.Librdkafka)
	}
	if cell.Client == "java" && (cell.Versions.KafkaClients != cluster.KafkaVersion || !strings.Contains(cell.Versions.Java, "version")) {
		t.Errorf("cell.json of a java cell: kafka_clients %q, java %q", cell.Versions.KafkaClients, cell.Versions.Java)
	}
	if got := cell.Cluster.BrokerSettings["group.min.session.timeout.ms"]; got != "2000" {
		t.Errorf("broker group.min.session.timeout.ms = %q: the workload's 2s session timeout needs it lowered", got)
	}
	for _, f := range []string{"producer.hlog", "producer.json", "logs/m1.0.log"} {
		if _, err := os.Stat(filepath.Join(cellDir, f)); err != nil {
			t.Error(err)
		}
	}

	evs := readHistory(t, runfolder.HistoryDir(cellDir))
	actions := map[string]int{}
	acked := map[[2]int64]bool{}
	processed := map[[2]int64]bool{}
	// A record the client acknowledged without its offset (offset -1:
	// librdkafka does, around a partition count change; docs/history.md)
	// is found by its key and seq, which members read from its stamp.
	type keySeq struct {
		key string
		seq int64
	}
	ackedNoOffset := map[keySeq]bool{}
	processedKeys := map[keySeq]bool{}
	incs := map[string]bool{}
	for _, e := range evs {
		switch e.Kind {
		case history.Chaos:
			if e.Err != "" {
				t.Errorf("step %d %s %s failed: %s", e.Step, e.Action, e.Target, e.Err)
			}
			actions[e.Action]++
		case history.Produced:
			switch {
			case e.Err != "":
			case e.Offset < 0:
				ackedNoOffset[keySeq{e.Key, e.Seq}] = true
			default:
				acked[[2]int64{int64(e.Partition), e.Offset}] = true
			}
		case history.Processed:
			processed[[2]int64{int64(e.Partition), e.Offset}] = true
			processedKeys[keySeq{e.Key, e.Seq}] = true
			incs[fmt.Sprintf("%s.%d", e.Proc, e.Inc)] = true
		}
	}
	want := map[string]int{"pause": 1, "resume": 1, "kill": 1, "add": 1, "restart": 1, "add_partitions": 1, "slow": 1}
	for a, n := range want {
		if actions[a] != n {
			t.Errorf("%d %s events, want %d (all: %v)", actions[a], a, n, actions)
		}
	}
	lost := 0
	for k := range acked {
		if !processed[k] {
			lost++
		}
	}
	for k := range ackedNoOffset {
		if !processedKeys[k] {
			lost++
		}
	}
	if len(ackedNoOffset) > 0 {
		t.Logf("%d records acknowledged without their offset", len(ackedNoOffset))
	}
	if n := len(acked) + len(ackedNoOffset); lost > 0 || n < 10000 {
		t.Errorf("%d of %d acknowledged records never processed", lost, n)
	}
	// m1..m3, m4 added, m3 restarted: five incarnations processed records
	// (m1 and the killed owner of partition 0 are among the first three).
	if len(incs) < 5 {
		t.Errorf("records processed by %d incarnations %v, want at least 5; the members' timeline:\n%s", len(incs), incs, timeline(evs))
	}
	// The 5 s pause of m1 outlasts its 2 s session: the group gives m1's
	// partitions to others while it is frozen. Whether m1 then processes
	// what it had fetched before it learns (zombie processing) depends on
	// which of its threads the scheduler runs first after SIGCONT: it is
	// logged, not required.
	if !takenWhilePaused(evs, "m1", "pause") {
		t.Errorf("the 5s pause of m1 (session timeout 2s): no other member was given a partition of m1's while it was frozen; the members' timeline:\n%s", timeline(evs))
	}
	t.Logf("zombie processing after the pause: %d processed events overlapped a newer owner", overlaps(evs))
	// Records per partition: add_partitions made 8, and the producer used
	// the new ones.
	parts := map[int64]bool{}
	for k := range acked {
		parts[k[0]] = true
	}
	if len(parts) != 8 {
		t.Errorf("records went to %d partitions, want 8 after add_partitions", len(parts))
	}
}

// TestRunInterruptedIsPartial interrupts a run mid-cell: the results are
// marked partial, with the reason, and nothing it started is left running.
func TestRunInterruptedIsPartial(t *testing.T) {
	kafkatest.Require(t)
	spec := loadWorkload(t, strings.Replace(everyStep, "duration: 22s", "duration: 60s", 1))
	results := t.TempDir()
	ctx, cancel := context.WithCancelCause(context.Background())
	// Mid-cell: a few seconds into the traffic, however long the broker
	// took to start on this host.
	out := &watchedOutput{want: "group formed", then: func() {
		time.AfterFunc(5*time.Second, func() { cancel(errors.New("interrupted by SIGINT")) })
	}}
	res, err := runner.Run(ctx, runner.Options{Spec: spec, ResultsDir: results, Binary: chaosBinary, Warmup: -1,
		Cluster: cluster.Options{Provider: cluster.ProviderLocal, Local: cluster.LocalConfig{HeapMB: 512}}, Out: out})
	if !errors.Is(err, runner.ErrInterrupted) {
		t.Fatalf("err = %v, want ErrInterrupted\n%s", err, out.String())
	}
	run, rerr := runfolder.ReadRun(res.Dir)
	if rerr != nil || run.Complete || !strings.Contains(run.PartialReason, "interrupted") {
		t.Errorf("run.json: %+v %v", run, rerr)
	}
	cell, cerr := runfolder.ReadCell(filepath.Join(res.Dir, res.Cells[0]))
	if cerr != nil || cell.Complete || !strings.Contains(cell.PartialReason, "SIGINT") {
		t.Errorf("cell.json: complete %v, reason %q, %v", cell.Complete, cell.PartialReason, cerr)
	}
	// Nothing of the run is left running: its members and its broker.
	if ps := processesMatching(t, "--history-dir "+results); len(ps) > 0 {
		t.Errorf("member processes left running: %q", ps)
	}
	if ps := processesMatching(t, res.Dir); len(ps) > 0 {
		t.Errorf("processes of the run left running: %q", ps)
	}
}

// watchedOutput is a run's output that calls then, once, when the output
// first holds want.
type watchedOutput struct {
	want string
	then func()
	mu   sync.Mutex
	b    strings.Builder
	seen bool
}

func (w *watchedOutput) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.b.Write(p)
	if !w.seen && strings.Contains(w.b.String(), w.want) {
		w.seen = true
		w.then()
	}
	return len(p), nil
}

func (w *watchedOutput) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

// processesMatching returns the command lines of the running processes
// (other than this one) whose command line contains s, read from /proc.
func processesMatching(t *testing.T, s string) []string {
	t.Helper()
	dirs, err := filepath.Glob("/proc/[0-9]*/cmdline")
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no processes under /proc (%v): cannot check for leftovers", err)
	}
	self := fmt.Sprintf("/proc/%d/cmdline", os.Getpid())
	var out []string
	for _, f := range dirs {
		b, err := os.ReadFile(f)
		if err != nil || f == self {
			continue // gone meanwhile
		}
		if cmd := strings.ReplaceAll(strings.TrimRight(string(b), "\x00"), "\x00", " "); strings.Contains(cmd, s) {
			out = append(out, cmd)
		}
	}
	return out
}

// TestRunWaitsForEveryMember runs more members than partitions, where the
// first members to join own every partition while the rest are still
// joining: the traffic starts only once the broker has them all, so a run
// without chaos steps sees no rebalance while records flow. Both
// protocols: the classic group's eager range and the consumer protocol's.
func TestRunWaitsForEveryMember(t *testing.T) {
	kafkatest.Require(t)
	spec := loadWorkload(t, `
name: crowded
seed: 5
duration: 4s
topic: {name: crowded, partitions: 2, replication: 1}
keys: {count: 50}
producer: {client: confluent, rate: 200}
consumer: {members: 6, session_timeout: 6s, heartbeat_interval: 1s}
strategies: [range, consumer-uniform]
commit_policies: [sync-batch]
clients: [confluent]
`)
	res, _ := runComplete(t, spec, 2)
	for _, cell := range res.Cells {
		recordsConsumerSettings(t, spec, filepath.Join(res.Dir, cell))
		evs := readHistory(t, runfolder.HistoryDir(filepath.Join(res.Dir, cell)))
		var traffic, drain int64
		for _, e := range evs {
			if e.Kind == history.Phase && e.Phase == "warmup" {
				traffic = e.T
			}
			if e.Kind == history.Phase && e.Phase == "drain" {
				drain = e.T
			}
		}
		if traffic == 0 || drain == 0 {
			t.Fatalf("%s: no warmup or drain phase in the history", cell)
		}
		moves := 0
		for _, e := range evs {
			if (e.Kind == history.Assigned || e.Kind == history.Revoked || e.Kind == history.Lost) &&
				len(e.Partitions) > 0 && e.T > traffic && e.T < drain {
				moves++
			}
		}
		if moves > 0 {
			t.Errorf("%s: %d partition moves while the traffic ran, with no chaos step; the members' timeline:\n%s", cell, moves, timeline(evs))
		}
	}
}

// recordsConsumerSettings checks that a cell's record holds its members'
// consumer settings (member.Config.ConsumerSettings), the group's as the
// coordinator applies them, which equal them on a local cluster.
func recordsConsumerSettings(t *testing.T, spec *workloads.Spec, cellDir string) {
	t.Helper()
	rec, err := runfolder.ReadCell(cellDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range spec.Cells() {
		if c.Name != rec.Cell {
			continue
		}
		want := member.WorkloadConfig(spec, c).ConsumerSettings().Map()
		if !maps.Equal(rec.Consumer, want) {
			t.Errorf("%s: cell.json's consumer settings\n got %v\nwant %v", rec.Cell, rec.Consumer, want)
		}
		return
	}
	t.Errorf("cell.json names cell %q, which the workload does not have", rec.Cell)
}

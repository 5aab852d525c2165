package runner_test

import (
	"context"
	"encoding/json"
	"fmt"
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

// controlled is a short cell whose steps go through every way the driver
// reaches a member: a control command (slow) and the launcher's signals
// (kill, stop), each at the owner of a partition, which the driver
// resolves while the cell runs.
const controlled = `
name: control-channel
seed: 5
duration: 9s
topic: {name: control-channel, partitions: 6, replication: 1}
keys: {count: 200, format: "k%04d", distribution: uniform}
producer: {client: franz, rate: 300, partitioner: murmur2}
consumer:
  members: 3
  processing: {cost: 1ms, distribution: fixed}
  session_timeout: 2s
  heartbeat_interval: 300ms
  max_poll_interval: 20s
strategies: [cooperative-sticky]
commit_policies: [sync-batch]
clients: [franz]
broker: {config: {group.initial.rebalance.delay.ms: "0"}}
chaos:
  warmup: 1s
  drain_timeout: 60s
  steps:
    - {at: 2s, action: slow, target: "owner:1", duration: 300ms}
    - {at: 3s, action: kill, target: "owner:0"}
    - {at: 6s, action: stop, target: "owner:2"}
`

// The network control channel against the standard input's, on one
// cell run on each: every step acts (no step fails), each owner:<p>
// resolves to a member that held p by its own history, though with the
// network channel the driver read no member's file (the coordinator
// answered), the members took their commands from the endpoint, and the
// analysis gives both runs the same verdicts.
func TestRunNetworkControl(t *testing.T) {
	kafkatest.Require(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	o := runner.Options{Spec: loadWorkload(t, controlled), Binary: chaosBinary, Warmup: -1,
		Cluster: cluster.Options{Provider: cluster.ProviderLocal, Local: cluster.LocalConfig{HeapMB: 512}}}
	c, err := cluster.Open(ctx, o.ClusterOptions(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	stdin := controlledRun(ctx, t, c, o, runner.ControlStdin)
	network := controlledRun(ctx, t, c, o, runner.ControlNetwork)
	a, b := analyze(t, stdin), analyze(t, network)
	t.Logf("stdin:   %s", figures(a))
	t.Logf("network: %s", figures(b))
	if d := sameVerdicts(a, b); d != "" {
		t.Errorf("the network channel's run differs from the standard input's: %s", d)
	}
}

// The Java member on the network channel, in a consumer-protocol group,
// whose coordinator describes it by another request: its steps act as
// the Go members' do, and its verdicts are valid.
func TestRunNetworkControlJava(t *testing.T) {
	kafkatest.Require(t)
	kafkatest.RequireJava(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	w := strings.Replace(controlled, "clients: [franz]", "clients: [java]", 1)
	w = strings.Replace(w, "strategies: [cooperative-sticky]", "strategies: [consumer-uniform]", 1)
	o := runner.Options{Spec: loadWorkload(t, w), Binary: chaosBinary, Warmup: -1,
		Cluster: cluster.Options{Provider: cluster.ProviderLocal, Local: cluster.LocalConfig{HeapMB: 512}}}
	c, err := cluster.Open(ctx, o.ClusterOptions(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	a := analyze(t, controlledRun(ctx, t, c, o, runner.ControlNetwork))
	t.Logf("network: %s", figures(a))
	for name, v := range map[string]summary.Verdict{"loss": a.Loss.Verdict, "duplicates": a.Duplicates.Verdict,
		"ordering": a.Ordering.Verdict, "overlap": a.Overlap.Verdict} {
		if v != summary.Valid {
			t.Errorf("%s: %s", name, v)
		}
	}
}

// controlledRun runs o's cell on c with the given control channel and
// checks what the channel must give whichever it is; it returns the
// cell's folder.
func controlledRun(ctx context.Context, t *testing.T, c cluster.Cluster, o runner.Options, channel string) string {
	t.Helper()
	var out strings.Builder
	o.Open, o.ResultsDir, o.Out, o.Control = c, t.TempDir(), &out, channel
	start := time.Now()
	res, err := runner.Run(ctx, o)
	if err != nil || !res.Complete || len(res.Cells) != 1 {
		t.Fatalf("%s: run: %v %+v\n%s", channel, err, res, out.String())
	}
	t.Logf("%s: the run took %s", channel, time.Since(start).Round(100*time.Millisecond))
	if run, err := runfolder.ReadRun(res.Dir); err != nil || run.Control != channel {
		t.Errorf("%s: run.json records the control channel %q (%v)", channel, run.Control, err)
	}
	cell := filepath.Join(res.Dir, res.Cells[0])
	evs := readHistory(t, runfolder.HistoryDir(cell))
	steps := map[string]int{}
	for _, e := range evs {
		if e.Kind == history.Chaos {
			if e.Err != "" {
				t.Errorf("%s: step %d %s %s.%d failed: %s", channel, e.Step, e.Action, e.Target, e.TargetInc, e.Err)
			}
			steps[e.Action]++
		}
	}
	if steps["slow"] != 1 || steps["kill"] != 1 || steps["stop"] != 1 {
		t.Errorf("%s: steps %v, want one slow, kill and stop", channel, steps)
	}
	if d := ownersHeld(evs); d != "" {
		t.Errorf("%s: %s; the members' timeline:\n%s", channel, d, timeline(evs))
	}
	// The members took their commands where the channel says: the slowed
	// member stalled, and with the network channel, each connected.
	logs, _ := filepath.Glob(filepath.Join(cell, "logs", "m*.log"))
	stalled, connected := 0, 0
	for _, f := range logs {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), "(slow)") {
			stalled++
		}
		if strings.Contains(string(b), "control: connected to") {
			connected++
		}
	}
	wantConnected := 0
	if channel == runner.ControlNetwork {
		wantConnected = len(logs)
	}
	if stalled != 1 || connected != wantConnected || len(logs) != 3 {
		t.Errorf("%s: of %d members' logs, %d show the slow step's stall (want 1), %d a connection to the control endpoint (want %d)",
			channel, len(logs), stalled, connected, wantConnected)
	}
	return cell
}

// ownersHeld says which owner:<p> step was resolved to a member that did
// not hold p by its own history: assigned p and not revoked at the step,
// or assigned it within 500 ms after (a coordinator's Stable group is
// the members' a moment before they write it).
func ownersHeld(evs []history.Event) string {
	held := map[string]map[int32]bool{}
	type pending struct {
		who  string
		p    int32
		step int
		t    int64
	}
	var open []pending
	var bad []string
	for _, e := range evs {
		who := fmt.Sprintf("%s.%d", e.Proc, e.Inc)
		switch e.Kind {
		case history.Assigned:
			if held[who] == nil {
				held[who] = map[int32]bool{}
			}
			for _, p := range e.Partitions {
				held[who][p] = true
			}
		case history.Revoked, history.Lost:
			for _, p := range e.Partitions {
				delete(held[who], p)
			}
		case history.Chaos:
			var params struct {
				OwnerOf *int32 `json:"owner_of"`
			}
			if e.Params == "" || json.Unmarshal([]byte(e.Params), &params) != nil || params.OwnerOf == nil || e.Err != "" {
				continue
			}
			target := fmt.Sprintf("%s.%d", e.Target, e.TargetInc)
			if !held[target][*params.OwnerOf] {
				open = append(open, pending{target, *params.OwnerOf, e.Step, e.T})
			}
		}
		kept := open[:0]
		for _, o := range open {
			switch {
			case held[o.who][o.p]:
			case e.T-o.t > int64(500*time.Millisecond):
				bad = append(bad, fmt.Sprintf("step %d: %s did not hold partition %d", o.step, o.who, o.p))
			default:
				kept = append(kept, o)
			}
		}
		open = kept
	}
	for _, o := range open {
		bad = append(bad, fmt.Sprintf("step %d: %s never held partition %d", o.step, o.who, o.p))
	}
	return strings.Join(bad, "; ")
}

// sameVerdicts says how two analyses' verdicts differ: the cell's (when
// neither was timed on a saturated host, which makes the timing checks
// unknown run by run), the verdicts that stay judged on any host, and
// each finding's.
func sameVerdicts(a, b *check.Analysis) string {
	var d []string
	if a.Host.Verdict == summary.Valid && b.Host.Verdict == summary.Valid && a.Verdict != b.Verdict {
		d = append(d, fmt.Sprintf("verdict %s %v, %s %v", a.Verdict, a.VerdictReasons, b.Verdict, b.VerdictReasons))
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
	if a.Loss.Lost != 0 || b.Loss.Lost != 0 {
		d = append(d, fmt.Sprintf("lost %d, %d", a.Loss.Lost, b.Loss.Lost))
	}
	return strings.Join(d, "; ")
}

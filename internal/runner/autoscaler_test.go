package runner_test

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/chaosbench/chaosbench/internal/history"
	"github.com/chaosbench/chaosbench/internal/kafkatest"
	"github.com/chaosbench/chaosbench/internal/runfolder"
	"github.com/chaosbench/chaosbench/internal/vocab"
)

// surge is a lag surge and a quiet period under the autoscaler. A member
// processes a record in 10 ms: about 100 records/s. 400 records/s for
// 12 s outruns one member by 300 a second, so the lag passes 100 per
// member (lagThreshold) within the first polls and the group grows; then
// 20 records/s for 14 s lets it drain, and after the 4 s scale-down
// window the group shrinks back.
const surge = `
name: autoscale-surge
seed: 5
duration: 26s
topic: {name: autoscale-surge, partitions: 6, replication: 1}
keys: {count: 600, format: "k%04d", distribution: uniform}
value: {size: 64}
producer: {client: franz, rate: 400, steps: [{at: 12s, rate: 20}]}
consumer:
  members: 1
  processing: {cost: 10ms, distribution: fixed}
  max_poll_records: 20
  session_timeout: 3s
  heartbeat_interval: 500ms
  max_poll_interval: 20s
strategies: [cooperative-sticky]
commit_policies: [sync-batch]
clients: [franz]
broker: {config: {group.initial.rebalance.delay.ms: "0"}}
autoscaler:
  lagThreshold: 100
  minReplicaCount: 1
  maxReplicaCount: 4
  pollingInterval: 2s
  cooldownPeriod: 10s
  scaleDownStabilizationWindow: 4s
chaos:
  warmup: 2s
  drain_timeout: 60s
`

// TestAutoscalerSurge runs the surge on a real broker: the autoscaler
// reads the lag, grows the group in the surge and shrinks it in the quiet,
// every scale step a chaos step recorded with its decision before it
// acts, and every member it stops gone gracefully (SIGTERM, exit 0).
func TestAutoscalerSurge(t *testing.T) {
	kafkatest.Require(t)
	res, out := runComplete(t, loadWorkload(t, surge), 1)
	cellDir := filepath.Join(res.Dir, res.Cells[0])
	evs := readHistory(t, runfolder.HistoryDir(cellDir))
	var ups, downs, peak int
	var lastUp, firstDown int64
	stopped := map[string]bool{}
	for _, e := range evs {
		switch {
		case e.Kind == history.Chaos:
			var p struct {
				Autoscaler bool  `json:"autoscaler"`
				From       int   `json:"from"`
				To         int   `json:"to"`
				Lag        int64 `json:"lag"`
			}
			if err := json.Unmarshal([]byte(e.Params), &p); err != nil || !p.Autoscaler {
				t.Errorf("chaos event %s %s without the autoscaler's decision: %q", e.Action, e.Target, e.Params)
				continue
			}
			if e.Err != "" {
				t.Errorf("scale step %d %s %s failed: %s", e.Step, e.Action, e.Target, e.Err)
			}
			switch e.Action {
			case vocab.ActionAdd:
				if p.To <= p.From || p.Lag <= 100*int64(p.From) {
					t.Errorf("scale-up %d -> %d at lag %d: a scale-up needs a lag above lagThreshold per member", p.From, p.To, p.Lag)
				}
				ups++
				lastUp = e.T
				peak = max(peak, p.To)
			case vocab.ActionStop:
				if p.To >= p.From {
					t.Errorf("scale-down %d -> %d", p.From, p.To)
				}
				downs++
				stopped[e.Target] = true
				if firstDown == 0 {
					firstDown = e.T
				}
			default:
				t.Errorf("autoscaler step %s", e.Action)
			}
		case e.Kind == history.Member && e.State == history.StateExited && e.Proc == "chaos" && stopped[e.Target]:
			if e.ExitStatus != 0 || e.Signal != "" {
				t.Errorf("%s stopped by the autoscaler exited with status %d signal %q, want a graceful exit", e.Target, e.ExitStatus, e.Signal)
			}
		}
	}
	if ups == 0 || downs == 0 || peak < 2 || firstDown < lastUp {
		t.Fatalf("scale-ups %d (peak %d), scale-downs %d, want the group grown in the surge and shrunk after it\n%s\n%s",
			ups, peak, downs, timeline(evs), out)
	}
	t.Logf("%d members added, %d stopped, peak %d", ups, downs, peak)
}

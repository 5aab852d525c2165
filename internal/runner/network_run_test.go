package runner_test

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/chaosbench/chaosbench/internal/check"
	"github.com/chaosbench/chaosbench/internal/history"
	"github.com/chaosbench/chaosbench/internal/kafkatest"
	"github.com/chaosbench/chaosbench/internal/runfolder"
)

// netBlips cuts m1 off for half its session timeout, then m2 for twice
// it, through their own network paths (docs/network.md).
const netBlips = `
name: net-blips
seed: 7
duration: 26s
topic: {name: net-blips, partitions: 6, replication: 1}
keys: {count: 200, format: "k%04d"}
value: {size: 64}
producer: {rate: 300, partitioner: murmur2}
consumer:
  members: 3
  processing: {cost: 2ms, distribution: fixed}
  max_poll_records: 50
  session_timeout: 3s
  heartbeat_interval: 300ms
  max_poll_interval: 20s
strategies: [cooperative-sticky]
commit_policies: [sync-batch]
broker: {config: {group.initial.rebalance.delay.ms: "0"}}
chaos:
  warmup: 3s
  drain_timeout: 120s
  steps:
    - {at: 5s, action: disconnect, target: m1, duration: 1500ms}
    - {at: 11s, action: disconnect, target: m2, duration: 6s}
`

// TestRunNetworkBlips runs netBlips on each Go client: the member cut off
// for half the session timeout keeps its partitions and goes on after the
// heal; the one cut off for twice it is evicted (others take its
// partitions) while the rest go on processing, and comes back.
func TestRunNetworkBlips(t *testing.T) {
	kafkatest.Require(t)
	res, _ := runComplete(t, loadWorkload(t, netBlips+"clients: [franz, confluent]\n"), 2)
	for _, c := range res.Cells {
		t.Run(c, func(t *testing.T) {
			dir := filepath.Join(res.Dir, c)
			checkNetworkBlips(t, readHistory(t, runfolder.HistoryDir(dir)))
			a, err := check.AnalyzeCell(dir, check.Options{})
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range a.Summary.Disruptions {
				if d.Step > 0 {
					t.Logf("disruption of step %d (%s %s): cause %s, %d rebalances", d.Step, d.Action, d.Target, d.Cause, d.Generations)
				}
			}
		})
	}
}

func checkNetworkBlips(t *testing.T, evs []history.Event) {
	t.Helper()
	var at, healed [3]int64 // by step
	owned := map[string][]int32{}
	for _, e := range evs {
		if e.Kind != history.Chaos {
			continue
		}
		if e.Err != "" {
			t.Errorf("step %d %s %s failed: %s", e.Step, e.Action, e.Target, e.Err)
		}
		switch e.Action {
		case "disconnect":
			at[e.Step] = e.T
		case "heal":
			healed[e.Step] = e.T
		}
	}
	for s := 1; s <= 2; s++ {
		if at[s] == 0 || healed[s] <= at[s] {
			t.Fatalf("step %d: disconnect at %d, heal at %d:\n%s", s, at[s], healed[s], timeline(evs))
		}
	}
	// Rebalances and processing, by window.
	var shortRebalance []string
	longTaken := false
	processedIn := func(who string, from, to int64) int {
		n := 0
		for _, e := range evs {
			if e.Kind == history.Processed && e.Proc == who && e.T >= from && e.T < to {
				n++
			}
		}
		return n
	}
	for _, e := range evs {
		who := fmt.Sprintf("%s.%d", e.Proc, e.Inc)
		switch e.Kind {
		case history.Assigned:
			if e.T >= at[1] && e.T < at[2] {
				shortRebalance = append(shortRebalance, fmt.Sprintf("%s assigned %v", who, e.Partitions))
			}
			if e.T >= at[2] && e.T < healed[2] && e.Proc != "m2" {
				for _, p := range e.Partitions {
					if slices.Contains(owned["m2"], p) {
						longTaken = true
					}
				}
			}
			if e.T < at[2] {
				owned[e.Proc] = append(owned[e.Proc], e.Partitions...)
			}
		case history.Revoked, history.Lost:
			if e.T >= at[1] && e.T < at[2] && len(e.Partitions) > 0 {
				shortRebalance = append(shortRebalance, fmt.Sprintf("%s %s %v", who, e.Kind, e.Partitions))
			}
		}
	}
	if len(shortRebalance) > 0 {
		t.Errorf("m1 cut off for half the session timeout caused a rebalance: %v\n%s", shortRebalance, timeline(evs))
	}
	if n := processedIn("m1", healed[1], at[2]); n == 0 {
		t.Errorf("m1 processed nothing after its path healed:\n%s", timeline(evs))
	}
	if !longTaken {
		t.Errorf("m2 cut off for twice the session timeout kept its partitions %v:\n%s", owned["m2"], timeline(evs))
	}
	for _, m := range []string{"m1", "m3"} {
		if n := processedIn(m, at[2]+1e9, healed[2]); n == 0 {
			t.Errorf("%s processed nothing while only m2 was cut off:\n%s", m, timeline(evs))
		}
	}
	if n := processedIn("m2", healed[2], 1<<62); n == 0 {
		t.Errorf("m2 never processed again after its path healed:\n%s", timeline(evs))
	}
}

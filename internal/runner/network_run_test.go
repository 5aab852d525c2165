package runner_test

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/chaosbench/chaosbench/internal/check"
	"github.com/chaosbench/chaosbench/internal/history"
	"github.com/chaosbench/chaosbench/internal/kafkatest"
	"github.com/chaosbench/chaosbench/internal/runfolder"
)

// netBlips cuts m1 off for half its session timeout, then m2 for twice
// it, then resets m3's connections for a second, then cuts the producer
// off, each through its own network path (docs/network.md).
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
    - {at: 19s, action: reset, target: m3, duration: 1s}
    - {at: 21s, action: disconnect, target: producer, duration: 2s}
`

// TestRunNetworkBlips runs netBlips on each client: the member cut off
// for half the session timeout keeps its partitions and goes on after the
// heal; the one cut off for twice it is evicted (others take its
// partitions) while the rest go on processing, and comes back. The
// analysis follows both: the first never evicted, the second evicted
// and learning it.
func TestRunNetworkBlips(t *testing.T) {
	kafkatest.Require(t)
	t.Run("go", func(t *testing.T) { runNetworkBlips(t, "[franz, confluent]", 2) })
	t.Run("consumer-protocol", func(t *testing.T) {
		runNetworkBlips(t, "[franz, confluent]\nstrategies: [consumer-uniform]", 2)
	})
	t.Run("java", func(t *testing.T) {
		kafkatest.RequireJava(t)
		runNetworkBlips(t, "[java]", 1)
	})
}

func runNetworkBlips(t *testing.T, clients string, cells int) {
	w := netBlips + "clients: " + clients + "\n"
	if strings.Contains(clients, "strategies:") {
		w = strings.Replace(w, "strategies: [cooperative-sticky]\n", "", 1)
	}
	res, _ := runComplete(t, loadWorkload(t, w), cells)
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
			if a.Summary.Loss.Lost != 0 || a.Summary.Ordering.ProducerDuplicates != 0 {
				t.Errorf("lost %d, written twice by the producer %d: want none, the idempotent producer cut off for 2 s included",
					a.Summary.Loss.Lost, a.Summary.Ordering.ProducerDuplicates)
			}
			steps := a.Summary.Network.Steps
			if len(steps) != 3 {
				t.Fatalf("network steps followed: %+v, want the three on members", steps)
			}
			for _, st := range steps {
				learned := "-"
				if st.LearnedAfterHealMs != nil {
					learned = fmt.Sprintf("%.0f ms after the heal", *st.LearnedAfterHealMs)
				}
				t.Logf("step %d on %s: evicted %v, learned %s, zombie records %d (duplicates %d), failed commits %d, zombie commits %d",
					st.Step, st.Target, st.EvictedT > 0, learned, st.ZombieRecords, st.ZombieDuplicates, st.FailedCommits, st.ZombieCommits)
			}
			if short := steps[0]; short.EvictedT != 0 || short.ZombieRecords != 0 {
				t.Errorf("the half-session cut followed as %+v: want never evicted, no zombie record", short)
			}
			if long := steps[1]; long.EvictedT == 0 || long.LearnedT == 0 || long.HealT == 0 {
				t.Errorf("the twice-session cut followed as %+v: want evicted, healed, and learning it", long)
			}
		})
	}
}

func checkNetworkBlips(t *testing.T, evs []history.Event) {
	t.Helper()
	var at, healed [5]int64 // by step
	owned := map[string][]int32{}
	for _, e := range evs {
		if e.Kind != history.Chaos {
			continue
		}
		if e.Err != "" {
			t.Errorf("step %d %s %s failed: %s", e.Step, e.Action, e.Target, e.Err)
		}
		switch e.Action {
		case "disconnect", "reset":
			at[e.Step] = e.T
		case "heal":
			healed[e.Step] = e.T
		}
	}
	for s := 1; s <= 4; s++ {
		if at[s] == 0 || healed[s] <= at[s] {
			t.Fatalf("step %d: fault at %d, heal at %d:\n%s", s, at[s], healed[s], timeline(evs))
		}
	}
	if at[3]-healed[2] < 1e9 || at[4]-at[3] < 1e9 {
		t.Fatalf("steps out of their times: %v %v", at, healed)
	}
	// Evictions and processing, by window. A client may give up its
	// partitions itself after a short cut (librdkafka, when its own
	// session timer ran out before a heartbeat got through): that is its
	// behaviour, measured; the coordinator evicting it is not.
	var shortEviction []string
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
			if e.T >= at[1] && e.T < at[2] && e.Proc != "m1" {
				for _, p := range e.Partitions {
					if slices.Contains(owned["m1"], p) {
						shortEviction = append(shortEviction, fmt.Sprintf("%s assigned %d", who, p))
					}
				}
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
		}
	}
	if len(shortEviction) > 0 {
		t.Errorf("m1 cut off for half the session timeout lost partitions to others: %v\n%s", shortEviction, timeline(evs))
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
	if n := processedIn("m3", healed[3], 1<<62); n == 0 {
		t.Errorf("m3 never processed again after its connections were reset:\n%s", timeline(evs))
	}
}

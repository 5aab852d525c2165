package runner_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chaosbench/chaosbench/internal/check"
	"github.com/chaosbench/chaosbench/internal/cluster"
	"github.com/chaosbench/chaosbench/internal/kafkatest"
	"github.com/chaosbench/chaosbench/internal/runfolder"
	"github.com/chaosbench/chaosbench/internal/runner"
)

// fairStart is three cells of steady traffic, no chaos: what the host did
// during each should not depend on which ran first.
const fairStart = `
name: fair-start
seed: 5
duration: 12s
topic: {name: fair-start, partitions: 6, replication: 1}
keys: {count: 200, format: "k%04d", distribution: uniform}
producer: {client: franz, rate: 500, partitioner: murmur2}
consumer:
  members: 2
  processing: {cost: 1ms, distribution: fixed}
  session_timeout: 6s
  heartbeat_interval: 1s
  max_poll_interval: 20s
strategies: [range, cooperative-sticky, consumer-uniform]
clients: [franz]
broker: {config: {group.initial.rebalance.delay.ms: "0"}}
chaos: {warmup: 2s, drain_timeout: 60s}
`

// The first cell of a run meets a warmed broker: the run records its
// warm-up, and the first cell's host figures are those of the cells after
// it (its CPU no busier than theirs, within what two cores shared with
// the rest of a test suite swing by), not a broker's start-up.
func TestFirstCellMeetsAWarmBroker(t *testing.T) {
	kafkatest.Require(t)
	var out strings.Builder
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	res, err := runner.Run(ctx, runner.Options{Spec: loadWorkload(t, fairStart), ResultsDir: t.TempDir(), Binary: chaosBinary,
		Cluster: cluster.Options{Provider: cluster.ProviderLocal, Local: cluster.LocalConfig{HeapMB: 512}}, Out: &out})
	if err != nil || !res.Complete {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	run, err := runfolder.ReadRun(res.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if w := run.Warmup; w == nil || w.Seconds < 10 || len(w.BrokerCPU) < 5 || !strings.Contains(out.String(), "warm-up: ") {
		t.Fatalf("run.json's warm-up: %+v\n%s", run.Warmup, out.String())
	}
	t.Logf("warm-up: %.0f s, settled %v, brokers' CPU %v, their JIT's %v", run.Warmup.Seconds, run.Warmup.Settled, run.Warmup.BrokerCPU, run.Warmup.JITCPU)
	var busy []float64
	for _, c := range run.Cells {
		a, err := check.AnalyzeCell(filepath.Join(res.Dir, c), check.Options{})
		if err != nil {
			t.Fatal(err)
		}
		h := a.Host
		t.Logf("%s: CPU busy p50 %.0f%%, %d of %d s saturated, by process %s", c, 100*h.CPUBusyP50, h.CPUSaturatedSeconds, h.CPUSeconds, h.CPUUsers())
		if h.CPUSeconds == 0 || h.CPUByProcess["broker"] == 0 || h.CPUByProcess["member_franz"] == 0 {
			t.Errorf("%s: no CPU figures by process: %+v", c, h)
		}
		// The brokers' share, not the host's busy time: beside the rest of
		// the test suite the host is as busy as the other packages make it,
		// which no warm-up changes.
		busy = append(busy, h.CPUByProcess["broker"])
	}
	if later := max(busy[1], busy[2]); busy[0] > later+0.10 {
		t.Errorf("the brokers used %.0f%% of the host in the first cell, at most %.0f%% in the later ones: the first cell still pays for a warming broker (warm-up %+v)",
			100*busy[0], 100*later, run.Warmup)
	}
}

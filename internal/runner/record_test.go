package runner

import (
	"maps"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chaosbench/chaosbench/internal/runfolder"

	"github.com/chaosbench/chaosbench/internal/vocab"
	"github.com/chaosbench/chaosbench/workloads"
)

// The cell record's consumer settings, by Kafka name: the members' own
// (member.Config.ConsumerSettings), the group's included, and the
// workload's client properties with their secrets masked. Known answers
// for either protocol; TestRunWaitsForEveryMember holds a run's cell.json
// to member.Config.ConsumerSettings.
func TestRecordedConsumerSettings(t *testing.T) {
	spec := &workloads.Spec{Consumer: workloads.Consumer{
		Members: 3, MaxPollRecords: 77, SessionTimeout: 7 * time.Second, HeartbeatInterval: 700 * time.Millisecond,
		MaxPollInterval: 70 * time.Second, AutoCommitInterval: 1234 * time.Millisecond, StaticMembership: true,
		Properties: map[string]string{"fetch.min.bytes": "7", "sasl.password": "hush"},
	}}
	common := map[string]string{
		"max.poll.interval.ms": "70000", "max.poll.records": "77", "auto.commit.interval.ms": "1234",
		"group.instance.id": "<member name>", "fetch.min.bytes": "7", "sasl.password": "***",
	}
	for strategy, own := range map[string]map[string]string{
		vocab.Sticky: {"group.protocol": "classic", "partition.assignment.strategy": "sticky",
			"session.timeout.ms": "7000", "heartbeat.interval.ms": "700"},
		vocab.ConsumerRange: {"group.protocol": "consumer", "group.remote.assignor": "range",
			"group.consumer.session.timeout.ms": "7000", "group.consumer.heartbeat.interval.ms": "700"},
	} {
		c := &cellRun{opts: &Options{Spec: spec}, cell: workloads.Cell{Strategy: strategy, CommitPolicy: vocab.PolicyAuto, Client: vocab.ClientFranz}}
		want := maps.Clone(common)
		maps.Copy(want, own)
		if got := c.consumerSettings(); !maps.Equal(got, want) {
			t.Errorf("%s:\n got %v\nwant %v", strategy, got, want)
		}
	}
}

// TestClusterRecordNamesLogsInTheRun: a node's log inside the run folder
// is recorded relative to it, whether the run folder was given absolute
// or relative to the working directory (the Makefile's results/...); a
// log outside the run keeps its absolute path.
func TestClusterRecordNamesLogsInTheRun(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	rel := filepath.Join("testdata-run", "20260101T000000Z-x")
	outside := filepath.Join(t.TempDir(), "node-3.log")
	for _, runDir := range []string{rel, filepath.Join(wd, rel)} {
		c := &cellRun{runDir: runDir, info: runfolder.ClusterInfo{Nodes: []runfolder.NodeInfo{
			{ID: 1, Log: filepath.Join(wd, rel, "cluster-logs", "node-1.log")},
			{ID: 3, Log: outside},
		}}}
		got := c.clusterRecord().Nodes
		if want := filepath.Join("cluster-logs", "node-1.log"); got[0].Log != want {
			t.Errorf("run folder %s: node 1's log recorded as %q, expected %q", runDir, got[0].Log, want)
		}
		if got[1].Log != outside {
			t.Errorf("run folder %s: a log outside the run recorded as %q, expected %q", runDir, got[1].Log, outside)
		}
		if c.info.Nodes[0].Log == got[0].Log {
			t.Errorf("the cluster's own info was changed")
		}
	}
}

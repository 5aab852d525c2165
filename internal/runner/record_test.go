package runner

import (
	"maps"
	"testing"
	"time"

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

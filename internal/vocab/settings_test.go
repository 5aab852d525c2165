package vocab_test

import (
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chaosbench/chaosbench/internal/vocab"
)

func consumerConfig(strategy, instance string) vocab.ConsumerConfig {
	return vocab.ConsumerConfig{Strategy: strategy, SessionTimeout: 6500 * time.Millisecond, HeartbeatInterval: 800 * time.Millisecond,
		MaxPollInterval: 90 * time.Second, AutoCommitInterval: 1250 * time.Millisecond, MaxPollRecords: 77, InstanceID: instance}
}

// Known answers: a classic strategy states its assignor and its timings
// to the client; a consumer-protocol one gives the timings to the group.
func TestConsumerSettings(t *testing.T) {
	for _, tc := range []struct {
		strategy, instance string
		client, group      map[string]string
	}{
		{vocab.CooperativeSticky, "m4", map[string]string{
			"group.protocol": "classic", "partition.assignment.strategy": "cooperative-sticky",
			"session.timeout.ms": "6500", "heartbeat.interval.ms": "800", "max.poll.interval.ms": "90000",
			"max.poll.records": "77", "auto.commit.interval.ms": "1250", "group.instance.id": "m4",
		}, map[string]string{}},
		{vocab.ConsumerUniform, "", map[string]string{
			"group.protocol": "consumer", "group.remote.assignor": "uniform",
			"max.poll.interval.ms": "90000", "max.poll.records": "77", "auto.commit.interval.ms": "1250",
		}, map[string]string{"group.consumer.session.timeout.ms": "6500", "group.consumer.heartbeat.interval.ms": "800"}},
	} {
		ss := consumerConfig(tc.strategy, tc.instance).Settings()
		if got := ss.In(vocab.InClient).Map(); !maps.Equal(got, tc.client) {
			t.Errorf("%s: the client's settings\n got %v\nwant %v", tc.strategy, got, tc.client)
		}
		if got := ss.In(vocab.InGroup).Map(); !maps.Equal(got, tc.group) {
			t.Errorf("%s: the group's settings\n got %v\nwant %v", tc.strategy, got, tc.group)
		}
		if !slices.IsSortedFunc(ss, func(a, b vocab.Setting) int { return strings.Compare(a.Name, b.Name) }) {
			t.Errorf("%s: settings not sorted by name: %v", tc.strategy, ss)
		}
	}
}

// The rule of KIP-848, for every strategy: a consumer-protocol client
// gets none of the settings its client refuses, and only its group gets
// the session timings, under names the group configs take without
// "group.".
func TestConsumerProtocolTimingsAreTheGroups(t *testing.T) {
	refused := []string{vocab.SettingSessionTimeout, vocab.SettingHeartbeatInterval, vocab.SettingAssignmentStrategy}
	for _, st := range vocab.Strategies() {
		ss := consumerConfig(st.Name, "m1").Settings()
		client, group := ss.In(vocab.InClient).Map(), ss.In(vocab.InGroup)
		if len(client)+len(group) != len(ss) {
			t.Errorf("%s: a setting with no place: %v", st.Name, ss)
		}
		if client[vocab.SettingGroupProtocol] != string(st.Protocol) {
			t.Errorf("%s: group.protocol=%s, want %s", st.Name, client[vocab.SettingGroupProtocol], st.Protocol)
		}
		if st.Protocol == vocab.Classic {
			if len(group) > 0 {
				t.Errorf("%s: a classic group gets %v", st.Name, group)
			}
			continue
		}
		for _, k := range refused {
			if v, ok := client[k]; ok {
				t.Errorf("%s: the client gets %s=%s under the consumer protocol", st.Name, k, v)
			}
		}
		var names []string
		for _, s := range group {
			names = append(names, s.GroupConfig())
		}
		if want := []string{"consumer.heartbeat.interval.ms", "consumer.session.timeout.ms"}; !slices.Equal(names, want) {
			t.Errorf("%s: group configs %v, want %v", st.Name, names, want)
		}
		if client[vocab.SettingRemoteAssignor] != st.Assignor {
			t.Errorf("%s: group.remote.assignor=%s, want %s", st.Name, client[vocab.SettingRemoteAssignor], st.Assignor)
		}
	}
}

package member

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/chaosbench/chaosbench/internal/vocab"
)

// settingsConfigs are a member's configurations over every strategy,
// both memberships and an auto-committing and a committing policy, with
// timings none of the clients' defaults has.
func settingsConfigs() []Config {
	var out []Config
	for _, st := range vocab.StrategyNames() {
		for _, pol := range []string{vocab.PolicyAuto, vocab.PolicyAutoAfterProcess, vocab.PolicySyncBatch} {
			for _, static := range []bool{false, true} {
				cfg := Defaults()
				cfg.Name, cfg.Inc, cfg.HistoryDir, cfg.Bootstrap, cfg.Group, cfg.Topic = "m3", 2, "/tmp", "127.0.0.1:1", "g", "t"
				cfg.Strategy, cfg.Policy, cfg.Static = st, pol, static
				cfg.SessionTimeout, cfg.HeartbeatInterval = 7*time.Second, 700*time.Millisecond
				cfg.MaxPollInterval, cfg.AutoCommitInterval, cfg.MaxPollRecords = 70*time.Second, 1234*time.Millisecond, 77
				out = append(out, cfg)
			}
		}
	}
	return out
}

func settingsCase(cfg Config) string {
	return fmt.Sprintf("%s/%s/static=%v", cfg.Strategy, cfg.Policy, cfg.Static)
}

// librdkafka gets every consumer setting of the client's by its Kafka
// name, but max.poll.records, which it does not have (the member's own
// batch), and none of the group's.
func TestConfluentConfigIsTheConsumerSettings(t *testing.T) {
	for _, cfg := range settingsConfigs() {
		conf := confluentConfig(&cfg)
		for _, s := range cfg.ConsumerSettings() {
			v, ok := conf[s.Name]
			switch {
			case s.Place == vocab.InGroup || s.Name == vocab.SettingMaxPollRecords:
				if ok {
					t.Errorf("%s: librdkafka gets %s=%v", settingsCase(cfg), s.Name, v)
				}
			case fmt.Sprint(v) != s.Value:
				t.Errorf("%s: librdkafka gets %s=%v, want %s", settingsCase(cfg), s.Name, v, s.Value)
			}
		}
	}
}

// franz-go gets every consumer setting of the client's, read back from
// the client it makes; a setting it has no mapping for is an error.
func TestFranzOptsAreTheConsumerSettings(t *testing.T) {
	for _, cfg := range settingsConfigs() {
		if cfg.Static && vocab.IsConsumerProtocol(cfg.Strategy) {
			continue // franz-go refuses it (checkClient)
		}
		opts, err := franzGroupOpts(&cfg)
		if err != nil {
			t.Errorf("%s: %v", settingsCase(cfg), err)
			continue
		}
		cl, err := kgo.NewClient(opts...)
		if err != nil {
			t.Fatalf("%s: %v", settingsCase(cfg), err)
		}
		ms := func(opt any) string {
			return fmt.Sprint(cl.OptValue(opt).(time.Duration).Milliseconds())
		}
		var balancers []string
		for _, b := range cl.OptValue(kgo.Balancers).([]kgo.GroupBalancer) {
			balancers = append(balancers, b.ProtocolName())
		}
		instance := cl.OptValues(kgo.InstanceID)
		got := map[string]string{
			vocab.SettingMaxPollInterval: ms(kgo.RebalanceTimeout),
			"balancers":                  strings.Join(balancers, ","),
		}
		if instance[1].(bool) {
			got[vocab.SettingInstanceID] = instance[0].(string)
		}
		if cl.OptValue(kgo.ServerSideBalancer).(bool) {
			got[vocab.SettingGroupProtocol] = "consumer"
		} else {
			got[vocab.SettingGroupProtocol] = "classic"
			got[vocab.SettingSessionTimeout] = ms(kgo.SessionTimeout)
			got[vocab.SettingHeartbeatInterval] = ms(kgo.HeartbeatInterval)
		}
		if !cl.OptValue(kgo.DisableAutoCommit).(bool) {
			got[vocab.SettingAutoCommitInterval] = ms(kgo.AutoCommitInterval)
		}
		cl.Close()

		want := cfg.ConsumerSettings().In(vocab.InClient).Map()
		delete(want, vocab.SettingMaxPollRecords) // PollRecords' argument
		if !cfg.autoCommit() {
			delete(want, vocab.SettingAutoCommitInterval)
		}
		// franz-go's balancers by the protocol's names: its sticky one
		// asks the broker for uniform.
		want["balancers"] = map[string]string{
			vocab.Range: "range", vocab.RoundRobin: "roundrobin", vocab.Sticky: "sticky",
			vocab.CooperativeSticky: "cooperative-sticky", vocab.ConsumerRange: "range", vocab.ConsumerUniform: "sticky",
		}[cfg.Strategy]
		delete(want, vocab.SettingAssignmentStrategy)
		delete(want, vocab.SettingRemoteAssignor)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: franz-go's options\n got %v\nwant %v", settingsCase(cfg), got, want)
		}
	}
}

func TestFranzRefusesAnUnmappedSetting(t *testing.T) {
	ss := vocab.Settings{{Name: "group.consumer.telepathy.ms", Value: "1", Place: vocab.InClient}}
	if _, err := franzSettingOpts(ss, false); err == nil || !strings.Contains(err.Error(), "group.consumer.telepathy.ms") {
		t.Errorf("an unmapped setting: %v, want an error naming it", err)
	}
	ss = vocab.Settings{{Name: vocab.SettingRemoteAssignor, Value: "simple", Place: vocab.InClient}}
	if _, err := franzSettingOpts(ss, false); err == nil || !strings.Contains(err.Error(), "simple") {
		t.Errorf("an assignor franz-go has no balancer for: %v, want an error naming it", err)
	}
	// The group's settings are the broker's, not the client's.
	ss = vocab.Settings{{Name: vocab.SettingGroupSessionTimeout, Value: "6000", Place: vocab.InGroup}}
	if opts, err := franzSettingOpts(ss, false); err != nil || len(opts) > 0 {
		t.Errorf("a group setting: %d options, %v; want none", len(opts), err)
	}
}

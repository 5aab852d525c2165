package workloads

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func TestNetworkStepErrors(t *testing.T) {
	head := "duration: 1m\nchaos:\n  steps:\n"
	for _, tc := range []struct{ name, steps, want string }{
		{"no duration", "    - {at: 10s, action: disconnect, target: m1}\n", "w.yaml:4: chaos.steps[0]: no duration: expected duration: how long the network fault lasts"},
		{"no target", "    - {at: 10s, action: reset, duration: 5s}\n", "w.yaml:4: chaos.steps[0]: no target: expected target: a member name (m1, m2, ...), random, owner:<partition> or producer"},
		{"all", "    - {at: 10s, action: disconnect, target: all, duration: 5s}\n", `w.yaml:4: chaos.steps[0].target: got "all", expected a member name`},
		{"unknown member", "    - {at: 10s, action: disconnect, target: m9, duration: 5s}\n", "w.yaml:4: chaos.steps[0].target: no member m9 at this point"},
		{"negative duration", "    - {at: 10s, action: bandwidth, target: m1, duration: -5s, bytes_per_second: 10000}\n", "w.yaml:4: chaos.steps[0].duration: got -5s, expected a duration > 0"},
		{"latency without delay", "    - {at: 10s, action: latency, target: m1, duration: 5s}\n", "w.yaml:4: chaos.steps[0]: no delay: expected delay"},
		{"delay too long", "    - {at: 10s, action: latency, target: m1, duration: 5s, delay: 2m}\n", "w.yaml:4: chaos.steps[0].delay: got 2m0s, expected a duration > 0 and at most 1m0s"},
		{"jitter above delay", "    - {at: 10s, action: latency, target: m1, duration: 5s, delay: 10ms, jitter: 20ms}\n", "w.yaml:4: chaos.steps[0].jitter: got 20ms, expected a duration from 0 to the delay (10ms)"},
		{"bandwidth without rate", "    - {at: 10s, action: bandwidth, target: producer, duration: 5s}\n", "w.yaml:4: chaos.steps[0]: no bytes_per_second"},
		{"rate too low", "    - {at: 10s, action: bandwidth, target: producer, duration: 5s, bytes_per_second: 100}\n", "w.yaml:4: chaos.steps[0].bytes_per_second: got 100, expected from 1024"},
		{"field of another action", "    - {at: 10s, action: disconnect, target: m1, duration: 5s, delay: 1s}\n", "w.yaml:4: chaos.steps[0].delay: not used by disconnect (which takes target, broker, duration)"},
		{"delay on a kill", "    - {at: 10s, action: kill, target: m1, delay: 1s}\n", "w.yaml:4: chaos.steps[0].delay: not used by kill"},
		{"overlapping faults", "    - {at: 10s, action: disconnect, target: m1, duration: 10s}\n    - {at: 15s, action: latency, target: m1, duration: 5s, delay: 10ms}\n", "w.yaml:5: chaos.steps[1].at: m1's network already carries the fault of an earlier step until 20s"},
		{"too many members", "    - {at: 10s, action: disconnect, target: m1, duration: 5s}\n    - {at: 20s, action: add, count: 46}\n", "chaos.steps: network steps with 49 members (added ones included): expected at most 48"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("w.yaml", []byte(head+tc.steps))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v\nwant an error containing %q", err, tc.want)
			}
		})
	}
}

func TestNetworkPlan(t *testing.T) {
	s := parse(t, "duration: 1m\nconsumer: {members: 2}\nchaos:\n  steps:\n"+
		"    - {at: 10s, action: latency, target: m2, duration: 5s, delay: 30ms, jitter: 5ms}\n"+
		"    - {at: 15s, action: disconnect, target: m2, duration: 4s}\n"+
		"    - {at: 20s, action: bandwidth, target: producer, duration: 5s, bytes_per_second: 65536}\n"+
		"    - {at: 30s, action: add}\n")
	if got, want := s.NetPaths(), []string{"producer", "m1", "m2", "m3"}; !slices.Equal(got, want) {
		t.Errorf("NetPaths %v, want %v", got, want)
	}
	p := s.ChaosPlan()
	if p[0].Delay != 30*time.Millisecond || p[0].Jitter != 5*time.Millisecond || p[0].Duration != 5*time.Second || p[0].Target != "m2" {
		t.Errorf("latency step planned as %+v", p[0])
	}
	if p[2].BytesPerSecond != 65536 || p[2].Target != ProducerTarget {
		t.Errorf("bandwidth step planned as %+v", p[2])
	}
	if plain := parse(t, "duration: 1m\n"); plain.HasNetworkSteps() || plain.NetPaths() != nil {
		t.Errorf("a workload without network steps needs paths: %v", plain.NetPaths())
	}
}

func TestBrokerNetworkStep(t *testing.T) {
	head := "duration: 1m\nbroker: {brokers: 3}\nchaos:\n  steps:\n"
	for _, tc := range []struct{ name, steps, want string }{
		{"one broker", "    - {at: 10s, action: disconnect, broker: 1, duration: 15s}\n", "w.yaml:4: chaos.steps[0].broker: a network step on a broker needs a cluster of 3 brokers"},
		{"target and broker", "    - {at: 10s, action: disconnect, target: m1, broker: 1, duration: 15s}\n", "w.yaml:5: chaos.steps[0].broker: both target and broker are set"},
		{"bad id", "    - {at: 10s, action: disconnect, broker: 4, duration: 15s}\n", `w.yaml:5: chaos.steps[0].broker: got "4", expected a broker node id from 1 to 3, random or coordinator`},
		{"overlap", "    - {at: 10s, action: disconnect, broker: 1, duration: 15s}\n    - {at: 20s, action: latency, broker: 2, duration: 5s, delay: 5ms}\n", "w.yaml:6: chaos.steps[1].at: the brokers' links already carry the fault of an earlier step until 25s"},
		{"killed broker", "    - {at: 10s, action: broker_kill, broker: 2}\n    - {at: 20s, action: disconnect, broker: 2, duration: 15s}\n", "w.yaml:6: chaos.steps[1].broker: broker 2 was killed by an earlier step"},
		{"broker on a kill", "    - {at: 10s, action: kill, target: m1, broker: 2}\n", "chaos.steps[0].broker: not used by kill"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := head + tc.steps
			if tc.name == "one broker" {
				src = "duration: 1m\nchaos:\n  steps:\n" + tc.steps
			}
			_, err := Parse("w.yaml", []byte(src))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v\nwant an error containing %q", err, tc.want)
			}
		})
	}
	s := parse(t, head+
		"    - {at: 10s, action: disconnect, broker: 2, duration: 15s}\n"+
		"    - {at: 30s, action: disconnect, broker: coordinator, duration: 5s}\n")
	if !s.HasNetworkSteps() || !s.BrokerNetwork() {
		t.Errorf("HasNetworkSteps %v, BrokerNetwork %v: expected both", s.HasNetworkSteps(), s.BrokerNetwork())
	}
	if s.NetPaths() != nil {
		t.Errorf("a broker's cut gives the members paths: %v", s.NetPaths())
	}
	p := s.ChaosPlan()
	if p[0].Target != "broker-2" || p[0].Broker != 2 || p[0].Duration != 15*time.Second {
		t.Errorf("broker cut planned as %+v", p[0])
	}
	if p[1].Target != CoordinatorTarget || p[1].Broker != 0 {
		t.Errorf("coordinator cut planned as %+v", p[1])
	}
	want := "the controller will not fence the broker"
	if !slices.ContainsFunc(s.Warnings, func(w string) bool {
		return strings.Contains(w, "chaos.steps[1].duration") && strings.Contains(w, want)
	}) {
		t.Errorf("no warning that a 5 s cut is shorter than the broker session timeout: %v", s.Warnings)
	}
	if slices.ContainsFunc(s.Warnings, func(w string) bool { return strings.Contains(w, "chaos.steps[0].duration") }) {
		t.Errorf("a 15 s cut warned of: %v", s.Warnings)
	}
	r := parse(t, head+"    - {at: 10s, action: reset, broker: random, duration: 10s}\n")
	if st := r.ChaosPlan()[0]; st.Broker < 1 || st.Broker > 3 || !st.Random || st.Target != BrokerTarget(st.Broker) {
		t.Errorf("random broker planned as %+v", st)
	}
}

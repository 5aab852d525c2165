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
		{"field of another action", "    - {at: 10s, action: disconnect, target: m1, duration: 5s, delay: 1s}\n", "w.yaml:4: chaos.steps[0].delay: not used by disconnect (which takes target, duration)"},
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

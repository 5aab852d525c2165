package probe

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/chaosbench/chaosbench/internal/history"
)

type memSink struct {
	mu  sync.Mutex
	evs []history.Event
}

func (s *memSink) Append(e *history.Event) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.evs = append(s.evs, *e)
	return nil
}
func (s *memSink) Flush() error { return nil }
func (s *memSink) Close() error { return nil }

// TestProbeRecordsEverySecond runs a probe for a little over two periods
// and reads its events: every measurement is there, in range, and a
// stall of the process shows as drift.
func TestProbeRecordsEverySecond(t *testing.T) {
	sink := &memSink{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		Run(ctx, Options{Sink: sink, Host: true, Every: 300 * time.Millisecond,
			Extra: func() map[string]float64 { return map[string]float64{"poll_overrun_max_ms": 1.5} }})
	}()
	// A stop-the-world pause long enough to be seen: a GC, and a busy
	// spell of the only processor this test lets Go use.
	time.Sleep(350 * time.Millisecond)
	prev := runtime.GOMAXPROCS(1)
	runtime.GC()
	end := time.Now().Add(80 * time.Millisecond)
	for time.Now().Before(end) {
	}
	runtime.GOMAXPROCS(prev)
	time.Sleep(400 * time.Millisecond)
	cancel()
	<-done
	sink.mu.Lock()
	defer sink.mu.Unlock()
	if len(sink.evs) < 2 {
		t.Fatalf("%d probe events, want at least 2", len(sink.evs))
	}
	maxDrift := 0.0
	for _, e := range sink.evs {
		if e.Kind != history.Probe {
			t.Fatalf("kind %q", e.Kind)
		}
		var m map[string]float64
		if err := json.Unmarshal([]byte(e.Params), &m); err != nil {
			t.Fatalf("params %q: %v", e.Params, err)
		}
		for _, k := range []string{"drift_max_ms", "gc_pause_ms", "gc_pause_max_ms", "poll_overrun_max_ms"} {
			if _, ok := m[k]; !ok {
				t.Errorf("%s missing from %s", k, e.Params)
			}
		}
		if runtime.GOOS == "linux" {
			if b, ok := m["cpu_busy"]; !ok || b < 0 || b > 1 || m["cpus"] < 1 || m["cpu_harness"] < 0 || m["cpu_harness"] > 1 {
				t.Errorf("cpu figures in %s", e.Params)
			}
		}
		maxDrift = max(maxDrift, m["drift_max_ms"])
	}
	if maxDrift < 2 {
		t.Errorf("the longest drift was %.1f ms, want the 80 ms busy spell to show", maxDrift)
	}
}

// A harness process is named by its command line: the driver itself, a
// broker, a member by its client, anything else; and the CPU a busy
// child uses is counted under its role.
func TestRoles(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	start := func(args ...string) *exec.Cmd {
		cmd := exec.Command("bash", append([]string{"-c", `end=$((SECONDS+3)); while [ $SECONDS -lt $end ]; do :; done`}, args...)...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		return cmd
	}
	broker := start("kafka.Kafka", "server.properties")
	member := start("member", "--name=m1", "--client=franz")
	jvm := start("-cp", "x.jar", "chaosbench.member.Main", "--client=java")
	other := start("anything")
	self := os.Getpid()
	for cmd, want := range map[*exec.Cmd]string{broker: "broker", member: "member_franz", jvm: "member_java", other: "other"} {
		if got := roleOf(cmd.Process.Pid, self); got != want {
			t.Errorf("%v: role %q, want %q", cmd.Args, got, want)
		}
	}
	if got := roleOf(self, self); got != "driver" {
		t.Errorf("this process: %q, want driver", got)
	}
	var tree treeSampler
	tree.sample()
	time.Sleep(time.Second)
	used, ok := tree.sample()
	if !ok || used.byRole["broker"] == 0 || used.byRole["member_franz"] == 0 || used.byRole["member_java"] == 0 {
		t.Errorf("a second of four busy children: %+v", used)
	}
	if sum := used.byRole["broker"] + used.byRole["member_franz"] + used.byRole["member_java"] + used.byRole["other"] + used.byRole["driver"]; sum != used.all {
		t.Errorf("roles sum to %d ticks, all %d", sum, used.all)
	}
}

package probe

import (
	"context"
	"encoding/json"
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

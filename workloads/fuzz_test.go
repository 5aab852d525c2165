package workloads

import (
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// Fuzz budgets: a workload is parsed and validated in far less than a
// second, with a few MiB beyond what its text holds; past these, an input
// loops or allocates without bound.
const (
	fuzzParseTime  = 5 * time.Second
	fuzzParseAlloc = 64 << 20
	fuzzParseBytes = 1000 // allocation allowed per byte of input
)

// FuzzParse: whatever a workload file holds, Parse returns within a bound
// of time and allocation, without panicking, its error is of a bounded
// size, and a workload it accepts is within the schema's limits. Seeds:
// testdata/fuzz/FuzzParse (hostile workloads) and the shipped workloads.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("*.yaml")
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		start := time.Now()
		// A Parse that never returns is caught by the watchdog: the
		// panic ends the fuzzing process, which keeps the input.
		watchdog := time.AfterFunc(2*fuzzParseTime, func() {
			debug.SetTraceback("all")
			panic("Parse still running after " + (2 * fuzzParseTime).String())
		})
		defer watchdog.Stop()
		s, err := Parse("f.yaml", data)
		elapsed := time.Since(start)
		runtime.ReadMemStats(&after)
		if elapsed > fuzzParseTime {
			t.Fatalf("Parse took %v", elapsed)
		}
		if grew := after.TotalAlloc - before.TotalAlloc; grew > fuzzParseAlloc+fuzzParseBytes*uint64(len(data)) {
			t.Fatalf("Parse allocated %d bytes for %d bytes of input", grew, len(data))
		}
		if err != nil {
			if n := len(err.Error()); n > 64<<10 {
				t.Fatalf("an error of %d bytes", n)
			}
			return
		}
		if end, ok := s.TrafficEnd(); ok && end > MaxDuration {
			t.Fatalf("accepted traffic of %v", end)
		}
		members := s.Consumer.Members
		for _, st := range s.ChaosPlan() {
			if st.At < 0 || st.At > MaxDuration || st.Duration > MaxDuration || st.Interval > MaxDuration {
				t.Fatalf("accepted step %d at %v (duration %v, interval %v)", st.Step, st.At, st.Duration, st.Interval)
			}
			if st.Action == "add" {
				members += len(st.Members)
			}
		}
		if members > MaxMembers*(MaxSteps+1) || len(s.Cells()) > 1000 {
			t.Fatalf("accepted %d members, %d cells", members, len(s.Cells()))
		}
	})
}

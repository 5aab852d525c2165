package history

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// Fuzz budgets of the readers: a line is decoded in microseconds, a file
// in time and memory proportional to its size, whatever it holds.
const (
	fuzzTime       = 5 * time.Second
	fuzzAlloc      = 16 << 20
	fuzzAllocBytes = 64 // allocation allowed per byte of input
)

// fuzzBudget runs fn under the fuzz budgets: a watchdog ends the process
// (which keeps the input) if fn never returns, and fn's time and
// allocation are checked against n bytes of input.
func fuzzBudget(t *testing.T, n int, fn func()) {
	t.Helper()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	watchdog := time.AfterFunc(2*fuzzTime, func() {
		debug.SetTraceback("all")
		panic("still running after " + (2 * fuzzTime).String())
	})
	fn()
	watchdog.Stop()
	elapsed := time.Since(start)
	runtime.ReadMemStats(&after)
	if elapsed > fuzzTime {
		t.Fatalf("took %v for %d bytes", elapsed, n)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > fuzzAlloc+fuzzAllocBytes*uint64(n) {
		t.Fatalf("allocated %d bytes for %d bytes of input", grew, n)
	}
}

// FuzzDecodeLine: any line decodes, or fails, the same on the canonical
// path and in the general decoder, within the budgets; an event decoded
// is within the format's bounds and reads back as itself once written.
// Seeds: testdata/fuzz/FuzzDecodeLine.
func FuzzDecodeLine(f *testing.F) {
	for _, kind := range allKinds {
		e := Event{Kind: kind, T: 1700000000000000000, Proc: "m1", Partition: 3, Offset: 41, Key: "k", Seq: 41, Partitions: []int32{0, 1}, Params: `{"n":1}`}
		f.Add(AppendJSON(nil, &e))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		var got Event
		var err error
		var diff string
		fuzzBudget(t, len(line), func() { got, err, diff = bothWays(line) })
		if diff != "" {
			t.Fatalf("%q: %s", line, diff)
		}
		if err != nil {
			return
		}
		if err := checkBounds(&got); err != nil {
			t.Fatalf("%q decoded with a value beyond its bound: %v", line, err)
		}
		again := AppendJSON(nil, &got)
		var back Event
		if err := newDecoder().decode(again, &back); err != nil {
			t.Fatalf("%q: written again as %q, which does not read: %v", line, again, err)
		}
		// The writer's line is a fixed point: read and written again, it
		// is the same bytes.
		if third := AppendJSON(nil, &back); !bytes.Equal(third, again) {
			t.Fatalf("%q: written again as %q, then as %q", line, again, third)
		}
	})
}

// FuzzReadFile: a whole file of any bytes is read to its end, each line an
// event or a LineError, within the budgets; never more items than lines.
// Seeds: testdata/fuzz/FuzzReadFile.
func FuzzReadFile(f *testing.F) {
	var seed []byte
	for i, kind := range allKinds {
		e := Event{Kind: kind, T: int64(1700000000000000000 + i), Proc: "m1", Partition: 1, Offset: int64(i), Seq: int64(i), Partitions: []int32{1}}
		seed = append(AppendJSON(seed, &e), '\n')
	}
	f.Add(seed)
	f.Fuzz(func(t *testing.T, data []byte) {
		r := &FileReader{path: "f.jsonl", r: bufio.NewReaderSize(bytes.NewReader(data), readBufferSize), dec: newDecoder()}
		items := 0
		fuzzBudget(t, len(data), func() {
			for {
				e, err := r.Next()
				if err == io.EOF {
					return
				}
				items++
				var le *LineError
				switch {
				case err != nil && !errors.As(err, &le):
					t.Fatalf("an error that is not a LineError: %v", err)
				case err == nil:
					if berr := checkBounds(e); berr != nil {
						t.Fatalf("line %d read with a value beyond its bound: %v", r.Line(), berr)
					}
				}
				if items > bytes.Count(data, []byte("\n"))+1 {
					t.Fatalf("%d items from %d lines", items, bytes.Count(data, []byte("\n"))+1)
				}
			}
		})
	})
}

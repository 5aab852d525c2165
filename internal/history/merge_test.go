package history

import (
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
	"unsafe"
)

// refLine is one line of a generated file as the reference merge sees it.
type refLine struct {
	t    int64
	bad  bool // the line does not parse
	line int
}

// refMerge is the merge as docs/history.md states it, written the plain
// way: events by (t, file, line); a line that cannot be read is reported
// right after its file's previous event (at the start, before every
// event, files in order); an event earlier than its file's previous one
// is reported as an error there and skipped.
func refMerge(files [][]refLine) []string {
	pos := make([]int, len(files))
	prevT := make([]int64, len(files)) // the file's last line that parsed
	lastT := make([]int64, len(files)) // the file's last event returned
	var out []string
	for {
		best := -1
		var bestT int64
		for i, f := range files {
			if pos[i] >= len(f) {
				continue
			}
			h := f[pos[i]]
			t := h.t
			if h.bad {
				t = prevT[i]
			}
			if best < 0 || t < bestT {
				best, bestT = i, t
			}
		}
		if best < 0 {
			return out
		}
		h := files[best][pos[best]]
		pos[best]++
		switch {
		case h.bad:
			out = append(out, fmt.Sprintf("error %d:%d", best, h.line))
		case h.t < lastT[best]:
			prevT[best] = h.t
			out = append(out, fmt.Sprintf("backwards %d:%d", best, h.line))
		default:
			prevT[best], lastT[best] = h.t, h.t
			out = append(out, fmt.Sprintf("event %d:%d t=%d", best, h.line, h.t))
		}
	}
}

// writeRandomFiles writes n history files of random events, mostly in
// time order, with ties across files, empty lines, unreadable lines, a
// step back in time now and then, and sometimes a truncated last line.
func writeRandomFiles(t *testing.T, r *rand.Rand, dir string, n int) ([]string, [][]refLine) {
	var paths []string
	var files [][]refLine
	for i := range n {
		var b strings.Builder
		var lines []refLine
		tm := int64(1 + r.IntN(5))
		count := r.IntN(400)
		if n > 100 {
			count = r.IntN(60)
		}
		if r.IntN(4) == 0 {
			count = r.IntN(3)
		}
		ln := 0
		for k := 0; k < count; k++ {
			ln++
			switch x := r.IntN(100); {
			case x < 3:
				b.WriteString("\n") // empty: not a line to report
				continue
			case x < 6:
				b.WriteString(`{"kind":"processed","t":` + "\n")
				lines = append(lines, refLine{bad: true, line: ln})
				continue
			case x < 8:
				tm = max(tm-int64(1+r.IntN(3)), 1) // t=0 would be a line without "t"
			default:
				tm += int64(r.IntN(3))
			}
			e := Event{Kind: Processed, T: tm, Proc: fmt.Sprintf("m%d", i), Partition: int32(r.IntN(4)), Offset: int64(k), Key: "k", Seq: int64(k)}
			if r.IntN(20) == 0 {
				e.Kind, e.Partitions = Assigned, []int32{1, 2, 3}
			}
			b.Write(AppendJSON(nil, &e))
			b.WriteByte('\n')
			lines = append(lines, refLine{t: tm, line: ln})
		}
		if r.IntN(5) == 0 {
			ln++
			b.WriteString(`{"kind":"processed","t":9,"pro`) // cut off
			lines = append(lines, refLine{bad: true, line: ln})
		}
		p := filepath.Join(dir, fmt.Sprintf("f%03d.0.jsonl", i))
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
		files = append(files, lines)
	}
	return paths, files
}

// TestMergerMatchesReference: over random files (few and many, so that
// batches are large and small), the merge returns what the plain
// reference does, event by event and error by error, and Source names
// each event's line.
func TestMergerMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 2))
	for round := range 30 {
		n := 1 + r.IntN(12)
		if round%10 == 9 {
			n = 300 + r.IntN(100) // the smallest batches
		}
		dir := t.TempDir()
		paths, files := writeRandomFiles(t, r, dir, n)
		want := refMerge(files)
		m, err := OpenMerged(paths...)
		if err != nil {
			t.Fatal(err)
		}
		index := map[string]int{}
		for i, p := range paths {
			index[p] = i
		}
		var got []string
		for {
			e, err := m.Next()
			if err == io.EOF {
				break
			}
			var le *LineError
			switch {
			case errors.As(err, &le) && strings.Contains(le.Error(), "earlier than"):
				got = append(got, fmt.Sprintf("backwards %d:%d", index[le.Path], le.Line))
			case errors.As(err, &le):
				got = append(got, fmt.Sprintf("error %d:%d", index[le.Path], le.Line))
			case err != nil:
				t.Fatal(err)
			default:
				path, line := m.Source()
				got = append(got, fmt.Sprintf("event %d:%d t=%d", index[path], line, e.T))
			}
		}
		if err := m.Close(); err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Fatalf("round %d (%d files): %d items, want %d", round, n, len(got), len(want))
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("round %d (%d files): item %d is %q, want %q (before it: %v)", round, n, i, got[i], want[i], want[max(i-3, 0):i])
			}
		}
	}
}

// TestMergerCloseEarly: closing a merge before its end stops its
// goroutines and closes its files.
func TestMergerCloseEarly(t *testing.T) {
	dir := t.TempDir()
	paths, _ := writeRandomFiles(t, rand.New(rand.NewPCG(1, 9)), dir, 20)
	before := runtime.NumGoroutine()
	for _, reads := range []int{0, 1, 500} {
		m, err := OpenMerged(paths...)
		if err != nil {
			t.Fatal(err)
		}
		for range reads {
			if _, err := m.Next(); err == io.EOF {
				break
			}
		}
		if err := m.Close(); err != nil {
			t.Fatal(err)
		}
		if err := m.Close(); err != nil { // twice is harmless
			t.Fatal(err)
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Errorf("%d goroutines after Close, %d before", n, before)
	}
}

// TestLookAheadFollowsFileSizes: a file of half a history's bytes is
// decoded as far ahead as half the look-ahead of all the files; the
// others keep batchesPerFile; the total stays within twice batchesPerFile
// per file.
func TestLookAheadFollowsFileSizes(t *testing.T) {
	for _, c := range []struct {
		sizes []int64
		want  []int
	}{
		{[]int64{0, 0}, []int{4, 4}},
		{[]int64{5}, []int{4}},
		// A producer beside eight members and a chaos driver (the
		// benchmark's cell): 10 files, 40 batches, half of them its.
		{[]int64{475, 70, 68, 68, 38, 69, 68, 68, 68, 0}, []int{19, 4, 4, 4, 4, 4, 4, 4, 4, 4}},
		{[]int64{1, 1 << 40}, []int{4, 7}}, // shares are rounded down
	} {
		got := lookAhead(c.sizes)
		if fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("lookAhead(%v) = %v, want %v", c.sizes, got, c.want)
		}
		sum := 0
		for _, n := range got {
			sum += n
		}
		if sum > 2*batchesPerFile*len(c.sizes) {
			t.Errorf("lookAhead(%v): %d batches, more than twice %d per file", c.sizes, sum, batchesPerFile)
		}
	}
}

// TestItemsFillCacheLines: an item is a whole number of cache lines, so
// that in a batch every event begins one.
func TestItemsFillCacheLines(t *testing.T) {
	if n := unsafe.Sizeof(item{}); n%64 != 0 {
		t.Errorf("an item is %d bytes, not a multiple of 64", n)
	}
}

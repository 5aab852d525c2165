package history

import (
	"io"
	"os"
	"path/filepath"
	"testing"
)

func TestCorrectionInterpolates(t *testing.T) {
	// 2 s ahead at local 10 s, 2.0001 s ahead at local 110 s: 1 ppm.
	c := NewCorrection([]ClockPoint{{T: 10e9, Offset: 2e9}, {T: 60e9, Offset: 3e9}, {T: 110e9, Offset: 2_000_100_000}})
	for _, tc := range []struct{ t, want int64 }{
		{0, 2e9},                  // before the first: held
		{10e9, 2e9},               // at it
		{60e9, 2_000_050_000},     // halfway, the middle point ignored
		{110e9, 2_000_100_000},    // at the last
		{500e9, 2_000_100_000},    // after: held
		{10e9 + 1, 2_000_000_000}, // rounds to the nearest
		{35e9, 2_000_025_000},     // a quarter
		{109_999_999_999, 2_000_100_000},
	} {
		if got := c.Offset(tc.t); got != tc.want {
			t.Errorf("Offset(%d) = %d, want %d", tc.t, got, tc.want)
		}
	}
	if got := c.Driver(0); got != 0 {
		t.Errorf("Driver(0) = %d: a missing time must stay missing", got)
	}
	var id Correction
	if id.Active() || id.Driver(123) != 123 {
		t.Errorf("the zero correction must be the identity")
	}
	one := NewCorrection([]ClockPoint{{T: 5e9, Offset: -1_500_000_000, Error: 100}})
	if got := one.Driver(100e9); got != 101_500_000_000 {
		t.Errorf("one measurement: Driver = %d, want a constant offset", got)
	}
}

func TestCorrectionStepIsNotDrift(t *testing.T) {
	// 1 s apart in offset over 10 s: 10% is a step, not a drift. The
	// better measurement is taken throughout.
	c := NewCorrection([]ClockPoint{{T: 10e9, Offset: 0, Error: 5000}, {T: 20e9, Offset: 1e9, Error: 100}})
	for _, tt := range []int64{1, 15e9, 30e9} {
		if got := c.Offset(tt); got != 1e9 {
			t.Errorf("Offset(%d) = %d, want the end's 1e9 (smaller error)", tt, got)
		}
	}
	tie := NewCorrection([]ClockPoint{{T: 10e9, Offset: 0, Error: 100}, {T: 20e9, Offset: -1e9, Error: 100}})
	if got := tie.Offset(30e9); got != 0 {
		t.Errorf("a tie takes the first: Offset = %d", got)
	}
	// Corrected times never go backwards within a file, at the steepest
	// drift interpolated.
	steep := NewCorrection([]ClockPoint{{T: 1e9, Offset: 0}, {T: 1e9 + 1e6, Offset: 1000}})
	prev := int64(0)
	for tt := int64(1e9 - 10); tt < 1e9+1e6+10; tt += 7 {
		d := steep.Driver(tt)
		if d < prev {
			t.Fatalf("Driver(%d) = %d, before the previous %d", tt, d, prev)
		}
		prev = d
	}
}

// The merge corrects each file by its own clock events and a processed
// event's intended_t by its producer's; a file without clock events is
// read as written.
func TestMergeCorrectsClocks(t *testing.T) {
	dir := t.TempDir()
	write := func(proc string, evs ...Event) {
		w, err := Create(dir, proc, 0)
		if err != nil {
			t.Fatal(err)
		}
		for i := range evs {
			if err := w.Append(&evs[i]); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	// The driver's time d; the producer runs 1.5 s behind, member m1 2 s
	// ahead, m2 as the driver.
	const s = int64(1e9)
	write("chaos", Event{Kind: Phase, T: 100 * s, Phase: "steady"})
	write("producer-0",
		Event{Kind: Clock, T: 99*s - s/2, ClockOffset: -3 * s / 2, ClockError: 20_000},
		Event{Kind: Produced, T: 101*s - s/2, Partition: 0, Offset: 0, Key: "k", IntendedT: 100*s - s/2, SentT: 100*s - s/2},
		Event{Kind: Clock, T: 109*s - s/2, ClockOffset: -3 * s / 2, ClockError: 20_000})
	write("m1",
		Event{Kind: Clock, T: 100 * s, ClockOffset: 2 * s, ClockError: 30_000},
		Event{Kind: Processed, T: 104 * s, Partition: 0, Offset: 0, Key: "k", Producer: "producer-0", IntendedT: 100*s - s/2, RecordT: 7},
		Event{Kind: Clock, T: 110 * s, ClockOffset: 2 * s, ClockError: 30_000})
	write("m2", Event{Kind: Processed, T: 103 * s, Partition: 1, Offset: 0, Key: "j", Producer: "producer-0", IntendedT: 102*s - s/2})
	paths, err := Files(dir)
	if err != nil {
		t.Fatal(err)
	}
	m, err := OpenMerged(paths...)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	type seen struct {
		proc         string
		kind         Kind
		t, intended  int64
		sent, record int64
	}
	want := []seen{
		{"m1", Clock, 98 * s, 0, 0, 0},
		{"chaos", Phase, 100 * s, 0, 0, 0},
		{"producer-0", Clock, 100 * s, 0, 0, 0},
		{"m1", Processed, 102 * s, 101 * s, 0, 7},
		{"producer-0", Produced, 102 * s, 101 * s, 101 * s, 0},
		{"m2", Processed, 103 * s, 103 * s, 0, 0},
		{"m1", Clock, 108 * s, 0, 0, 0},
		{"producer-0", Clock, 110 * s, 0, 0, 0},
	}
	for i := 0; ; i++ {
		e, err := m.Next()
		if err == io.EOF {
			if i != len(want) {
				t.Fatalf("%d events, want %d", i, len(want))
			}
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got := seen{e.Proc, e.Kind, e.T, e.IntendedT, e.SentT, e.RecordT}
		if i >= len(want) || got != want[i] {
			t.Errorf("event %d: %+v, want %+v", i, got, want[min(i, len(want)-1)])
		}
	}
}

// A file's clock events are found in its head and its tail, in lines of
// any field order, past the windows' cut lines; a line that merely
// holds the word (a key named clock) is none; a small file is searched
// whole.
func TestClockPointsScan(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "m1.0.jsonl")
	var b []byte
	b = append(b, `{"t":5,"clock_error":9,"kind":"clock","proc":"m1","inc":0,"clock_offset":-4}`+"\r\n"...)
	pad := Event{Kind: Processed, Proc: "m1", Key: "clock"} // a key named clock is no clock event
	middle := Event{Kind: Clock, Proc: "m1", ClockOffset: 1000}
	for len(b) < 3*clockWindow {
		pad.T++
		b = append(AppendJSON(b, &pad), '\n')
		if middle.T == 0 && len(b) > 3*clockWindow/2 {
			// Beyond both windows: not where writers put them, not read.
			middle.T = pad.T
			b = append(AppendJSON(b, &middle), '\n')
		}
	}
	last := Event{Kind: Clock, T: pad.T + 1, Proc: "m1", ClockOffset: 7, ClockError: 3}
	b = AppendJSON(b, &last) // no newline at the end
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	points, proc, _, err := clockPoints(path, newDecoder(), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []ClockPoint{{5, -4, 9}, {last.T, 7, 3}}
	if proc != "m1" || len(points) != 2 || points[0] != want[0] || points[1] != want[1] {
		t.Errorf("clockPoints = %v, %q; want %v, m1", points, proc, want)
	}
	small := filepath.Join(dir, "m2.0.jsonl")
	if err := os.WriteFile(small, b[:4096], 0o644); err != nil {
		t.Fatal(err)
	}
	points, _, _, err = clockPoints(small, newDecoder(), nil)
	if err != nil || len(points) != 1 || points[0] != want[0] {
		t.Errorf("a small file: %v %v", points, err)
	}
}

package member

import (
	"context"
	"errors"
	"io"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/chaosbench/chaosbench/internal/history"
	"github.com/chaosbench/chaosbench/internal/stamp"
	"github.com/chaosbench/chaosbench/workloads"
)

// stamped is a 100-byte value carrying a stamp, as loadgen writes it.
func stamped(producer string, seq, intended int64) []byte {
	v := make([]byte, 100)
	stamp.Put(v, stamp.Stamp{Producer: []byte(producer), Seq: seq, IntendedT: intended})
	return v
}

func TestSetStamp(t *testing.T) {
	var names []string
	var r record
	r.setStamp(stamped("producer-0", 1, 2), &names)
	a := r.producer
	r.setStamp(stamped("producer-0", 41, 1700000000000000001), &names)
	if r.producer != "producer-0" || len(names) != 1 || a != names[0] || r.seq != 41 || r.intendedT != 1700000000000000001 {
		t.Errorf("got %+v with names %v", r, names)
	}
	// Another producer's record: no stamp, nothing set.
	var o record
	o.setStamp([]byte("a value of someone else's"), &names)
	if o.producer != "" || o.seq != 0 || o.intendedT != 0 || len(names) != 1 {
		t.Errorf("a record without a stamp: got %+v with names %v", o, names)
	}
}

// A processed batch's offsets become uncommitted only once its events are
// on file (the write-ahead rule), whatever the processing cost.
func TestProcessFlushesBeforeNotingOffsets(t *testing.T) {
	dir := t.TempDir()
	w, err := history.Create(dir, "m1", 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	cfg := Defaults()
	cfg.Topic = "t"
	s := newState(&cfg, w, io.Discard)
	s.assigned([]int32{0, 1}, 1, "")
	batch := []record{{partition: 0, offset: 5}, {partition: 1, offset: 9}, {partition: 0, offset: 6}}
	if err := s.process(context.Background(), batch); err != nil {
		t.Fatal(err)
	}
	evs, err := history.ReadFile(w.Path())
	if err != nil || len(evs) != 4 {
		t.Fatalf("%d events on file (%v), want the assignment and 3 records", len(evs), err)
	}
	if got := s.takeUncommitted(nil); len(got) != 2 || got[0] != 7 || got[1] != 10 {
		t.Errorf("uncommitted %v, want 0:7 1:10", got)
	}
}

// BenchmarkProcess is the harness's own cost per record processed at zero
// cost, without a client: the record's stamp read, its event encoded and
// written (one write per batch), its offset noted.
func BenchmarkProcess(b *testing.B) {
	w, err := history.Create(b.TempDir(), "m1", 0)
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	cfg := Defaults()
	cfg.Topic = "t"
	s := newState(&cfg, w, io.Discard)
	s.assigned([]int32{0, 1, 2, 3, 4, 5}, 1, "")
	batch := make([]record, 500)
	value := stamped("producer-0", 123456, 1700000000000000000)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i += len(batch) {
		for j := range batch {
			r := &batch[j]
			*r = record{partition: int32(j % 6), offset: int64(i + j), key: "k000123"}
			r.setStamp(value, &s.producers)
		}
		if err := s.process(context.Background(), batch); err != nil {
			b.Fatal(err)
		}
		s.takeUncommitted(nil)
	}
}

// The processing schedule makes up a late wake-up with the next records'
// waits, up to its carry, and no more: a frozen member resumes at its
// normal pace.
func TestProcessingSchedule(t *testing.T) {
	t0 := time.Unix(1000, 0)
	ms := time.Millisecond
	s := schedule{due: t0, carry: 20 * ms}
	if w := s.next(t0, 5*ms); w != 5*ms {
		t.Errorf("first wait %v, want 5ms", w)
	}
	// Woke 3 ms late: the next record waits 2 ms, and the schedule holds.
	if w := s.next(t0.Add(8*ms), 5*ms); w != 2*ms {
		t.Errorf("after a late wake-up: wait %v, want 2ms", w)
	}
	if w := s.next(t0.Add(10*ms), 5*ms); w != 5*ms {
		t.Errorf("on time: wait %v, want 5ms", w)
	}
	// Frozen for a second: at most the carry (20 ms) is made up, then the
	// pace is normal again.
	now := t0.Add(1015 * ms)
	if w := s.next(now, 5*ms); w != -15*ms {
		t.Errorf("after a freeze: wait %v, want -15ms (none)", w)
	}
	for i := range 3 {
		now = now.Add(0) // processed at once while behind
		if w := s.next(now, 5*ms); w != time.Duration(-10+5*i)*ms {
			t.Errorf("catching up, record %d: wait %v", i, w)
		}
	}
}

// A member resumed after a pause step starts its schedule again: the
// lateness of the freeze is not made up at all, where a late wake-up's is.
func TestProcessingScheduleRestart(t *testing.T) {
	t0 := time.Unix(1000, 0)
	ms := time.Millisecond
	s := schedule{due: t0, carry: carryOf(5 * ms)}
	s.next(t0, 5*ms)
	now := t0.Add(3 * time.Second)
	s.restart(now)
	for i := range 3 {
		if w := s.next(now.Add(time.Duration(5*i)*ms), 5*ms); w != 5*ms {
			t.Errorf("record %d after the resumption: wait %v, want 5ms", i, w)
		}
	}
}

// The carry is fifty records' cost, within [20 ms, 1 s]: a member that
// waited a quarter of a second for a CPU at 5 ms a record makes it up.
func TestCarryOf(t *testing.T) {
	ms := time.Millisecond
	for _, c := range []struct{ cost, want time.Duration }{
		{0, 20 * ms}, {100 * time.Microsecond, 20 * ms}, {ms, 50 * ms},
		{5 * ms, 250 * ms}, {20 * ms, time.Second}, {time.Minute, time.Second},
	} {
		if got := carryOf(c.cost); got != c.want {
			t.Errorf("carryOf(%v) = %v, want %v", c.cost, got, c.want)
		}
	}
}

// A SIGCONT to the process sets resumed, which process reads before its
// next wait; after stop, none does.
func TestWatchResume(t *testing.T) {
	cfg := Defaults()
	cfg.Topic = "t"
	w, err := history.Create(t.TempDir(), "m1", 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	s := newState(&cfg, w, io.Discard)
	stop := s.watchResume()
	if err := syscall.Kill(os.Getpid(), syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for !s.resumed.Load() && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if !s.resumed.Swap(false) {
		t.Fatal("no resumption seen after SIGCONT")
	}
	stop()
	if err := syscall.Kill(os.Getpid(), syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond)
	if s.resumed.Load() {
		t.Error("a resumption seen after stop")
	}
}

// TestRevokedMidBatchIsDropped revokes a partition while a batch holding
// its records is being processed, from another goroutine (as franz-go's
// callbacks run, and as any client could): the records of the partition
// not yet processed are dropped, none is written after the revoked
// event, and the other partition's records are all processed. Run many
// times, at every point of the batch, under -race.
func TestRevokedMidBatchIsDropped(t *testing.T) {
	for round := 0; round < 40; round++ {
		dir := t.TempDir()
		hist, err := history.Create(dir, "m1", 0)
		if err != nil {
			t.Fatal(err)
		}
		cfg := Defaults()
		cfg.Name, cfg.Topic = "m1", "t"
		cfg.Processing = workloads.Processing{Cost: 200 * time.Microsecond, Distribution: workloads.CostFixed}
		s := newState(&cfg, hist, io.Discard)
		s.assigned([]int32{0, 1}, 1, "")
		var batch []record
		for o := int64(0); o < 20; o++ {
			batch = append(batch, record{partition: 0, offset: o}, record{partition: 1, offset: o})
		}
		go func() {
			time.Sleep(time.Duration(round) * 100 * time.Microsecond)
			s.removed(history.Revoked, []int32{0}, 1)
		}()
		if err := s.process(context.Background(), batch); err != nil {
			t.Fatal(err)
		}
		time.Sleep(10 * time.Millisecond) // the revocation has landed
		if err := hist.Close(); err != nil {
			t.Fatal(err)
		}
		r, err := history.OpenFile(hist.Path())
		if err != nil {
			t.Fatal(err)
		}
		revoked := false
		p1 := 0
		for {
			e, err := r.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case e.Kind == history.Revoked:
				revoked = true
			case e.Kind == history.Processed && e.Partition == 0 && revoked:
				t.Fatalf("round %d: p0@%d processed after p0 was revoked", round, e.Offset)
			case e.Kind == history.Processed && e.Partition == 1:
				p1++
			}
		}
		r.Close()
		if !revoked || p1 != 20 {
			t.Fatalf("round %d: revoked %v, %d records of p1 processed, want 20", round, revoked, p1)
		}
		if off, ok := s.takeUncommitted(nil)[0]; ok {
			t.Fatalf("round %d: p0 offset %d left to commit after its revocation", round, off)
		}
	}
}

package member

import (
	"context"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/chaosbench/chaosbench/internal/history"
	"github.com/chaosbench/chaosbench/workloads"
)

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

package sweep

import (
	"math"
	"testing"

	"github.com/chaosbench/chaosbench/internal/history"
)

// A known answer: two members drain a backlog of 400 records, m1 owning
// partition 0 (300 records, one every 10 ms: 100 records/s) and m2
// partition 1 (100 records, one every 10 ms); m2 is done after 1 s, m1
// after 3 s. The group sustained 400 records over 2.99 s; m1 is the
// busiest member, with 75% of the traffic: physics says the group cannot
// exceed 100 / 0.75 = 133 records/s, and it took 133.4.
func TestMeasureCapacity(t *testing.T) {
	dir := t.TempDir()
	w := func(proc string) *history.Writer {
		hw, err := history.Create(dir, proc, 0)
		if err != nil {
			t.Fatal(err)
		}
		return hw
	}
	prod, m1, m2 := w("producer-0"), w("m1"), w("m2")
	const t0 = int64(1_700_000_000_000_000_000)
	ms := int64(1_000_000)
	for i := int64(0); i < 300; i++ {
		prod.Append(&history.Event{Kind: history.Produced, T: t0, Partition: 0, Offset: i})
		m1.Append(&history.Event{Kind: history.Processed, T: t0 + 10*ms*i, Partition: 0, Offset: i})
	}
	// A redelivery counts once.
	m1.Append(&history.Event{Kind: history.Processed, T: t0 + 10*ms*299 + 1, Partition: 0, Offset: 299})
	for i := int64(0); i < 100; i++ {
		prod.Append(&history.Event{Kind: history.Produced, T: t0, Partition: 1, Offset: i})
		m2.Append(&history.Event{Kind: history.Processed, T: t0 + 10*ms*i, Partition: 1, Offset: i})
	}
	for _, hw := range []*history.Writer{prod, m1, m2} {
		if err := hw.Close(); err != nil {
			t.Fatal(err)
		}
	}
	c, err := MeasureCapacity(dir)
	if err != nil {
		t.Fatal(err)
	}
	near := func(what string, got, want float64) {
		if math.Abs(got-want) > 1e-6*math.Max(1, math.Abs(want)) {
			t.Errorf("%s: got %v, want %v", what, got, want)
		}
	}
	near("records", float64(c.Records), 400)
	near("span", c.SpanMs, 2990)
	near("throughput", c.Throughput, 399/2.99)
	near("hottest share", c.HottestShare, 0.75)
	near("max member share", c.MaxMemberShare, 0.75)
	near("hottest partition's rate", c.HottestRate, 100)
	if len(c.Members) != 2 || c.Members[0].Member != "m1" || c.Members[0].Records != 300 {
		t.Fatalf("members %+v", c.Members)
	}
	near("m1's rate", c.Members[0].Rate, 100)
	near("m2's rate", c.Members[1].Rate, 100)
	near("member rate", c.MemberRate, 100)
}

// A member's share is of the records it processed, not of the partitions
// it touched: partition 2 moves from m1 to m2 half way, so each member
// processes 150 of the 300 records (a share of one half, where counting
// its partitions' traffic would give each two thirds).
func TestMeasureCapacityMovedPartition(t *testing.T) {
	dir := t.TempDir()
	w := func(proc string) *history.Writer {
		hw, err := history.Create(dir, proc, 0)
		if err != nil {
			t.Fatal(err)
		}
		return hw
	}
	prod, m1, m2 := w("producer-0"), w("m1"), w("m2")
	const t0 = int64(1_700_000_000_000_000_000)
	ms := int64(1_000_000)
	for p := int32(0); p < 3; p++ {
		for i := int64(0); i < 100; i++ {
			prod.Append(&history.Event{Kind: history.Produced, T: t0, Partition: p, Offset: i})
		}
	}
	for i := int64(0); i < 100; i++ {
		m1.Append(&history.Event{Kind: history.Processed, T: t0 + 10*ms*i, Partition: 0, Offset: i})
		m2.Append(&history.Event{Kind: history.Processed, T: t0 + 10*ms*i, Partition: 1, Offset: i})
	}
	for i := int64(0); i < 100; i++ {
		hw := m1
		if i >= 50 {
			hw = m2
		}
		hw.Append(&history.Event{Kind: history.Processed, T: t0 + 10*ms*(100+i), Partition: 2, Offset: i})
	}
	for _, hw := range []*history.Writer{prod, m1, m2} {
		if err := hw.Close(); err != nil {
			t.Fatal(err)
		}
	}
	c, err := MeasureCapacity(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Members) != 2 {
		t.Fatalf("members %+v", c.Members)
	}
	for _, m := range c.Members {
		if m.Records != 150 || math.Abs(m.Share-0.5) > 1e-9 || len(m.Partitions) != 2 {
			t.Errorf("%s: %d records, share %v, partitions %v; want 150, 0.5, two", m.Member, m.Records, m.Share, m.Partitions)
		}
	}
	if math.Abs(c.MaxMemberShare-0.5) > 1e-9 || math.Abs(c.HottestShare-1.0/3) > 1e-9 {
		t.Errorf("max member share %v (want 0.5), hottest share %v (want 1/3)", c.MaxMemberShare, c.HottestShare)
	}
}

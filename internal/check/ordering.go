package check

import (
	"fmt"

	"github.com/chaosbench/chaosbench/internal/history"
	"github.com/chaosbench/chaosbench/internal/summary"
)

// Ordering (docs/summary.md, `ordering`): each producer numbers the
// records of each key 0, 1, 2, ...; a processed record whose seq is below
// the highest seq already processed for its (producer, key), and which
// was never processed before, is a reorder. Re-processing the same
// (partition, offset) is a redelivery, counted under duplicates. The same
// (producer, key, seq) processed again at another offset is a record the
// producer wrote twice (a retry without idempotence): counted apart.
//
// A reorder's cause is classified: partition_change (the key's highest
// seq was processed on another partition: partitions were added and the
// key moved), zombie (processed by a member that no longer owned the
// partition: an overlap) or same_partition (the log itself is out of
// order).
type orderingCheck struct {
	g *model
	// keys holds each producer's keys (keytable.go).
	keys map[string]*keyTable
	n    int64

	lastProducer string
	lastKeys     *keyTable
	// pending records wait to be checked together (flush).
	pending []pendingRecord
	sink    uint64

	reorders, partChange, zombie, same, producerDups int64
	// examples by kind: reorder_partition_change, reorder_zombie,
	// reorder_same_partition, producer_duplicate; all: every reorder.
	ex  map[string][]summary.Example
	all []summary.Example
}

// keyState is one key's ordering state: 64 bytes, one cache line.
type keyState struct {
	w0, w1 uint64 // the key's first 16 bytes, for keyTable
	maxSeq int64
	// The seqs processed: one run [lo, hi] while they are contiguous (the
	// usual case, kept inline), all of them in more once they are not.
	lo, hi int64
	more   *intervals
	// maxPart is the partition of the highest seq; maxZombie says a
	// zombie processed it, which makes the owner's next records look
	// reordered.
	maxPart   int32
	keyLen    int32
	maxZombie bool
}

// add records seq and reports whether it was new.
func (k *keyState) add(seq int64) bool {
	if k.more == nil {
		switch {
		case k.hi < k.lo: // empty
			k.lo, k.hi = seq, seq
			return true
		case seq == k.hi+1:
			k.hi = seq
			return true
		case seq >= k.lo && seq <= k.hi:
			return false
		}
		k.more = &intervals{runs: []run{{k.lo, k.hi}}, n: k.hi - k.lo + 1}
	}
	return k.more.add(seq)
}

func newOrderingCheck(g *model) *orderingCheck {
	return &orderingCheck{g: g, keys: map[string]*keyTable{}, ex: map[string][]summary.Example{}}
}

func (s *orderingCheck) example(kind string, e summary.Example) {
	if len(s.ex[kind]) < s.g.opts.MaxExamples {
		s.ex[kind] = append(s.ex[kind], e)
	}
	if kind != "producer_duplicate" && len(s.all) < s.g.opts.MaxExamples {
		s.all = append(s.all, e)
	}
}

// pendingRecord is a first processing of a record, waiting for the
// ordering check: what it needs of the event, which is not kept.
type pendingRecord struct {
	t, offset, seq int64
	key, producer  string
	proc           string // the member's name
	part           int32
	zombie         bool
	keys           *keyTable
	hash           uint64 // the key's hash in keys
	hint           uint64 // the key's index entry, when it was looked up
}

// pendingRecords is how many records wait before the check looks their
// keys up together.
const pendingRecords = 64

func (s *orderingCheck) firstProcessed(p *partition, m *member, e *history.Event) {
	if e.Key == "" || e.Seq < 0 {
		return
	}
	// The check of a record changes nothing any other check reads, so it
	// can wait for a few more: their keys' states, scattered over tables
	// far larger than the processor's caches, are then fetched together
	// (flush), not one cache miss after another.
	s.pending = append(s.pending, pendingRecord{t: e.T, offset: e.Offset, seq: e.Seq, key: e.Key, producer: e.Producer,
		proc: m.name, part: p.id, zombie: p.zombie(m)})
	if len(s.pending) == pendingRecords {
		s.flush()
	}
}

// flush checks the pending records, in the order they were processed.
func (s *orderingCheck) flush() {
	// Start every key's fetch before waiting for any: the loads of each
	// pass below are independent, so the processor has many cache misses
	// in flight at once, first the keys' index entries, then their states.
	for i := range s.pending {
		r := &s.pending[i]
		r.keys = s.table(r.producer)
		r.hash = r.keys.hash(r.key)
	}
	for i := range s.pending {
		r := &s.pending[i]
		r.hint = r.keys.entry(r.hash)
	}
	for i := range s.pending {
		r := &s.pending[i]
		s.sink += r.keys.touch(r.hint)
	}
	for i := range s.pending {
		s.check(&s.pending[i])
		s.pending[i] = pendingRecord{}
	}
	s.pending = s.pending[:0]
}

// table returns a producer's key table.
func (s *orderingCheck) table(producer string) *keyTable {
	// Histories have few producers: remember the last one's keys.
	if producer == s.lastProducer && s.lastKeys != nil {
		return s.lastKeys
	}
	t := s.keys[producer]
	if t == nil {
		t = &keyTable{}
		s.keys[producer] = t
	}
	s.lastProducer, s.lastKeys = producer, t
	return t
}

func (s *orderingCheck) check(r *pendingRecord) {
	k, added := r.keys.state(r.key, r.hash)
	if added {
		s.n++
	}
	if !k.add(r.seq) {
		s.producerDups++
		s.example("producer_duplicate", summary.Example{T: r.t, Proc: r.proc, Partition: ptr(r.part), Offset: ptr(r.offset),
			Key: r.key, Seq: ptr(r.seq), Producer: r.producer, Detail: "this producer, key and seq were processed before at another offset"})
		return
	}
	if r.seq > k.maxSeq {
		k.maxSeq, k.maxPart, k.maxZombie = r.seq, r.part, r.zombie
		return
	}
	s.reorders++
	var kind, detail string
	switch {
	case k.maxPart != r.part:
		s.partChange++
		kind, detail = "reorder_partition_change", fmt.Sprintf("seq %d was processed before, on partition %d", k.maxSeq, k.maxPart)
	case r.zombie:
		s.zombie++
		kind, detail = "reorder_zombie", fmt.Sprintf("seq %d was processed before; this member no longer owned the partition", k.maxSeq)
	case k.maxZombie:
		s.zombie++
		kind, detail = "reorder_zombie", fmt.Sprintf("seq %d was processed before, by a member that no longer owned the partition", k.maxSeq)
	default:
		s.same++
		kind, detail = "reorder_same_partition", fmt.Sprintf("seq %d was processed before, on the same partition", k.maxSeq)
	}
	s.example(kind, summary.Example{T: r.t, Proc: r.proc, Partition: ptr(r.part), Offset: ptr(r.offset),
		Key: r.key, Seq: ptr(r.seq), Producer: r.producer, Detail: detail})
}

func (o *orderingCheck) result(s *summary.Summary) {
	o.flush()
	r := &s.Ordering
	r.Keys = o.n
	r.Reorders, r.PartitionChange, r.Zombie, r.SamePartition = o.reorders, o.partChange, o.zombie, o.same
	r.ProducerDuplicates = o.producerDups
	r.Check = summary.Check{Verdict: summary.Valid, Expect: "per-key order kept within a partition (idempotent producer); reorders after a partition-count change or by zombies are reported", Examples: o.all}
	idem := o.g.cell.IdempotentProducer
	bad := r.SamePartition + r.ProducerDuplicates
	switch {
	case bad == 0:
	case idem != nil && !*idem:
		r.Expect = "reorders and producer duplicates allowed: the producer is not idempotent"
	case idem == nil:
		r.Verdict = summary.Unknown
		r.Reason = fmt.Sprintf("%d same-partition reorders or producer duplicates, and the cell does not record whether the producer was idempotent", bad)
	default:
		r.Verdict = summary.Invalid
		r.Reason = fmt.Sprintf("%d same-partition reorders or producer duplicates under an idempotent producer", bad)
	}
	add := func(kind string, n int64, v summary.Verdict, msg string, ex []summary.Example) {
		if n > 0 {
			s.Findings = append(s.Findings, summary.Finding{Checker: "ordering", Kind: kind, Verdict: v, Count: n, Message: msg, Examples: ex})
		}
	}
	sameV := summary.Valid
	if bad > 0 {
		sameV = r.Verdict
	}
	add("reorder_partition_change", r.PartitionChange, summary.Valid, "records of a key processed out of order after the key moved partition (partitions were added)", o.ex["reorder_partition_change"])
	add("reorder_zombie", r.Zombie, summary.Valid, "records of a key processed out of order by a member that no longer owned the partition", o.ex["reorder_zombie"])
	add("reorder_same_partition", r.SamePartition, sameV, "records of a key out of order within one partition: the log itself is out of order", o.ex["reorder_same_partition"])
	add("producer_duplicate", r.ProducerDuplicates, sameV, "records written twice by the producer (same producer, key and seq at two offsets)", o.ex["producer_duplicate"])
}

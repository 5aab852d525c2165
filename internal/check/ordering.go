package check

import (
	"fmt"

	"github.com/chaosbench/chaosbench/internal/history"
)

// Ordering (design.md, "Ordering violation"): each producer numbers the
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
type orderState struct {
	// keys maps producer, then key, to an index in states: one map lookup
	// and one slice element per record, the fewest cache misses a state
	// per key allows.
	keys   map[string]map[string]int32
	states []keyState
	n      int64

	lastProducer string
	lastKeys     map[string]int32

	reorders, partChange, zombie, same, producerDups int64
	// examples by kind: reorder_partition_change, reorder_zombie,
	// reorder_same_partition, producer_duplicate; all: every reorder.
	ex  map[string][]Example
	all []Example
}

type keyState struct {
	maxSeq int64
	// The seqs processed: one run [lo, hi] while they are contiguous (the
	// usual case, kept inline), all of them in more once they are not.
	lo, hi int64
	more   *intervals
	// maxPart is the partition of the highest seq; maxZombie says a
	// zombie processed it, which makes the owner's next records look
	// reordered.
	maxPart   int32
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

func (s *orderState) init() {
	s.keys = map[string]map[string]int32{}
	s.ex = map[string][]Example{}
}

func (s *orderState) example(a *analyzer, kind string, e Example) {
	if len(s.ex[kind]) < a.opts.MaxExamples {
		s.ex[kind] = append(s.ex[kind], e)
	}
	if kind != "producer_duplicate" && len(s.all) < a.opts.MaxExamples {
		s.all = append(s.all, e)
	}
}

func (s *orderState) observe(a *analyzer, p *partition, m *member, e *history.Event, first, zombie bool) {
	if !first || e.Key == "" || e.Seq < 0 {
		return
	}
	// Histories have few producers: remember the last one's keys.
	byKey := s.lastKeys
	if e.Producer != s.lastProducer || byKey == nil {
		byKey = s.keys[e.Producer]
		if byKey == nil {
			byKey = map[string]int32{}
			s.keys[e.Producer] = byKey
		}
		s.lastProducer, s.lastKeys = e.Producer, byKey
	}
	i, ok := byKey[e.Key]
	if !ok {
		i = int32(len(s.states))
		s.states = append(s.states, keyState{maxSeq: -1, lo: 0, hi: -1})
		byKey[e.Key] = i
		s.n++
	}
	k := &s.states[i]
	if !k.add(e.Seq) {
		s.producerDups++
		s.example(a, "producer_duplicate", Example{T: e.T, Proc: m.name, Partition: ptr(p.id), Offset: ptr(e.Offset),
			Key: e.Key, Seq: ptr(e.Seq), Producer: e.Producer, Detail: "this producer, key and seq were processed before at another offset"})
		return
	}
	if e.Seq > k.maxSeq {
		k.maxSeq, k.maxPart, k.maxZombie = e.Seq, p.id, zombie
		return
	}
	s.reorders++
	var kind, detail string
	switch {
	case k.maxPart != p.id:
		s.partChange++
		kind, detail = "reorder_partition_change", fmt.Sprintf("seq %d was processed before, on partition %d", k.maxSeq, k.maxPart)
	case zombie:
		s.zombie++
		kind, detail = "reorder_zombie", fmt.Sprintf("seq %d was processed before; this member no longer owned the partition", k.maxSeq)
	case k.maxZombie:
		s.zombie++
		kind, detail = "reorder_zombie", fmt.Sprintf("seq %d was processed before, by a member that no longer owned the partition", k.maxSeq)
	default:
		s.same++
		kind, detail = "reorder_same_partition", fmt.Sprintf("seq %d was processed before, on the same partition", k.maxSeq)
	}
	s.example(a, kind, Example{T: e.T, Proc: m.name, Partition: ptr(p.id), Offset: ptr(e.Offset),
		Key: e.Key, Seq: ptr(e.Seq), Producer: e.Producer, Detail: detail})
}

func (a *analyzer) orderingResult(s *Summary) {
	o := &a.ord
	r := &s.Ordering
	r.Keys = o.n
	r.Reorders, r.PartitionChange, r.Zombie, r.SamePartition = o.reorders, o.partChange, o.zombie, o.same
	r.ProducerDuplicates = o.producerDups
	r.Check = Check{Verdict: Valid, Expect: "per-key order kept within a partition (idempotent producer); reorders after a partition-count change or by zombies are reported", Examples: o.all}
	idem := a.cell.IdempotentProducer
	bad := r.SamePartition + r.ProducerDuplicates
	switch {
	case bad == 0:
	case idem != nil && !*idem:
		r.Expect = "reorders and producer duplicates allowed: the producer is not idempotent"
	case idem == nil:
		r.Verdict = Unknown
		r.Reason = fmt.Sprintf("%d same-partition reorders or producer duplicates, and the cell does not record whether the producer was idempotent", bad)
	default:
		r.Verdict = Invalid
		r.Reason = fmt.Sprintf("%d same-partition reorders or producer duplicates under an idempotent producer", bad)
	}
	add := func(kind string, n int64, v Verdict, msg string, ex []Example) {
		if n > 0 {
			s.Findings = append(s.Findings, Finding{Checker: "ordering", Kind: kind, Verdict: v, Count: n, Message: msg, Examples: ex})
		}
	}
	sameV := Valid
	if bad > 0 {
		sameV = r.Verdict
	}
	add("reorder_partition_change", r.PartitionChange, Valid, "records of a key processed out of order after the key moved partition (partitions were added)", o.ex["reorder_partition_change"])
	add("reorder_zombie", r.Zombie, Valid, "records of a key processed out of order by a member that no longer owned the partition", o.ex["reorder_zombie"])
	add("reorder_same_partition", r.SamePartition, sameV, "records of a key out of order within one partition: the log itself is out of order", o.ex["reorder_same_partition"])
	add("producer_duplicate", r.ProducerDuplicates, sameV, "records written twice by the producer (same producer, key and seq at two offsets)", o.ex["producer_duplicate"])
}

package assign

import (
	"slices"
	"unicode/utf16"
)

// Where Kafka's Java assignors iterate a java.util.HashMap or HashSet, the
// order of that iteration decides ties (which member keeps its extra
// partition, which partition moves back). These helpers reproduce it, so
// the models give the Java leader's answer and not merely an equally good
// one.
//
// A HashMap iterates its buckets in index order, and each bucket in the
// order its entries were inserted (resizes split buckets but keep that
// order). The bucket of a key is spread(hashCode) & (capacity-1), with
// spread(h) = h ^ (h >>> 16). A map made empty and filled by put starts
// with 16 buckets and doubles whenever its size exceeds 3/4 of them; it
// never shrinks. (Buckets of 8 or more colliding keys are turned into
// trees, which changes their order; with member ids that does not occur in
// practice and is not modelled.)

// javaStringHash is java.lang.String.hashCode: s[0]*31^(n-1) + ... over
// UTF-16 code units, in 32-bit arithmetic.
func javaStringHash(s string) int32 {
	var h int32
	for _, r := range s {
		if r < 0x10000 {
			h = 31*h + int32(r)
			continue
		}
		r1, r2 := utf16.EncodeRune(r)
		h = 31*h + int32(r1)
		h = 31*h + int32(r2)
	}
	return h
}

// javaTopicPartitionHash is org.apache.kafka.common.TopicPartition.hashCode.
func javaTopicPartitionHash(topicHash int32, partition int32) int32 {
	return 31*(31+partition) + topicHash
}

func spread(h int32) uint32 {
	u := uint32(h)
	return u ^ u>>16
}

// javaHashMapCapacity is the bucket count of a HashMap after n puts into a
// new HashMap().
func javaHashMapCapacity(n int) uint32 {
	c := uint32(16)
	for uint64(n) > uint64(c)*3/4 {
		c *= 2
	}
	return c
}

// javaHashMapOrder returns the indices of keys in the order a HashMap
// filled by put in the order given (from empty) iterates them: by bucket,
// and in insertion order within a bucket (a counting sort by bucket).
func javaHashMapOrder(keys []string) []int32 {
	capacity := javaHashMapCapacity(len(keys))
	bucket := make([]uint32, len(keys))
	start := make([]int32, capacity+1)
	for i, k := range keys {
		b := spread(javaStringHash(k)) & (capacity - 1)
		bucket[i] = b
		start[b+1]++
	}
	for b := 1; b < len(start); b++ {
		start[b] += start[b-1]
	}
	order := make([]int32, len(keys))
	for i, b := range bucket {
		order[start[b]] = int32(i)
		start[b]++
	}
	return order
}

// javaHashSet is a java.util.HashSet of TopicPartitions made with new
// HashSet<>(), reduced to what the sticky assignor asks of it: add, remove,
// and the first element its iterator returns.
type javaHashSet struct {
	elems    []hashElem
	seq      uint64
	capacity uint32
}

type hashElem struct {
	gp     int32
	bucket uint32 // at the current capacity
	hash   uint32 // spread hash
	seq    uint64 // insertion order
}

func (s *javaHashSet) add(gp int32, hash int32) {
	for _, e := range s.elems {
		if e.gp == gp {
			return
		}
	}
	if s.capacity == 0 {
		s.capacity = 16
	}
	h := spread(hash)
	s.seq++
	s.elems = append(s.elems, hashElem{gp: gp, hash: h, seq: s.seq})
	for uint64(len(s.elems)) > uint64(s.capacity)*3/4 {
		s.capacity *= 2
	}
	for i := range s.elems {
		s.elems[i].bucket = s.elems[i].hash & (s.capacity - 1)
	}
}

func (s *javaHashSet) remove(gp int32) {
	for i, e := range s.elems {
		if e.gp == gp {
			s.elems = slices.Delete(s.elems, i, i+1)
			return
		}
	}
}

func (s *javaHashSet) len() int { return len(s.elems) }

// first is what iterator().next() returns.
func (s *javaHashSet) first() int32 {
	best := s.elems[0]
	for _, e := range s.elems[1:] {
		if e.bucket < best.bucket || e.bucket == best.bucket && e.seq < best.seq {
			best = e
		}
	}
	return best.gp
}

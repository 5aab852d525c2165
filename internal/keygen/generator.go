package keygen

import "math/rand/v2"

// Generator is the seeded stream of a workload's keys: each call to Next
// draws a key from the distribution and numbers it among the records of
// that key (0, 1, 2, ...). Two generators with the same distribution and
// equally seeded sources produce the same stream. A Generator is not safe
// for concurrent use: the producer draws from one generator, in order.
type Generator struct {
	dist Distribution
	r    *rand.Rand
	seq  []int64
}

// NewGenerator returns a generator drawing from d with r.
func NewGenerator(d Distribution, r *rand.Rand) *Generator {
	return &Generator{dist: d, r: r, seq: make([]int64, d.Len())}
}

// Next returns the next record's key index and its per-key sequence number.
func (g *Generator) Next() (key int, seq int64) {
	key = g.dist.Pick(g.r)
	seq = g.seq[key]
	g.seq[key]++
	return key, seq
}

// Count returns how many records of key i the generator has produced.
func (g *Generator) Count(i int) int64 { return g.seq[i] }

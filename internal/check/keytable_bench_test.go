package check

import (
	"fmt"
	"math/rand"
	"testing"
)

// BenchmarkKeyTable looks up keys of a 100,000-key table at random, one
// lookup after another and as the ordering check does, 64 at a time in
// passes whose cache misses overlap (orderingCheck.flush).
func BenchmarkKeyTable(b *testing.B) {
	const keys = 100_000
	rng := rand.New(rand.NewSource(1))
	var tab keyTable
	for i := range keys {
		k := fmt.Sprintf("k%06d", i)
		tab.state(k, tab.hash(k))
	}
	seq := make([]string, 1<<16)
	for i := range seq {
		seq[i] = fmt.Sprintf("k%06d", rng.Intn(keys)) // a copy, as a decoder gives it
	}
	b.Run("one-by-one", func(b *testing.B) {
		i := 0
		for b.Loop() {
			key := seq[i&(len(seq)-1)]
			k, _ := tab.state(key, tab.hash(key))
			k.maxSeq++
			i++
		}
	})
	b.Run("64-at-a-time", func(b *testing.B) {
		var hashes, hints [64]uint64
		var sink uint64
		i := 0
		for b.Loop() {
			batch := seq[i&(len(seq)-1) : i&(len(seq)-1)+64]
			for j, key := range batch {
				hashes[j] = tab.hash(key)
			}
			for j := range batch {
				hints[j] = tab.entry(hashes[j])
			}
			for j := range batch {
				sink += tab.touch(hints[j])
			}
			for j, key := range batch {
				k, _ := tab.state(key, hashes[j])
				k.maxSeq++
			}
			i += 64
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(64*b.N), "ns/lookup")
		_ = sink
	})
}

package check

import (
	"fmt"
	"math/rand"
	"testing"
)

func BenchmarkKeyTable(b *testing.B) {
	const keys = 100_000
	rng := rand.New(rand.NewSource(1))
	var tab keyTable
	names := make([]string, keys)
	for i := range names {
		names[i] = fmt.Sprintf("k%d", i)
		tab.state(names[i])
	}
	seq := make([]string, 1<<16)
	for i := range seq {
		seq[i] = fmt.Sprintf("k%d", rng.Intn(keys)) // a copy, as a decoder gives it
	}
	b.Run("one-by-one", func(b *testing.B) {
		i := 0
		for b.Loop() {
			k, _ := tab.state(seq[i&(len(seq)-1)])
			k.maxSeq++
			i++
		}
	})
	b.Run("batched", func(b *testing.B) {
		i := 0
		var hints [64]uint64
		var sink uint64
		for b.Loop() {
			if i&63 == 0 {
				for j := range 64 {
					hints[j] = tab.entry(seq[(i+j)&(len(seq)-1)])
				}
				for j := range 64 {
					sink += tab.touch(hints[j])
				}
			}
			k, _ := tab.state(seq[i&(len(seq)-1)])
			k.maxSeq++
			i++
		}
		_ = sink
	})
}

func BenchmarkKeyTableParts(b *testing.B) {
	const keys = 100_000
	rng := rand.New(rand.NewSource(1))
	var tab keyTable
	for i := range keys {
		tab.state(fmt.Sprintf("k%d", i))
	}
	seq := make([]string, 1<<16)
	for i := range seq {
		seq[i] = fmt.Sprintf("k%d", rng.Intn(keys))
	}
	var sink uint64
	b.Run("entry", func(b *testing.B) {
		i := 0
		for b.Loop() {
			sink += tab.entry(seq[i&(len(seq)-1)])
			i++
		}
	})
	b.Run("entry+touch", func(b *testing.B) {
		i := 0
		for b.Loop() {
			sink += tab.touch(tab.entry(seq[i&(len(seq)-1)]))
			i++
		}
	})
	b.Run("hash-only", func(b *testing.B) {
		i := 0
		for b.Loop() {
			sink += keyHash(uint64(i), 0, seq[i&(len(seq)-1)])
			i++
		}
	})
	_ = sink
}

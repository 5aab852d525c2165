package assign

import (
	"math/rand/v2"
	"testing"
)

// bitSetClasses finds the class of every set put into it, through its
// growth, and no class for sets never put; as a Go map would.
func TestBitSetClasses(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 7))
	for round := range 50 {
		var table bitSetClasses
		want := map[uint64]int32{}
		for range rng.IntN(3000) {
			set := rng.Uint64()
			if round%2 == 0 {
				set &= 0x3ff // few topics: sets repeat
			}
			if _, ok := want[set]; ok {
				continue
			}
			k := int32(len(want))
			want[set] = k
			table.put(set, k)
		}
		for set, k := range want {
			if got, ok := table.get(set); !ok || got != k {
				t.Fatalf("round %d: get(%#x) = %d, %v; want %d", round, set, got, ok, k)
			}
		}
		for range 100 {
			set := rng.Uint64()
			if _, ok := want[set]; !ok {
				if _, found := table.get(set); found {
					t.Fatalf("round %d: get(%#x) found a class it was never given", round, set)
				}
			}
		}
	}
}

package assign

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// sortNumbers sorts as slices.Sort does, by comparison below radixFrom
// numbers and by radix from it: numbers that share bytes (which the radix
// sort skips), repeat, or differ only in their low or high bytes; from
// its from-th byte up, the numbers come out ordered by those bytes.
func TestSortNumbers(t *testing.T) {
	rng := rand.New(rand.NewPCG(14, 7))
	for round := range 200 {
		from := 0
		if round%2 == 1 {
			from = rng.IntN(8)
		}
		n := 1 + rng.IntN(3*radixFrom)
		v := make([]uint64, n)
		shared := rng.Uint64()
		mask := rng.Uint64() // the bytes that vary
		for i := range v {
			v[i] = shared&^mask | rng.Uint64()&mask
			if round%5 == 0 {
				v[i] = uint64(rng.IntN(4)) << (8 * rng.IntN(8))
			}
		}
		want := slices.Clone(v)
		slices.Sort(want)
		sortNumbers(v, make([]uint64, len(v)), from)
		high := func(x uint64) uint64 { return x >> (8 * from) }
		if !slices.IsSortedFunc(v, func(a, b uint64) int { return cmp.Compare(high(a), high(b)) }) {
			t.Fatalf("round %d (%d numbers, from byte %d): not sorted", round, n, from)
		}
		slices.Sort(v)
		if !slices.Equal(v, want) {
			t.Fatalf("round %d (%d numbers): numbers changed", round, n)
		}
	}
}

// Member ids as coordinators make them, in groups big enough for the
// radix sort, sort as strings do.
func TestSortByKeyMemberIDs(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 7))
	for _, n := range []int{radixFrom - 1, radixFrom, 2125, 10000} {
		keys := make([]string, n)
		for i := range keys {
			keys[i] = fmt.Sprintf("consumer-%d-%08x-%04x", rng.IntN(n), rng.Uint32(), rng.Uint32()&0xffff)
		}
		members := make([]int32, n)
		for i := range members {
			members[i] = int32(i)
		}
		rng.Shuffle(n, func(i, j int) { members[i], members[j] = members[j], members[i] })
		want := slices.Clone(members)
		slices.SortStableFunc(want, func(a, b int32) int { return strings.Compare(keys[a], keys[b]) })
		sortByKey(members, keys)
		if !slices.EqualFunc(members, want, func(a, b int32) bool { return keys[a] == keys[b] }) {
			t.Fatalf("%d ids: sortByKey gave %q, want %q", n, pick(keys, members)[:10], pick(keys, want)[:10])
		}
	}
}

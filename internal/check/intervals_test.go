package check

import (
	"math/rand"
	"testing"
)

// TestIntervalsMatchSet: every operation of the interval set agrees with
// a plain set, on random insertions that are mostly in order (as offsets
// and sequence numbers are), with gaps and repeats.
func TestIntervalsMatchSet(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for round := range 200 {
		var s, o intervals
		set, oset := map[int64]bool{}, map[int64]bool{}
		var ks keyState
		ks.hi = -1
		next := int64(0)
		for range 1 + rng.Intn(300) {
			var x int64
			switch r := rng.Intn(10); {
			case r < 6:
				x = next // in order
				next++
			case r < 8:
				x = rng.Int63n(next + 5) // a repeat or a fill
			default:
				next += 1 + rng.Int63n(5) // a gap
				x = next
			}
			if got, want := s.add(x), !set[x]; got != want {
				t.Fatalf("round %d: add(%d) = %v, want %v", round, x, got, want)
			}
			if got, want := ks.add(x), !set[x]; got != want {
				t.Fatalf("round %d: keyState.add(%d) = %v, want %v", round, x, got, want)
			}
			set[x] = true
			if rng.Intn(2) == 0 {
				y := rng.Int63n(next + 5)
				o.add(y)
				oset[y] = true
			}
		}
		// Runs are sorted, disjoint and not adjacent.
		for i := 1; i < len(s.runs); i++ {
			if s.runs[i].lo <= s.runs[i-1].hi+1 {
				t.Fatalf("round %d: runs %v and %v touch", round, s.runs[i-1], s.runs[i])
			}
		}
		if s.len() != int64(len(set)) {
			t.Fatalf("round %d: len %d, want %d", round, s.len(), len(set))
		}
		var top int64 = -1
		for x := range set {
			top = max(top, x)
		}
		if s.max() != top {
			t.Fatalf("round %d: max %d, want %d", round, s.max(), top)
		}
		for q := int64(-2); q < next+6; q++ {
			if s.has(q) != set[q] {
				t.Fatalf("round %d: has(%d) = %v", round, q, s.has(q))
			}
			var from, in int64
			for x := range set {
				if x >= q {
					from++
				}
				if x >= q && x <= q+7 {
					in++
				}
			}
			if s.countFrom(q) != from || s.countIn(q, q+7) != in {
				t.Fatalf("round %d: countFrom(%d) = %d (want %d), countIn = %d (want %d)", round, q, s.countFrom(q), from, s.countIn(q, q+7), in)
			}
		}
		var minus, common int64
		s.minus(&o, func(lo, hi int64) bool {
			for x := lo; x <= hi; x++ {
				if !set[x] || oset[x] {
					t.Fatalf("round %d: minus gave %d", round, x)
				}
				minus++
			}
			return true
		})
		for x := range set {
			if oset[x] {
				common++
			}
		}
		if minus != int64(len(set))-common || s.countCommon(&o) != common {
			t.Fatalf("round %d: minus %d, common %d; want %d, %d", round, minus, s.countCommon(&o), int64(len(set))-common, common)
		}
	}
}

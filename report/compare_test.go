package report

import (
	"math"
	"math/rand"
	"sort"
	"testing"

	"github.com/chaosbench/chaosbench/internal/summary"
)

// bruteP enumerates every split of the pooled samples: an independent
// computation of the exact two-sided Mann-Whitney p-value.
func bruteP(xs, ys []float64) float64 {
	pool := append(append([]float64(nil), xs...), ys...)
	n, n1 := len(pool), len(xs)
	sorted := append([]float64(nil), pool...)
	sort.Float64s(sorted)
	rank := func(v float64) float64 { // mid rank
		lo, hi := -1, -1
		for i, s := range sorted {
			if s == v {
				if lo < 0 {
					lo = i
				}
				hi = i
			}
		}
		return float64(lo+hi)/2 + 1
	}
	var obs, total float64
	for i, v := range pool {
		total += rank(v)
		if i < n1 {
			obs += rank(v)
		}
	}
	mean := total * float64(n1) / float64(n)
	var extreme, all float64
	for mask := 0; mask < 1<<n; mask++ {
		if popcount(mask) != n1 {
			continue
		}
		var s float64
		for i := range n {
			if mask&(1<<i) != 0 {
				s += rank(pool[i])
			}
		}
		all++
		if math.Abs(s-mean) >= math.Abs(obs-mean)-1e-9 {
			extreme++
		}
	}
	return extreme / all
}

func popcount(x int) int {
	n := 0
	for ; x != 0; x &= x - 1 {
		n++
	}
	return n
}

func TestMannWhitneyKnownValues(t *testing.T) {
	for _, c := range []struct {
		xs, ys []float64
		want   float64
	}{
		{[]float64{1, 2, 3}, []float64{4, 5, 6}, 0.1},                    // 2 of C(6,3) = 20 splits
		{[]float64{1, 2, 3, 4, 5}, []float64{6, 7, 8, 9, 10}, 2.0 / 252}, // 2 of C(10,5)
		{[]float64{5, 5, 5}, []float64{5, 5, 5}, 1},                      // all tied
		{[]float64{1, 3}, []float64{2, 4}, 4.0 / 6},                      // rank sums 3,4,5,5,6,7 about 5: four as far as 4
	} {
		if got := MannWhitneyP(c.xs, c.ys); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("MannWhitneyP(%v, %v) = %g, want %g", c.xs, c.ys, got, c.want)
		}
	}
	if got, want := MinP(5, 5), 2.0/252; math.Abs(got-want) > 1e-12 {
		t.Errorf("MinP(5,5) = %g, want %g", got, want)
	}
}

// TestMannWhitneyMatchesEnumeration: on random small samples with ties,
// the counting computation equals brute-force enumeration.
func TestMannWhitneyMatchesEnumeration(t *testing.T) {
	rng := rand.New(rand.NewSource(42))
	for range 300 {
		n1, n2 := 1+rng.Intn(6), 1+rng.Intn(6)
		xs, ys := make([]float64, n1), make([]float64, n2)
		for i := range xs {
			xs[i] = float64(rng.Intn(5))
		}
		for i := range ys {
			ys[i] = float64(rng.Intn(5))
		}
		got, want := MannWhitneyP(xs, ys), bruteP(xs, ys)
		if math.Abs(got-want) > 1e-9 {
			t.Fatalf("MannWhitneyP(%v, %v) = %g, enumeration gives %g", xs, ys, got, want)
		}
	}
}

// group builds a group of cells whose pause p95 and duplicates are the
// given samples.
func group(key Key, pauses []float64, dups []int64, verdicts ...summary.Verdict) *Group {
	g := &Group{Key: key}
	for i, p := range pauses {
		s := &summary.Summary{Verdict: summary.Valid}
		s.Cell.Strategy, s.Cell.CommitPolicy, s.Cell.Client, s.Cell.Iteration = key.Strategy, key.CommitPolicy, key.Client, i
		s.Pause.Stats = summary.Stats{Count: 4, P50: p / 2, P95: p, Max: p}
		s.Duplicates.Count = dups[i]
		if i < len(verdicts) {
			s.Verdict = verdicts[i]
		}
		g.Cells = append(g.Cells, &Cell{S: s})
	}
	return g
}

func find(g *GroupComparison, name string) Change {
	for _, c := range g.Changes {
		if c.Metric.Name == name {
			return c
		}
	}
	return Change{}
}

func TestCompareRegressions(t *testing.T) {
	k := Key{"sticky", "sync-batch", "franz"}
	base := &Run{Dir: "base", Groups: []*Group{group(k, []float64{100, 110, 105, 98, 102}, []int64{10, 12, 11, 9, 10})}}
	// Pauses clearly worse (+50%), duplicates the same.
	worse := &Run{Dir: "cand", Groups: []*Group{group(k, []float64{150, 160, 155, 149, 152}, []int64{11, 10, 12, 10, 9})}}
	c := Compare(base, worse, CompareOptions{})
	g := c.Groups[0]
	if ch := find(g, "pause_p95_ms"); !ch.Regression || !ch.Significant || ch.P > 0.01 {
		t.Errorf("pause p95 +50%%: regression %v, significant %v, p %g; want a significant regression", ch.Regression, ch.Significant, ch.P)
	}
	if ch := find(g, "duplicates"); ch.Significant || ch.Regression {
		t.Errorf("duplicates unchanged: significant %v (p %g), regression %v", ch.Significant, ch.P, ch.Regression)
	}
	if c.Regressions() != 3 { // p50, p95 and max all move by +50%
		t.Errorf("%d regressions, want 3 (pause p50, p95, max)", c.Regressions())
	}

	// A threshold above the change: significant and worse, not a regression.
	c = Compare(base, worse, CompareOptions{Default: &Threshold{Relative: 0.6}})
	if ch := find(c.Groups[0], "pause_p95_ms"); ch.Regression || !ch.Significant || !ch.Worse {
		t.Errorf("within a 60%% threshold: regression %v, significant %v, worse %v", ch.Regression, ch.Significant, ch.Worse)
	}
	// Better is never a regression.
	c = Compare(worse, base, CompareOptions{})
	if c.Regressions() != 0 {
		t.Errorf("an improvement counted %d regressions", c.Regressions())
	}
	// Too few iterations: never significant.
	one := &Run{Groups: []*Group{group(k, []float64{100}, []int64{1})}}
	oneWorse := &Run{Groups: []*Group{group(k, []float64{1000}, []int64{100})}}
	if c := Compare(one, oneWorse, CompareOptions{}); c.Regressions() != 0 || !math.IsNaN(find(c.Groups[0], "pause_p95_ms").P) {
		t.Errorf("one iteration per side gave %d regressions", c.Regressions())
	}
	// An invalid candidate cell is a regression whatever the numbers.
	inv := &Run{Groups: []*Group{group(k, []float64{100, 110, 105, 98, 102}, []int64{10, 12, 11, 9, 10}, summary.Valid, summary.Invalid)}}
	if c := Compare(base, inv, CompareOptions{}); c.Regressions() != 1 || c.Groups[0].VerdictRegression == "" {
		t.Errorf("an invalid candidate cell: %d regressions (%q)", c.Regressions(), c.Groups[0].VerdictRegression)
	}
	// Groups on one side only are listed, not compared.
	other := &Run{Groups: []*Group{group(Key{"range", "auto", "confluent"}, []float64{1}, []int64{1})}}
	if c := Compare(base, other, CompareOptions{}); len(c.OnlyBase) != 1 || len(c.OnlyCand) != 1 || len(c.Groups) != 0 {
		t.Errorf("disjoint runs: only base %v, only candidate %v, compared %d", c.OnlyBase, c.OnlyCand, len(c.Groups))
	}
}

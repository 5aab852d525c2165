package report

import (
	"math"
	"math/rand"
	"slices"
	"sort"
	"testing"

	"github.com/chaosbench/chaosbench/internal/summary"
	"github.com/chaosbench/chaosbench/internal/vocab"
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
	base := &Run{Dir: "base", Groups: []*Group{group(k, []float64{100, 110, 105, 98, 102, 99, 104, 101}, []int64{10, 12, 11, 9, 10, 11, 10, 12})}}
	// Pauses clearly worse (+50%), duplicates the same: eight iterations a
	// side are enough for a fully separated metric to pass Holm's
	// correction over the comparison's family of tests.
	worse := &Run{Dir: "cand", Groups: []*Group{group(k, []float64{150, 160, 155, 149, 152, 151, 158, 153}, []int64{11, 10, 12, 10, 9, 12, 11, 10})}}
	c := Compare(base, worse, CompareOptions{})
	g := c.Groups[0]
	if ch := find(g, "pause_p95_ms"); !ch.Regression || !ch.Significant || ch.P > 0.001 || ch.PAdjusted >= 0.05 || ch.PAdjusted < ch.P {
		t.Errorf("pause p95 +50%%: regression %v, significant %v, p %g (adjusted %g); want a significant regression", ch.Regression, ch.Significant, ch.P, ch.PAdjusted)
	}
	if c.Tests < 10 {
		t.Errorf("a family of %d tests: every metric with samples on both sides is one", c.Tests)
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
	// Five iterations a side: fully separated, the rank test's smallest
	// p-value (0.008) is significant alone but not once corrected for the
	// family, and a comparison without the correction finds what the
	// corrected one cannot.
	five := &Run{Groups: []*Group{group(k, []float64{100, 110, 105, 98, 102}, []int64{10, 12, 11, 9, 10})}}
	fiveWorse := &Run{Groups: []*Group{group(k, []float64{150, 160, 155, 149, 152}, []int64{11, 10, 12, 10, 9})}}
	if c := Compare(five, fiveWorse, CompareOptions{}); c.Regressions() != 0 {
		t.Errorf("5 vs 5 under Holm: %d regressions, want 0 (p 0.008 over a family of %d)", c.Regressions(), c.Tests)
	}
	if c := Compare(five, fiveWorse, CompareOptions{Correction: NoCorrection}); c.Regressions() != 3 {
		t.Errorf("5 vs 5 without correction: %d regressions, want 3", c.Regressions())
	}
	// Too few iterations: never significant.
	one := &Run{Groups: []*Group{group(k, []float64{100}, []int64{1})}}
	oneWorse := &Run{Groups: []*Group{group(k, []float64{1000}, []int64{100})}}
	if c := Compare(one, oneWorse, CompareOptions{}); c.Regressions() != 0 || !math.IsNaN(find(c.Groups[0], "pause_p95_ms").P) {
		t.Errorf("one iteration per side gave %d regressions", c.Regressions())
	}
	// An invalid candidate cell is a regression whatever the numbers.
	inv := &Run{Groups: []*Group{group(k, []float64{100, 110, 105, 98, 102, 99, 104, 101}, []int64{10, 12, 11, 9, 10, 11, 10, 12}, summary.Valid, summary.Invalid)}}
	if c := Compare(base, inv, CompareOptions{}); c.Regressions() != 1 || c.Groups[0].VerdictRegression == "" {
		t.Errorf("an invalid candidate cell: %d regressions (%q)", c.Regressions(), c.Groups[0].VerdictRegression)
	}
	// Groups on one side only are listed, not compared.
	other := &Run{Groups: []*Group{group(Key{"range", "auto", "confluent"}, []float64{1}, []int64{1})}}
	if c := Compare(base, other, CompareOptions{}); len(c.OnlyBase) != 1 || len(c.OnlyCand) != 1 || len(c.Groups) != 0 {
		t.Errorf("disjoint runs: only base %v, only candidate %v, compared %d", c.OnlyBase, c.OnlyCand, len(c.Groups))
	}
}

// Holm's adjusted p-values of a textbook family: sorted 0.01, 0.02, 0.03,
// 0.04 of four become 4(0.01), max(0.04, 3(0.02)), max(0.06, 2(0.03)),
// max(0.06, 0.04); in the family's own order.
func TestHolmAdjust(t *testing.T) {
	got := HolmAdjust([]float64{0.03, 0.01, 0.04, 0.02})
	want := []float64{0.06, 0.04, 0.06, 0.06}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-12 {
			t.Fatalf("HolmAdjust = %v, want %v", got, want)
		}
	}
	if got := HolmAdjust([]float64{0.5, 0.9}); got[0] != 1 || got[1] != 1 {
		t.Errorf("adjusted p-values are capped at 1: %v", got)
	}
	if len(HolmAdjust(nil)) != 0 {
		t.Error("an empty family")
	}
}

// A metric a summary does not hold is absent, never 0: a baseline written
// before "partitions paused beyond the target's" existed has no samples
// of it, and a comparison across analysis revisions judges no metric
// whose definition changed between them.
func TestCompareAcrossRevisions(t *testing.T) {
	k := Key{"range", "sync-batch", "confluent"}
	old := group(k, []float64{100, 110, 105, 98, 102, 99, 104, 101}, []int64{10, 12, 11, 9, 10, 11, 10, 12})
	for _, c := range old.Cells {
		c.S = summary.WithFields(c.S, "pause.stats", "duplicates.count") // revision 0, written before other_stats
	}
	cur := group(k, []float64{100, 110, 105, 98, 102, 99, 104, 101}, []int64{10, 12, 11, 9, 10, 11, 10, 12})
	for _, c := range cur.Cells {
		c.S.Analysis.Revision = summary.Revision
		c.S.Pause.OtherStats = summary.Stats{Count: 20}
	}
	m, _ := MetricByName("other_pauses")
	if xs := m.Samples(old); len(xs) != 0 {
		t.Errorf("other_pauses of summaries without the field: %v, want none", xs)
	}
	c := Compare(&Run{Groups: []*Group{old}, Cells: old.Cells}, &Run{Groups: []*Group{cur}, Cells: cur.Cells}, CompareOptions{})
	if c.Regressions() != 0 {
		t.Errorf("%d regressions across revisions 0 and %d", c.Regressions(), summary.Revision)
	}
	if ch := find(c.Groups[0], "other_pauses"); ch.NotJudged == "" || ch.Regression || ch.verdict() != "not judged" {
		t.Errorf("other_pauses across revisions: %+v", ch)
	}
	if len(c.Unjudged) != len(Metrics) || c.BaseRevisions != [2]int{0, 0} || c.CandRevisions != [2]int{summary.Revision, summary.Revision} {
		t.Errorf("unjudged %v, revisions %v and %v", c.Unjudged, c.BaseRevisions, c.CandRevisions)
	}
	// The same revision on both sides: every metric judged.
	if c := Compare(&Run{Groups: []*Group{cur}, Cells: cur.Cells}, &Run{Groups: []*Group{cur}, Cells: cur.Cells}, CompareOptions{}); len(c.Unjudged) != 0 {
		t.Errorf("one revision on both sides, unjudged %v", c.Unjudged)
	}
}

// The vocabulary's metric names, which workloads check expect: against,
// are the metrics this package defines, in order.
func TestMetricsAreTheVocabularys(t *testing.T) {
	var names []string
	for _, m := range Metrics {
		names = append(names, m.Name)
	}
	if want := vocab.MetricNames(); !slices.Equal(names, want) {
		t.Errorf("report's metrics %v, the vocabulary's %v", names, want)
	}
}

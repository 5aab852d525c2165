package report

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"

	"github.com/chaosbench/chaosbench/internal/stat"
	"github.com/chaosbench/chaosbench/internal/summary"
)

// Threshold is how much worse a metric may get before a significant
// change counts as a regression: both the relative change (0.1 = 10%) and
// the absolute change (in the metric's unit) must exceed it.
type Threshold struct {
	Relative float64
	Absolute float64
}

func (t Threshold) String() string {
	var parts []string
	if t.Relative > 0 {
		parts = append(parts, fmt.Sprintf("%g%%", t.Relative*100))
	}
	if t.Absolute > 0 {
		parts = append(parts, fmt.Sprintf("%g", t.Absolute))
	}
	if len(parts) == 0 {
		return "any"
	}
	return strings.Join(parts, " and ")
}

// CompareOptions tune Compare.
type CompareOptions struct {
	// Alpha is the significance level of the rank test. Default 0.05.
	Alpha float64
	// Default applies to metrics without their own threshold. Default
	// 10% relative, nothing absolute.
	Default    *Threshold
	Thresholds map[string]Threshold
}

func (o CompareOptions) threshold(name string) Threshold {
	if t, ok := o.Thresholds[name]; ok {
		return t
	}
	if o.Default != nil {
		return *o.Default
	}
	return Threshold{Relative: 0.10}
}

// Spread describes a group's samples of a metric: how many, the median,
// the extremes and the quartiles (package stat computes it).
type Spread = stat.Spread

// SpreadOf returns the spread of xs (NaN values for none).
func SpreadOf(xs []float64) Spread { return stat.SpreadOf(xs) }

// Change is one metric compared between a baseline group and a candidate.
type Change struct {
	Metric                 Metric
	Base, Cand             []float64
	BaseSpread, CandSpread Spread
	BaseMedian, CandMedian float64
	// Delta is CandMedian - BaseMedian; Relative is Delta / |BaseMedian|
	// (±Inf from zero, NaN when both are zero).
	Delta, Relative float64
	// P is the two-sided p-value of the Mann-Whitney U test (exact); NaN
	// when either side has fewer than two samples.
	P           float64
	Significant bool
	Worse       bool
	Regression  bool
	Threshold   Threshold
}

// GroupComparison compares one (strategy, commit policy, client).
type GroupComparison struct {
	Key        Key
	Base, Cand *Group
	Changes    []Change
	// VerdictRegression says why the candidate's verdicts are worse (an
	// invalid cell where the baseline had none), "" if they are not.
	VerdictRegression string
}

// Regressions counts the group's regressions.
func (g *GroupComparison) Regressions() int {
	n := 0
	for _, c := range g.Changes {
		if c.Regression {
			n++
		}
	}
	if g.VerdictRegression != "" {
		n++
	}
	return n
}

// Comparison is the result of Compare.
type Comparison struct {
	Base, Cand *Run
	Options    CompareOptions
	// Environment says whether both sides ran on the same kind of machine
	// and cluster.
	Environment EnvironmentComparison
	Groups      []*GroupComparison
	// OnlyBase and OnlyCand are groups found on one side only.
	OnlyBase, OnlyCand []Key
}

// Regressions counts every regression.
func (c *Comparison) Regressions() int {
	n := 0
	for _, g := range c.Groups {
		n += g.Regressions()
	}
	return n
}

// Compare compares two sets of runs group by group, metric by metric.
// The iterations of a group are its samples; a change is significant when
// the Mann-Whitney U test rejects equal distributions at level Alpha, and
// a regression when it is significant, in the worse direction, and beyond
// the metric's threshold. A group whose candidate has an invalid cell
// where the baseline had none regresses whatever the statistics say.
func Compare(base, cand *Run, o CompareOptions) *Comparison {
	if o.Alpha <= 0 {
		o.Alpha = 0.05
	}
	c := &Comparison{Base: base, Cand: cand, Options: o, Environment: compareEnvironments(base, cand)}
	cg := map[Key]*Group{}
	for _, g := range cand.Groups {
		cg[g.Key] = g
	}
	seen := map[Key]bool{}
	for _, bg := range base.Groups {
		g, ok := cg[bg.Key]
		if !ok {
			c.OnlyBase = append(c.OnlyBase, bg.Key)
			continue
		}
		seen[bg.Key] = true
		gc := &GroupComparison{Key: bg.Key, Base: bg, Cand: g}
		bInvalid, cInvalid := countVerdict(bg, summary.Invalid), countVerdict(g, summary.Invalid)
		if cInvalid > 0 && bInvalid == 0 {
			gc.VerdictRegression = fmt.Sprintf("%d of %d candidate cells are invalid; no baseline cell was", cInvalid, len(g.Cells))
		}
		for _, m := range Metrics {
			bs, cs := m.Samples(bg), m.Samples(g)
			if len(bs) == 0 && len(cs) == 0 {
				continue
			}
			ch := Change{Metric: m, Base: bs, Cand: cs, BaseSpread: SpreadOf(bs), CandSpread: SpreadOf(cs),
				BaseMedian: Median(bs), CandMedian: Median(cs), P: math.NaN(), Threshold: o.threshold(m.Name)}
			ch.Delta = ch.CandMedian - ch.BaseMedian
			switch {
			case ch.Delta == 0:
				ch.Relative = 0
			case ch.BaseMedian == 0:
				ch.Relative = math.Copysign(math.Inf(1), ch.Delta)
			default:
				ch.Relative = ch.Delta / math.Abs(ch.BaseMedian)
			}
			if len(bs) >= 2 && len(cs) >= 2 {
				ch.P = MannWhitneyP(bs, cs)
				ch.Significant = ch.P < o.Alpha
			}
			ch.Worse = (m.LowerIsBetter && ch.Delta > 0) || (!m.LowerIsBetter && ch.Delta < 0)
			ch.Regression = ch.Significant && ch.Worse &&
				math.Abs(ch.Relative) > ch.Threshold.Relative && math.Abs(ch.Delta) > ch.Threshold.Absolute
			gc.Changes = append(gc.Changes, ch)
		}
		c.Groups = append(c.Groups, gc)
	}
	for _, g := range cand.Groups {
		if !seen[g.Key] {
			c.OnlyCand = append(c.OnlyCand, g.Key)
		}
	}
	return c
}

func countVerdict(g *Group, v summary.Verdict) int {
	n := 0
	for _, c := range g.Cells {
		if c.S.Verdict == v {
			n++
		}
	}
	return n
}

// MannWhitneyP returns the exact two-sided p-value of the Mann-Whitney U
// (Wilcoxon rank-sum) test of xs against ys: the share of the ways of
// splitting the pooled samples into groups of their sizes whose rank sum
// is at least as far from its mean as the observed one. Ties get mid
// ranks, and the distribution is of the tied ranks themselves, so ties
// are exact too. It is computed by counting subsets per rank sum (dynamic
// programming), which stays fast for the sample sizes of repeated runs.
//
// It is written here rather than taken from a package because the Go one
// at hand (golang.org/x/perf's, behind benchstat) is exact only without
// ties and falls back to the normal approximation otherwise, and gonum has
// none. Repeated cells tie often (0 duplicates in every run), and with
// five samples a side the approximation is poor.
func MannWhitneyP(xs, ys []float64) float64 {
	n1, n := len(xs), len(xs)+len(ys)
	if n1 == 0 || len(ys) == 0 {
		return math.NaN()
	}
	type obs struct {
		v   float64
		isX bool
	}
	all := make([]obs, 0, n)
	for _, v := range xs {
		all = append(all, obs{v, true})
	}
	for _, v := range ys {
		all = append(all, obs{v, false})
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].v < all[j].v })
	// Doubled mid ranks, so that they are integers.
	ranks := make([]int, n)
	for i := 0; i < n; {
		j := i
		for j < n && all[j].v == all[i].v {
			j++
		}
		r := (i + 1) + j // (i+1 + j) = 2 * mid rank of positions i..j-1 (1-based)
		for k := i; k < j; k++ {
			ranks[k] = r
		}
		i = j
	}
	obsSum, total := 0, 0
	for i, o := range all {
		total += ranks[i]
		if o.isX {
			obsSum += ranks[i]
		}
	}
	// counts[k][s]: subsets of size k with doubled rank sum s.
	counts := make([][]float64, n1+1)
	for k := range counts {
		counts[k] = make([]float64, total+1)
	}
	counts[0][0] = 1
	for i := 0; i < n; i++ {
		r := ranks[i]
		for k := min(i+1, n1); k >= 1; k-- {
			prev, cur := counts[k-1], counts[k]
			for s := total; s >= r; s-- {
				cur[s] += prev[s-r]
			}
		}
	}
	mean := float64(total) * float64(n1) / float64(n)
	dev := math.Abs(float64(obsSum) - mean)
	var extreme, all2 float64
	for s, c := range counts[n1] {
		if c == 0 {
			continue
		}
		all2 += c
		if math.Abs(float64(s)-mean) >= dev-1e-9 {
			extreme += c
		}
	}
	return extreme / all2
}

// MinP returns the smallest two-sided p-value the test can give for
// samples of these sizes (no ties): how many iterations a significant
// result needs.
func MinP(n1, n2 int) float64 {
	if n1 < 1 || n2 < 1 {
		return 1
	}
	// 2 / C(n1+n2, n1)
	c := 1.0
	for i := 1; i <= n1; i++ {
		c = c * float64(n2+i) / float64(i)
	}
	return math.Min(1, 2/c)
}

// WriteComparison writes the comparison as Markdown.
func WriteComparison(w io.Writer, c *Comparison) error {
	e := &ewriter{w: bufio.NewWriter(w)}
	e.printf("# chaosbench compare\n\n")
	e.printf("Baseline `%s` (%d cells), candidate `%s` (%d cells). Each group's iterations are its samples; a change is significant when the Mann-Whitney U test (exact, two-sided) gives p < %g, and a regression when it is significant, worse, and beyond the metric's threshold.\n\n",
		c.Base.Dir, len(c.Base.Cells), c.Cand.Dir, len(c.Cand.Cells), c.Options.Alpha)
	if n := c.Regressions(); n > 0 {
		e.printf("**Result: %d regression%s.**\n\n", n, map[bool]string{true: "", false: "s"}[n == 1])
	} else {
		e.printf("**Result: no regression.**\n\n")
	}
	writeEnvironment(e, c.Environment)
	for _, k := range c.OnlyBase {
		e.printf("- %s: in the baseline only\n", k)
	}
	for _, k := range c.OnlyCand {
		e.printf("- %s: in the candidate only\n", k)
	}
	if len(c.OnlyBase)+len(c.OnlyCand) > 0 {
		e.printf("\n")
	}
	for _, g := range c.Groups {
		nb, nc := len(g.Base.Cells), len(g.Cand.Cells)
		e.printf("## %s\n\n", g.Key)
		e.printf("Baseline %s, candidate %s; %d vs %d iterations", groupVerdict(g.Base), groupVerdict(g.Cand), nb, nc)
		if mp := MinP(nb, nc); mp >= c.Options.Alpha {
			e.printf(" (too few for significance: the smallest possible p is %.3g; run more with chaos run --repeat)", mp)
		}
		e.printf(".\n\n")
		if g.VerdictRegression != "" {
			e.printf("**Regression: %s.**\n\n", g.VerdictRegression)
		}
		e.printf("| metric | baseline: median (min – max) | candidate: median (min – max) | change | p | |\n|---|---:|---:|---:|---:|---|\n")
		for _, ch := range g.Changes {
			p := "–"
			if !math.IsNaN(ch.P) {
				p = fmt.Sprintf("%.3g", ch.P)
			}
			mark := ""
			switch {
			case ch.Regression:
				mark = fmt.Sprintf("**regression** (threshold %s)", ch.Threshold)
			case ch.Significant && ch.Worse:
				mark = fmt.Sprintf("worse, within threshold (%s)", ch.Threshold)
			case ch.Significant:
				mark = "better"
			}
			e.printf("| %s | %s | %s | %s | %s | %s |\n", ch.Metric.Label, formatSpread(ch.Metric, ch.BaseSpread), formatSpread(ch.Metric, ch.CandSpread), formatChange(ch), p, mark)
		}
		e.printf("\n")
	}
	return e.flush()
}

// writeEnvironment says plainly whether both sides ran on the same kind
// of machine and cluster.
func writeEnvironment(e *ewriter, ec EnvironmentComparison) {
	list := func(es []Environment) string {
		var parts []string
		for _, x := range es {
			parts = append(parts, x.String())
		}
		return strings.Join(parts, "; ")
	}
	switch {
	case ec.Same:
		e.printf("Same environment on both sides: %s.\n\n", list(ec.Baseline))
	case len(ec.Differences) > 0:
		e.printf("**Different machines: the baseline ran on %s; the candidate on %s.** They differ in %s. Times (pauses, stops, recovery, latency) depend on the machine as much as on the code: record a baseline on the candidate's kind of machine.\n\n",
			list(ec.Baseline), list(ec.Candidate), strings.Join(ec.Differences, "; "))
	}
	for _, n := range ec.Notes {
		e.printf("Note: %s.\n\n", n)
	}
}

// formatSpread renders a group's samples: the median, and the range when
// there are several, as benchstat shows a spread beside each value.
func formatSpread(m Metric, s Spread) string {
	lo, hi := m.Format(s.Min), m.Format(s.Max)
	if s.N < 2 || lo == hi {
		return m.Format(s.Median)
	}
	return fmt.Sprintf("%s (%s – %s)", m.Format(s.Median), lo, hi)
}

func formatChange(ch Change) string {
	if math.IsNaN(ch.Delta) {
		return "–"
	}
	if ch.Delta == 0 {
		return "0"
	}
	sign := "+"
	if ch.Delta < 0 {
		sign = "−"
	}
	abs := ch.Metric.Format(math.Abs(ch.Delta))
	if math.IsInf(ch.Relative, 0) {
		return sign + abs
	}
	return fmt.Sprintf("%s%s (%s%.0f%%)", sign, abs, sign, math.Abs(ch.Relative)*100)
}

package report

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strconv"
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
	// Alpha is the family-wise error rate: the chance, over every metric
	// of every group compared, that unchanged code gives a significant
	// change. Default 0.05.
	Alpha float64
	// Correction is how the p-values of the family are corrected: Holm
	// (the default) or NoCorrection (each test at Alpha alone).
	Correction Correction
	// Default applies to metrics without their own threshold. Default
	// 10% relative, nothing absolute.
	Default *Threshold
	// Thresholds are per metric, by name; GroupThresholds per group and
	// metric, by the group's key (Key.String) and the metric's name, and
	// take precedence (a calibration gives them: chaos calibrate).
	Thresholds      map[string]Threshold
	GroupThresholds map[string]map[string]Threshold
}

// Correction is a correction of a family of p-values for testing many.
type Correction string

const (
	// Holm is Holm's step-down correction: the smallest p-value is held
	// to Alpha/m, the next to Alpha/(m-1), and so on, until one fails. It
	// bounds the chance of any false significance in the family by Alpha
	// whatever the metrics' dependence (they are far from independent:
	// a pause's p50 and p95 move together), and rejects everything
	// Bonferroni does and more.
	Holm Correction = "holm"
	// NoCorrection tests each metric at Alpha alone: with twenty metrics
	// in each of six groups, chance alone then gives a significant change
	// most nights.
	NoCorrection Correction = "none"
)

func (o CompareOptions) threshold(k Key, name string) Threshold {
	if t, ok := o.GroupThresholds[k.String()][name]; ok {
		return t
	}
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
	// when either side has fewer than two samples. PAdjusted is it
	// corrected for the family (Holm's adjusted p-value): significant
	// when below Alpha.
	P, PAdjusted float64
	Significant  bool
	Worse        bool
	Regression   bool
	Threshold    Threshold
	// NotJudged says why the metric is not judged ("" when it is): the
	// two sides' summaries were written by analyses whose definitions of
	// it differ.
	NotJudged string
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
	// Tests is the size of the family of tests the correction covers.
	Tests int
	// Revisions: the oldest and newest analysis revision of each side's
	// summaries; Unjudged the metrics not judged because of them.
	BaseRevisions, CandRevisions [2]int
	Unjudged                     []string
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
	if o.Correction == "" {
		o.Correction = Holm
	}
	c := &Comparison{Base: base, Cand: cand, Options: o, Environment: compareEnvironments(base, cand)}
	c.BaseRevisions[0], c.BaseRevisions[1] = base.Revisions()
	c.CandRevisions[0], c.CandRevisions[1] = cand.Revisions()
	same := SameAnalysis(base, cand)
	oldest := min(c.BaseRevisions[0], c.CandRevisions[0])
	for _, m := range Metrics {
		if !same && oldest < m.Changed {
			c.Unjudged = append(c.Unjudged, m.Name)
		}
	}
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
				BaseMedian: Median(bs), CandMedian: Median(cs), P: math.NaN(), PAdjusted: math.NaN(),
				Threshold: o.threshold(bg.Key, m.Name)}
			if slices.Contains(c.Unjudged, m.Name) {
				ch.NotJudged = fmt.Sprintf("its definition changed in analysis revision %d; the baseline's summaries are of revision %d and the candidate's of %d (analyse both with this build, or record the baseline again)",
					m.Changed, c.BaseRevisions[0], c.CandRevisions[0])
			}
			ch.Delta = ch.CandMedian - ch.BaseMedian
			switch {
			case ch.Delta == 0:
				ch.Relative = 0
			case ch.BaseMedian == 0:
				ch.Relative = math.Copysign(math.Inf(1), ch.Delta)
			default:
				ch.Relative = ch.Delta / math.Abs(ch.BaseMedian)
			}
			if len(bs) >= 2 && len(cs) >= 2 && ch.NotJudged == "" {
				ch.P = MannWhitneyP(bs, cs)
			}
			ch.Worse = (m.LowerIsBetter && ch.Delta > 0) || (!m.LowerIsBetter && ch.Delta < 0)
			gc.Changes = append(gc.Changes, ch)
		}
		c.Groups = append(c.Groups, gc)
	}
	for _, g := range cand.Groups {
		if !seen[g.Key] {
			c.OnlyCand = append(c.OnlyCand, g.Key)
		}
	}
	c.judge()
	return c
}

// judge corrects the family's p-values and marks each change: significant
// when its corrected p-value is below Alpha, a regression when it is
// significant, worse, and beyond its threshold.
func (c *Comparison) judge() {
	var family []*Change
	for _, g := range c.Groups {
		for i := range g.Changes {
			if !math.IsNaN(g.Changes[i].P) {
				family = append(family, &g.Changes[i])
			}
		}
	}
	c.Tests = len(family)
	ps := make([]float64, len(family))
	for i, ch := range family {
		ps[i] = ch.P
	}
	adjusted := ps
	if c.Options.Correction == Holm {
		adjusted = HolmAdjust(ps)
	}
	for i, ch := range family {
		ch.PAdjusted = adjusted[i]
		ch.Significant = ch.PAdjusted < c.Options.Alpha
		ch.Regression = ch.Significant && ch.Worse &&
			math.Abs(ch.Relative) > ch.Threshold.Relative && math.Abs(ch.Delta) > ch.Threshold.Absolute
	}
}

// HolmAdjust returns Holm's adjusted p-values of a family, in its order:
// with the p-values sorted, p(k) of m becomes the largest of
// min(1, (m-j+1) p(j)) for j up to k. A test is significant at level
// alpha, family-wise, when its adjusted p-value is below alpha.
func HolmAdjust(ps []float64) []float64 {
	m := len(ps)
	order := make([]int, m)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return ps[order[a]] < ps[order[b]] })
	out := make([]float64, m)
	running := 0.0
	for k, i := range order {
		running = math.Max(running, math.Min(1, float64(m-k)*ps[i]))
		out[i] = running
	}
	return out
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
	e.printf("Baseline `%s` (%d cells), candidate `%s` (%d cells). Each group's iterations are its samples; a change is significant when the Mann-Whitney U test (exact, two-sided) gives p < %g %s, and a regression when it is significant, worse, and beyond the metric's threshold.\n\n",
		c.Base.Dir, len(c.Base.Cells), c.Cand.Dir, len(c.Cand.Cells), c.Options.Alpha, correctionText(c))
	if n := c.Regressions(); n > 0 {
		e.printf("**Result: %d regression%s.**\n\n", n, map[bool]string{true: "", false: "s"}[n == 1])
	} else {
		e.printf("**Result: no regression.**\n\n")
	}
	writeEnvironment(e, c.Environment)
	if len(c.Unjudged) > 0 {
		e.printf("**Not judged: %s.** The baseline's summaries were written by analysis revision %s, the candidate's by %s, and these metrics' definitions changed since (docs/summary.md, \"Revisions\"). The baseline's histories are not kept, so they cannot be analysed again: record the baseline again with this build.\n\n",
			strings.Join(c.Unjudged, ", "), revisionText(c.BaseRevisions), revisionText(c.CandRevisions))
	}
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
		if mp, need := MinP(nb, nc), c.levelNeeded(); mp >= need {
			e.printf(" (too few for significance: the smallest possible p is %.3g, and the family of %d tests needs below %.3g; run more with chaos run --repeat)", mp, c.Tests, need)
		}
		e.printf(".\n\n")
		if g.VerdictRegression != "" {
			e.printf("**Regression: %s.**\n\n", g.VerdictRegression)
		}
		e.printf("| metric | baseline: median (min – max) | candidate: median (min – max) | change | p | p, corrected | |\n|---|---:|---:|---:|---:|---:|---|\n")
		for _, ch := range g.Changes {
			p, pa := "–", "–"
			if !math.IsNaN(ch.P) {
				p, pa = fmt.Sprintf("%.3g", ch.P), fmt.Sprintf("%.3g", ch.PAdjusted)
			}
			mark := ""
			switch {
			case ch.NotJudged != "":
				mark = "not judged (definition changed)"
			case ch.Regression:
				mark = fmt.Sprintf("**regression** (threshold %s)", ch.Threshold)
			case ch.Significant && ch.Worse:
				mark = fmt.Sprintf("worse, within threshold (%s)", ch.Threshold)
			case ch.Significant:
				mark = "better"
			}
			e.printf("| %s | %s | %s | %s | %s | %s | %s |\n", ch.Metric.Label, formatSpread(ch.Metric, ch.BaseSpread), formatSpread(ch.Metric, ch.CandSpread), formatChange(ch), p, pa, mark)
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

// Revisions is the range of analysis revisions (summary.Revision) that
// wrote a run's summaries: 0 for a summary written before revisions were
// recorded.
func (r *Run) Revisions() (lo, hi int) {
	for i, c := range r.Cells {
		v := c.S.Analysis.Revision
		if i == 0 || v < lo {
			lo = v
		}
		hi = max(hi, v)
	}
	return lo, hi
}

// Reanalysable reports whether every cell of the run holds its histories,
// so that the current analysis can read it again.
func (r *Run) Reanalysable() bool {
	for _, c := range r.Cells {
		if !c.Histories {
			return false
		}
	}
	return len(r.Cells) > 0
}

// SameAnalysis reports whether one revision of the analysis wrote every
// summary of both sides: then every metric means the same on both.
func SameAnalysis(base, cand *Run) bool {
	blo, bhi := base.Revisions()
	clo, chi := cand.Revisions()
	return blo == bhi && clo == chi && blo == clo
}

// correctionText says how the family's p-values are corrected.
func correctionText(c *Comparison) string {
	if c.Options.Correction == Holm {
		return fmt.Sprintf("after Holm's correction for the %d tests of the comparison (the chance that unchanged code shows any significant change is at most %g)", c.Tests, c.Options.Alpha)
	}
	return "for each metric alone (no correction for testing many)"
}

// levelNeeded is the p-value the family's most significant test must be
// below: Alpha over the family's size under Holm's correction.
func (c *Comparison) levelNeeded() float64 {
	if c.Options.Correction == Holm && c.Tests > 0 {
		return c.Options.Alpha / float64(c.Tests)
	}
	return c.Options.Alpha
}

// revisionText renders a side's revision range.
func revisionText(r [2]int) string {
	name := func(v int) string {
		if v == 0 {
			return "0 (before revisions were recorded)"
		}
		return strconv.Itoa(v)
	}
	if r[0] == r[1] {
		return name(r[0])
	}
	return name(r[0]) + " to " + name(r[1])
}

package report

import (
	"fmt"
	"math"
)

// Where the strategies differ: for each headline metric, the group with
// the best median and the runner-up, and whether the difference is beyond
// the spread of the repeats: the exact Mann-Whitney test of the two
// groups' samples (compare.go), at the 5% level. With one run a side
// nothing can be told apart, and the section says so rather than crown a
// winner of noise.

// differMetrics are the metrics the section ranks, by name.
var differMetrics = []string{
	"target_pause_p95_ms", "other_pause_p95_ms", "other_pauses", "take_on_ms", "group_stop_ms", "kept_stall_ms",
	"recovery_ms", "duplicates", "lost", "moved", "load_after_max_over_mean", "latency_p99_disruption_ms",
}

// differAlpha is the level at which a difference counts as beyond the
// spread of the repeats.
const differAlpha = 0.05

// Differ is one metric's ranking.
type Differ struct {
	Metric              Metric
	Best, RunnerUp      *Group
	BestMed, RunnerMed  float64
	P                   float64 // NaN with fewer than two samples a side
	Beyond, Tie, Single bool
	// Tied counts the groups whose median equals the best's, of Of.
	Tied, Of int
}

// Differences ranks the groups on each headline metric that at least two
// of them have.
func Differences(gs []*Group) []Differ {
	var out []Differ
	for _, name := range differMetrics {
		m, ok := MetricByName(name)
		if !ok {
			continue
		}
		type ranked struct {
			g   *Group
			xs  []float64
			med float64
		}
		var rs []ranked
		for _, g := range gs {
			if xs := m.Samples(g); len(xs) > 0 {
				rs = append(rs, ranked{g, xs, Median(xs)})
			}
		}
		if len(rs) < 2 {
			continue
		}
		better := func(a, b float64) bool {
			if m.LowerIsBetter {
				return a < b
			}
			return a > b
		}
		bi, ri := 0, -1
		for i := 1; i < len(rs); i++ {
			if better(rs[i].med, rs[bi].med) {
				bi = i
			}
		}
		for i := range rs {
			if i != bi && (ri < 0 || better(rs[i].med, rs[ri].med)) {
				ri = i
			}
		}
		d := Differ{Metric: m, Best: rs[bi].g, RunnerUp: rs[ri].g, BestMed: rs[bi].med, RunnerMed: rs[ri].med,
			P: MannWhitneyP(rs[bi].xs, rs[ri].xs), Of: len(rs)}
		d.Tie = d.BestMed == d.RunnerMed
		for _, r := range rs {
			if r.med == d.BestMed {
				d.Tied++
			}
		}
		d.Single = len(rs[bi].xs) < 2 || len(rs[ri].xs) < 2
		d.Beyond = !d.Tie && !d.Single && !math.IsNaN(d.P) && d.P < differAlpha
		out = append(out, d)
	}
	return out
}

// Verdict says whether the best is told apart from the runner-up.
func (d Differ) Verdict() string {
	switch {
	case d.Tie:
		return fmt.Sprintf("tie: %d of %d columns", d.Tied, d.Of)
	case d.Single:
		return "cannot tell: one run of a side (chaos run --repeat 5)"
	case d.Beyond:
		return fmt.Sprintf("yes (p = %.3f)", d.P)
	}
	return fmt.Sprintf("no (p = %.2f): within the spread of the repeats", d.P)
}

// differSection ranks the groups on each headline metric (empty with
// fewer than two groups, or nothing to rank).
func differSection(gs []*Group) *section {
	s := &section{}
	ds := Differences(gs)
	if len(gs) < 2 || len(ds) == 0 {
		return s
	}
	s.title = phrase{words("Where the strategies differ")}
	t := &tableBlock{align: "llll", head: values("metric", "best", "runner-up", "beyond the repeat spread?")}
	for _, d := range ds {
		best, runner := d.Columns()
		t.rows = append(t.rows, cells(d.Metric.Label, best, runner, d.Verdict()))
	}
	s.add(t, note(words(fmt.Sprintf("Best is the lowest median; a difference is beyond the spread when the exact Mann-Whitney test of the two columns' repeats gives p < %.2f.", differAlpha))))
	return s
}

// Columns renders the best and the runner-up: "range · sync-batch ·
// confluent: 3.1 s"; a tie names no winner ("0 in 4 columns", "–").
func (d Differ) Columns() (best, runner string) {
	if d.Tie {
		return fmt.Sprintf("%s in %d columns", d.Metric.Format(d.BestMed), d.Tied), "–"
	}
	return d.Best.Key.String() + ": " + d.Metric.Format(d.BestMed), d.RunnerUp.Key.String() + ": " + d.Metric.Format(d.RunnerMed)
}

package report

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/chaosbench/chaosbench/internal/vocab"
)

// The clients side by side: for each strategy and commit policy that ran
// on more than one client, one table with a column per client, and the
// metrics on which two clients disagree beyond the spread of their
// repeats.
//
// A disagreement is what repeated runs can tell apart: every repeat of one
// client lies beyond every repeat of the other (their ranges do not
// overlap), each has at least two repeats, and the medians differ by more
// than a tenth. The exact Mann-Whitney p-value comes with it; disjoint
// ranges are its most extreme arrangement, so p is the smallest the
// sample sizes allow (0.1 for three repeats against three, below 0.05 from
// four against four).

// clientMetrics are the rows of a clients table.
var clientMetrics = []string{
	"pause_p50_ms", "pause_p95_ms", "group_stop_ms", "kept_stall_ms", "recovery_ms",
	"duplicates", "overlap", "excess_moves", "latency_p99_steady_ms",
}

// ClientTable is one strategy and commit policy on every client that ran it.
type ClientTable struct {
	Strategy, Policy string
	Groups           []*Group // one per client, in the vocabulary's order
	Rows             []ClientRow
	Differences      []ClientDifference
}

// ClientRow is one metric across the clients: the median and, over
// repeats, the range.
type ClientRow struct {
	Metric Metric
	Values []string
}

// ClientDifference is a metric on which two clients disagree beyond their
// repeats' spread.
type ClientDifference struct {
	Metric       Metric
	Low, High    *Group // the client with the lower values, the higher
	LowS, HighS  []float64
	P            float64
	LowMedian    float64
	HighMedian   float64
	RelativeDiff float64 // (high - low) / |low|; +Inf from 0
}

// ClientTables returns the run's clients tables, in report order.
func ClientTables(r *Run) []ClientTable {
	type sp struct{ strategy, policy string }
	by := map[sp][]*Group{}
	var order []sp
	for _, g := range r.Groups {
		k := sp{g.Key.Strategy, g.Key.CommitPolicy}
		if by[k] == nil {
			order = append(order, k)
		}
		by[k] = append(by[k], g)
	}
	var out []ClientTable
	for _, k := range order {
		gs := by[k]
		if len(gs) < 2 {
			continue
		}
		slices.SortStableFunc(gs, func(a, b *Group) int { return vocab.ClientRank(a.Key.Client) - vocab.ClientRank(b.Key.Client) })
		t := ClientTable{Strategy: k.strategy, Policy: k.policy, Groups: gs}
		for _, name := range clientMetrics {
			m, _ := MetricByName(name)
			row := ClientRow{Metric: m}
			for _, g := range gs {
				row.Values = append(row.Values, spreadValue(m, g))
			}
			t.Rows = append(t.Rows, row)
			for i := range gs {
				for j := i + 1; j < len(gs); j++ {
					if d, ok := disagree(m, gs[i], gs[j]); ok {
						t.Differences = append(t.Differences, d)
					}
				}
			}
		}
		out = append(out, t)
	}
	return out
}

// spreadValue is the median, with the range over repeats when there are
// several: "6.2 s (6.1–6.4 s)".
func spreadValue(m Metric, g *Group) string {
	xs := m.Samples(g)
	if len(xs) < 2 {
		return groupValue(m, g)
	}
	lo, hi := slices.Min(xs), slices.Max(xs)
	if lo == hi {
		return m.Format(lo)
	}
	return fmt.Sprintf("%s (%s–%s)", m.Format(Median(xs)), m.Format(lo), m.Format(hi))
}

// disagree reports whether a and b disagree on m beyond their spread.
func disagree(m Metric, a, b *Group) (ClientDifference, bool) {
	as, bs := m.Samples(a), m.Samples(b)
	if len(as) < 2 || len(bs) < 2 {
		return ClientDifference{}, false
	}
	if slices.Max(bs) < slices.Min(as) {
		a, b, as, bs = b, a, bs, as
	}
	if !(slices.Max(as) < slices.Min(bs)) {
		return ClientDifference{}, false
	}
	d := ClientDifference{Metric: m, Low: a, High: b, LowS: as, HighS: bs, P: MannWhitneyP(as, bs),
		LowMedian: Median(as), HighMedian: Median(bs)}
	if d.LowMedian == 0 {
		d.RelativeDiff = math.Inf(1)
	} else {
		d.RelativeDiff = (d.HighMedian - d.LowMedian) / math.Abs(d.LowMedian)
	}
	return d, d.RelativeDiff > 0.10
}

// Text says what the difference is, with the numbers.
func (d ClientDifference) Text() string {
	return fmt.Sprintf("%s: %s %s, %s %s (every repeat apart; Mann-Whitney p = %.2g, %d vs %d repeats)",
		d.Metric.Label, d.High.Key.Client, spreadValue(d.Metric, d.High), d.Low.Key.Client, spreadValue(d.Metric, d.Low),
		d.P, len(d.HighS), len(d.LowS))
}

// clientsSection puts the clients side by side (empty when no strategy
// and commit policy ran on several).
func clientsSection(r *Run) *section {
	s := &section{}
	tables := ClientTables(r)
	if len(tables) == 0 {
		return s
	}
	s.title = phrase{words("Clients side by side")}
	s.add(note(words("Each strategy and commit policy that ran on several clients: the median over repeats, and the range. A difference is listed when every repeat of one client lies beyond every repeat of the other and the medians differ by more than 10%.")))
	for _, t := range tables {
		tb := &tableBlock{class: "summary", align: "l" + strings.Repeat("r", len(t.Groups)), head: []phrase{nil}}
		for _, g := range t.Groups {
			tb.head = append(tb.head, phrase{value(fmt.Sprintf("%s (%d)", g.Key.Client, len(g.Cells)))})
		}
		for _, row := range t.Rows {
			tb.rows = append(tb.rows, cells(append([]string{row.Metric.Label}, row.Values...)...))
		}
		s.add(subheading{value(t.Strategy + " · " + t.Policy)}, tb)
		if len(t.Differences) == 0 {
			s.add(note(words("No difference beyond the repeats' spread.")))
			continue
		}
		var ds bullets
		for _, d := range t.Differences {
			ds = append(ds, phrase{value(d.Text())})
		}
		s.add(ds)
	}
	return s
}

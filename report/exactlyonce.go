package report

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/chaosbench/chaosbench/internal/stat"
	"github.com/chaosbench/chaosbench/internal/summary"
	"github.com/chaosbench/chaosbench/internal/vocab"
)

// Exactly-once against at-least-once: for each strategy and client that
// ran both the transactional policy and sync-batch on the run's workload,
// what the transactional policy's promise held and what it cost, side by
// side with what sync-batch delivered. The analysis judged each cell's
// promise (exactly_once's verdict and violations, with their examples);
// this section puts the two groups' figures side by side, and weighs the
// transactional policy's throughput and end-to-end latency against
// sync-batch's as ratios, iteration by iteration.

// EOSPair is a strategy and client run under both policies.
type EOSPair struct {
	Strategy, Client string
	// Txn is the transactional group, Base the sync-batch one.
	Txn, Base *Group
}

// EOSPairs are the run's pairs, in report order (the strategies in the
// vocabulary's order, then the clients).
func EOSPairs(r *Run) []EOSPair {
	type sc struct{ strategy, client string }
	byKey := map[sc]*EOSPair{}
	var order []sc
	for _, g := range r.Groups {
		k := sc{g.Key.Strategy, g.Key.Client}
		p := byKey[k]
		if p == nil {
			p = &EOSPair{Strategy: k.strategy, Client: k.client}
			byKey[k] = p
			order = append(order, k)
		}
		switch g.Key.CommitPolicy {
		case vocab.PolicyTransactional:
			p.Txn = g
		case vocab.PolicySyncBatch:
			p.Base = g
		}
	}
	var out []EOSPair
	for _, k := range order {
		if p := byKey[k]; p.Txn != nil && p.Base != nil {
			out = append(out, *p)
		}
	}
	slices.SortStableFunc(out, func(a, b EOSPair) int {
		if ra, rb := vocab.StrategyRank(a.Strategy), vocab.StrategyRank(b.Strategy); ra != rb {
			return ra - rb
		}
		if c := strings.Compare(a.Strategy, b.Strategy); c != 0 {
			return c
		}
		if ra, rb := vocab.ClientRank(a.Client), vocab.ClientRank(b.Client); ra != rb {
			return ra - rb
		}
		return strings.Compare(a.Client, b.Client)
	})
	return out
}

// Ratio is a timing of the transactional policy over sync-batch's, one
// per iteration both ran: the median and the range.
type Ratio struct {
	Spread stat.Spread
	// HostBound: every pair had a cell timed on a saturated host, and
	// the ratios are of those cells (no figure of the policies').
	HostBound bool
}

// Text renders the ratio: "×0.98", "×4.20 (3.10–5.00)", "–".
func (r Ratio) Text() string {
	s := r.Spread
	if s.N == 0 {
		return "–"
	}
	t := fmt.Sprintf("×%.2f", s.Median)
	if s.N > 1 && s.Min != s.Max {
		t += fmt.Sprintf(" (%.2f–%.2f)", s.Min, s.Max)
	}
	if r.HostBound {
		t += " (host-bound)"
	}
	return t
}

// RatioOf is the ratio of a metric, transactional over sync-batch, over
// the iterations both groups have a value for: cells timed on a
// saturated host give none, unless every pair has one (then the ratios
// are host-bound).
func (p EOSPair) RatioOf(m Metric) Ratio {
	ratios := func(saturatedToo bool) []float64 {
		var out []float64
		for _, t := range p.Txn.Cells {
			for _, b := range p.Base.Cells {
				if t.S.Cell.Iteration != b.S.Cell.Iteration {
					continue
				}
				if !saturatedToo && m.Timing && (t.S.Host.Saturated || b.S.Host.Saturated) {
					continue
				}
				tv, ok1 := m.Of(t.S)
				bv, ok2 := m.Of(b.S)
				if ok1 && ok2 && bv > 0 {
					out = append(out, tv/bv)
				}
			}
		}
		return out
	}
	if xs := ratios(false); len(xs) > 0 {
		return Ratio{Spread: stat.SpreadOf(xs)}
	}
	xs := ratios(true)
	return Ratio{Spread: stat.SpreadOf(xs), HostBound: len(xs) > 0}
}

// eosCells are the transactional group's cells the analysis judged on
// their output (an exactly_once section).
func (p EOSPair) eosCells() []*Cell {
	var out []*Cell
	for _, c := range p.Txn.Cells {
		if c.S.ExactlyOnce != nil {
			out = append(out, c)
		}
	}
	return out
}

// Held says plainly what the promise held in the pair's transactional
// cells, by the analysis's verdicts.
func (p EOSPair) Held() string {
	cs := p.eosCells()
	if len(cs) == 0 {
		return "Exactly-once could not be judged: no transactional cell has an exactly_once section."
	}
	var valid, invalid, unknown int
	counts := map[string]int64{}
	var reasons []string
	for _, c := range cs {
		e := c.S.ExactlyOnce
		switch e.Verdict {
		case summary.Valid:
			valid++
		case summary.Invalid:
			invalid++
		default:
			unknown++
			if e.Reason != "" && !slices.Contains(reasons, e.Reason) {
				reasons = append(reasons, e.Reason)
			}
		}
		for _, v := range e.Violations {
			counts[v.Kind] += v.Count
		}
	}
	of := func(n int) string {
		if len(cs) == 1 {
			return "the run"
		}
		if n == len(cs) {
			return fmt.Sprintf("all %d runs", n)
		}
		return fmt.Sprintf("%d of %d runs", n, len(cs))
	}
	var parts []string
	// subject names the promise in the first sentence, "it" after.
	subject := func() string {
		if len(parts) == 0 {
			return "Exactly-once"
		}
		return "It"
	}
	if invalid > 0 {
		var kinds []string
		for _, k := range summary.ViolationKinds {
			if counts[k] > 0 {
				kinds = append(kinds, fmt.Sprintf("%d %s", counts[k], violationName(k, counts[k])))
			}
		}
		parts = append(parts, fmt.Sprintf("%s did not hold in %s: %s (in all; the first example of each below).", subject(), of(invalid), strings.Join(kinds, ", ")))
	}
	if unknown > 0 {
		parts = append(parts, fmt.Sprintf("%s could not be judged in %s: %s.", subject(), of(unknown), strings.Join(reasons, "; ")))
	}
	if valid > 0 {
		parts = append(parts, fmt.Sprintf("%s held in %s: every acknowledged input's output committed once (no output duplicate, none lost), no aborted transaction's output read, each key's order kept.", subject(), of(valid)))
	}
	return strings.Join(parts, " ")
}

// Cost says what the transactional policy cost beside sync-batch.
func (p EOSPair) Cost() string {
	dups, _ := MetricByName("duplicates")
	redone, _ := MetricByName("work_redone")
	thr, _ := MetricByName("throughput")
	e2e, _ := MetricByName("latency_p99_e2e_ms")
	s := fmt.Sprintf("Sync-batch delivered %s %s. Exactly-once cost %s %s redone and %s %s",
		countText(dups, p.Base), plural(Median(dups.Samples(p.Base)), "duplicate", "duplicates"),
		countText(redone, p.Txn), plural(Median(redone.Samples(p.Txn)), "record", "records"),
		formatSpreadOf(abortSamples(p.Txn)), plural(Median(abortSamples(p.Txn)), "abort", "aborts"))
	var ratios []string
	if r := p.RatioOf(thr); r.Spread.N > 0 {
		ratios = append(ratios, "throughput "+r.Text())
	}
	if r := p.RatioOf(e2e); r.Spread.N > 0 {
		ratios = append(ratios, "end-to-end p99 "+r.Text())
	}
	if len(ratios) > 0 {
		s += ", at " + strings.Join(ratios, " and ") + " of sync-batch's"
	}
	s += "."
	if len(p.Txn.Cells) > 1 || len(p.Base.Cells) > 1 {
		s += " Counts are medians over the runs (the range beside them)."
	}
	return s
}

// countText is a count metric's median over a group, with the range over
// repeats.
func countText(m Metric, g *Group) string { return formatSpreadOf(m.Samples(g)) }

// formatSpreadOf renders counts: the median, with the range over several
// samples: "12", "12 (9–15)", "–".
func formatSpreadOf(xs []float64) string {
	if len(xs) == 0 {
		return "–"
	}
	s := stat.SpreadOf(xs)
	t := formatCount(s.Median)
	if s.N > 1 && s.Min != s.Max {
		t += fmt.Sprintf(" (%s–%s)", formatCount(s.Min), formatCount(s.Max))
	}
	return t
}

// plural picks a noun's form for a (median) count.
func plural(n float64, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// abortSamples are the transactions that did not commit (aborted, or
// left open at a crash), per cell.
func abortSamples(g *Group) []float64 {
	var out []float64
	for _, c := range g.Cells {
		if e := c.S.ExactlyOnce; e != nil {
			out = append(out, float64(sumCauses(e.AbortsByCause)))
		}
	}
	return out
}

func sumCauses(m map[string]int64) int64 {
	var n int64
	for _, v := range m {
		n += v
	}
	return n
}

// abortsText is the aborts over a group's cells: the median total and
// its range, and the causes over every run: "3 (2–4): crash 3,
// rebalance 6 in all".
func abortsText(g *Group) string {
	xs := abortSamples(g)
	if len(xs) == 0 {
		return "–"
	}
	causes := map[string]int64{}
	for _, c := range g.Cells {
		if e := c.S.ExactlyOnce; e != nil {
			for k, v := range e.AbortsByCause {
				causes[k] += v
			}
		}
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(causes)) {
		parts = append(parts, fmt.Sprintf("%s %d", k, causes[k]))
	}
	t := formatSpreadOf(xs)
	if len(parts) > 0 {
		t += ": " + strings.Join(parts, ", ")
		if len(xs) > 1 {
			t += " in all"
		}
	}
	return t
}

// eosCount is a count of the verified output over a group's cells.
func eosCount(g *Group, f func(*summary.ExactlyOnceResult) int64) string {
	var xs []float64
	for _, c := range g.Cells {
		if e := c.S.ExactlyOnce; e != nil && e.Verified {
			xs = append(xs, float64(f(e)))
		}
	}
	return formatSpreadOf(xs)
}

// violationName is a kind of violation in words.
func violationName(kind string, n int64) string {
	names := map[string][2]string{
		summary.OutputDuplicate: {"output duplicate", "output duplicates"},
		summary.LostOutput:      {"lost output", "lost outputs"},
		summary.AbortedRead:     {"aborted read", "aborted reads"},
		summary.ReorderedOutput: {"reordered output", "reordered outputs"},
		summary.InvisibleCommit: {"invisible commit", "invisible commits"},
	}
	f, ok := names[kind]
	if !ok {
		return strings.ReplaceAll(kind, "_", " ")
	}
	if n == 1 {
		return f[0]
	}
	return f[1]
}

// ViolationText renders a violation on one line: its kind and count,
// where (the input's partition and offset, key and seq), and the
// transactions involved.
func ViolationText(v summary.Violation) string {
	return fmt.Sprintf("%s (%d): %s", violationName(v.Kind, 2), v.Count, ExampleText(v.Example))
}

// exactlyOnceSection is the section (nil when no strategy and client ran
// both policies).
func exactlyOnceSection(r *Run) *section {
	pairs := EOSPairs(r)
	if len(pairs) == 0 {
		return nil
	}
	s := &section{title: phrase{words("Exactly-once against at-least-once")}}
	s.add(note(words("Each strategy and client that ran both the transactional policy (exactly-once: consume, transform, produce, the input's offsets committed inside the output's transaction) and sync-batch (at-least-once) on this workload. " +
		"Exactly-once promises its committed output, as a read_committed reader sees it: every acknowledged input's output once (output duplicates 0, lost 0), nothing of an aborted transaction (aborted reads 0), each key's order. " +
		"Its cost: work redone (records processed in transactions that did not commit, processed again: not duplicates), aborts, and throughput and end-to-end latency beside sync-batch's. " +
		"End to end is from a record's intended send to its output's commit (transactional) or to its processing (sync-batch); a ratio is transactional over sync-batch, iteration by iteration: the median and the range. Definitions: docs/summary.md.")))
	for _, p := range pairs {
		s.add(subheading{value(p.Strategy + " · " + p.Client)})
		s.add(paragraphOf(words(p.Held() + " " + p.Cost())))
		s.add(p.table())
		if l := p.violations(); len(l) > 0 {
			s.add(l)
		}
	}
	return s
}

// table is the pair side by side: a row per figure, a column per policy,
// and the ratio where there is one.
func (p EOSPair) table() *tableBlock {
	head := []phrase{nil, {value(vocab.PolicySyncBatch)}, {value(vocab.PolicyTransactional)}, {value("transactional / sync-batch")}}
	for i, g := range []*Group{p.Base, p.Txn} {
		if len(g.Cells) > 1 {
			head[i+1] = append(head[i+1], newline(), value(fmt.Sprintf("median of %d", len(g.Cells))))
		}
	}
	t := &tableBlock{class: "summary", align: "lrrr", head: head}
	metric := func(name string) Metric {
		m, _ := MetricByName(name)
		return m
	}
	none := "–"
	eos := func(f func(*summary.ExactlyOnceResult) int64) string { return eosCount(p.Txn, f) }
	rows := [][]string{
		{"verdict", groupVerdict(p.Base), groupVerdict(p.Txn), ""},
		{"duplicates delivered (sync-batch: processed again; transactional: in the committed output)",
			spreadValue(metric("duplicates"), p.Base), spreadValue(metric("output_duplicates"), p.Txn), ""},
		{"lost (transactional: no committed output)", spreadValue(metric("lost"), p.Base), spreadValue(metric("lost_outputs"), p.Txn), ""},
		{"aborted reads", none, spreadValue(metric("aborted_reads"), p.Txn), ""},
		{"reordered (per key)", spreadValue(metric("reorders"), p.Base), eos(func(e *summary.ExactlyOnceResult) int64 { return e.Reordered }), ""},
		{"work redone", none, spreadValue(metric("work_redone"), p.Txn), ""},
		{"aborts, by cause", none, abortsText(p.Txn), ""},
		{"throughput", spreadValue(metric("throughput"), p.Base), spreadValue(metric("throughput"), p.Txn), p.RatioOf(metric("throughput")).Text()},
		{"latency p50, end to end", spreadValue(endToEndP50, p.Base), spreadValue(endToEndP50, p.Txn), p.RatioOf(endToEndP50).Text()},
		{"latency p99, end to end", spreadValue(metric("latency_p99_e2e_ms"), p.Base), spreadValue(metric("latency_p99_e2e_ms"), p.Txn), p.RatioOf(metric("latency_p99_e2e_ms")).Text()},
		{"transaction commit p95", none, spreadValue(metric("txn_commit_p95_ms"), p.Txn), ""},
	}
	for _, r := range rows {
		t.rows = append(t.rows, cells(r...))
	}
	return t
}

// endToEndP50 is the median end-to-end latency, as latency_p99_e2e_ms
// reads its p99 from the same summary fields: the section shows it
// beside the p99, which a disruption's backlog often sets alone.
var endToEndP50 = Metric{Name: "latency_p50_e2e_ms", Field: "latency.overall", Label: "latency p50, end to end", Unit: "ms",
	LowerIsBetter: true, Timing: true, Value: func(s *summary.Summary) (float64, bool) {
		if e := s.ExactlyOnce; e != nil {
			return e.VisibleLatency.P50, e.VisibleLatency.Count > 0
		}
		return s.Latency.Overall.P50, s.Latency.Overall.Count > 0
	}}

// violations lists each transactional cell's violations, the first
// example of each kind.
func (p EOSPair) violations() bullets {
	var l bullets
	for _, c := range p.eosCells() {
		for _, v := range c.S.ExactlyOnce.Violations {
			l = append(l, phrase{value(cellName(c) + ": " + ViolationText(v))})
		}
	}
	return l
}

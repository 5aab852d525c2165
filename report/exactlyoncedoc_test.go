package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/chaosbench/chaosbench/internal/summary"
)

// eosCell is a synthetic cell's summary: its key, iteration and the
// figures the exactly-once section reads.
type eosCell struct {
	strategy, policy, client string
	iteration                int
	duplicates, lost         int64
	throughput, e2eP99       float64
	saturated                bool
	eos                      *summary.ExactlyOnceResult
}

func (c eosCell) cell() *Cell {
	s := &summary.Summary{
		Cell:       summary.CellInfo{Strategy: c.strategy, CommitPolicy: c.policy, Client: c.client, Iteration: c.iteration, Complete: true, DrainComplete: true},
		Verdict:    summary.Valid,
		Duplicates: summary.DuplicatesResult{Count: c.duplicates},
		Loss:       summary.LossResult{Lost: c.lost},
		Throughput: summary.ThroughputResult{PerSecond: c.throughput},
		Host:       summary.HostResult{Measured: true, Saturated: c.saturated},
	}
	// The p50 is a tenth of the p99: its ratios are the p99's.
	s.Latency.Overall = summary.LatencySummary{Count: 1000, P50: c.e2eP99 / 10, P99: c.e2eP99}
	if e := c.eos; e != nil {
		s.ExactlyOnce = e
		s.Verdict = e.Verdict
		if e.VisibleLatency.Count == 0 {
			e.VisibleLatency = summary.LatencySummary{Count: 1000, P50: c.e2eP99 / 10, P99: c.e2eP99}
		}
	}
	return &Cell{Rel: c.strategy + "." + c.policy + "." + c.client, S: s}
}

func i32(v int32) *int32 { return &v }
func i64(v int64) *int64 { return &v }

// eosRun is a run with known numbers: range on franz three times under
// both policies, exactly-once held; range on confluent once, with output
// duplicates and an aborted read; cooperative-sticky on java once, the
// output never verified and sync-batch timed on a saturated host; and
// cooperative-sticky on franz under sync-batch alone (no pair: not in
// the section).
func eosRun() *Run {
	valid := func(redone int64, causes map[string]int64, commitP95 float64) *summary.ExactlyOnceResult {
		return &summary.ExactlyOnceResult{Check: summary.Check{Verdict: summary.Valid}, Verified: true, Settled: true, Complete: true,
			WorkRedone: redone, AbortsByCause: causes, CommitLatency: summary.Stats{Count: 100, P95: commitP95}}
	}
	dup := summary.Example{Proc: "m2", Inc: new(int), Partition: i32(1), Offset: i64(17), Key: "k000017", Seq: i64(3),
		Transactions: []string{"m1.0 #3 committed", "m2.0 #1 committed"}, Detail: "a second committed output, by transaction 1 of m2.0"}
	aborted := summary.Example{Proc: "m1", Inc: new(int), Partition: i32(4), Offset: i64(250), Key: "k000250", Seq: i64(9),
		Transactions: []string{"m1.0 #7 aborted (fenced)", "m3.0 #2 committed"}, Detail: "committed output of transaction 7 of m1.0, which ended fenced"}
	invalid := &summary.ExactlyOnceResult{
		Check:    summary.Check{Verdict: summary.Invalid, Reason: "4 output duplicates, 1 aborted reads"},
		Verified: true, Settled: true, Complete: true, OutputDuplicates: 4, AbortedReads: 1,
		WorkRedone: 30, AbortsByCause: map[string]int64{"fenced": 1, "crash": 1}, CommitLatency: summary.Stats{Count: 50, P95: 40},
		Violations: []summary.Violation{{Kind: summary.OutputDuplicate, Count: 4, Example: dup}, {Kind: summary.AbortedRead, Count: 1, Example: aborted}},
	}
	unverified := &summary.ExactlyOnceResult{Check: summary.Check{Verdict: summary.Unknown,
		Reason: "the output topic was not verified (no verified phase in the history)"}, AbortsByCause: map[string]int64{"crash": 1}, WorkRedone: 12}
	cs := []eosCell{
		// range · franz: throughput ratios 490/500 = 0.98, 470/490 =
		// 0.959, 480/480 = 1: median 0.98 (0.96–1.00); end-to-end p99
		// ratios 400/20 = 20, 500/25 = 20, 450/30 = 15: 20 (15–20).
		{"range", "sync-batch", "franz", 0, 212, 0, 500, 20, false, nil},
		{"range", "sync-batch", "franz", 1, 200, 0, 490, 25, false, nil},
		{"range", "sync-batch", "franz", 2, 230, 0, 480, 30, false, nil},
		{"range", "transactional", "franz", 0, 190, 0, 490, 400, false, valid(190, map[string]int64{"crash": 1, "rebalance": 2}, 30)},
		{"range", "transactional", "franz", 1, 200, 0, 470, 500, false, valid(200, map[string]int64{"crash": 1, "rebalance": 1}, 35)},
		{"range", "transactional", "franz", 2, 210, 0, 480, 450, false, valid(210, map[string]int64{"crash": 1, "rebalance": 3}, 32)},
		// range · confluent: 250/500 = 0.5, 40/10 = 4.
		{"range", "sync-batch", "confluent", 0, 150, 0, 500, 10, false, nil},
		{"range", "transactional", "confluent", 0, 34, 0, 250, 40, false, invalid},
		// cooperative-sticky · java: sync-batch saturated: host-bound
		// ratios 300/400 = 0.75, 90/30 = 3.
		{"cooperative-sticky", "sync-batch", "java", 0, 80, 0, 400, 30, true, nil},
		{"cooperative-sticky", "transactional", "java", 0, 12, 0, 300, 90, false, unverified},
		{"cooperative-sticky", "sync-batch", "franz", 0, 5, 0, 500, 12, false, nil},
	}
	var cells []*Cell
	for _, c := range cs {
		cells = append(cells, c.cell())
	}
	var ss []*summary.Summary
	for _, c := range cells {
		ss = append(ss, c.S)
	}
	return &Run{Dir: "20260101T000000Z-exactly-once", Cells: cells, Groups: GroupCells(cells), Verdict: summary.RunVerdict(ss)}
}

// The exactly-once section from summaries with known numbers: the pairs,
// the ratios per iteration, what held and what it cost, and every
// violation with its example and transactions, in Markdown and HTML
// (golden files), with the numbers that matter asserted outright.
func TestExactlyOnceSectionGolden(t *testing.T) {
	r := eosRun()
	pairs := EOSPairs(r)
	var keys []string
	for _, p := range pairs {
		keys = append(keys, p.Strategy+" · "+p.Client)
	}
	if got, want := strings.Join(keys, ", "), "range · confluent, range · franz, cooperative-sticky · java"; got != want {
		t.Fatalf("pairs %s, want %s", got, want)
	}
	thr, _ := MetricByName("throughput")
	e2e, _ := MetricByName("latency_p99_e2e_ms")
	for _, c := range []struct {
		pair      int
		m         Metric
		want      string
		hostBound bool
	}{
		{1, thr, "×0.98 (0.96–1.00)", false}, {1, e2e, "×20.00 (15.00–20.00)", false},
		{0, thr, "×0.50", false}, {0, e2e, "×4.00", false},
		{2, thr, "×0.75 (host-bound)", true}, {2, e2e, "×3.00 (host-bound)", true},
	} {
		r := pairs[c.pair].RatioOf(c.m)
		if r.Text() != c.want || r.HostBound != c.hostBound {
			t.Errorf("%s %s: ratio %s (host-bound %v), want %s", keys[c.pair], c.m.Name, r.Text(), r.HostBound, c.want)
		}
	}
	doc := &document{title: r.Title(), subtitle: r.Subtitle(), sections: []*section{exactlyOnceSection(r)}}
	var md, page bytes.Buffer
	if err := doc.markdown(&md); err != nil {
		t.Fatal(err)
	}
	if err := doc.html(&page, reportStyle, nil); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"Exactly-once held in all 3 runs",
		"Sync-batch delivered 212 (200–230) duplicates. Exactly-once cost 200 (190–210) records redone and 3 (2–4) aborts, at throughput ×0.98 (0.96–1.00) and end-to-end p99 ×20.00 (15.00–20.00) of sync-batch's.",
		"| aborts, by cause | – | 3 (2–4): crash 3, rebalance 6 in all | |",
		"| latency p50, end to end | 2.5 ms (2.0 ms–3.0 ms) | 45 ms (40 ms–50 ms) | ×20.00 (15.00–20.00) |",
		"| duplicates delivered (sync-batch: processed again; transactional: in the committed output) | 80 | – | |",
		"Exactly-once did not hold in the run: 4 output duplicates, 1 aborted read",
		"range · transactional · confluent: output duplicates (4): m2, p1@17, key k000017 seq 3: a second committed output, by transaction 1 of m2.0; transactions: m1.0 #3 committed, m2.0 #1 committed",
		"range · transactional · confluent: aborted reads (1): m1, p4@250, key k000250 seq 9: committed output of transaction 7 of m1.0, which ended fenced; transactions: m1.0 #7 aborted (fenced), m3.0 #2 committed",
		"Exactly-once could not be judged in the run: the output topic was not verified",
	} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("the section lacks %q", want)
		}
	}
	if strings.Contains(md.String(), "cooperative-sticky · franz") {
		t.Error("the section shows a strategy and client that ran sync-batch alone")
	}
	golden(t, "exactly-once.md", md.Bytes())
	golden(t, "exactly-once.html", page.Bytes())
	if t.Failed() {
		t.Logf("section:\n%s", md.String())
	}
}

// The whole run report has the section (after the strategies side by
// side); a run without a transactional and a sync-batch group of one
// strategy and client has none (the golden reports hold it unchanged).
func TestExactlyOnceSectionInTheReport(t *testing.T) {
	var b strings.Builder
	if err := WriteMarkdown(&b, eosRun(), ""); err != nil {
		t.Fatal(err)
	}
	if i, j := strings.Index(b.String(), "## Exactly-once against at-least-once"), strings.Index(b.String(), "## Clients side by side"); i < 0 || j < i {
		t.Errorf("the report has the section at %d, the clients' at %d: want it before", i, j)
	}
	if exactlyOnceSection(testRun(t)) != nil {
		t.Error("a run without the transactional policy has an exactly-once section")
	}
}

// A ratio pairs the cells of one iteration: an iteration only one policy
// ran, or a sync-batch figure of 0, gives none.
func TestEOSRatioPairsIterations(t *testing.T) {
	var cells []*Cell
	for _, c := range []eosCell{
		{"range", "transactional", "franz", 0, 0, 0, 100, 10, false, &summary.ExactlyOnceResult{Verified: true}},
		{"range", "transactional", "franz", 1, 0, 0, 200, 10, false, &summary.ExactlyOnceResult{Verified: true}},
		{"range", "transactional", "franz", 2, 0, 0, 300, 10, false, &summary.ExactlyOnceResult{Verified: true}},
		{"range", "sync-batch", "franz", 1, 0, 0, 400, 10, false, nil},
		{"range", "sync-batch", "franz", 2, 0, 0, 0, 10, false, nil},
		{"range", "sync-batch", "franz", 3, 0, 0, 500, 10, false, nil},
	} {
		cells = append(cells, c.cell())
	}
	pairs := EOSPairs(&Run{Cells: cells, Groups: GroupCells(cells)})
	if len(pairs) != 1 {
		t.Fatalf("%d pairs, want 1", len(pairs))
	}
	thr, _ := MetricByName("throughput")
	if r := pairs[0].RatioOf(thr); r.Spread.N != 1 || r.Spread.Median != 0.5 || r.Text() != "×0.50" {
		t.Errorf("ratio %+v (%s), want one: iteration 1's 200/400", r.Spread, r.Text())
	}
}

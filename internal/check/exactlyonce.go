package check

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/chaosbench/chaosbench/internal/clip"
	"github.com/chaosbench/chaosbench/internal/history"
	"github.com/chaosbench/chaosbench/internal/summary"
	"github.com/chaosbench/chaosbench/internal/vocab"
)

// Exactly-once (docs/summary.md, `exactly_once`): the transactional
// policy's promise, judged on its output topic as the verifier read it
// after the drain (output events), against the acknowledged input
// (produced events) and the members' transactions (txn events).
//
//   - An output duplicate is a committed output record (read
//     read_committed) of an input record whose committed output was read
//     before: every committed output beyond the first of its input.
//   - A lost output is an acknowledged input record with no committed
//     output.
//   - An aborted read is a committed output record written by a
//     transaction its member recorded aborted, or by one that never asked
//     to commit (open at its member's end, no committing event): the
//     read_committed reader saw what the transaction coordinator should
//     have hidden. A fenced zombie's commit that became visible is one.
//   - A reorder is a committed output record, the first of its input,
//     whose input sequence number is below one its key's committed
//     output already showed (in the output partition's order, which is
//     the key's); a duplicate is counted as a duplicate only.
//   - An invisible commit is a transaction its member saw commit whose
//     outputs the committed read does not all show.
//   - Work redone is the records processed in transactions that did not
//     commit (aborted, or open at a crash and not visible): the group
//     processes them again. It is the policy's cost, not a duplicate: the
//     at-least-once duplicate count (duplicates.go) includes it and is
//     allowed.
//   - Aborts are counted by cause, the part of the aborted event's error
//     before its colon (rebalance, fenced, timeout, shutdown, produce,
//     error), and crash for a transaction left open.
//   - Commit latency runs from a transaction's committing event to its
//     committed one.
//   - Visible latency is end to end: from a record's intended send time
//     to the committed event of a transaction that processed it, when
//     a read_committed reader could first see its output.
//
// Each violation's example names the transactions involved: every
// transaction that processed its input record, and how each ended. The
// check keeps, per input partition, the runs of offsets each
// transaction processed (a few words per transaction and partition, as
// it keeps per transaction), and looks an example's offset up in them.
//
// A transaction open when its member's history ended (a kill) is in
// doubt: its EndTxn may have reached the coordinator. Its outputs seen
// committed make it committed (unended_visible), which is no violation if
// it had sent its commit (committing), and an aborted read if it never
// had.
type exactlyOnceCheck struct {
	g *model
	// on: the cell's policy is transactional, or the history has
	// transactions or outputs.
	on bool

	txns map[txnKey]*txnState
	open map[memberKey]*txnState
	// order lists the transactions in the order they began.
	order []*txnState

	verified, settled, complete    bool
	readCommitted, readUncommitted int64
	// seen holds, per input partition, the offsets with a committed
	// output.
	seen      map[int32]*intervals
	dups      int64
	keys      map[string]int64 // producer and key -> the highest committed input seq
	reordered int64
	aborted   int64
	abortedBy map[string]int64

	dupEx, abortEx, orderEx []summary.Example

	// runs holds, per input partition, the offsets each transaction
	// processed, as runs in the order they began; lastRun is each
	// member's current run of a partition (an index into runs).
	runs    map[int32][]txnRun
	lastRun map[runKey]int
	// visible is the visible latency's histogram (microseconds).
	visible *hdrhistogram.Histogram
}

// txnRun is a run of consecutive offsets of a partition that one
// transaction processed.
type txnRun struct {
	lo, hi int64
	t      *txnState
}

type runKey struct {
	m memberKey
	p int32
}

type txnKey struct {
	proc   string
	inc, n int
}

type txnState struct {
	key                         txnKey
	state                       string // the last of begin, committing, committed, aborted
	cause                       string // aborted: the class of its cause
	committingT, endT           int64
	processed, visible, outputs int64
	// sent are the intended send times of the records it processed
	// after the warmup, until it ends.
	sent []int64
}

// String names the transaction and how it ended: "m1.0 #3 committed",
// "m2.0 #2 aborted (fenced)", "m3.0 #2 unended".
func (t *txnState) String() string {
	how := t.state
	switch t.state {
	case history.TxnAborted:
		how = "aborted (" + t.cause + ")"
	case history.TxnBegin, history.TxnCommitting:
		how = "unended"
		if t.state == history.TxnCommitting {
			how = "unended, committing"
		}
		if t.visible > 0 {
			how += ", output visible"
		}
	}
	return fmt.Sprintf("%s.%d #%d %s", t.key.proc, t.key.inc, t.key.n, how)
}

func newExactlyOnceCheck(g *model) *exactlyOnceCheck {
	return &exactlyOnceCheck{
		g: g, on: vocab.IsTransactional(g.cell.CommitPolicy),
		txns: map[txnKey]*txnState{}, open: map[memberKey]*txnState{},
		seen: map[int32]*intervals{}, keys: map[string]int64{}, abortedBy: map[string]int64{},
		runs: map[int32][]txnRun{}, lastRun: map[runKey]int{}, visible: newLatencyHistogram(),
	}
}

// processed counts the record into its member's open transaction, and
// its offset into the transaction's run of its partition.
func (c *exactlyOnceCheck) processed(p *partition, m *member, e *history.Event) {
	mk := memberKey{m.proc, m.inc}
	t := c.open[mk]
	if t == nil {
		return
	}
	t.processed++
	if e.IntendedT != 0 && !summary.PreSteady(c.g.phase) {
		t.sent = append(t.sent, e.IntendedT)
	}
	rk := runKey{mk, p.id}
	runs := c.runs[p.id]
	if i, ok := c.lastRun[rk]; ok && runs[i].t == t && runs[i].hi+1 == e.Offset {
		runs[i].hi = e.Offset
		return
	}
	c.lastRun[rk] = len(runs)
	c.runs[p.id] = append(runs, txnRun{lo: e.Offset, hi: e.Offset, t: t})
}

// involved names the transactions that processed an input record, in
// the order they processed it.
func (c *exactlyOnceCheck) involved(p int32, offset int64) []string {
	var ts []*txnState
	for _, r := range c.runs[p] {
		if r.lo <= offset && offset <= r.hi && !slices.Contains(ts, r.t) {
			ts = append(ts, r.t)
		}
	}
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.String()
	}
	return out
}

// withTransactions fills in the transactions involved in examples of an
// input record.
func (c *exactlyOnceCheck) withTransactions(xs []summary.Example) {
	for i, x := range xs {
		if x.Partition == nil {
			continue
		}
		o := x.Offset
		if o == nil {
			var lo int64
			if _, err := fmt.Sscanf(x.Offsets, "%d-", &lo); err != nil {
				continue
			}
			o = &lo
		}
		xs[i].Transactions = c.involved(*x.Partition, *o)
	}
}

// txn takes in a member's transaction event.
func (c *exactlyOnceCheck) txn(e *history.Event) {
	c.on = true
	k := txnKey{e.Proc, e.Inc, e.Step}
	mk := memberKey{e.Proc, e.Inc}
	t := c.txns[k]
	if t == nil {
		t = &txnState{key: k, state: history.TxnBegin}
		c.txns[k] = t
		c.order = append(c.order, t)
	}
	switch e.State {
	case history.TxnBegin:
		c.open[mk] = t
	case history.TxnCommitting:
		t.state, t.committingT = e.State, e.T
	case history.TxnCommitted, history.TxnAborted:
		t.state, t.endT = e.State, e.T
		if e.State == history.TxnAborted {
			t.cause = causeClass(e.Err)
		}
		if e.State == history.TxnCommitted {
			for _, sent := range t.sent {
				recordLatency(c.visible, e.T-sent)
			}
		}
		t.sent = nil
		if c.open[mk] == t {
			delete(c.open, mk)
		}
	}
}

// causeClass is an abort's cause without its detail: the part before
// its first colon.
func causeClass(err string) string {
	cls, _, _ := strings.Cut(err, ":")
	if cls = strings.TrimSpace(cls); cls == "" {
		return "unknown"
	}
	return cls
}

// output takes in a record the verifier read.
func (c *exactlyOnceCheck) output(e *history.Event) {
	c.on = true
	if e.Err != "" {
		return // not an output value: counted by the verifier
	}
	if e.State != history.ReadCommitted {
		c.readUncommitted++
		return
	}
	c.readCommitted++
	ex := func(detail string) summary.Example {
		return summary.Example{T: e.T, Proc: e.Target, Inc: ptr(e.TargetInc), Partition: ptr(e.Partition), Offset: ptr(e.Offset),
			Key: e.Key, Seq: ptr(e.Seq), Producer: e.Producer, Detail: detail}
	}
	max := c.g.opts.MaxExamples
	s := c.seen[e.Partition]
	if s == nil {
		s = &intervals{}
		c.seen[e.Partition] = s
	}
	first := s.add(e.Offset)
	if !first {
		c.dups++
		if len(c.dupEx) < max {
			c.dupEx = append(c.dupEx, ex(fmt.Sprintf("a second committed output, by transaction %d of %s.%d", e.Step, e.Target, e.TargetInc)))
		}
	}
	k := e.Producer + "\x00" + e.Key
	last, ok := c.keys[k]
	switch {
	case !first: // counted as a duplicate, not also as a reorder
	case ok && e.Seq < last:
		c.reordered++
		if len(c.orderEx) < max {
			c.orderEx = append(c.orderEx, ex(fmt.Sprintf("seq %d after seq %d of the key in the committed output", e.Seq, last)))
		}
	default:
		c.keys[k] = e.Seq
	}
	t := c.txns[txnKey{e.Target, e.TargetInc, e.Step}]
	if t == nil {
		return // a transaction of no member history: nothing to judge it by
	}
	t.visible++
	var why string
	switch t.state {
	case history.TxnAborted:
		why = t.cause
	case history.TxnBegin:
		why = "never committed"
	}
	if why != "" {
		c.aborted++
		c.abortedBy[why]++
		if len(c.abortEx) < max {
			c.abortEx = append(c.abortEx, ex(fmt.Sprintf("committed output of transaction %d of %s.%d, which ended %s", e.Step, e.Target, e.TargetInc, why)))
		}
	}
}

// verifiedPhase takes in the driver's record of the verifier's reads.
func (c *exactlyOnceCheck) verifiedPhase(e *history.Event) {
	c.on = true
	c.verified = true
	c.settled = paramBool(e.Params, "settled")
	c.complete = paramBool(e.Params, "complete")
}

func (c *exactlyOnceCheck) result(s *summary.Summary) {
	if !c.on {
		return
	}
	g := c.g
	r := &summary.ExactlyOnceResult{
		Verified: c.verified, Settled: c.settled, Complete: c.complete,
		ReadCommitted: c.readCommitted, ReadUncommitted: c.readUncommitted,
		OutputDuplicates: c.dups, AbortedReads: c.aborted, Reordered: c.reordered,
		AbortsByCause: map[string]int64{},
	}
	if len(c.abortedBy) > 0 {
		r.AbortedReadsByCause = c.abortedBy
	}
	var latencies []int64
	var invisibleEx []summary.Example
	for _, t := range c.order {
		t.sent = nil // open at its member's end: its output's visibility is not known
		r.Transactions++
		switch {
		case t.state == history.TxnCommitted:
			r.Committed++
			latencies = append(latencies, t.endT-t.committingT)
			if t.visible < t.processed {
				r.InvisibleCommits++
				if len(invisibleEx) < g.opts.MaxExamples {
					invisibleEx = append(invisibleEx, summary.Example{T: t.endT, Proc: t.key.proc, Inc: ptr(t.key.inc), Transactions: []string{t.String()},
						Detail: fmt.Sprintf("transaction %d committed %s; the committed read shows %d", t.key.n, clip.Plural(t.processed, "output"), t.visible)})
				}
			}
		case t.state == history.TxnAborted:
			r.Aborted++
			r.AbortsByCause[t.cause]++
			r.WorkRedone += t.processed
		default: // open at its member's end
			r.Unended++
			if t.visible > 0 {
				r.UnendedVisible++
			} else {
				r.AbortsByCause["crash"]++
				r.WorkRedone += t.processed
			}
		}
	}
	if len(r.AbortsByCause) == 0 {
		r.AbortsByCause = nil
	}
	r.CommitLatency = statsOf(latencies)
	r.VisibleLatency = summarizeLatency(c.visible)
	var lostEx []summary.Example
	if c.verified {
		for _, p := range g.parts {
			seen := c.seen[p.id]
			if seen == nil {
				seen = &intervals{}
			}
			p.acked.minus(seen, func(lo, hi int64) bool {
				r.LostOutputs += hi - lo + 1
				if len(lostEx) < g.opts.MaxExamples {
					lostEx = append(lostEx, lostExample(p.id, lo, hi, "acknowledged input with no committed output"))
				}
				return true
			})
		}
	}
	// Lost outputs are a violation once the drain and the verifier's
	// reads completed; before, they may be records nobody reached yet.
	drained := g.cell.DrainComplete
	lostJudged := int64(0)
	if drained && c.settled && c.complete {
		lostJudged = r.LostOutputs
	}
	for _, xs := range [][]summary.Example{c.dupEx, c.abortEx, c.orderEx, lostEx} {
		c.withTransactions(xs)
	}
	for _, v := range []struct {
		kind string
		n    int64
		ex   []summary.Example
	}{
		{summary.OutputDuplicate, r.OutputDuplicates, c.dupEx}, {summary.LostOutput, lostJudged, lostEx},
		{summary.AbortedRead, r.AbortedReads, c.abortEx}, {summary.ReorderedOutput, r.Reordered, c.orderEx},
		{summary.InvisibleCommit, r.InvisibleCommits, invisibleEx},
	} {
		if v.n > 0 && len(v.ex) > 0 {
			r.Violations = append(r.Violations, summary.Violation{Kind: v.kind, Count: v.n, Example: v.ex[0]})
		}
	}
	r.Check = summary.Check{Verdict: summary.Valid, Expect: "every acknowledged input exactly once in the committed output, no aborted read, per-key order (exactly-once)"}
	var why []string
	add := func(n int64, what string, ex []summary.Example) {
		if n > 0 {
			why = append(why, fmt.Sprintf("%d %s", n, what))
			r.Examples = append(r.Examples, ex...)
		}
	}
	add(r.OutputDuplicates, "output duplicates", c.dupEx)
	add(r.AbortedReads, "aborted reads", c.abortEx)
	add(r.Reordered, "reordered outputs", c.orderEx)
	add(r.InvisibleCommits, "invisible commits", invisibleEx)
	switch {
	case !c.verified:
		r.Verdict, r.Reason = summary.Unknown, "the output topic was not verified (no verified phase in the history)"
	case len(why) > 0 || lostJudged > 0:
		add(r.LostOutputs, "lost outputs", lostEx)
		r.Verdict, r.Reason = summary.Invalid, strings.Join(why, ", ")
	case r.LostOutputs > 0:
		add(r.LostOutputs, "lost outputs", lostEx)
		r.Verdict = summary.Unknown
		r.Reason = fmt.Sprintf("%d lost outputs, but the drain or the verifier's read did not complete", r.LostOutputs)
	}
	if vocab.GuaranteeOf(g.cell.CommitPolicy) != vocab.ExactlyOnce && r.Verdict == summary.Invalid {
		// Transactions under a policy that promises less: reported, not judged.
		r.Verdict = summary.Valid
		r.Expect = "reported only (" + vocab.GuaranteeOf(g.cell.CommitPolicy) + ")"
	}
	s.ExactlyOnce = r
}

// recordLatency records a latency in nanoseconds into a histogram of
// microseconds, within its range.
func recordLatency(h *hdrhistogram.Histogram, ns int64) {
	_ = h.RecordValue(min(max(ns/1000, 0), latencyMaxUs))
}

// paramBool reads a boolean from an event's params (false when absent).
func paramBool(params, name string) bool {
	var m map[string]any
	if json.Unmarshal([]byte(params), &m) != nil {
		return false
	}
	b, _ := m[name].(bool)
	return b
}

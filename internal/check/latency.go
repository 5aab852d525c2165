package check

import (
	"fmt"
	"io"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/chaosbench/chaosbench/internal/clip"
	"github.com/chaosbench/chaosbench/internal/history"
	"github.com/chaosbench/chaosbench/internal/summary"
)

// Latency (docs/summary.md, `latency`): produce-to-process time, from the
// record's intended send time (free of coordinated omission) to its first
// processing, in two HdrHistograms: steady state, and disruptions. The
// disruption side holds the records processed in a disruption's window
// and in the catch-up after it, until the group's lag is back to its
// level before the disruption: the backlog a disruption leaves is its
// cost, not the steady state's. "Its level" is the highest lag at any
// moment of the baseline before it (records in flight are lag too).
// Redeliveries are left out (they measure the redelivery, not the
// pipeline), as is the warmup phase.
type latencyCheck struct {
	g                 *model
	steady, disrupted *hdrhistogram.Histogram
	// A disruption's window ends at its last activity, which a streaming
	// pass learns only later: records processed after the latest
	// disruption's last activity, while it may still grow (it has no
	// partition down and its grace has not passed), wait in tentative.
	// They join the disruption's if it shows activity again, the steady
	// state's otherwise. Memory stays one histogram.
	tentative  *hdrhistogram.Histogram
	tentativeD *disruption
	negative   int64
	overflow   int64
	startT     int64
	endT       int64
}

// Latencies are recorded in microseconds, from 1 µs to one hour, with
// three significant digits.
const (
	latencyMaxUs  = 3_600_000_000
	latencyDigits = 3
)

func newLatencyHistogram() *hdrhistogram.Histogram {
	return hdrhistogram.New(1, latencyMaxUs, latencyDigits)
}

func newLatencyCheck(g *model) *latencyCheck {
	return &latencyCheck{g: g, steady: newLatencyHistogram(), disrupted: newLatencyHistogram(), tentative: newLatencyHistogram()}
}

// processed records the latency of a record's first processing, in the
// histogram of the disruption it was processed in (a record that ends a
// pause was processed inside it: the hook comes before the model closes
// the pause), of the steady state, or the tentative one.
func (s *latencyCheck) firstProcessed(p *partition, m *member, e *history.Event) {
	g := s.g
	if e.IntendedT == 0 || summary.PreSteady(g.phase) {
		return
	}
	us := (e.T - e.IntendedT) / 1000
	if us < 0 {
		s.negative++
		us = 0
	}
	if us > latencyMaxUs {
		s.overflow++
		us = latencyMaxUs
	}
	h := s.steady
	switch {
	case g.openDisr > 0 || g.catchingUp():
		h = s.disrupted
	case len(g.disr) > 0:
		d := g.disr[len(g.disr)-1]
		if e.T-d.last <= g.grace {
			h, s.tentativeD = s.tentative, d
		} else {
			s.settle()
		}
	}
	if err := h.RecordValue(us); err != nil {
		s.overflow++
	}
}

// disruptionOpened: the previous disruption's window cannot grow now, so
// what was tentative was after it.
func (s *latencyCheck) disruptionOpened(d *disruption) { s.settle() }

// disruptionActive: d showed activity, so its window covers what was
// tentative.
func (s *latencyCheck) disruptionActive(d *disruption) {
	if s.tentativeD == d && s.tentative.TotalCount() > 0 {
		s.disrupted.Merge(s.tentative)
		s.tentative.Reset()
	}
}

// settle: the tentative records were after the window ended.
func (s *latencyCheck) settle() {
	if s.tentative.TotalCount() > 0 {
		s.steady.Merge(s.tentative)
		s.tentative.Reset()
	}
	s.tentativeD = nil
}

// LatencyPercentiles are the percentiles kept for plots.
var LatencyPercentiles = []float64{0, 10, 25, 50, 75, 90, 95, 99, 99.5, 99.9, 99.95, 99.99, 100}

func summarizeLatency(h *hdrhistogram.Histogram) summary.LatencySummary {
	ms := func(us int64) float64 { return float64(us) / 1e3 }
	l := summary.LatencySummary{Count: h.TotalCount()}
	if l.Count == 0 {
		return l
	}
	l.Mean = h.Mean() / 1e3
	l.P50, l.P90, l.P99, l.P999 = ms(h.ValueAtPercentile(50)), ms(h.ValueAtPercentile(90)), ms(h.ValueAtPercentile(99)), ms(h.ValueAtPercentile(99.9))
	l.Max = ms(h.Max())
	for _, p := range LatencyPercentiles {
		v := h.ValueAtPercentile(p)
		if p == 100 {
			v = h.Max()
		}
		l.Percentiles = append(l.Percentiles, summary.Percentile{P: p, Ms: ms(v)})
	}
	return l
}

func (c *latencyCheck) result(s *summary.Summary) {
	c.settle()
	c.startT, c.endT = c.g.stats.FirstT, c.g.stats.LastT
	r := &s.Latency
	r.Check = summary.Check{Verdict: summary.Valid, Expect: "measured: no expectation"}
	r.Steady = summarizeLatency(c.steady)
	r.Disruption = summarizeLatency(c.disrupted)
	all := c.steady.Clone()
	all.Merge(c.disrupted)
	r.Overall = summarizeLatency(all)
	r.Negative = c.negative
	if c.negative > 0 {
		s.Findings = append(s.Findings, summary.Finding{Checker: "latency", Kind: "negative_latency", Verdict: summary.Valid, Count: c.negative,
			Message: fmt.Sprintf("%s processed before the intended send time (clocks of different hosts disagree); recorded as 0", clip.Plural(c.negative, "record"))})
	}
	r.Overflow = c.overflow
	if c.overflow > 0 {
		s.Findings = append(s.Findings, summary.Finding{Checker: "latency", Kind: "latency_overflow", Verdict: summary.Valid, Count: c.overflow,
			Message: fmt.Sprintf("%s processed more than an hour after the intended send time; recorded as one hour", clip.Plural(c.overflow, "record"))})
	}
}

// writeLatencyLog writes the two histograms to w as an HdrHistogram log
// (tags "steady" and "disruption"), readable by HdrHistogram's tools.
func (s *latencyCheck) writeLatencyLog(w io.Writer) error {
	lw := hdrhistogram.NewHistogramLogWriter(w)
	if err := lw.OutputLogFormatVersion(); err != nil {
		return err
	}
	if err := lw.OutputComment("chaosbench produce-to-process latency, microseconds"); err != nil {
		return err
	}
	start := s.startT / 1e6
	if err := lw.OutputStartTime(start); err != nil {
		return err
	}
	if err := lw.OutputLegend(); err != nil {
		return err
	}
	for _, x := range []struct {
		tag string
		h   *hdrhistogram.Histogram
	}{{"steady", s.steady}, {"disruption", s.disrupted}} {
		h := x.h.Clone()
		h.SetTag(x.tag)
		h.SetStartTimeMs(start)
		h.SetEndTimeMs(s.endT / 1e6)
		if err := lw.OutputIntervalHistogram(h); err != nil {
			return err
		}
	}
	return nil
}

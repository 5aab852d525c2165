package loadgen

import (
	"fmt"
	"io"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// Latency histograms record microseconds from 1 µs to one hour with
// three significant digits (0.1% resolution at any magnitude): the unit
// and range of the checker's latency.hlog, so that both .hlog files of a
// cell read alike.
const (
	histLowest  = int64(1)
	histHighest = int64(time.Hour / time.Microsecond)
	histDigits  = 3
)

// Histogram log tags: the two latencies of every acknowledged record.
const (
	// TagIntended is ack time minus intended send time: what a caller
	// waiting on the schedule sees, free of coordinated omission.
	TagIntended = "intended"
	// TagSent is ack time minus the time the record was handed to the
	// client: the client's and the broker's part alone.
	TagSent = "sent"
)

func newHistogram() *hdrhistogram.Histogram {
	return hdrhistogram.New(histLowest, histHighest, histDigits)
}

// latency keeps the produce latencies: one interval histogram per tag,
// written to an HdrHistogram log and merged into the run's totals every
// interval. Not safe for concurrent use: the producer's mutex guards it.
type latency struct {
	intended, sent           *hdrhistogram.Histogram // this interval
	totalIntended, totalSent *hdrhistogram.Histogram
	clamped                  int64 // values beyond histHighest, recorded as histHighest
	log                      *hdrhistogram.HistogramLogWriter
	logErr                   error
	intervalStart            time.Time
	lastP99                  time.Duration
}

func newLatency(w io.Writer, start time.Time) *latency {
	l := &latency{
		intended: newHistogram(), sent: newHistogram(),
		totalIntended: newHistogram(), totalSent: newHistogram(),
		intervalStart: start,
	}
	if w != nil {
		l.log = hdrhistogram.NewHistogramLogWriter(w)
		ms := start.UnixMilli()
		l.log.SetBaseTime(ms)
		l.logErr = firstErr(
			l.log.OutputLogFormatVersion(),
			l.log.OutputComment("chaosbench produce latency, microseconds; tags: intended (ack - intended send time), sent (ack - handed to the client)"),
			l.log.OutputStartTime(ms),
			l.log.OutputBaseTime(ms),
			l.log.OutputLegend(),
		)
	}
	return l
}

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// record records a latency of d nanoseconds, in microseconds.
func (l *latency) record(h *hdrhistogram.Histogram, d int64) {
	us := d / int64(time.Microsecond)
	if us < 0 {
		us = 0
	}
	if us > histHighest {
		us = histHighest
		l.clamped++
	}
	// In range by construction: RecordValue cannot fail.
	_ = h.RecordValue(us)
}

// add records one acknowledged record's latencies (ns).
func (l *latency) add(fromIntended, fromSent int64) {
	l.record(l.intended, fromIntended)
	l.record(l.sent, fromSent)
}

// rotate ends the interval at now: writes its histograms to the log,
// merges them into the totals and starts a new interval.
func (l *latency) rotate(now time.Time) {
	l.lastP99 = time.Duration(l.intended.ValueAtQuantile(99)) * time.Microsecond
	for _, h := range []struct {
		tag       string
		iv, total *hdrhistogram.Histogram
	}{{TagIntended, l.intended, l.totalIntended}, {TagSent, l.sent, l.totalSent}} {
		h.iv.SetStartTimeMs(l.intervalStart.UnixMilli())
		h.iv.SetEndTimeMs(now.UnixMilli())
		h.iv.SetTag(h.tag)
		if l.log != nil && l.logErr == nil {
			if err := l.log.OutputIntervalHistogram(h.iv); err != nil {
				l.logErr = fmt.Errorf("latency log: %w", err)
			}
		}
		h.total.Merge(h.iv)
		h.iv.Reset()
	}
	l.intervalStart = now
}

// LatencySummary gives percentiles of the run's produce latencies.
type LatencySummary struct {
	// Count is the number of acknowledged records measured.
	Count int64 `json:"count"`
	// Intended is ack time minus intended send time; Sent is ack time
	// minus the time the record was handed to the client.
	Intended Percentiles `json:"intended"`
	Sent     Percentiles `json:"sent"`
	// Clamped counts latencies above one hour, recorded as one hour.
	Clamped int64 `json:"clamped,omitempty"`
}

// Percentiles of a latency histogram, in milliseconds.
type Percentiles struct {
	P50  float64 `json:"p50_ms"`
	P90  float64 `json:"p90_ms"`
	P99  float64 `json:"p99_ms"`
	P999 float64 `json:"p999_ms"`
	Max  float64 `json:"max_ms"`
	Mean float64 `json:"mean_ms"`
}

func summarize(l *latency) LatencySummary {
	pct := func(h interface {
		ValueAtQuantile(float64) int64
		Max() int64
		Mean() float64
	}) Percentiles {
		ms := func(us int64) float64 { return float64(us) / 1e3 }
		return Percentiles{
			P50: ms(h.ValueAtQuantile(50)), P90: ms(h.ValueAtQuantile(90)), P99: ms(h.ValueAtQuantile(99)),
			P999: ms(h.ValueAtQuantile(99.9)), Max: ms(h.Max()), Mean: h.Mean() / 1e3,
		}
	}
	return LatencySummary{
		Count:    l.totalIntended.TotalCount(),
		Intended: pct(l.totalIntended),
		Sent:     pct(l.totalSent),
		Clamped:  l.clamped,
	}
}

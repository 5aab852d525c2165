package loadgen

import (
	"bytes"
	"strings"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// producer.hlog holds microseconds, as the checker's latency.hlog does:
// one unit for both .hlog files of a cell.
func TestLatencyLogInMicroseconds(t *testing.T) {
	var b bytes.Buffer
	start := time.Now()
	l := newLatency(&b, start)
	l.add(int64(5*time.Millisecond), int64(2*time.Millisecond))
	l.add(int64(2*time.Hour), int64(time.Millisecond))
	l.rotate(start.Add(time.Second))
	if l.logErr != nil {
		t.Fatal(l.logErr)
	}
	if !strings.Contains(b.String(), "microseconds") {
		t.Errorf("the log does not say its unit:\n%s", b.String())
	}
	rd := hdrhistogram.NewHistogramLogReader(bytes.NewReader(b.Bytes()))
	for {
		h, err := rd.NextIntervalHistogram()
		if err != nil {
			t.Fatal(err)
		}
		if h == nil {
			break
		}
		if h.Tag() == TagIntended {
			// 5 ms is 5000 µs (within the histogram's three digits); two
			// hours are clamped to one.
			if lo := h.ValueAtQuantile(0); lo < 4995 || lo > 5005 {
				t.Errorf("5 ms recorded as %d", lo)
			}
			if hi := h.Max(); hi < int64(time.Hour/time.Microsecond)*999/1000 {
				t.Errorf("the clamped value recorded as %d", hi)
			}
		}
	}
	s := summarize(l)
	if s.Intended.P50 < 4.99 || s.Intended.P50 > 5.01 || s.Clamped != 1 || l.lastP99 < 59*time.Minute {
		t.Errorf("summary in ms: %+v, p99 %s", s, l.lastP99)
	}
}

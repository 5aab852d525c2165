package clock

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// A process whose clock runs 2 s ahead of the driver's measures an
// offset of 2 s, within its error bound, through a real endpoint on the
// loopback; one on the driver's clock measures 0 within it.
func TestMeasureFindsTheOffset(t *testing.T) {
	s, err := Serve("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, skew := range []time.Duration{0, 2 * time.Second, -1500 * time.Millisecond} {
		now := func() int64 { return time.Now().Add(skew).UnixNano() }
		m, err := Measure(context.Background(), s.URL(), now, Samples)
		if err != nil {
			t.Fatal(err)
		}
		if m.Error <= 0 || m.Error > int64(MaxRoundTrip)/2 {
			t.Errorf("skew %v: error bound %d ns", skew, m.Error)
		}
		// The true offset is skew: it lies within the bound (and a
		// nanosecond of rounding).
		if d := m.Offset - int64(skew); d > m.Error+1 || d < -m.Error-1 {
			t.Errorf("skew %v: offset %d ns, off by %d ns, beyond the bound %d ns", skew, m.Offset, d, m.Error)
		}
		if at := now(); m.At > at || m.At < at-int64(time.Second) {
			t.Errorf("skew %v: measured at %d, not on the local clock (now %d)", skew, m.At, at)
		}
		t.Logf("skew %v: offset %v +- %v", skew, time.Duration(m.Offset), time.Duration(m.Error))
	}
}

func TestMidpoint(t *testing.T) {
	// Sent at 100, received at 141, the driver said 70: the local clock
	// is 50 (midpoint 120 - 70) ahead, within 21 (41/2 rounded up).
	m := midpoint(100, 141, 70)
	if m != (Measurement{At: 120, Offset: 50, Error: 21}) {
		t.Errorf("midpoint = %+v", m)
	}
}

// The sample of the shortest round trip is kept.
func TestMeasureKeepsTheTightestSample(t *testing.T) {
	var calls int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls++
		fmt.Fprint(w, "1000000")
	}))
	defer srv.Close()
	// A fake local clock: each sample's send and receive times, round
	// trips 40, 10, 30.
	ticks := []int64{2000, 2040, 3000, 3010, 4000, 4030}
	i := 0
	now := func() int64 { i++; return ticks[i-1] }
	m, err := Measure(context.Background(), srv.URL, now, 3)
	if err != nil {
		t.Fatal(err)
	}
	if calls != 3 || m != (Measurement{At: 3005, Offset: 3005 - 1000000, Error: 5}) {
		t.Errorf("%d calls, %+v", calls, m)
	}
}

// An answer that is not a time a history holds is no sample; an
// endpoint that gives none fails the measurement with its reason.
func TestMeasureRefusesBadAnswers(t *testing.T) {
	for _, answer := range []string{"", "abc", "-5", "0", "4611686018427387904", strings.Repeat("1", 40)} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprint(w, answer)
		}))
		_, err := Measure(context.Background(), srv.URL, func() int64 { return time.Now().UnixNano() }, 2)
		srv.Close()
		if err == nil || !strings.Contains(err.Error(), "no sample") {
			t.Errorf("answer %q: err %v, want no sample", answer, err)
		}
	}
	_, err := Measure(context.Background(), "http://127.0.0.1:1/chaosbench/time", func() int64 { return time.Now().UnixNano() }, 2)
	if err == nil {
		t.Errorf("no endpoint: no error")
	}
}

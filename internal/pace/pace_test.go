package pace

import (
	"math"
	"testing"
	"time"
)

func TestConstantRate(t *testing.T) {
	s, err := New(1000, 0, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	p := s.Pacer()
	for n := int64(0); n < 5000; n++ {
		due, unl := p.Due(n, 0)
		if unl || due != time.Duration(n)*time.Millisecond {
			t.Fatalf("record %d due %v (unlimited %v), want %v", n, due, unl, time.Duration(n)*time.Millisecond)
		}
	}
	if got, ok := s.Records(10 * time.Second); !ok || got != 10000 {
		t.Errorf("Records(10s) = %v, %v; want 10000", got, ok)
	}
}

// A ramp from 100 to 1100 records/s over 10 s sends (100+1100)/2*10 =
// 6000 records during the ramp; the rate then stays at 1100.
func TestRamp(t *testing.T) {
	s, err := New(1100, 100, 10*time.Second, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Records(10 * time.Second); got != 6000 {
		t.Errorf("records in the ramp: %v, want 6000", got)
	}
	if r := s.Rate(5 * time.Second); math.Abs(r-600) > 1e-9 {
		t.Errorf("Rate(5s) = %v, want 600", r)
	}
	p := s.Pacer()
	prev := time.Duration(-1)
	for n := int64(0); n <= 7100; n++ {
		due, _ := p.Due(n, 0)
		if due < prev {
			t.Fatalf("record %d due %v before record %d (%v)", n, due, n-1, prev)
		}
		prev = due
		// The count at a record's due time is the record's number.
		if c := s.segs[0].records(math.Min(due.Seconds(), 10)); due <= 10*time.Second && math.Abs(c-float64(n)) > 1e-3 {
			t.Fatalf("record %d due at %v, where the schedule's count is %v", n, due, c)
		}
		switch n {
		case 6000:
			if d := due - 10*time.Second; d < -time.Microsecond || d > time.Microsecond {
				t.Errorf("record 6000 due %v, want 10s", due)
			}
		case 7100:
			if d := due - 11*time.Second; d < -time.Microsecond || d > time.Microsecond {
				t.Errorf("record 7100 due %v, want 11s", due)
			}
		}
	}
}

func TestSteps(t *testing.T) {
	s, err := New(100, 0, 0, []Step{{At: 10 * time.Second, Rate: 1000}, {At: 20 * time.Second, Rate: 10}})
	if err != nil {
		t.Fatal(err)
	}
	p := s.Pacer()
	for _, c := range []struct {
		n    int64
		want time.Duration
	}{{0, 0}, {999, 9990 * time.Millisecond}, {1000, 10 * time.Second}, {1500, 10500 * time.Millisecond}, {11000, 20 * time.Second}, {11010, 21 * time.Second}} {
		due, _ := p.Due(c.n, 0)
		if d := due - c.want; d < -time.Microsecond || d > time.Microsecond {
			t.Errorf("record %d due %v, want %v", c.n, due, c.want)
		}
	}
	if got, _ := s.Records(30 * time.Second); got != 11100 {
		t.Errorf("Records(30s) = %v, want 11100", got)
	}
}

// In an unlimited stretch every record is due when asked; after it, the
// limited rate counts from the records actually sent.
func TestUnlimitedThenLimited(t *testing.T) {
	s, err := New(0, 0, 0, []Step{{At: time.Second, Rate: 100}})
	if err != nil {
		t.Fatal(err)
	}
	if s.Limited() {
		t.Error("Limited() = true")
	}
	if _, ok := s.Records(2 * time.Second); ok {
		t.Error("Records across an unlimited stretch: ok")
	}
	p := s.Pacer()
	for n := int64(0); n < 500; n++ {
		now := time.Duration(n) * time.Millisecond
		if due, unl := p.Due(n, now); !unl || due != now {
			t.Fatalf("record %d: due %v unlimited %v, want now %v", n, due, unl, now)
		}
	}
	// Past 1 s, record 500 starts the 100/s stretch at 1 s.
	if due, unl := p.Due(500, 1200*time.Millisecond); unl || due != time.Second {
		t.Errorf("record 500: due %v unlimited %v, want 1s", due, unl)
	}
	if due, _ := p.Due(510, 1200*time.Millisecond); due != 1100*time.Millisecond {
		t.Errorf("record 510: due %v, want 1.1s", due)
	}
}

func TestScheduleErrors(t *testing.T) {
	for name, f := range map[string]func() error{
		"negative rate":     func() error { _, err := New(-1, 0, 0, nil); return err },
		"ramp to unlimited": func() error { _, err := New(0, 10, time.Second, nil); return err },
		"ramp from 0":       func() error { _, err := New(10, 0, time.Second, nil); return err },
		"step in ramp":      func() error { _, err := New(10, 1, 10*time.Second, []Step{{At: 5 * time.Second, Rate: 3}}); return err },
		"steps out of order": func() error {
			_, err := New(10, 0, 0, []Step{{At: 5 * time.Second, Rate: 3}, {At: 2 * time.Second, Rate: 3}})
			return err
		},
		"step at 0":     func() error { _, err := New(10, 0, 0, []Step{{At: 0, Rate: 3}}); return err },
		"NaN step rate": func() error { _, err := New(10, 0, 0, []Step{{At: time.Second, Rate: math.NaN()}}); return err },
	} {
		if f() == nil {
			t.Errorf("%s: no error", name)
		}
	}
	// A step exactly at the ramp's end is fine.
	if _, err := New(10, 1, 10*time.Second, []Step{{At: 10 * time.Second, Rate: 3}}); err != nil {
		t.Errorf("step at the ramp's end: %v", err)
	}
}

func TestEnd(t *testing.T) {
	s, _ := New(1000, 0, 0, []Step{{At: 10 * time.Second, Rate: 100}})
	if end, ok := s.End(10001); !ok || end != 10*time.Second {
		t.Errorf("End(10001) = %v, %v; want 10s", end, ok)
	}
	if end, ok := s.End(10101); !ok || end != 11*time.Second {
		t.Errorf("End(10101) = %v, %v; want 11s", end, ok)
	}
	u, _ := New(0, 0, 0, nil)
	if _, ok := u.End(10); ok {
		t.Error("End of an unlimited schedule: ok")
	}
}

// A step with over ramps from the rate before it: a day's curve as
// straight pieces. 100/s for 10 s, up to 300/s over 10 s, down to 100/s
// over 20 s: 1000 + 2000 + 4000 records by 40 s.
func TestStepRamps(t *testing.T) {
	s, err := New(100, 0, 0, []Step{
		{At: 10 * time.Second, Rate: 300, Over: 10 * time.Second},
		{At: 20 * time.Second, Rate: 100, Over: 20 * time.Second},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		at   time.Duration
		rate float64
	}{{5 * time.Second, 100}, {15 * time.Second, 200}, {20 * time.Second, 300}, {30 * time.Second, 200}, {50 * time.Second, 100}} {
		if got := s.Rate(c.at); math.Abs(got-c.rate) > 1e-9 {
			t.Errorf("Rate(%v) = %v, want %v", c.at, got, c.rate)
		}
	}
	for _, c := range []struct {
		at   time.Duration
		want float64
	}{{20 * time.Second, 3000}, {40 * time.Second, 7000}, {50 * time.Second, 8000}} {
		if got, _ := s.Records(c.at); got != c.want {
			t.Errorf("Records(%v) = %v, want %v", c.at, got, c.want)
		}
	}
	p := s.Pacer()
	if due, _ := p.Due(3000, 0); due != 20*time.Second {
		t.Errorf("record 3000 due %v, want 20s", due)
	}
	for name, steps := range map[string][]Step{
		"step inside a ramp": {{At: time.Second, Rate: 5, Over: 10 * time.Second}, {At: 5 * time.Second, Rate: 3}},
		"ramp to unlimited":  {{At: time.Second, Rate: 0, Over: time.Second}},
		"negative over":      {{At: time.Second, Rate: 5, Over: -time.Second}},
	} {
		if _, err := New(10, 0, 0, steps); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

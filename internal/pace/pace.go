// Package pace turns a producer's target rate over time (a constant rate,
// a linear ramp, rate steps, or unlimited) into the intended send time of
// every record. One pacer drives all of a producer's sends, so the rate is
// global, never per worker, and a record's intended time does not move when
// the client falls behind: latency measured from it is free of coordinated
// omission.
package pace

import (
	"errors"
	"fmt"
	"math"
	"time"
)

// Step changes the rate at a time since traffic start: at once, or, with
// Over, linearly from the rate before it to Rate over that time.
type Step struct {
	At   time.Duration
	Rate float64 // records/s; 0 = unlimited
	Over time.Duration
}

// Schedule is a target rate over the time since traffic start.
type Schedule struct {
	segs []segment
}

// segment is a rate changing linearly from `from` to `to` over
// [start, end); from == to == 0 is unlimited. The last segment never ends.
type segment struct {
	start, end float64 // seconds
	from, to   float64 // records/s
}

func (s segment) unlimited() bool { return s.from == 0 && s.to == 0 }

// records returns how many records the segment holds up to x seconds into it.
func (s segment) records(x float64) float64 {
	l := s.end - s.start
	if math.IsInf(l, 1) || s.from == s.to {
		return s.from * x
	}
	return s.from*x + (s.to-s.from)*x*x/(2*l)
}

// offsetOf returns how far into the segment the cumulative count reaches k
// records (+Inf if it never does).
func (s segment) offsetOf(k float64) float64 {
	if k <= 0 {
		return 0
	}
	l := s.end - s.start
	if math.IsInf(l, 1) || s.from == s.to {
		return k / s.from
	}
	c2 := (s.to - s.from) / (2 * l)
	disc := s.from*s.from + 4*c2*k
	if disc < 0 {
		return math.Inf(1)
	}
	// The root of c2 x^2 + from x - k = 0, in the form that stays exact
	// when c2 is tiny.
	return 2 * k / (s.from + math.Sqrt(disc))
}

// New returns the schedule of a constant rate (records/s, 0 = unlimited),
// optionally starting with a linear ramp from rampFrom to rate over
// rampOver, then changing rate at each step (a step with Over ramps to its
// rate; the next step comes at or after its ramp's end).
func New(rate, rampFrom float64, rampOver time.Duration, steps []Step) (Schedule, error) {
	bad := func(v float64) bool { return v < 0 || math.IsNaN(v) || math.IsInf(v, 0) }
	if bad(rate) {
		return Schedule{}, fmt.Errorf("rate %v: expected records/s >= 0 (0: unlimited)", rate)
	}
	var segs []segment
	t := 0.0
	if rampOver > 0 {
		if rate == 0 {
			return Schedule{}, errors.New("a ramp needs a target rate > 0: a ramp to unlimited has no shape")
		}
		if !(rampFrom > 0) || bad(rampFrom) {
			return Schedule{}, fmt.Errorf("ramp from %v: expected records/s > 0", rampFrom)
		}
		t = rampOver.Seconds()
		segs = append(segs, segment{start: 0, end: t, from: rampFrom, to: rate})
	} else if rampOver < 0 {
		return Schedule{}, fmt.Errorf("ramp over %v: expected a duration > 0", rampOver)
	}
	cur := rate
	ramped := false
	for i, st := range steps {
		at := st.At.Seconds()
		switch {
		case bad(st.Rate):
			return Schedule{}, fmt.Errorf("step %d: rate %v: expected records/s >= 0 (0: unlimited)", i+1, st.Rate)
		case at <= 0:
			return Schedule{}, fmt.Errorf("step %d: at %v: expected a time > 0 (the initial rate applies from 0)", i+1, st.At)
		case i == 0 && rampOver > 0 && at < t:
			return Schedule{}, fmt.Errorf("step %d: at %v falls within the ramp (0 to %v): expected at >= the ramp's end", i+1, st.At, rampOver)
		case at <= t && !(i == 0 && at == t) && !(ramped && at == t):
			return Schedule{}, fmt.Errorf("step %d: at %v: expected steps in increasing time order, after the previous step's ramp", i+1, st.At)
		case st.Over < 0:
			return Schedule{}, fmt.Errorf("step %d: over %v: expected a duration >= 0", i+1, st.Over)
		case st.Over > 0 && (st.Rate == 0 || cur == 0):
			return Schedule{}, fmt.Errorf("step %d: a ramp needs limited rates on both sides: a ramp from or to unlimited has no shape", i+1)
		}
		if at > t {
			segs = append(segs, segment{start: t, end: at, from: cur, to: cur})
		}
		ramped = false
		if st.Over > 0 {
			end := at + st.Over.Seconds()
			segs = append(segs, segment{start: at, end: end, from: cur, to: st.Rate})
			at, ramped = end, true
		}
		t, cur = at, st.Rate
	}
	segs = append(segs, segment{start: t, end: math.Inf(1), from: cur, to: cur})
	return Schedule{segs: segs}, nil
}

// Rate returns the target rate at t (0: unlimited).
func (s Schedule) Rate(t time.Duration) float64 {
	x := t.Seconds()
	for _, g := range s.segs {
		if x < g.end {
			if g.from == g.to {
				return g.from
			}
			return g.from + (g.to-g.from)*(x-g.start)/(g.end-g.start)
		}
	}
	return 0
}

// Limited reports whether the rate is limited everywhere.
func (s Schedule) Limited() bool {
	for _, g := range s.segs {
		if g.unlimited() {
			return false
		}
	}
	return true
}

// Records returns how many records the schedule sends in [0, t), and false
// if an unlimited stretch comes before t (the count depends on the client).
func (s Schedule) Records(t time.Duration) (float64, bool) {
	x := t.Seconds()
	n := 0.0
	for _, g := range s.segs {
		if x <= g.start {
			break
		}
		if g.unlimited() {
			return 0, false
		}
		n += g.records(math.Min(x, g.end) - g.start)
	}
	return math.Ceil(n - 1e-9), true
}

// Pacer hands out the intended send times of records 0, 1, 2, ... of a
// schedule. It is not safe for concurrent use: a producer has exactly one.
type Pacer struct {
	segs []segment
	i    int     // current segment
	n0   float64 // records due before the current segment
}

// Pacer returns a pacer at the start of the schedule.
func (s Schedule) Pacer() *Pacer {
	return &Pacer{segs: append([]segment(nil), s.segs...)}
}

// Due returns when record n (counting from 0) is due, as time since
// traffic start, given the current time now. In an unlimited stretch every
// record is due now (unlimited is true). Calls must come with n increasing.
func (p *Pacer) Due(n int64, now time.Duration) (due time.Duration, unlimited bool) {
	x := now.Seconds()
	k := float64(n)
	for {
		g := &p.segs[p.i]
		last := p.i == len(p.segs)-1
		if g.unlimited() {
			if last || x < g.end {
				return now, true
			}
			// The unlimited stretch is over: the next stretch's count starts
			// from the records actually sent in it.
			p.i++
			p.n0 = k
			continue
		}
		off := g.offsetOf(k - p.n0)
		if last || g.start+off < g.end {
			return seconds(g.start + off), false
		}
		p.n0 += g.records(g.end - g.start)
		p.i++
	}
}

func seconds(s float64) time.Duration {
	if s >= math.MaxInt64/float64(time.Second) {
		return math.MaxInt64
	}
	return time.Duration(math.Round(s * float64(time.Second)))
}

// End returns when the last of n records is due, if the whole schedule up
// to it is limited (an unlimited stretch depends on the client's speed).
func (s Schedule) End(n int64) (time.Duration, bool) {
	if n <= 0 {
		return 0, true
	}
	p := s.Pacer()
	due, unlimited := p.Due(n-1, 0)
	if unlimited {
		return 0, false
	}
	// Unlimited stretches before record n-1 would have been crossed with
	// now = 0, which never leaves them; so reaching here means none came first.
	return due, true
}

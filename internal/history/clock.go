package history

import (
	"bytes"
	"io"
	"math"
	"os"
)

// Clock correction. Each process stamps its events with its own wall
// clock. A process that measured its clock against the driver's writes
// `clock` events (at its start and at its end): the offset of its clock
// (its time minus the driver's, by the midpoint rule) and the offset's
// error bound. When a cell's files are merged, each file's times are
// moved onto the driver's clock by its offset, interpolated linearly
// between its first and last measurement (the drift of its clock) and
// held at the nearest one outside them. The times a member copies from
// a record's stamp into a `processed` event (intended_t) are the
// producer's: they are corrected by the producer's file's offset. A file
// without clock events has offset 0: histories written before clocks
// were measured, and every file of a run on one host that did not
// measure them, read exactly as before.

// MaxDrift is the largest drift of a clock, in seconds per second, that
// the correction interpolates: 1000 ppm, ten times what a quartz clock
// drifts when no one disciplines it. Two measurements further apart than
// that are a step of the clock (a correction by NTP, a clock set by
// hand), not a drift: the file is then corrected by the better of the
// two (the smaller error bound; the first on a tie) throughout. Below
// it, corrected times never go backwards within a file.
const MaxDrift = 1e-3

// ClockPoint is one measurement of a clock: at local time T, the clock
// was Offset ahead of the driver's (negative: behind), within +-Error.
type ClockPoint struct {
	T, Offset, Error int64
}

// Correction maps one file's local times to the driver's clock. The zero
// Correction is the identity.
type Correction struct {
	// The measurements interpolated between: from (t0, o0) to (t1, o1);
	// t1 == t0 for a constant offset.
	t0, o0, t1, o1 int64
	set            bool
}

// NewCorrection returns the correction of a file whose clock events are
// points, in file order: interpolated between the first and the last.
// No points: the identity.
func NewCorrection(points []ClockPoint) Correction {
	if len(points) == 0 {
		return Correction{}
	}
	a, b := points[0], points[len(points)-1]
	c := Correction{t0: a.T, o0: a.Offset, t1: a.T, o1: a.Offset, set: true}
	if b.T <= a.T {
		return c
	}
	slope := float64(b.Offset-a.Offset) / float64(b.T-a.T)
	if math.Abs(slope) > MaxDrift {
		if b.Error < a.Error {
			c.t0, c.o0, c.t1, c.o1 = b.T, b.Offset, b.T, b.Offset
		}
		return c
	}
	c.t1, c.o1 = b.T, b.Offset
	return c
}

// Active reports whether c moves any time (it has a measurement).
func (c *Correction) Active() bool { return c.set }

// Offset returns the file's clock offset at local time t.
func (c *Correction) Offset(t int64) int64 {
	switch {
	case !c.set:
		return 0
	case t <= c.t0 || c.t1 == c.t0:
		return c.o0
	case t >= c.t1:
		return c.o1
	}
	// Between the measurements. In floating point: the product of the
	// two differences overflows an int64 (a second of offset over
	// twenty minutes of run is 1.2e21 ns²); the fraction's relative
	// error, 2^-53, is far below a nanosecond of any real offset, and an
	// exact offset is rounded to itself.
	f := float64(t-c.t0) / float64(c.t1-c.t0)
	return c.o0 + int64(math.Round(f*float64(c.o1-c.o0)))
}

// Driver returns local time t on the driver's clock; 0 (no time) stays 0.
// A time the offset would move out of a history's times (before 1970,
// from 2116: only a hand-written history's) is held at their bound.
func (c *Correction) Driver(t int64) int64 {
	if t == 0 {
		return 0
	}
	return min(max(t-c.Offset(t), 1), MaxTime-1)
}

// corrections are the corrections of the files of a merge.
type corrections struct {
	files []Correction
	// producers are the corrections of the files by proc (a process's
	// first incarnation: producers are not restarted), for the
	// producer's times copied into processed events.
	producers map[string]*Correction
	any       bool
}

// apply moves e's times onto the driver's clock: e was read from a file
// corrected by c.
func (cs *corrections) apply(c *Correction, e *Event) {
	if c.set {
		e.T = c.Driver(e.T)
		if e.Kind == Produced {
			e.IntendedT, e.SentT = c.Driver(e.IntendedT), c.Driver(e.SentT)
		}
	}
	if e.Kind == Processed && e.IntendedT != 0 && len(cs.producers) > 0 {
		if pc := cs.producers[e.Producer]; pc != nil {
			e.IntendedT = pc.Driver(e.IntendedT)
		}
	}
}

// scanClocks reads the clock events of every file. A clock line that
// does not parse is left for the merge to report.
func scanClocks(paths []string) (*corrections, error) {
	cs := &corrections{files: make([]Correction, len(paths))}
	dec := newDecoder()
	var buf []byte
	for i, p := range paths {
		points, proc, b, err := clockPoints(p, dec, buf)
		buf = b
		if err != nil {
			return nil, err
		}
		if len(points) == 0 {
			continue
		}
		cs.files[i] = NewCorrection(points)
		cs.any = true
		if proc != "" {
			if cs.producers == nil {
				cs.producers = map[string]*Correction{}
			}
			if _, ok := cs.producers[proc]; !ok {
				cs.producers[proc] = &cs.files[i]
			}
		}
	}
	return cs, nil
}

// clockNeedle is in every line that holds a clock event.
var clockNeedle = []byte(`"clock"`)

// clockWindow is how much of a file's head and of its tail the merge
// searches for clock events: writers put them there (at a process's
// start, and as its last events), and the rest of a file, nearly all of
// it, is not read twice. A file no longer than two windows is searched
// whole.
const clockWindow = 256 << 10

// clockPoints returns the clock events of one file's head and tail, in
// file order, and the proc of the process that wrote them. It searches
// the bytes for the kind's name and decodes only the lines that hold it.
func clockPoints(path string, dec *decoder, buf []byte) ([]ClockPoint, string, []byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, "", buf, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, "", buf, err
	}
	size := st.Size()
	var c clockScan
	c.dec = dec
	if size <= 2*clockWindow {
		buf, err = readAt(f, buf, 0, size)
		if err != nil {
			return nil, "", buf, err
		}
		c.lines(buf)
		return c.points, c.proc, buf, nil
	}
	// The head's whole lines, then the tail's.
	buf, err = readAt(f, buf, 0, clockWindow)
	if err != nil {
		return nil, "", buf, err
	}
	c.lines(buf[:bytes.LastIndexByte(buf, '\n')+1])
	buf, err = readAt(f, buf, size-clockWindow, clockWindow)
	if err != nil {
		return nil, "", buf, err
	}
	c.lines(buf[bytes.IndexByte(buf, '\n')+1:])
	return c.points, c.proc, buf, nil
}

// readAt reads n bytes of f from off into buf (grown as needed).
func readAt(f *os.File, buf []byte, off, n int64) ([]byte, error) {
	if int64(cap(buf)) < n {
		buf = make([]byte, n)
	}
	buf = buf[:n]
	m, err := f.ReadAt(buf, off)
	if err == io.EOF {
		err = nil
	}
	return buf[:m], err
}

// clockScan gathers the clock events of a file's lines.
type clockScan struct {
	dec    *decoder
	ev     Event
	points []ClockPoint
	proc   string
}

// lines adds the clock events among the lines of b (whole lines; the
// last may lack its newline).
func (c *clockScan) lines(b []byte) {
	for len(b) > 0 {
		k := bytes.Index(b, clockNeedle)
		if k < 0 {
			return
		}
		from := bytes.LastIndexByte(b[:k], '\n') + 1
		to := bytes.IndexByte(b[k:], '\n')
		next := len(b)
		if to < 0 {
			to = len(b)
		} else {
			to += k
			next = to + 1
		}
		line := bytes.TrimRight(b[from:to], "\r")
		c.ev.Reset()
		if c.dec.decode(line, &c.ev) == nil && c.ev.Kind == Clock {
			c.points = append(c.points, ClockPoint{T: c.ev.T, Offset: c.ev.ClockOffset, Error: c.ev.ClockError})
			c.proc = c.ev.Proc
		}
		b = b[next:]
	}
}

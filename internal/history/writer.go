package history

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// Sink is where a process appends its events. The local implementation is
// a file (Writer); a history topic on a Kafka cluster can take its place
// when processes run on many hosts.
type Sink interface {
	// Append adds e to the history. It sets e.Proc and e.Inc to the sink's,
	// and e.T to the current time when zero. The event is durable (visible
	// to readers, surviving a kill of the process) only after Flush.
	Append(e *Event) error
	// Flush makes every appended event durable.
	Flush() error
	// Close flushes and releases the sink.
	Close() error
}

// Writer appends events to one history file. It is the only writer of its
// file (files are created, never reopened) and is safe for concurrent use.
//
// Events are buffered in memory and reach the file in one write(2) per
// Flush: a write to the page cache, which survives the process being
// killed. Whoever relies on an event having been recorded (a member about
// to commit an offset) calls Flush first.
type Writer struct {
	mu   sync.Mutex
	f    *os.File
	path string
	proc string
	inc  int
	buf  []byte
	last int64
	err  error
	now  func() time.Time
}

// FileName returns the history file name of a process incarnation:
// "<proc>.<inc>.jsonl".
func FileName(proc string, inc int) string {
	return fmt.Sprintf("%s.%d.jsonl", proc, inc)
}

// Create creates dir/<proc>.<inc>.jsonl for writing. An existing file is an
// error: histories are never overwritten.
func Create(dir, proc string, inc int) (*Writer, error) {
	if proc == "" {
		return nil, errors.New("history: empty process name")
	}
	path := filepath.Join(dir, FileName(proc, inc))
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	return &Writer{f: f, path: path, proc: proc, inc: inc, buf: make([]byte, 0, 64<<10), now: time.Now}, nil
}

// Skew adds d to every time the writer stamps from now on (Append's
// and Now's): a clock running d ahead of the host's. Tests of the clock
// correction use it to stand for a process on another host.
func (w *Writer) Skew(d time.Duration) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.now = func() time.Time { return time.Now().Add(d) }
}

// Path returns the file's path.
func (w *Writer) Path() string { return w.path }

// Append implements Sink. Times in one file never go backwards: an event
// stamped earlier than its predecessor (a wall-clock step) gets the
// predecessor's time.
func (w *Writer) Append(e *Event) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	e.Proc, e.Inc = w.proc, w.inc
	if e.T == 0 {
		e.T = w.now().UnixNano()
	}
	if e.T < w.last {
		e.T = w.last
	}
	w.last = e.T
	w.buf = AppendJSON(w.buf, e)
	w.buf = append(w.buf, '\n')
	if len(w.buf) >= 1<<20 {
		return w.flushLocked()
	}
	return nil
}

// Now returns the time Append would stamp an event with now.
func (w *Writer) Now() int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	t := w.now().UnixNano()
	if t < w.last {
		t = w.last
	}
	return t
}

// Flush implements Sink.
func (w *Writer) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.flushLocked()
}

func (w *Writer) flushLocked() error {
	if w.err != nil {
		return w.err
	}
	if len(w.buf) == 0 {
		return nil
	}
	if _, err := w.f.Write(w.buf); err != nil {
		w.err = fmt.Errorf("history %s: %w", w.path, err)
		return w.err
	}
	w.buf = w.buf[:0]
	return nil
}

// Close implements Sink.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	err := w.flushLocked()
	if cerr := w.f.Close(); err == nil && cerr != nil {
		err = cerr
	}
	if w.err == nil {
		w.err = errors.New("history: writer closed")
	}
	return err
}

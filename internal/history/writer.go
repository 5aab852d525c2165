package history

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// Sink is where a process appends its events: a Writer, whose Store is a
// file, a history topic on a Kafka cluster (for processes on many hosts),
// or both.
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

// Store is where a Writer's lines go: a file (FileStore), a history topic
// on a Kafka cluster (internal/historytopic), or several at once (Tee).
type Store interface {
	// WriteLines makes lines durable: one or more whole lines, each
	// ending in '\n', as the Writer encoded them since its last flush. It
	// returns only once they are (the write-ahead rule). The Writer
	// reuses lines once it returns.
	WriteLines(lines []byte) error
	// Close releases the store; lines are no longer written after it.
	Close() error
}

// Writer appends events to one process incarnation's history. It is the
// only writer of its history (files are created, never reopened; a topic
// takes its lines under the incarnation's key alone) and is safe for
// concurrent use.
//
// Events are buffered in memory and reach the store in one WriteLines per
// Flush: for a file, one write(2) to the page cache, which survives the
// process being killed; for a topic, records the brokers acknowledged.
// Whoever relies on an event having been recorded (a member about to
// commit an offset) calls Flush first.
type Writer struct {
	// flushMu makes flushes take turns; mu guards the rest (flushMu is
	// taken first).
	flushMu sync.Mutex
	mu      sync.Mutex
	store   Store
	path    string
	proc    string
	inc     int
	buf     []byte
	spare   []byte // the buffer a flush in progress gives back
	last    int64
	err     error
	closed  bool
	now     func() time.Time
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
	f, err := CreateFileStore(dir, proc, inc)
	if err != nil {
		return nil, err
	}
	w := NewWriter(proc, inc, f)
	w.path = f.path
	return w, nil
}

// NewWriter returns a Writer of proc's incarnation inc into store: the
// same lines, byte for byte, whatever the store.
func NewWriter(proc string, inc int, store Store) *Writer {
	return &Writer{store: store, proc: proc, inc: inc, buf: make([]byte, 0, 64<<10), now: time.Now}
}

// FileStore is a history file: the Store of Create.
type FileStore struct {
	f    *os.File
	path string
}

// CreateFileStore creates dir/<proc>.<inc>.jsonl. An existing file is an
// error: histories are never overwritten.
func CreateFileStore(dir, proc string, inc int) (*FileStore, error) {
	path := filepath.Join(dir, FileName(proc, inc))
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	return &FileStore{f: f, path: path}, nil
}

// WriteLines implements Store: one write(2).
func (s *FileStore) WriteLines(lines []byte) error {
	if _, err := s.f.Write(lines); err != nil {
		return fmt.Errorf("history %s: %w", s.path, err)
	}
	return nil
}

// Close implements Store.
func (s *FileStore) Close() error { return s.f.Close() }

// Path returns the file's path.
func (s *FileStore) Path() string { return s.path }

// Tee is a Store that writes every line to each of its stores, in order:
// lines are durable once every store has them. A run that writes its
// histories both to files and to a topic compares the two afterwards.
type Tee []Store

// WriteLines implements Store.
func (t Tee) WriteLines(lines []byte) error {
	for _, s := range t {
		if err := s.WriteLines(lines); err != nil {
			return err
		}
	}
	return nil
}

// Close implements Store: every store is closed, the first error kept.
func (t Tee) Close() error {
	var first error
	for _, s := range t {
		if err := s.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// Skew adds d to every time the writer stamps from now on (Append's
// and Now's): a clock running d ahead of the host's. Tests of the clock
// correction use it to stand for a process on another host.
func (w *Writer) Skew(d time.Duration) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.now = func() time.Time { return time.Now().Add(d) }
}

// Path returns the file's path (empty when the store is not one file).
func (w *Writer) Path() string { return w.path }

// Append implements Sink. Times in one file never go backwards: an event
// stamped earlier than its predecessor (a wall-clock step) gets the
// predecessor's time.
func (w *Writer) Append(e *Event) error {
	w.mu.Lock()
	if w.err != nil {
		err := w.err
		w.mu.Unlock()
		return err
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
	full := len(w.buf) >= 1<<20
	w.mu.Unlock()
	if full {
		return w.Flush()
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

// Flush implements Sink: every event appended before it was called is
// durable when it returns. Flushes take turns; appends go on while the
// store writes (a topic's round trip holds up no one but the flusher),
// into a buffer of their own, which the next flush takes.
func (w *Writer) Flush() error {
	w.flushMu.Lock()
	defer w.flushMu.Unlock()
	return w.flushTurn()
}

// flushTurn writes the buffer to the store; w.flushMu is held.
func (w *Writer) flushTurn() error {
	w.mu.Lock()
	if w.err != nil || len(w.buf) == 0 {
		err := w.err
		w.mu.Unlock()
		return err
	}
	out := w.buf
	w.buf, w.spare = w.spare[:0], nil
	w.mu.Unlock()
	err := w.store.WriteLines(out)
	w.mu.Lock()
	defer w.mu.Unlock()
	w.spare = out[:0]
	if err != nil && w.err == nil {
		w.err = err
	}
	return err
}

// Close implements Sink.
func (w *Writer) Close() error {
	w.flushMu.Lock()
	defer w.flushMu.Unlock()
	err := w.flushTurn()
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return errors.New("history: writer closed")
	}
	w.closed = true
	if cerr := w.store.Close(); err == nil && cerr != nil {
		err = cerr
	}
	if w.err == nil {
		w.err = errors.New("history: writer closed")
	}
	return err
}

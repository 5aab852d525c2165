package history

import (
	"bufio"
	"bytes"
	"container/heap"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// LineError is a line of a history file that could not be read. Readers
// report it and go on with the next line when asked again: nothing is
// skipped silently, and one bad line does not hide the rest of a history.
type LineError struct {
	Path string
	Line int
	// Truncated is set for a last line without its newline that does not
	// parse: the writer was cut off mid-line (a full disk, a copy in
	// progress).
	Truncated bool
	Err       error
}

func (e *LineError) Error() string {
	what := "malformed line"
	if e.Truncated {
		what = "truncated last line"
	}
	return fmt.Sprintf("%s:%d: %s: %v", e.Path, e.Line, what, e.Err)
}

func (e *LineError) Unwrap() error { return e.Err }

// FileReader reads the events of one history file in order.
type FileReader struct {
	path string
	f    *os.File
	r    *bufio.Reader
	dec  *decoder
	line int
	ev   Event
	done bool
}

// OpenFile opens a history file.
func OpenFile(path string) (*FileReader, error) {
	return openFile(path, newDecoder())
}

func openFile(path string, dec *decoder) (*FileReader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	return &FileReader{path: path, f: f, r: bufio.NewReaderSize(f, 256<<10), dec: dec}, nil
}

// Path returns the file's path.
func (r *FileReader) Path() string { return r.path }

// Next returns the next event, valid until the following call; io.EOF at
// the end; a *LineError for a line that could not be read (call Next again
// to go on). Empty lines are ignored.
func (r *FileReader) Next() (*Event, error) {
	for {
		if r.done {
			return nil, io.EOF
		}
		line, err := r.r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			// A line longer than the buffer: gather it whole.
			rest, err2 := r.r.ReadBytes('\n')
			line = append(append([]byte(nil), line...), rest...)
			err = err2
		}
		truncated := false
		if err == io.EOF {
			r.done = true
			if len(line) == 0 {
				return nil, io.EOF
			}
			truncated = true
		} else if err != nil {
			r.done = true
			return nil, &LineError{Path: r.path, Line: r.line + 1, Err: err}
		}
		r.line++
		line = bytes.TrimRight(line, "\r\n")
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		r.ev.Reset()
		if err := r.dec.decode(line, &r.ev); err != nil {
			return nil, &LineError{Path: r.path, Line: r.line, Truncated: truncated, Err: err}
		}
		return &r.ev, nil
	}
}

// Line returns the number of the line last read.
func (r *FileReader) Line() int { return r.line }

// Close closes the file.
func (r *FileReader) Close() error { return r.f.Close() }

// ReadFile reads a whole history file. Bad lines are returned as a joined
// error alongside every event that could be read.
func ReadFile(path string) ([]Event, error) {
	r, err := OpenFile(path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	var evs []Event
	var errs []error
	for {
		e, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		c := *e
		c.Partitions = append([]int32(nil), e.Partitions...)
		evs = append(evs, c)
	}
	return evs, errors.Join(errs...)
}

// Files lists the history files (*.jsonl) of a folder, sorted by name.
func Files(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var paths []string
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".jsonl") {
			paths = append(paths, filepath.Join(dir, e.Name()))
		}
	}
	sort.Strings(paths)
	return paths, nil
}

// Merger reads several history files as one stream in time order. Ties
// are broken by file (in the order given) and then by line, so the order
// is deterministic. Each file must be in time order itself, as Writer
// guarantees; an event earlier than its file's previous one is reported as
// a *LineError.
type Merger struct {
	readers []*FileReader
	h       mergeHeap
	last    []int64
	pending []int // readers to advance before the next pick
}

// OpenDir opens every history file of a folder for merging.
func OpenDir(dir string) (*Merger, error) {
	paths, err := Files(dir)
	if err != nil {
		return nil, err
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("%s: no history files (*.jsonl)", dir)
	}
	return OpenMerged(paths...)
}

// OpenMerged opens the given files for merging.
func OpenMerged(paths ...string) (*Merger, error) {
	m := &Merger{last: make([]int64, len(paths))}
	dec := newDecoder()
	for i, p := range paths {
		r, err := openFile(p, dec)
		if err != nil {
			m.Close()
			return nil, err
		}
		m.readers = append(m.readers, r)
		m.pending = append(m.pending, i)
	}
	return m, nil
}

type mergeItem struct {
	t    int64
	file int
	ev   *Event
}

type mergeHeap []mergeItem

func (h mergeHeap) Len() int { return len(h) }
func (h mergeHeap) Less(i, j int) bool {
	if h[i].t != h[j].t {
		return h[i].t < h[j].t
	}
	return h[i].file < h[j].file
}
func (h mergeHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *mergeHeap) Push(x any)   { *h = append(*h, x.(mergeItem)) }
func (h *mergeHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// Next returns the next event in time order, valid until the following
// call; io.EOF when every file is done; a *LineError for a bad line (call
// Next again to go on).
func (m *Merger) Next() (*Event, error) {
	for len(m.pending) > 0 {
		i := m.pending[len(m.pending)-1]
		e, err := m.readers[i].Next()
		if err == io.EOF {
			m.pending = m.pending[:len(m.pending)-1]
			continue
		}
		if err != nil {
			return nil, err // i stays pending: the next call reads on
		}
		if e.T < m.last[i] {
			return nil, &LineError{Path: m.readers[i].path, Line: m.readers[i].line,
				Err: fmt.Errorf("t=%d is earlier than the previous event's t=%d", e.T, m.last[i])}
		}
		m.last[i] = e.T
		m.pending = m.pending[:len(m.pending)-1]
		heap.Push(&m.h, mergeItem{t: e.T, file: i, ev: e})
	}
	if len(m.h) == 0 {
		return nil, io.EOF
	}
	it := heap.Pop(&m.h).(mergeItem)
	m.pending = append(m.pending, it.file)
	return it.ev, nil
}

// Source returns the path and line of the event last returned by Next.
func (m *Merger) Source() (string, int) {
	if len(m.pending) == 0 {
		return "", 0
	}
	r := m.readers[m.pending[len(m.pending)-1]]
	return r.path, r.line
}

// Close closes every file.
func (m *Merger) Close() error {
	var errs []error
	for _, r := range m.readers {
		errs = append(errs, r.Close())
	}
	return errors.Join(errs...)
}

package check

import (
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/chaosbench/chaosbench/internal/history"
)

// ParallelSource merges history files in time order, as history.Merger
// does (ties broken by file, in the order given, then by line), but
// decodes each file on its own goroutine, a batch of events ahead of the
// merge: parsing, the bulk of the work, runs on every core while the
// checkers consume.
type ParallelSource struct {
	files []*fileFeed
	heap  []int // indexes of files with a current event, ordered by (t, index)
	// held is the batch whose event Next returned last: it goes back to
	// its file when Next is called again.
	held     *batch
	heldFile *fileFeed
	started  bool
	stop     chan struct{}
	wg       sync.WaitGroup
}

const batchSize = 512

type item struct {
	ev   history.Event
	line int
	err  error
}

type batch struct {
	items []item
	n     int
}

type fileFeed struct {
	path  string
	full  chan *batch
	free  chan *batch
	cur   *batch
	pos   int
	lastT int64
	done  bool
}

// OpenParallel opens the given history files for a merged, time-ordered
// read.
func OpenParallel(paths []string) (*ParallelSource, error) {
	readers := make([]*history.FileReader, 0, len(paths))
	for _, p := range paths {
		r, err := history.OpenFile(p)
		if err != nil {
			for _, r := range readers {
				r.Close()
			}
			return nil, err
		}
		readers = append(readers, r)
	}
	s := &ParallelSource{stop: make(chan struct{})}
	for i, r := range readers {
		f := &fileFeed{path: paths[i], full: make(chan *batch, 4), free: make(chan *batch, 6)}
		for range 6 {
			f.free <- &batch{items: make([]item, batchSize)}
		}
		s.files = append(s.files, f)
		s.wg.Add(1)
		go s.read(r, f)
	}
	return s, nil
}

// read decodes one file into batches until its end or Close.
func (s *ParallelSource) read(r *history.FileReader, f *fileFeed) {
	defer s.wg.Done()
	defer r.Close()
	defer close(f.full)
	for {
		var b *batch
		select {
		case b = <-f.free:
		case <-s.stop:
			return
		}
		b.n = 0
		eof := false
		var lastT int64
		for b.n < len(b.items) {
			e, err := r.Next()
			if err == io.EOF {
				eof = true
				break
			}
			it := &b.items[b.n]
			b.n++
			it.line = r.Line()
			if err != nil {
				// Keep the file's order in the merge: the error sorts
				// where the file's previous event did.
				it.err = err
				it.ev.T = lastT
				var le *history.LineError
				if !errors.As(err, &le) {
					eof = true // an I/O error: the file cannot go on
					break
				}
				continue
			}
			it.err = nil
			lastT = e.T
			parts := it.ev.Partitions[:0]
			it.ev = *e
			it.ev.Partitions = append(parts, e.Partitions...)
		}
		if b.n > 0 {
			select {
			case f.full <- b:
			case <-s.stop:
				return
			}
		}
		if eof {
			return
		}
	}
}

// advance moves f to its next item; false at its end.
func (f *fileFeed) advance() bool {
	f.pos++
	for f.cur == nil || f.pos >= f.cur.n {
		if f.cur != nil {
			f.free <- f.cur
			f.cur = nil
		}
		b, ok := <-f.full
		if !ok {
			f.done = true
			return false
		}
		f.cur, f.pos = b, 0
	}
	return true
}

func (f *fileFeed) head() *item { return &f.cur.items[f.pos] }

func (s *ParallelSource) less(i, j int) bool {
	a, b := s.files[i].head().ev.T, s.files[j].head().ev.T
	if a != b {
		return a < b
	}
	return i < j
}

func (s *ParallelSource) up(k int) {
	for k > 0 {
		p := (k - 1) / 2
		if !s.less(s.heap[k], s.heap[p]) {
			return
		}
		s.heap[k], s.heap[p] = s.heap[p], s.heap[k]
		k = p
	}
}

func (s *ParallelSource) down(k int) {
	n := len(s.heap)
	for {
		l := 2*k + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && s.less(s.heap[r], s.heap[l]) {
			m = r
		}
		if !s.less(s.heap[m], s.heap[k]) {
			return
		}
		s.heap[k], s.heap[m] = s.heap[m], s.heap[k]
		k = m
	}
}

// Next returns the next event in time order (valid until the following
// call), io.EOF at the end, or a *history.LineError for a line that could
// not be read or is out of time order in its file.
func (s *ParallelSource) Next() (*history.Event, error) {
	if !s.started {
		s.started = true
		for i, f := range s.files {
			f.pos = -1
			if f.advance() {
				s.heap = append(s.heap, i)
				s.up(len(s.heap) - 1)
			}
		}
	} else if len(s.heap) > 0 {
		// Move past the event returned last.
		f := s.files[s.heap[0]]
		if f.advance() {
			s.down(0)
		} else {
			s.pop()
		}
	}
	for len(s.heap) > 0 {
		f := s.files[s.heap[0]]
		it := f.head()
		if it.err != nil {
			err := it.err
			var le *history.LineError
			if errors.As(err, &le) {
				// Report it; the next call moves past it.
				return nil, err
			}
			return nil, fmt.Errorf("%s: %w", f.path, err)
		}
		if it.ev.T < f.lastT {
			err := &history.LineError{Path: f.path, Line: it.line, Err: fmt.Errorf("t=%d is earlier than the previous event's t=%d", it.ev.T, f.lastT)}
			return nil, err
		}
		f.lastT = it.ev.T
		return &it.ev, nil
	}
	return nil, io.EOF
}

func (s *ParallelSource) pop() {
	n := len(s.heap) - 1
	s.heap[0] = s.heap[n]
	s.heap = s.heap[:n]
	if n > 0 {
		s.down(0)
	}
}

// Close stops the readers and closes the files.
func (s *ParallelSource) Close() error {
	select {
	case <-s.stop:
	default:
		close(s.stop)
	}
	// Drain so that blocked readers see stop.
	for _, f := range s.files {
		go func(f *fileFeed) {
			for range f.full {
			}
		}(f)
	}
	s.wg.Wait()
	return nil
}

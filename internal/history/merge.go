package history

import (
	"errors"
	"fmt"
	"io"
	"sync"
	"unsafe"
)

// Merger reads several history files as one stream in time order. Ties
// are broken by file (in the order given) and then by line, so the order
// is deterministic. Each file must be in time order itself, as Writer
// guarantees; an event earlier than its file's previous one is reported as
// a *LineError.
//
// Each file is decoded on its own goroutine, a few batches of events
// ahead of the merge: decoding, the bulk of the work, runs on every core
// while the caller consumes the merged stream. Memory is bounded by the
// number of files, whatever their length. Close stops the goroutines.
type Merger struct {
	feeds []*feed
	// heap holds the feeds that have a current event, ordered by (t,
	// file).
	heap    []*feed
	started bool
	// last is the feed whose current event Next returned last: it moves
	// on at the next call.
	last *feed
	stop chan struct{}
	wg   sync.WaitGroup
	// clocks correct the files' times onto the driver's clock (clock.go).
	clocks *corrections
}

// feed is one file of a merge: its decoding goroutine fills batches, the
// merge reads them in order and hands them back.
type feed struct {
	index int
	r     *FileReader
	// batches: the file is decoded at most this many batches ahead
	// (lookAhead).
	batches int
	full    chan *batch // decoded, in file order; closed at the end
	free    chan *batch // read by the merge: to be filled again
	// The merge's side: the batch being read and the position in it.
	cur *batch
	pos int
	t   int64 // the current event's time: the merge's sort key
	// lastT is the time of the file's last event the merge returned.
	lastT    int64
	closeErr error
	// clock corrects the file's times; clocks, the merge's corrections.
	clock  *Correction
	clocks *corrections
}

// batch is a run of a file's lines. Its items were written on another
// core, and each of their cache lines read here is a transfer from that
// core's cache: the merge reads the lines' times from ts, eight to a
// cache line, and their errors only in a batch that has some; the caller
// of Next reads the event, most often only its first cache lines (Event
// puts the fields most events have first).
type batch struct {
	items []item
	ts    []int64 // ts[i]: items[i]'s time, the merge's sort key
	n     int
	bad   int // items that hold an error
}

// item is one line of a file: its event, or why it could not be read.
// Items fill whole cache lines, so that each event begins a line (the
// allocator starts a block the size of a batch's items on a cache line):
// an event's first fields then share the fewest lines.
type item struct {
	ev Event
	// Not last: an empty last field would be padded.
	_    [(64 - (unsafe.Sizeof(Event{})+itemTail)%64) % 64]byte
	line int
	err  error
}

// itemTail is the size of an item's fields after its event and padding.
const itemTail = unsafe.Sizeof(int(0)) + unsafe.Sizeof(error(nil))

// Batches: a file is decoded at least batchesPerFile batches ahead, a
// large one more (lookAhead), all of them at most twice batchesPerFile
// per file; batches are smaller when there are many files, so that the
// events held stay bounded.
const (
	batchesPerFile  = 4
	maxBatchEvents  = 256
	minBatchEvents  = 16
	heldEventsTotal = 4096 // per batch position, over all files
)

// lookAhead returns how many batches each file may be decoded ahead of
// the merge, given the files' sizes: batchesPerFile, or a file's share
// of batchesPerFile per file by size if more. The merge takes a file's
// events about as fast as its bytes come in the history: a producer's
// file, half a cell's events beside eight members' files, goes eight
// times as fast as each of theirs. With the same look-ahead for every
// file, the merge would catch up with that file's decoding (and wait, a
// core idle) while the others' decoders, far ahead, had nothing left to
// do. A file that ends early (a member killed) went as fast as the
// others while it lasted: it keeps batchesPerFile.
func lookAhead(sizes []int64) []int {
	var total int64
	for _, s := range sizes {
		total += s
	}
	budget := int64(batchesPerFile * len(sizes))
	n := make([]int, len(sizes))
	for i, s := range sizes {
		n[i] = batchesPerFile
		if total > 0 {
			n[i] = max(int(budget*s/total), batchesPerFile)
		}
	}
	return n
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

// OpenMerged opens the given files for merging and starts decoding them.
// Each file's times are put on the driver's clock by the file's clock
// events (clock.go); files without any are read as written.
func OpenMerged(paths ...string) (*Merger, error) {
	clocks, err := scanClocks(paths)
	if err != nil {
		return nil, err
	}
	m := &Merger{stop: make(chan struct{}), clocks: clocks}
	readers := make([]*FileReader, 0, len(paths))
	for _, p := range paths {
		r, err := OpenFile(p)
		if err != nil {
			for _, r := range readers {
				r.Close()
			}
			return nil, err
		}
		readers = append(readers, r)
	}
	size := min(max(heldEventsTotal/max(len(paths), 1), minBatchEvents), maxBatchEvents)
	sizes := make([]int64, len(readers))
	for i, r := range readers {
		if st, err := r.f.Stat(); err == nil {
			sizes[i] = st.Size()
		}
	}
	ahead := lookAhead(sizes)
	for i, r := range readers {
		n := ahead[i]
		f := &feed{index: i, r: r, batches: n, full: make(chan *batch, n), free: make(chan *batch, n)}
		if clocks.any {
			f.clock, f.clocks = &clocks.files[i], clocks
		}
		m.feeds = append(m.feeds, f)
		m.wg.Add(1)
		go func() {
			defer m.wg.Done()
			f.decode(m.stop, size)
		}()
	}
	return m, nil
}

// decode reads the file into batches until its end or stop.
func (f *feed) decode(stop <-chan struct{}, size int) {
	defer func() { f.closeErr = f.r.Close() }()
	defer close(f.full)
	allocated := 0
	var lastT int64
	for {
		var b *batch
		select {
		case b = <-f.free:
		default:
			if allocated < f.batches {
				b = &batch{items: make([]item, size), ts: make([]int64, size)}
				allocated++
				break
			}
			select {
			case b = <-f.free:
			case <-stop:
				return
			}
		}
		b.n, b.bad = 0, 0
		eof := false
		for b.n < len(b.items) {
			it := &b.items[b.n]
			err := f.r.read(&it.ev)
			if err == io.EOF {
				eof = true
				break
			}
			it.line, it.err = f.r.line, err
			if err != nil {
				// A line that cannot be read sorts where the file's
				// previous event did: it is reported right after it.
				it.ev.T = lastT
				b.bad++
			} else {
				if f.clocks != nil {
					f.clocks.apply(f.clock, &it.ev)
				}
				lastT = it.ev.T
			}
			b.ts[b.n] = it.ev.T
			b.n++
		}
		if b.n > 0 {
			select {
			case f.full <- b:
			case <-stop:
				return
			}
		}
		if eof {
			return
		}
	}
}

// advance moves the merge to the file's next item; false at its end.
func (f *feed) advance() bool {
	f.pos++
	if b := f.cur; b != nil && f.pos < b.n {
		f.t = b.ts[f.pos]
		return true
	}
	if f.cur != nil {
		f.free <- f.cur // never blocks: there are only so many batches
		f.cur = nil
	}
	b, ok := <-f.full
	if !ok {
		return false
	}
	f.cur, f.pos, f.t = b, 0, b.ts[0]
	return true
}

// Next returns the next event in time order, valid until the following
// call; io.EOF when every file is done; a *LineError for a bad line (call
// Next again to go on).
func (m *Merger) Next() (*Event, error) {
	if !m.started {
		m.started = true
		for _, f := range m.feeds {
			f.pos = -1
			if f.advance() {
				m.heap = append(m.heap, f)
				m.up(len(m.heap) - 1)
			}
		}
	} else if f := m.last; f != nil {
		// f is the heap's top: move it past what was returned.
		if f.advance() {
			m.down(0)
		} else {
			m.pop()
		}
	}
	if len(m.heap) == 0 {
		m.last = nil
		return nil, io.EOF
	}
	f := m.heap[0]
	m.last = f
	b := f.cur
	if b.bad > 0 {
		if it := &b.items[f.pos]; it.err != nil {
			return nil, it.err
		}
	}
	if t := b.ts[f.pos]; t < f.lastT {
		return nil, &LineError{Path: f.r.path, Line: b.items[f.pos].line,
			Err: fmt.Errorf("t=%d is earlier than the previous event's t=%d", t, f.lastT)}
	}
	f.lastT = f.t
	return &b.items[f.pos].ev, nil
}

// Source returns the path and line of the event last returned by Next.
func (m *Merger) Source() (string, int) {
	f := m.last
	if f == nil || f.cur == nil {
		return "", 0
	}
	return f.r.path, f.cur.items[f.pos].line
}

// Close stops decoding and closes every file.
func (m *Merger) Close() error {
	select {
	case <-m.stop:
	default:
		close(m.stop)
	}
	m.wg.Wait()
	var errs []error
	for _, f := range m.feeds {
		errs = append(errs, f.closeErr)
	}
	return errors.Join(errs...)
}

func (a *feed) before(b *feed) bool {
	return a.t < b.t || a.t == b.t && a.index < b.index
}

func (m *Merger) up(k int) {
	h := m.heap
	for k > 0 {
		p := (k - 1) / 2
		if !h[k].before(h[p]) {
			return
		}
		h[k], h[p] = h[p], h[k]
		k = p
	}
}

func (m *Merger) down(k int) {
	h := m.heap
	n := len(h)
	for {
		l := 2*k + 1
		if l >= n {
			return
		}
		c := l
		if r := l + 1; r < n && h[r].before(h[l]) {
			c = r
		}
		if !h[c].before(h[k]) {
			return
		}
		h[k], h[c] = h[c], h[k]
		k = c
	}
}

func (m *Merger) pop() {
	n := len(m.heap) - 1
	m.heap[0] = m.heap[n]
	m.heap[n] = nil
	m.heap = m.heap[:n]
	if n > 0 {
		m.down(0)
	}
}

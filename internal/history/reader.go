package history

import (
	"bufio"
	"bytes"
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
	long []byte // a line longer than the buffer, gathered whole
	// misses counts lines in a row that were not canonical: after a few,
	// a file written otherwise is read line by line only.
	misses int
}

// maxCanonicalMisses is how many lines in a row may fail the in-place
// canonical decoding before a reader stops trying it.
const maxCanonicalMisses = 16

// readBufferSize is each file's read buffer: lines are a few hundred
// bytes; a longer line than this is gathered in a separate buffer.
const readBufferSize = 64 << 10

// OpenFile opens a history file.
func OpenFile(path string) (*FileReader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	return &FileReader{path: path, f: f, r: bufio.NewReaderSize(f, readBufferSize), dec: newDecoder()}, nil
}

// Path returns the file's path.
func (r *FileReader) Path() string { return r.path }

// Next returns the next event, valid until the following call; io.EOF at
// the end; a *LineError for a line that could not be read (call Next again
// to go on). Empty lines are ignored.
func (r *FileReader) Next() (*Event, error) {
	if err := r.read(&r.ev); err != nil {
		return nil, err
	}
	return &r.ev, nil
}

// read decodes the next event into e: Next without the copy, for the
// Merger's decoding goroutines.
func (r *FileReader) read(e *Event) error {
	for {
		if r.done {
			return io.EOF
		}
		// The usual line, canonical and whole in the buffer, is decoded
		// where it lies; any other is read, trimmed and decoded by itself.
		if n := r.r.Buffered(); n > 0 && r.misses < maxCanonicalMisses {
			buf, _ := r.r.Peek(n)
			e.Reset()
			if end, ok := r.dec.decodeCanonicalLine(buf, e); ok {
				r.r.Discard(end)
				r.line++
				r.misses = 0
				return nil
			}
			r.misses++
		}
		line, err := r.r.ReadSlice('\n')
		tooLong := 0
		if errors.Is(err, bufio.ErrBufferFull) {
			// Gathered up to MaxLineBytes; a longer line is read past
			// (counted, not kept) and reported.
			r.long = append(r.long[:0], line...)
			n := len(line)
			for errors.Is(err, bufio.ErrBufferFull) {
				line, err = r.r.ReadSlice('\n')
				n += len(line)
				if len(r.long) <= MaxLineBytes {
					r.long = append(r.long, line...)
				}
			}
			line = r.long
			if n > MaxLineBytes+1 {
				tooLong = n
			}
		}
		truncated := false
		if err == io.EOF {
			r.done = true
			if len(line) == 0 {
				return io.EOF
			}
			truncated = true
		} else if err != nil {
			r.done = true
			return &LineError{Path: r.path, Line: r.line + 1, Err: err}
		}
		r.line++
		if tooLong > 0 {
			return &LineError{Path: r.path, Line: r.line, Truncated: truncated, Err: fmt.Errorf("%d bytes, longer than any event (at most %d)", tooLong, MaxLineBytes)}
		}
		n := len(line)
		for n > 0 && (line[n-1] == '\n' || line[n-1] == '\r') {
			n--
		}
		line = line[:n]
		if n == 0 || line[0] != '{' && len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		e.Reset()
		if err := r.dec.decode(line, e); err != nil {
			return &LineError{Path: r.path, Line: r.line, Truncated: truncated, Err: err}
		}
		return nil
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
// An entry that is not a readable file (a folder, a dangling link, a
// FIFO, a socket, a history file it cannot open) is an error naming it:
// skipped, it would leave the analysis judging the cell on the rest of
// its history, where a lost member's events become loss. A readable file
// of another name (notes.txt) is no history file, and not read.
func Files(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var paths []string
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		// Stat follows a link to what it names; a FIFO is refused here,
		// before an open that would wait for a writer.
		st, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		if !st.Mode().IsRegular() {
			return nil, fmt.Errorf("%s: %s, not a file: a history folder holds history files (<proc>.<inc>.jsonl)", p, describeMode(st.Mode()))
		}
		if !strings.HasSuffix(e.Name(), ".jsonl") {
			continue // a file of another name is no history file
		}
		f, err := os.Open(p)
		if err != nil {
			return nil, err
		}
		f.Close()
		paths = append(paths, p)
	}
	sort.Strings(paths)
	return paths, nil
}

func describeMode(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "a folder"
	case m&os.ModeNamedPipe != 0:
		return "a named pipe"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeDevice != 0:
		return "a device"
	}
	return m.Type().String()
}

package history

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
)

// A history topic (internal/historytopic) holds the lines of many process
// incarnations, interleaved, each under its incarnation's key. The
// Splitter writes them back into one file per incarnation, as the file
// store would have written them: the same names, the same bytes, each
// file's lines in the order they came.

// MaxSplitFiles bounds the incarnations one split writes: a cell has a
// producer and its members' incarnations, a few hundred at most.
const MaxSplitFiles = 100_000

// keyRE is a history key: <proc>.<inc>, the proc as a member's name is.
var keyRE = regexp.MustCompile(`^([A-Za-z0-9][A-Za-z0-9_-]*)\.(0|[1-9][0-9]{0,6})$`)

// Key is the key of an incarnation's lines in a history topic:
// "<proc>.<inc>", its file's name without ".jsonl".
func Key(proc string, inc int) string { return proc + "." + strconv.Itoa(inc) }

// ParseKey reads a history key back into its process and incarnation;
// anything else (a path, a name a file could not have, an incarnation
// beyond MaxIncarnation) is an error.
func ParseKey(key string) (proc string, inc int, err error) {
	m := keyRE.FindStringSubmatch(key)
	if m == nil {
		return "", 0, fmt.Errorf("history key %s: expected <proc>.<inc> (letters, digits, '-' or '_', then a dot and a number)", quote(key))
	}
	inc, _ = strconv.Atoi(m[2])
	if inc >= MaxIncarnation {
		return "", 0, fmt.Errorf("history key %s: incarnation %d, expected below %d", quote(key), inc, MaxIncarnation)
	}
	return m[1], inc, nil
}

// quote is s quoted, cut to 80 bytes: what a message quotes of its input.
func quote(s string) string {
	if len(s) > 80 {
		return strconv.Quote(s[:80]) + "..."
	}
	return strconv.Quote(s)
}

// Splitter writes lines of many incarnations into their files in a
// folder: <key>.jsonl, each line followed by '\n', in the order Add gets
// them. It never overwrites: a file that exists already (a split begun
// before and interrupted, or done before) is read along with the lines
// given, which must repeat it byte for byte; once they go past its end,
// the rest is appended. A split run again over the same lines therefore
// changes nothing, and one interrupted goes on where it stopped. A line
// that differs from what the file holds is an error, and the file is
// left as it was.
//
// Lines reach the files at Flush (and Close), which readers of the folder
// (the driver, following a live run) see whole or not at all but for
// the last line of a file, which they read as one being written.
type Splitter struct {
	dir   string
	files map[string]*splitFile
	order []string
}

type splitFile struct {
	key  string
	path string
	f    *os.File
	w    *bufio.Writer
	// old reads what the file held before this split: lines given are
	// compared with it until it runs out, then appended.
	old     *bufio.Reader
	oldFile *os.File
	marker  []byte // "proc":"<proc>","inc":<inc>, which every line holds
	lines   int64
	bytes   int64
	// kept counts the lines that were already in the file.
	kept int64
	err  error
}

// NewSplitter returns a Splitter into dir, which must exist.
func NewSplitter(dir string) *Splitter {
	return &Splitter{dir: dir, files: map[string]*splitFile{}}
}

// Add appends line (without its '\n') to key's file. The line must be one
// history line of that incarnation: not empty, no newline, at most
// MaxLineBytes, its "proc" and "inc" the key's.
func (s *Splitter) Add(key string, line []byte) error {
	f := s.files[key]
	if f == nil {
		var err error
		if f, err = s.open(key); err != nil {
			return err
		}
	}
	if f.err != nil {
		return f.err
	}
	switch {
	case len(line) == 0:
		return f.fail(fmt.Errorf("line %d: empty (a history line is one JSON event)", f.lines+1))
	case len(line) > MaxLineBytes:
		return f.fail(fmt.Errorf("line %d: %d bytes, expected at most %d", f.lines+1, len(line), MaxLineBytes))
	case bytes.IndexByte(line, '\n') >= 0:
		return f.fail(fmt.Errorf("line %d: holds a newline: a record of a history topic is one line", f.lines+1))
	case !holdsMarker(line, f.marker):
		return f.fail(fmt.Errorf("line %d: %s is not a line of %s (expected %s in it)", f.lines+1, quote(string(line)), key, f.marker))
	}
	f.lines++
	f.bytes += int64(len(line)) + 1
	if f.old != nil {
		rest, err := f.compare(line)
		if err != nil {
			return f.fail(err)
		}
		if rest == nil {
			f.kept++
			return nil
		}
		line = rest // the file ended inside this line: the rest is new
	}
	if _, err := f.w.Write(line); err != nil {
		return f.fail(err)
	}
	if err := f.w.WriteByte('\n'); err != nil {
		return f.fail(err)
	}
	return nil
}

// compare reads line and its '\n' from what the file held. It returns nil
// when the file holds all of it, the part it does not hold when the file
// ends inside it (old is then done with), and an error when they differ.
func (f *splitFile) compare(line []byte) ([]byte, error) {
	want := append(slices.Clip(line), '\n')
	for i := range want {
		b, err := f.old.ReadByte()
		if err == io.EOF {
			f.old = nil
			return want[i : len(want)-1 : len(want)-1], nil
		}
		if err != nil {
			return nil, err
		}
		if b != want[i] {
			return nil, fmt.Errorf("line %d differs from what the file already holds (at byte %d of the line): the file is left as it was", f.lines, i+1)
		}
	}
	return nil, nil
}

// holdsMarker reports whether line holds marker ("proc":"m1","inc":1)
// followed by the end of the number: a ',' or the line's '}' (so that a
// line of m1.10 is not taken for one of m1.1).
func holdsMarker(line, marker []byte) bool {
	for i := 0; ; {
		j := bytes.Index(line[i:], marker)
		if j < 0 {
			return false
		}
		end := i + j + len(marker)
		if end < len(line) && (line[end] == ',' || line[end] == '}') {
			return true
		}
		i += j + 1
	}
}

func (f *splitFile) fail(err error) error {
	if f.err == nil {
		f.err = fmt.Errorf("%s: %w", f.path, err)
	}
	return f.err
}

func (s *Splitter) open(key string) (*splitFile, error) {
	proc, inc, err := ParseKey(key)
	if err != nil {
		return nil, err
	}
	if len(s.files) >= MaxSplitFiles {
		return nil, fmt.Errorf("history split: more than %d incarnations", MaxSplitFiles)
	}
	path := filepath.Join(s.dir, FileName(proc, inc))
	f := &splitFile{key: key, path: path, marker: fmt.Appendf(nil, `"proc":%q,"inc":%d`, proc, inc)}
	fd, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o644)
	if errors.Is(err, os.ErrExist) {
		// Begun before: compare, then append.
		old, rerr := os.Open(path)
		if rerr != nil {
			return nil, rerr
		}
		st, serr := old.Stat()
		if serr != nil || !st.Mode().IsRegular() {
			old.Close()
			return nil, fmt.Errorf("%s: exists and is not a regular file", path)
		}
		fd, err = os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			old.Close()
			return nil, err
		}
		f.old, f.oldFile = bufio.NewReaderSize(old, 64<<10), old
	} else if err != nil {
		return nil, err
	}
	f.f, f.w = fd, bufio.NewWriterSize(fd, 64<<10)
	s.files[key] = f
	s.order = append(s.order, key)
	return f, nil
}

// Flush writes what Add buffered to the files.
func (s *Splitter) Flush() error {
	var errs []error
	for _, k := range s.order {
		f := s.files[k]
		if err := f.w.Flush(); err != nil {
			errs = append(errs, f.fail(err))
		}
	}
	return errors.Join(errs...)
}

// SplitFile is what a split wrote of one incarnation.
type SplitFile struct {
	Key   string `json:"key"`
	File  string `json:"file"`
	Lines int64  `json:"lines"`
	Bytes int64  `json:"bytes"`
	// Kept is how many of the lines the file held already (a split begun
	// before, or done before: then all of them).
	Kept int64 `json:"kept,omitempty"`
}

// Files returns what the split wrote, file by file, in the order each
// incarnation's first line came.
func (s *Splitter) Files() []SplitFile {
	out := make([]SplitFile, 0, len(s.order))
	for _, k := range s.order {
		f := s.files[k]
		out = append(out, SplitFile{Key: k, File: filepath.Base(f.path), Lines: f.lines, Bytes: f.bytes, Kept: f.kept})
	}
	return out
}

// Close flushes and closes every file. A file that holds more than the
// lines given (lines the topic no longer has, or never had) is an error:
// the split and the file disagree, and the file is left as it was.
func (s *Splitter) Close() error {
	errs := []error{s.Flush()}
	for _, k := range s.order {
		f := s.files[k]
		if f.old != nil && f.err == nil {
			if _, err := f.old.ReadByte(); err != io.EOF {
				errs = append(errs, f.fail(fmt.Errorf("holds more than the %d lines split into it: the file is left as it was", f.lines)))
			}
		}
		if f.oldFile != nil {
			f.oldFile.Close()
		}
		if err := f.f.Close(); err != nil {
			errs = append(errs, f.fail(err))
		}
	}
	return errors.Join(errs...)
}

package history

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// topicRecord is a record of a history topic, as a test keeps it in
// memory: the incarnation's key and one line.
type topicRecord struct {
	key  string
	line []byte
}

// memTopic is a Store that stands for a history topic in memory: every
// process's lines, interleaved in the order they were flushed, one record
// a line under its incarnation's key.
type memTopic struct {
	mu      *sync.Mutex
	records *[]topicRecord
	key     string
}

func (m memTopic) WriteLines(lines []byte) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, l := range bytes.SplitAfter(lines, []byte("\n")) {
		if len(l) == 0 {
			continue
		}
		if l[len(l)-1] != '\n' {
			panic("a line without its newline")
		}
		*m.records = append(*m.records, topicRecord{m.key, bytes.Clone(l[:len(l)-1])})
	}
	return nil
}

func (m memTopic) Close() error { return nil }

// teeHistories writes a few incarnations' histories, interleaved, each
// through a Tee of its file in dir and the in-memory topic, and returns
// the topic's records.
func teeHistories(t *testing.T, dir string) []topicRecord {
	t.Helper()
	var mu sync.Mutex
	var records []topicRecord
	procs := []struct {
		proc string
		inc  int
	}{{"producer-0", 0}, {"m1", 0}, {"m2", 0}, {"m1", 1}, {"m10", 0}}
	ws := make([]*Writer, len(procs))
	for i, p := range procs {
		f, err := CreateFileStore(dir, p.proc, p.inc)
		if err != nil {
			t.Fatal(err)
		}
		ws[i] = NewWriter(p.proc, p.inc, Tee{f, memTopic{&mu, &records, Key(p.proc, p.inc)}})
	}
	t0 := int64(1_700_000_000_000_000_000)
	for step := range 40 {
		for i, w := range ws {
			if (step+i)%3 == 0 {
				continue // not every process writes every step
			}
			e := &Event{T: t0 + int64(step)*1e6, Kind: Processed, Partition: int32(i), Offset: int64(step), Key: "k\"é\\" + strings.Repeat("x", step), Seq: int64(step)}
			if procs[i].proc == "producer-0" {
				e = &Event{T: t0 + int64(step)*1e6, Kind: Produced, Partition: int32(step % 3), Offset: int64(step), Key: "k1", Seq: int64(step), IntendedT: t0}
			}
			if err := w.Append(e); err != nil {
				t.Fatal(err)
			}
			if step%(i+2) == 0 { // flushes of one line and of several
				if err := w.Flush(); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	for _, w := range ws {
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return records
}

func split(t *testing.T, dir string, records []topicRecord) ([]SplitFile, error) {
	t.Helper()
	s := NewSplitter(dir)
	var first error
	for _, r := range records {
		if err := s.Add(r.key, r.line); err != nil && first == nil {
			first = err
		}
	}
	if err := s.Close(); err != nil && first == nil {
		first = err
	}
	return s.Files(), first
}

// sameFiles fails unless every file of want is in got with the same
// bytes, and got has no other file.
func sameFiles(t *testing.T, want, got string) {
	t.Helper()
	wf, _ := filepath.Glob(filepath.Join(want, "*.jsonl"))
	gf, _ := filepath.Glob(filepath.Join(got, "*.jsonl"))
	if len(wf) != len(gf) || len(wf) == 0 {
		t.Fatalf("files: want %v, got %v", wf, gf)
	}
	for _, w := range wf {
		a, _ := os.ReadFile(w)
		b, err := os.ReadFile(filepath.Join(got, filepath.Base(w)))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a, b) {
			t.Errorf("%s: the split differs from the file store's:\n%s\nagainst\n%s", filepath.Base(w), b, a)
		}
	}
}

// The lines of a topic, interleaved, split back into files equal the
// files the file store wrote beside them, byte for byte; a second split
// changes nothing, and one interrupted (a file cut inside a line) goes on
// where it stopped.
func TestSplitGivesTheFileStoresFiles(t *testing.T) {
	files := t.TempDir()
	records := teeHistories(t, files)

	out := t.TempDir()
	got, err := split(t, out, records)
	if err != nil {
		t.Fatal(err)
	}
	sameFiles(t, files, out)
	var lines int64
	for _, f := range got {
		lines += f.Lines
		if f.Kept != 0 {
			t.Errorf("%s: kept %d lines of a fresh split", f.File, f.Kept)
		}
	}
	if lines != int64(len(records)) || len(got) != 5 {
		t.Errorf("split %d lines into %d files, want %d into 5", lines, len(got), len(records))
	}

	// Again: every line found where it is, nothing written.
	again, err := split(t, out, records)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range again {
		if f.Kept != f.Lines {
			t.Errorf("%s: a second split kept %d of %d lines", f.File, f.Kept, f.Lines)
		}
	}
	sameFiles(t, files, out)

	// Interrupted: a third of the records split, one file cut inside
	// its last line; then the whole split.
	part := t.TempDir()
	if _, err := split(t, part, records[:len(records)/3]); err != nil {
		t.Fatal(err)
	}
	m1 := filepath.Join(part, "m1.0.jsonl")
	b, _ := os.ReadFile(m1)
	if err := os.WriteFile(m1, b[:len(b)-7], 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := split(t, part, records); err != nil {
		t.Fatal(err)
	}
	sameFiles(t, files, part)
}

// A split never changes what a file holds: a file that differs from the
// topic's lines, or holds more than them, is an error and is left as it
// was.
func TestSplitNeverOverwrites(t *testing.T) {
	records := teeHistories(t, t.TempDir())
	out := t.TempDir()
	differs := filepath.Join(out, "m2.0.jsonl")
	other := []byte(`{"kind":"member","t":1,"proc":"m2","inc":0,"state":"started"}` + "\n")
	if err := os.WriteFile(differs, other, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := split(t, out, records)
	if err == nil || !strings.Contains(err.Error(), "m2.0.jsonl") || !strings.Contains(err.Error(), "differs") {
		t.Fatalf("split over a file that differs: %v", err)
	}
	if b, _ := os.ReadFile(differs); !bytes.Equal(b, other) {
		t.Errorf("the file was changed:\n%s", b)
	}

	// More lines in the file than in the topic.
	out = t.TempDir()
	if _, err := split(t, out, records); err != nil {
		t.Fatal(err)
	}
	var fewer []topicRecord
	for _, r := range records {
		if r.key != "m1.1" || len(fewer)%2 == 0 {
			fewer = append(fewer, r)
		}
	}
	_, err = split(t, out, fewer)
	if err == nil || !strings.Contains(err.Error(), "m1.1.jsonl") {
		t.Fatalf("split of fewer lines than the file holds: %v", err)
	}
}

// Keys and lines that are not an incarnation's history lines are
// refused, naming what was expected.
func TestSplitRefusesBadKeysAndLines(t *testing.T) {
	line := []byte(`{"kind":"member","t":1,"proc":"m1","inc":0,"state":"started"}`)
	for _, c := range []struct {
		key  string
		line []byte
		want string
	}{
		{"../m1.0", line, "expected <proc>.<inc>"},
		{"m1", line, "expected <proc>.<inc>"},
		{"m1.01", line, "expected <proc>.<inc>"},
		{"m1.-1", line, "expected <proc>.<inc>"},
		{"m1.9999999", line, "incarnation"},
		{"m1.0", nil, "empty"},
		{"m1.0", append(bytes.Clone(line), '\n'), "newline"},
		{"m2.0", line, `not a line of m2.0`},
		{"m1.1", line, `not a line of m1.1`},
		{"m1.1", []byte(`{"kind":"member","t":1,"proc":"m1","inc":10,"state":"started"}`), `not a line of m1.1`},
		{"m1.0", bytes.Repeat([]byte("x"), MaxLineBytes+1), "bytes, expected at most"},
	} {
		dir := t.TempDir()
		s := NewSplitter(dir)
		err := s.Add(c.key, c.line)
		s.Close()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Add(%q, %.40q): %v, want an error with %q", c.key, c.line, err, c.want)
		}
	}
	if p, i, err := ParseKey("producer-0.12"); err != nil || p != "producer-0" || i != 12 {
		t.Errorf("ParseKey(producer-0.12) = %q %d %v", p, i, err)
	}
}

// blockingStore holds each write until released, recording the lines.
type blockingStore struct {
	started chan struct{}
	release chan struct{}
	got     [][]byte
}

func (b *blockingStore) WriteLines(lines []byte) error {
	b.started <- struct{}{}
	<-b.release
	b.got = append(b.got, bytes.Clone(lines))
	return nil
}

func (b *blockingStore) Close() error { return nil }

// A flush waiting on its store (a topic's round trip) holds up no
// append: the events appended meanwhile go to the next flush, and the
// store gets every line once, in order.
func TestFlushDoesNotHoldUpAppends(t *testing.T) {
	st := &blockingStore{started: make(chan struct{}), release: make(chan struct{})}
	w := NewWriter("m1", 0, st)
	ev := func(off int64) *Event {
		return &Event{T: 1_700_000_000_000_000_000 + off, Kind: Committed, Partition: 1, Offset: off}
	}
	if err := w.Append(ev(1)); err != nil {
		t.Fatal(err)
	}
	flushed := make(chan error)
	go func() { flushed <- w.Flush() }()
	<-st.started
	appended := make(chan error)
	go func() { appended <- w.Append(ev(2)) }()
	select {
	case err := <-appended:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Append waited for the store")
	}
	// A second flush waits for the first one's turn.
	second := make(chan error)
	go func() { second <- w.Flush() }()
	st.release <- struct{}{}
	if err := <-flushed; err != nil {
		t.Fatal(err)
	}
	<-st.started
	st.release <- struct{}{}
	if err := <-second; err != nil {
		t.Fatal(err)
	}
	if len(st.got) != 2 || !bytes.Contains(st.got[0], []byte(`"offset":1}`)) || !bytes.Contains(st.got[1], []byte(`"offset":2}`)) {
		t.Errorf("the store got %q", st.got)
	}
}

package history

import (
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
)

// A value beyond its bound makes the line bad, on both decoding paths:
// never a partition the analysis would allocate for, never the low 32
// bits of a wider number.
func TestValuesBeyondBoundsAreBadLines(t *testing.T) {
	head := `{"kind":"processed","t":1700000000000000000,"proc":"m1","inc":0,`
	for line, want := range map[string]string{
		head + `"partition":4294967297,"offset":1}`:                                "out of range",
		head + `"partition":2000000000,"offset":1}`:                                `"partition": 2000000000 out of range`,
		head + `"partition":-2,"offset":1}`:                                        `"partition": -2 out of range`,
		head + `"partition":1,"offset":1099511627776}`:                             `"offset": 1099511627776 out of range`,
		head + `"partition":1,"offset":-9000000000000000000}`:                      `"offset"`,
		head + `"partition":1,"offset":1,"seq":-5}`:                                `"seq"`,
		head + `"partition":1,"offset":1,"intended_t":-1}`:                         `"intended_t"`,
		`{"kind":"assigned","t":1,"proc":"m1","inc":2000000000,"partitions":[0]}`:  `"inc": 2000000000 out of range`,
		`{"kind":"assigned","t":1,"proc":"m1","inc":-1,"partitions":[0]}`:          `"inc"`,
		`{"kind":"assigned","t":1,"proc":"m1","inc":0,"partitions":[0,100000]}`:    `"partitions": 100000 out of range`,
		`{"kind":"assigned","t":1,"proc":"m1","inc":0,"gen":4294967296}`:           "out of range",
		`{"kind":"chaos","t":1,"proc":"chaos","inc":0,"target_inc":9000000000000}`: `"target_inc"`,
		`{"kind":"chaos","t":1,"proc":"chaos","inc":0,"step":9000000000000}`:       `"step"`,
		`{"kind":"phase","t":-5,"proc":"chaos","inc":0}`:                           `"t"`,
		`{"kind":"phase","t":9000000000000000000,"proc":"chaos","inc":0}`:          `"t": 9000000000000000000, expected a time from 1970 to 2116`,
		head + `"partition":1,"offset":1,"sent_t":4611686018427387904}`:            `"sent_t"`,
	} {
		for _, path := range []string{"canonical", "general"} {
			var e Event
			var err error
			if path == "canonical" {
				err = newDecoder().decode([]byte(line), &e)
			} else {
				err = newDecoder().decodeGeneral([]byte(line), &e)
			}
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%s path, %s: %v, want an error with %q", path, line, err, want)
			}
		}
	}
	// The bounds themselves are values.
	for _, line := range []string{
		`{"kind":"produced","t":1,"proc":"producer-0","inc":0,"partition":-1,"offset":-1,"seq":0}`,
		`{"kind":"processed","t":1,"proc":"m1","inc":1048575,"partition":99999,"offset":1099511627775,"seq":1099511627775}`,
		`{"kind":"assigned","t":1,"proc":"m1","inc":0,"partitions":[0,99999],"gen":-1}`,
		`{"kind":"phase","t":4611686018427387903,"proc":"chaos","inc":0}`,
	} {
		var e Event
		if err := newDecoder().decode([]byte(line), &e); err != nil {
			t.Errorf("%s: %v", line, err)
		}
	}
}

// A line longer than MaxLineBytes is read past, not gathered: reported,
// with the lines after it read as usual, at a cost in memory that does
// not grow with the line.
func TestLongLineReadPast(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "m1.0.jsonl")
	long := `{"kind":"processed","t":1,"proc":"m1","key":"` + strings.Repeat("k", 64<<20) + `"}`
	good := `{"kind":"phase","t":2,"proc":"chaos","inc":0,"phase":"done"}`
	if err := os.WriteFile(p, []byte(long+"\n"+good+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	r, err := OpenFile(p)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	_, err = r.Next()
	var le *LineError
	if !errors.As(err, &le) || le.Line != 1 || !strings.Contains(err.Error(), "longer than any event") {
		t.Fatalf("the long line: %v", err)
	}
	e, err := r.Next()
	if err != nil || e.Phase != "done" {
		t.Fatalf("the line after it: %v, %+v", err, e)
	}
	if _, err := r.Next(); err != io.EOF {
		t.Errorf("then %v, want EOF", err)
	}
	runtime.ReadMemStats(&after)
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 8*MaxLineBytes {
		t.Errorf("reading a 64 MiB line allocated %d bytes, want at most %d", grew, 8*MaxLineBytes)
	}
}

// An entry of a history folder that is not a readable file is an error
// naming it, never skipped; a readable file of another name is no
// history file.
func TestFilesRefusesWhatItCannotRead(t *testing.T) {
	for name, mk := range map[string]func(t *testing.T, p string){
		"a folder":        func(t *testing.T, p string) { os.Mkdir(p, 0o755) },
		"a dangling link": func(t *testing.T, p string) { os.Symlink(p+".nothing", p) },
		"a link to a folder": func(t *testing.T, p string) {
			os.Symlink(filepath.Dir(p), p)
		},
		"a named pipe": func(t *testing.T, p string) { syscall.Mkfifo(p, 0o644) },
		"a socket": func(t *testing.T, p string) {
			l, err := net.Listen("unix", p)
			if err != nil {
				t.Skip(err)
			}
			t.Cleanup(func() { l.Close() })
		},
		"an unreadable file": func(t *testing.T, p string) {
			if os.Geteuid() == 0 {
				t.Skip("root reads any file")
			}
			os.WriteFile(p, []byte("{}\n"), 0)
		},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "m1.0.jsonl"), []byte(`{"kind":"phase","t":1,"proc":"chaos"}`+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			bad := filepath.Join(dir, "m2.0.jsonl")
			mk(t, bad)
			if _, err := Files(dir); err == nil || !strings.Contains(err.Error(), bad) {
				t.Errorf("Files: %v, want an error naming %s", err, bad)
			}
		})
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "m1.0.jsonl"), []byte("{}\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("x"), 0o644)
	if got, err := Files(dir); err != nil || len(got) != 1 {
		t.Errorf("a folder with notes.txt: %v, %v", got, err)
	}
}

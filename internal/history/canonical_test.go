package history

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// The canonical path must read every line exactly as the general decoder
// does: the same event, or (after it gives up) the same error. These
// tests compare the two on writer output and on lines mutated away from
// it; FuzzDecode searches for a line where they differ.

// bothWays decodes line with decode (canonical path first) and with the
// general decoder alone, each with its own decoder, and reports any
// difference.
func bothWays(line []byte) (Event, error, string) {
	var fast, gen Event
	ferr := newDecoder().decode(line, &fast)
	gerr := newDecoder().decodeGeneral(line, &gen)
	switch {
	case (ferr == nil) != (gerr == nil):
		return fast, ferr, fmt.Sprintf("decode: %v, general decoder: %v", ferr, gerr)
	case ferr != nil && ferr.Error() != gerr.Error():
		return fast, ferr, fmt.Sprintf("decode: %q, general decoder: %q", ferr, gerr)
	case ferr == nil && !reflect.DeepEqual(normalize(fast), normalize(gen)):
		return fast, ferr, fmt.Sprintf("decode:\n  %+v\ngeneral decoder:\n  %+v", fast, gen)
	}
	return fast, ferr, ""
}

var allKinds = []Kind{Produced, Assigned, Revoked, Lost, Processed, Committed, Chaos, Member, Phase, Clock, "future_kind"}

// randomEvent draws an event of any kind with any field set, values
// across their ranges, strings that need escapes now and then.
func randomEvent(r *rand.Rand) Event {
	str := func() string {
		if r.IntN(3) == 0 {
			return ""
		}
		if r.IntN(8) == 0 { // bytes of any value: escapes, invalid UTF-8
			b := make([]byte, r.IntN(12))
			for i := range b {
				b[i] = byte(r.IntN(256))
			}
			return string(b)
		}
		words := []string{"m1", "producer-0", "k84576", "orders", "sticky", "é✓", "rdkafka-5f0c", "Broker: Unknown member", "SIGKILL", "x"}
		return words[r.IntN(len(words))]
	}
	num := func() int64 {
		switch r.IntN(8) {
		case 0:
			return 0
		case 1:
			return -1
		case 2:
			return math.MaxInt64
		case 3:
			return math.MinInt64
		case 4:
			return r.Int64N(100)
		case 5:
			return 1_800_000_000_000_000_000 + r.Int64N(1e15)
		default:
			return r.Int64() >> r.IntN(63)
		}
	}
	n32 := func() int32 {
		if r.IntN(4) == 0 {
			return int32(r.Uint32())
		}
		return int32(r.IntN(64))
	}
	e := Event{
		Kind: allKinds[r.IntN(len(allKinds))], T: num(), Proc: str(), Inc: int(num()),
		Topic: str(), Partition: n32(), Offset: num(), Key: str(), Seq: num(), Producer: str(),
		IntendedT: num(), SentT: num(), RecordT: num(), Gen: n32(), MemberID: str(), Err: str(),
		Ambiguous: r.IntN(2) == 0, Auto: r.IntN(2) == 0,
		Action: str(), Target: str(), TargetInc: int(num()), Step: int(num()),
		State: str(), Phase: str(), Strategy: str(), Client: str(), Policy: str(), Group: str(),
		Host: str(), PID: int(num()), ExitStatus: int(num()), Signal: str(), ClockOffset: num(),
		ClockError: num(),
	}
	if r.IntN(2) == 0 {
		e.Params = []string{`{"duration_ms":20000}`, `{"n":[1,2,{"a":"}"}],"s":"x\"y"}`, `[]`, `"s"`, `-1.5e3`, `null`}[r.IntN(6)]
	}
	for range r.IntN(10) {
		e.Partitions = append(e.Partitions, n32())
	}
	if r.IntN(4) == 0 { // most events leave most fields out
		e = Event{Kind: e.Kind, T: e.T, Proc: e.Proc, Inc: e.Inc, Partition: e.Partition, Offset: e.Offset, Key: e.Key, Seq: e.Seq}
	}
	return e
}

// inBounds folds an event's values into the format's bounds (bounds.go).
func inBounds(e *Event) {
	fold := func(v, lo, hi int64) int64 {
		if v >= lo && v <= hi {
			return v
		}
		return lo + (v%(hi-lo+1)+(hi-lo+1))%(hi-lo+1)
	}
	e.T = fold(e.T, 1, MaxTime-1)
	e.Inc = int(fold(int64(e.Inc), 0, MaxIncarnation-1))
	e.TargetInc = int(fold(int64(e.TargetInc), 0, MaxIncarnation-1))
	e.Partition = int32(fold(int64(e.Partition), -1, MaxPartitions-1))
	e.Offset = fold(e.Offset, -1, MaxOffset-1)
	e.Seq = fold(e.Seq, -1, MaxOffset-1)
	e.Gen = int32(fold(int64(e.Gen), -1, math.MaxInt32))
	e.Step = int(fold(int64(e.Step), 0, MaxStep-1))
	e.IntendedT = fold(e.IntendedT, 0, MaxTime-1)
	e.SentT = fold(e.SentT, 0, MaxTime-1)
	e.ClockOffset = fold(e.ClockOffset, -MaxClockOffset+1, MaxClockOffset-1)
	e.ClockError = fold(e.ClockError, 0, MaxClockOffset-1)
	for i, p := range e.Partitions {
		e.Partitions[i] = int32(fold(int64(p), 0, MaxPartitions-1))
	}
}

// plainText reports whether AppendJSON writes s without escapes.
func plainText(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

func canonicalExpected(e *Event) bool {
	if e.Kind == "" || e.T == 0 || e.Proc == "" {
		return false
	}
	for _, s := range []string{string(e.Kind), e.Proc, e.Topic, e.Key, e.Producer, e.MemberID, e.Err, e.Action, e.Target,
		e.State, e.Phase, e.Strategy, e.Client, e.Policy, e.Group, e.Host, e.Signal} {
		if !plainText(s) {
			return false
		}
	}
	return true
}

// TestCanonicalRoundTrip: writer output reads back as the event written,
// both ways; and the canonical path reads every such line that needs no
// escape by itself (it is the path actually taken).
func TestCanonicalRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	canonical := 0
	for i := 0; i < 20000; i++ {
		want := randomEvent(r)
		if i%2 == 0 {
			inBounds(&want) // half the events within the format's bounds, half across int64
		}
		line := AppendJSON(nil, &want)
		got, err, diff := bothWays(line)
		if diff != "" {
			t.Fatalf("%s\n%s", line, diff)
		}
		if err != nil {
			if want.Kind != "" && want.T != 0 && want.Proc != "" && checkBounds(&want) == nil {
				t.Fatalf("%s: %v", line, err)
			}
			continue
		}
		if err := checkBounds(&got); err != nil {
			t.Fatalf("%s read back with a value beyond its bound: %v", line, err)
		}
		// What AppendJSON leaves out or writes only for some kinds reads
		// back as zero.
		exp := want
		if !exp.Kind.hasPartition() {
			exp.Partition, exp.Offset = 0, 0
		}
		if exp.Kind != Produced && exp.Kind != Processed {
			exp.Seq = 0
		}
		if exp.Kind != Assigned && exp.Kind != Revoked && exp.Kind != Lost {
			exp.Partitions = nil
		}
		if canonicalExpected(&want) {
			if !reflect.DeepEqual(normalize(got), normalize(exp)) {
				t.Fatalf("round trip of %s:\n got %+v\nwant %+v", line, got, exp)
			}
			var e Event
			if !newDecoder().decodeCanonical(line, &e) {
				t.Fatalf("the canonical path gave up on writer output: %s", line)
			}
			canonical++
		}
	}
	if canonical < 2500 {
		t.Errorf("only %d lines took the canonical path", canonical)
	}
}

// mutate changes a writer line the way hand-written or foreign histories
// differ from it (field order, whitespace, escapes, unknown and repeated
// fields, other number spellings) or the way damaged ones do (cut short,
// a byte changed).
func mutate(r *rand.Rand, line []byte) []byte {
	fields := splitFields(line)
	switch r.IntN(10) {
	case 0: // two fields swapped
		if len(fields) > 1 {
			i, j := r.IntN(len(fields)), r.IntN(len(fields))
			fields[i], fields[j] = fields[j], fields[i]
		}
	case 1: // whitespace where JSON allows it
		ws := []string{" ", "\t", "\r", "\n", "  "}[r.IntN(5)]
		return spaced(r, line, ws)
	case 2: // an unknown field
		extra := []string{`"future":{"a":[1,"}"]}`, `"x":null`, `"y":-1.5e3`, `"z":"q\"\\"`, `"w":true`}[r.IntN(5)]
		i := r.IntN(len(fields) + 1)
		fields = append(fields[:i], append([]string{extra}, fields[i:]...)...)
	case 3: // a field twice
		if len(fields) > 0 {
			f := fields[r.IntN(len(fields))]
			fields = append(fields, f)
		}
	case 4: // an escape in a string value
		if i := bytes.IndexByte(line, ':'); i >= 0 {
			for k := i; k < len(line); k++ {
				if line[k] >= 'a' && line[k] <= 'z' && k > 0 && line[k-1] != ':' {
					esc := []string{`\u00` + strconv.FormatInt(int64(line[k]), 16), `\/`, `\n`, `\"`}[r.IntN(4)]
					return append(append(append([]byte{}, line[:k]...), esc...), line[k+1:]...)
				}
			}
		}
	case 5: // cut short
		return append([]byte{}, line[:r.IntN(len(line)+1)]...)
	case 6: // one byte changed
		b := append([]byte{}, line...)
		const bytesToTry = "{}[],:\"\\-.e0123456789 tfnx\x00\xff"
		b[r.IntN(len(b))] = bytesToTry[r.IntN(len(bytesToTry))]
		return b
	case 7: // a number spelled otherwise
		b := append([]byte{}, line...)
		for k := 1; k < len(b); k++ {
			if b[k-1] == ':' && (b[k] == '-' || b[k] >= '0' && b[k] <= '9') {
				sp := []string{"0", "00", "1.0", "1e3", "-", "99999999999999999999", "-9223372036854775808", "9223372036854775808", "+1"}[r.IntN(9)]
				return append(append(append([]byte{}, b[:k]...), sp...), b[k:]...)
			}
		}
	case 8: // a field left out
		if len(fields) > 0 {
			i := r.IntN(len(fields))
			fields = append(fields[:i], fields[i+1:]...)
		}
	case 9: // text after the object
		return append(append([]byte{}, line...), []string{" ", "x", "}", "{}"}[r.IntN(4)]...)
	}
	return []byte("{" + strings.Join(fields, ",") + "}")
}

// splitFields splits a writer line (an object without whitespace) into
// its "key":value members.
func splitFields(line []byte) []string {
	var out []string
	depth, inStr, start := 0, false, 1
	for i := 1; i < len(line)-1; i++ {
		c := line[i]
		switch {
		case inStr:
			if c == '\\' {
				i++
			} else if c == '"' {
				inStr = false
			}
		case c == '"':
			inStr = true
		case c == '{' || c == '[':
			depth++
		case c == '}' || c == ']':
			depth--
		case c == ',' && depth == 0:
			out = append(out, string(line[start:i]))
			start = i + 1
		}
	}
	if start < len(line)-1 {
		out = append(out, string(line[start:len(line)-1]))
	}
	return out
}

// spaced inserts ws around some of the line's structural characters
// (outside strings).
func spaced(r *rand.Rand, line []byte, ws string) []byte {
	var b []byte
	inStr := false
	for i := 0; i < len(line); i++ {
		c := line[i]
		if inStr {
			b = append(b, c)
			if c == '\\' && i+1 < len(line) {
				i++
				b = append(b, line[i])
			} else if c == '"' {
				inStr = false
			}
			continue
		}
		if strings.IndexByte("{}[],:", c) >= 0 && r.IntN(3) == 0 {
			b = append(b, ws...)
		}
		b = append(b, c)
		if c == '"' {
			inStr = true
		}
	}
	return b
}

// TestCanonicalMutations: lines that are not the writer's own read the
// same both ways, events and errors alike.
func TestCanonicalMutations(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	for i := 0; i < 30000; i++ {
		e := randomEvent(r)
		line := AppendJSON(nil, &e)
		for range 1 + r.IntN(3) {
			if len(line) == 0 {
				break
			}
			line = mutate(r, line)
		}
		if _, _, diff := bothWays(line); diff != "" {
			t.Fatalf("%q\n%s", line, diff)
		}
	}
}

// TestCanonicalGivesUp: lines the general decoder rejects are rejected
// with its message, whichever path saw them first.
func TestCanonicalGivesUp(t *testing.T) {
	const ok = `{"kind":"processed","t":1800000000005220010,"proc":"m1","inc":0,"partition":8,"offset":0,"key":"k1","seq":0}`
	for _, line := range []string{
		ok[:len(ok)-1], // truncated
		ok + " x",      // text after
		strings.Replace(ok, `"t":1800000000005220010`, `"t":0`, 1),                                             // missing t
		strings.Replace(ok, `"t":1800000000005220010`, "\"t\":\x00\x00\x00\x00\x00\x00\x00\x0012345678901", 1), // zero bytes, then digits: no number
		strings.Replace(ok, `"offset":0`, `"offset":1.5`, 1),                                                   // fraction
		strings.Replace(ok, `"offset":0`, `"offset":99999999999999999999`, 1),                                  // out of range
		strings.Replace(ok, `"offset":0`, `"offset":9223372036854775808`, 1),                                   // out of range by one
		strings.Replace(ok, `"offset":0`, `"offset":-9223372036854775809`, 1),                                  // out of range by one
		strings.Replace(ok, `"key":"k1"`, `"key":"k1\q"`, 1),                                                   // bad escape
		strings.Replace(ok, `"key":"k1"`, "\"key\":\"k1\x01\"", 1),                                             // control character
		strings.Replace(ok, `"seq":0`, `"seq":"0"`, 1),                                                         // wrong type
		`{"kind":"assigned","t":1,"proc":"m","partitions":[1,2147483648]}`,                                     // partition out of range
		`{"kind":"assigned","t":1,"proc":"m","partitions":[1,]}`,                                               // trailing comma
		`{"kind":"assigned","t":1,"proc":"m","partitions":[1 2]}`,                                              // no comma
		`{"kind":"chaos","t":1,"proc":"chaos","params":{"a":1}x}`,                                              // after params
		`{"kind":"member","t":1,"proc":"m","state":"started","pid":12,"bogus":}`,                               // no value
	} {
		_, err, diff := bothWays([]byte(line))
		if diff != "" {
			t.Errorf("%s\n%s", line, diff)
		} else if err == nil {
			t.Errorf("%s: accepted", line)
		}
	}
}

// TestPlainInt compares the canonical path's integers with strconv.
func TestPlainInt(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	var cases []string
	for _, s := range []string{"0", "-0", "7", "12345678", "123456789", "1234567890123456", "12345678901234567",
		"9223372036854775807", "-9223372036854775808", "9223372036854775808", "18446744073709551615", "0000000000000000001",
		"00000000000000000001", "-", "", "1800000000005220010"} {
		cases = append(cases, s)
	}
	for range 20000 {
		n := r.IntN(21)
		b := make([]byte, n)
		for i := range b {
			b[i] = byte('0' + r.IntN(10))
		}
		if r.IntN(3) == 0 {
			b = append([]byte{'-'}, b...)
		}
		cases = append(cases, string(b))
	}
	for _, c := range cases {
		for _, end := range []string{",", "}", "]", "x", ".5", "e1", ""} {
			s := []byte(c + end + "                ")[:len(c)+len(end)] // room behind: the word loads see it
			got, i, ok := plainInt(s, 0)
			want, err := strconv.ParseInt(c, 10, 64)
			digits := strings.TrimPrefix(c, "-")
			wantOK := err == nil && len(digits) > 0 && len(digits) <= 19 && end != "" && strings.Contains(",}]", end[:1])
			if ok != wantOK || ok && (got != want || i != len(c)) {
				t.Fatalf("plainInt(%q) = %d, %d, %v; want %d, %d, %v", s, got, i, ok, want, len(c), wantOK)
			}
			// A timestamp reads the same, whether its first eight digits
			// are those of the one before it or not.
			for _, before := range []string{c, "1800000000000000000", "1" + c} {
				d := newDecoder()
				b := []byte(before + ",                ")
				d.timestamp(b, 0)
				tg, ti, tok := d.timestamp(s, 0)
				if tok != ok || tg != got || ti != i {
					t.Fatalf("timestamp(%q) after %q = %d, %d, %v; plainInt: %d, %d, %v", s, before, tg, ti, tok, got, i, ok)
				}
			}
		}
	}
}

// FuzzDecode: for any line, decode (the canonical path first) and the
// general decoder agree on the event or the error.
func FuzzDecode(f *testing.F) {
	r := rand.New(rand.NewPCG(9, 9))
	for _, e := range append(benchEvents(), sample()...) {
		f.Add(AppendJSON(nil, &e))
	}
	for range 50 {
		e := randomEvent(r)
		line := AppendJSON(nil, &e)
		f.Add(line)
		f.Add(mutate(r, line))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		if _, _, diff := bothWays(line); diff != "" {
			t.Fatalf("%q\n%s", line, diff)
		}
	})
}

// TestFileReaderMatchesLines: a file of mixed lines (the writer's, lines
// mutated away from it, blank ones, \r\n endings, a params value that
// spans two lines, lines longer than the read buffer, a cut-off end)
// reads as its lines do one by one through the general decoder: the same
// events, the same errors at the same line numbers.
func TestFileReaderMatchesLines(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 1))
	dir := t.TempDir()
	for round := range 30 {
		content := mixedLines(r, round%3 == 0)
		path := filepath.Join(dir, fmt.Sprintf("f%d.jsonl", round))
		if err := os.WriteFile(path, content, 0o644); err != nil {
			t.Fatal(err)
		}
		want := linesOneByOne(path, content)
		got := readEach(t, path)
		for i := range max(len(got), len(want)) {
			if i >= len(got) || i >= len(want) || got[i] != want[i] {
				g, w := "(none)", "(none)"
				if i < len(got) {
					g = got[i]
				}
				if i < len(want) {
					w = want[i]
				}
				t.Fatalf("round %d, item %d:\n got %.300s\nwant %.300s", round, i, g, w)
			}
		}
	}
}

// mixedLines returns the content of a file of mixed lines (see
// TestFileReaderMatchesLines), cut off mid-line if cut.
func mixedLines(r *rand.Rand, cut bool) []byte {
	var b bytes.Buffer
	for range 200 + r.IntN(800) {
		e := randomEvent(r)
		line := AppendJSON(nil, &e)
		switch x := r.IntN(40); {
		case x == 0:
			line = nil // blank
		case x == 1:
			line = []byte(" \t ")
		case x == 2:
			line = append(line, '\r')
		case x == 3:
			line = []byte(`{"kind":"chaos","t":5,"proc":"chaos","params":{"a":` + "\n" + `1}}`)
		case x == 4:
			e.Err = strings.Repeat("x", readBufferSize+r.IntN(readBufferSize))
			line = AppendJSON(nil, &e)
		case x < 10:
			line = mutate(r, line)
			line = bytes.ReplaceAll(line, []byte("\n"), []byte(" "))
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	content := b.Bytes()
	if cut {
		content = content[:len(content)-1-r.IntN(40)]
	}
	return content
}

// linesOneByOne returns what the file at path, holding content, reads
// as when each line is decoded by itself by the general decoder: an
// event or an error per line that is not blank.
func linesOneByOne(path string, content []byte) []string {
	var want []string
	pieces := bytes.Split(content, []byte("\n"))
	for i, raw := range pieces {
		last := i == len(pieces)-1
		if last && len(raw) == 0 {
			break
		}
		line := bytes.TrimRight(raw, "\r")
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var e Event
		if err := newDecoder().decodeGeneral(line, &e); err != nil {
			want = append(want, (&LineError{Path: path, Line: i + 1, Truncated: last, Err: err}).Error())
			continue
		}
		want = append(want, fmt.Sprintf("%d: %+v", i+1, normalize(e)))
	}
	return want
}

// readEach returns what a FileReader reads from path: an event or an
// error per item.
func readEach(t *testing.T, path string) []string {
	t.Helper()
	fr, err := OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fr.Close()
	var got []string
	for {
		e, err := fr.Next()
		if err == io.EOF {
			return got
		}
		if err != nil {
			got = append(got, err.Error())
			continue
		}
		got = append(got, fmt.Sprintf("%d: %+v", fr.Line(), normalize(*e)))
	}
}

package history

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// decoder parses history lines into Events without reflection. It interns
// the strings that repeat from line to line (process names, topics,
// states), so that they cost neither memory nor time per event. Record
// keys are not interned: a key is a new small string each time (the
// garbage collector's cheapest kind of allocation), since a table of
// every key, consulted for nearly every line, costs more than the
// allocation does once it outgrows the processor's caches; what a reader
// keeps of them is what it retains.
type decoder struct {
	intern map[string]string
	buf    []byte // scratch for strings with escapes
	// last holds, by field, the string the canonical path read last.
	last [numFields]string
	// sawRawJSON: the canonical path read a raw JSON value (params).
	sawRawJSON bool
	// tsWord holds the first eight digits of the last long timestamp
	// read, tsValue their value (decoder.timestamp).
	tsWord  uint64
	tsValue uint32
	// keys holds the record keys read last (keys.go).
	keys keyBlock
}

func newDecoder() *decoder { return &decoder{intern: map[string]string{}} }

// syntaxError is a malformed line; Col is 1-based.
type syntaxError struct {
	Col int
	Msg string
}

func (e *syntaxError) Error() string { return fmt.Sprintf("column %d: %s", e.Col, e.Msg) }

type lexer struct {
	s []byte
	i int
}

func (l *lexer) fail(format string, args ...any) error {
	return &syntaxError{Col: l.i + 1, Msg: fmt.Sprintf(format, args...)}
}

func (l *lexer) ws() {
	for l.i < len(l.s) {
		switch l.s[l.i] {
		case ' ', '\t', '\r', '\n':
			l.i++
		default:
			return
		}
	}
}

func (l *lexer) expect(c byte) error {
	l.ws()
	if l.i >= len(l.s) || l.s[l.i] != c {
		if l.i >= len(l.s) {
			return l.fail("expected %q, found end of line", c)
		}
		return l.fail("expected %q, found %q", c, l.s[l.i])
	}
	l.i++
	return nil
}

// decode parses one line into e (which the caller has reset). Lines as
// Writer writes them take the canonical path; anything else (another
// field order, whitespace, escapes, unknown fields, a malformed line) is
// parsed, and its errors reported, by the general decoder.
func (d *decoder) decode(line []byte, e *Event) error {
	if d.decodeCanonical(line, e) {
		return nil
	}
	e.Reset()
	return d.decodeGeneral(line, e)
}

// decodeGeneral parses one line of any field order and spacing into e
// (which the caller has reset).
func (d *decoder) decodeGeneral(line []byte, e *Event) error {
	l := &lexer{s: line}
	if err := l.expect('{'); err != nil {
		return err
	}
	l.ws()
	if l.i < len(l.s) && l.s[l.i] == '}' {
		l.i++
		return d.finish(l, e)
	}
	for {
		l.ws()
		if err := d.member(l, e); err != nil {
			return err
		}
		l.ws()
		if l.i >= len(l.s) {
			return l.fail("unterminated object")
		}
		if l.s[l.i] == ',' {
			l.i++
			continue
		}
		if l.s[l.i] == '}' {
			l.i++
			return d.finish(l, e)
		}
		return l.fail("expected ',' or '}', found %q", l.s[l.i])
	}
}

func (d *decoder) finish(l *lexer, e *Event) error {
	l.ws()
	if l.i != len(l.s) {
		return l.fail("text after the object")
	}
	if e.Kind == "" {
		return errors.New(`missing "kind"`)
	}
	if e.T == 0 {
		return errors.New(`missing "t"`)
	}
	if e.Proc == "" {
		return errors.New(`missing "proc"`)
	}
	return checkBounds(e)
}

// member parses one "key":value member of the object into e.
func (d *decoder) member(l *lexer, e *Event) error {
	f, known := writerKey(l.s, l.i)
	var key []byte
	if known {
		l.i += len(canonicalKeys[f])
	} else {
		var err error
		if key, err = d.rawString(l); err != nil {
			return err
		}
		if err := l.expect(':'); err != nil {
			return err
		}
		f, known = fieldByKey(key)
	}
	l.ws()
	if !known {
		// Unknown fields are allowed (a newer writer); their values are
		// still checked for well-formedness.
		if _, err := l.skipValue(); err != nil {
			return fieldError(string(key), err)
		}
		return nil
	}
	if err := d.generalValue(l, f, e); err != nil {
		return fieldError(fieldSpecs[f].key, err)
	}
	return nil
}

// writerKey finds the field whose key is at s[i:] as the writer writes
// it, `"key":`, without reading the key as a string: the first quote in
// the 16 bytes after the opening one gives the key's length, which with
// its first and last bytes leads to the one field it can be (keyTable),
// whose key is then compared as the canonical path compares keys. Any
// other key (escaped, spaced before its colon, unknown, too near the end
// of s) is left to the caller.
func writerKey(s []byte, i int) (field, bool) {
	if len(s)-i < 17 || s[i] != '"' {
		return 0, false
	}
	const quotes = 0x2222222222222222
	n := 0
	if m := hasZeroByte(binary.LittleEndian.Uint64(s[i+1:]) ^ quotes); m != 0 {
		n = bits.TrailingZeros64(m) / 8
	} else if m := hasZeroByte(binary.LittleEndian.Uint64(s[i+9:]) ^ quotes); m != 0 {
		n = 8 + bits.TrailingZeros64(m)/8
	}
	if n == 0 {
		return 0, false
	}
	w0 := binary.LittleEndian.Uint64(s[i:])
	w1 := binary.LittleEndian.Uint64(s[i+8:])
	for h := keyHash(n, s[i+1], s[i+n]); keyTable[h] != 0; h++ {
		f := keyTable[h] - 1
		if k := &keyWords[f]; w0&k[2] == k[0] && w1&k[3] == k[1] {
			return f, true
		}
	}
	return 0, false
}

// fieldByKey finds the field of a key.
func fieldByKey(key []byte) (field, bool) {
	if len(key) == 0 {
		return 0, false
	}
	for h := keyHash(len(key), key[0], key[len(key)-1]); keyTable[h] != 0; h++ {
		if f := keyTable[h] - 1; string(key) == fieldSpecs[f].key {
			return f, true
		}
	}
	return 0, false
}

// keyTable holds each field, plus one, at the keyHash of its key or in
// the first free slot after it (0 is a free slot).
var keyTable = func() (t [256]field) {
	for f, spec := range fieldSpecs {
		k := spec.key
		h := keyHash(len(k), k[0], k[len(k)-1])
		for t[h] != 0 {
			h++
		}
		t[h] = field(f) + 1
	}
	return t
}()

// keyHash hashes a key's length and its first and last bytes, which tell
// the keys of the format nearly all apart.
func keyHash(n int, first, last byte) uint8 {
	return uint8(n*7 + int(first)*3 + int(last))
}

// generalValue parses the value of field f into e.
func (d *decoder) generalValue(l *lexer, f field, e *Event) error {
	p := e.at(f)
	var err error
	switch fieldSpecs[f].typ {
	case tKind:
		var s []byte
		if s, err = d.rawString(l); err == nil {
			*(*Kind)(p) = kindOf(d, s)
		}
	case tTime, tInt64:
		*(*int64)(p), err = l.int()
	case tInt32:
		*(*int32)(p), err = l.int32()
	case tInt:
		*(*int)(p), err = l.intN()
	case tString:
		*(*string)(p), err = d.string(l)
	case tKey:
		var b []byte
		if b, err = d.rawString(l); err == nil {
			*(*string)(p) = d.keys.copy(b)
		}
	case tInterned:
		*(*string)(p), err = d.internString(l)
	case tBool:
		*(*bool)(p), err = l.bool()
	case tInt32s:
		v := (*[]int32)(p)
		*v, err = l.int32s((*v)[:0])
	case tRawJSON:
		var raw []byte
		if raw, err = l.skipValue(); err == nil {
			*(*string)(p) = string(raw)
		}
	}
	return err
}

// fieldError says which field err was found in.
func fieldError(key string, err error) error {
	var se *syntaxError
	if errors.As(err, &se) {
		return &syntaxError{Col: se.Col, Msg: fmt.Sprintf("field %q: %s", key, se.Msg)}
	}
	return fmt.Errorf("field %q: %w", key, err)
}

func kindOf(d *decoder, s []byte) Kind {
	switch string(s) {
	case "produced":
		return Produced
	case "assigned":
		return Assigned
	case "revoked":
		return Revoked
	case "lost":
		return Lost
	case "processed":
		return Processed
	case "committed":
		return Committed
	case "chaos":
		return Chaos
	case "member":
		return Member
	case "phase":
		return Phase
	case "probe":
		return Probe
	case "txn":
		return Txn
	case "output":
		return Output
	case "clock":
		return Clock
	}
	return Kind(d.internBytes(s))
}

func (d *decoder) internBytes(b []byte) string {
	if s, ok := d.intern[string(b)]; ok {
		return s
	}
	s := string(b)
	d.intern[s] = s
	return s
}

func (d *decoder) internString(l *lexer) (string, error) {
	b, err := d.rawString(l)
	if err != nil {
		return "", err
	}
	return d.internBytes(b), nil
}

func (d *decoder) string(l *lexer) (string, error) {
	b, err := d.rawString(l)
	return string(b), err
}

// rawString parses a JSON string and returns its unescaped bytes, valid
// until the next call.
func (d *decoder) rawString(l *lexer) ([]byte, error) {
	if l.i >= len(l.s) || l.s[l.i] != '"' {
		if l.i >= len(l.s) {
			return nil, l.fail("expected a string, found end of line")
		}
		return nil, l.fail("expected a string, found %q", l.s[l.i])
	}
	l.i++
	start := l.i
	for l.i < len(l.s) {
		c := l.s[l.i]
		if c == '"' {
			s := l.s[start:l.i]
			l.i++
			return s, nil
		}
		if c == '\\' {
			return d.escapedString(l, start)
		}
		if c < 0x20 {
			return nil, l.fail("control character in string")
		}
		l.i++
	}
	return nil, l.fail("unterminated string")
}

func (d *decoder) escapedString(l *lexer, start int) ([]byte, error) {
	d.buf = append(d.buf[:0], l.s[start:l.i]...)
	for l.i < len(l.s) {
		c := l.s[l.i]
		switch {
		case c == '"':
			l.i++
			return d.buf, nil
		case c < 0x20:
			return nil, l.fail("control character in string")
		case c != '\\':
			d.buf = append(d.buf, c)
			l.i++
			continue
		}
		l.i++
		if l.i >= len(l.s) {
			break
		}
		switch e := l.s[l.i]; e {
		case '"', '\\', '/':
			d.buf = append(d.buf, e)
		case 'b':
			d.buf = append(d.buf, '\b')
		case 'f':
			d.buf = append(d.buf, '\f')
		case 'n':
			d.buf = append(d.buf, '\n')
		case 'r':
			d.buf = append(d.buf, '\r')
		case 't':
			d.buf = append(d.buf, '\t')
		case 'u':
			r, ok := l.hex4(l.i + 1)
			if !ok {
				return nil, l.fail(`bad \u escape`)
			}
			l.i += 4
			if utf16.IsSurrogate(r) {
				if r2, ok := l.hex4(l.i + 3); ok && l.i+2 < len(l.s) && l.s[l.i+1] == '\\' && l.s[l.i+2] == 'u' {
					if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
						r = dec
						l.i += 6
					}
				}
			}
			d.buf = utf8.AppendRune(d.buf, r)
		default:
			return nil, l.fail("bad escape \\%c", e)
		}
		l.i++
	}
	return nil, l.fail("unterminated string")
}

func (l *lexer) hex4(at int) (rune, bool) {
	if at+4 > len(l.s) {
		return 0, false
	}
	var r rune
	for _, c := range l.s[at : at+4] {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			r |= rune(c - 'A' + 10)
		default:
			return 0, false
		}
	}
	return r, true
}

// int parses a JSON integer (no fraction or exponent: every number in a
// history is an integer).
func (l *lexer) int() (int64, error) {
	start := l.i
	neg := false
	if l.i < len(l.s) && l.s[l.i] == '-' {
		neg = true
		l.i++
	}
	var n uint64
	digits := 0
	for l.i < len(l.s) {
		c := l.s[l.i]
		if c < '0' || c > '9' {
			break
		}
		if n > (1<<63)/10 {
			l.i = start
			return 0, l.fail("integer out of range")
		}
		n = n*10 + uint64(c-'0')
		digits++
		l.i++
	}
	if digits == 0 {
		l.i = start
		return 0, l.fail("expected an integer")
	}
	if l.i < len(l.s) && (l.s[l.i] == '.' || l.s[l.i] == 'e' || l.s[l.i] == 'E') {
		return 0, l.fail("expected an integer, found a fraction or exponent")
	}
	if neg {
		if n > 1<<63 {
			return 0, l.fail("integer out of range")
		}
		return -int64(n), nil
	}
	if n > 1<<63-1 {
		return 0, l.fail("integer out of range")
	}
	return int64(n), nil
}

func (l *lexer) intN() (int, error) {
	n, err := l.int()
	return int(n), err
}

func (l *lexer) bool() (bool, error) {
	if l.i+4 <= len(l.s) && string(l.s[l.i:l.i+4]) == "true" {
		l.i += 4
		return true, nil
	}
	if l.i+5 <= len(l.s) && string(l.s[l.i:l.i+5]) == "false" {
		l.i += 5
		return false, nil
	}
	return false, l.fail("expected true or false")
}

// int32 reads an integer that must fit an int32: a wider one is out of
// range, never its low 32 bits (partition 2^32+1 is not partition 1).
func (l *lexer) int32() (int32, error) {
	start := l.i
	n, err := l.int()
	if err == nil && n != int64(int32(n)) {
		l.i = start
		return 0, l.fail("integer out of range")
	}
	return int32(n), err
}

func (l *lexer) int32s(dst []int32) ([]int32, error) {
	if err := l.expect('['); err != nil {
		return nil, err
	}
	l.ws()
	if l.i < len(l.s) && l.s[l.i] == ']' {
		l.i++
		return dst, nil
	}
	for {
		l.ws()
		n, err := l.int()
		if err != nil {
			return nil, err
		}
		if n < -1<<31 || n > 1<<31-1 {
			return nil, l.fail("partition out of range")
		}
		dst = append(dst, int32(n))
		l.ws()
		if l.i >= len(l.s) {
			return nil, l.fail("unterminated array")
		}
		if l.s[l.i] == ',' {
			l.i++
			continue
		}
		if l.s[l.i] == ']' {
			l.i++
			return dst, nil
		}
		return nil, l.fail("expected ',' or ']'")
	}
}

// skipValue skips any JSON value and returns its bytes.
func (l *lexer) skipValue() ([]byte, error) {
	l.ws()
	start := l.i
	if l.i >= len(l.s) {
		return nil, l.fail("expected a value, found end of line")
	}
	switch c := l.s[l.i]; {
	case c == '"':
		var d decoder
		if _, err := d.rawString(l); err != nil {
			return nil, err
		}
	case c == '{' || c == '[':
		depth := 0
		for l.i < len(l.s) {
			switch l.s[l.i] {
			case '"':
				var d decoder
				if _, err := d.rawString(l); err != nil {
					return nil, err
				}
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
			}
			l.i++
			if depth == 0 {
				return l.s[start:l.i], nil
			}
		}
		return nil, l.fail("unterminated %c", c)
	case c == 't' || c == 'f':
		if _, err := l.bool(); err != nil {
			return nil, err
		}
	case c == 'n':
		if l.i+4 > len(l.s) || string(l.s[l.i:l.i+4]) != "null" {
			return nil, l.fail("expected null")
		}
		l.i += 4
	case c == '-' || c >= '0' && c <= '9':
		l.i++
		for l.i < len(l.s) && (l.s[l.i] >= '0' && l.s[l.i] <= '9' || l.s[l.i] == '.' || l.s[l.i] == 'e' || l.s[l.i] == 'E' || l.s[l.i] == '+' || l.s[l.i] == '-') {
			l.i++
		}
		if _, err := strconv.ParseFloat(string(l.s[start:l.i]), 64); err != nil {
			return nil, l.fail("bad number")
		}
	default:
		return nil, l.fail("unexpected %q", c)
	}
	return l.s[start:l.i], nil
}

package history

import (
	"errors"
	"fmt"
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
	// sawParams: the canonical path read a params value.
	sawParams bool
	// tsWord holds the first eight digits of the last long timestamp
	// read, tsValue their value (decoder.timestamp).
	tsWord  uint64
	tsValue uint32
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
		key, err := d.rawString(l)
		if err != nil {
			return err
		}
		if err := l.expect(':'); err != nil {
			return err
		}
		l.ws()
		if err := d.field(l, key, e); err != nil {
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

func (d *decoder) field(l *lexer, key []byte, e *Event) error {
	var err error
	switch string(key) {
	case "kind":
		var s []byte
		if s, err = d.rawString(l); err == nil {
			e.Kind = kindOf(d, s)
		}
	case "t":
		e.T, err = l.int()
	case "proc":
		e.Proc, err = d.internString(l)
	case "inc":
		e.Inc, err = l.intN()
	case "topic":
		e.Topic, err = d.internString(l)
	case "partition":
		e.Partition, err = l.int32()
	case "offset":
		e.Offset, err = l.int()
	case "key":
		e.Key, err = d.string(l)
	case "seq":
		e.Seq, err = l.int()
	case "producer":
		e.Producer, err = d.internString(l)
	case "intended_t":
		e.IntendedT, err = l.int()
	case "sent_t":
		e.SentT, err = l.int()
	case "record_t":
		e.RecordT, err = l.int()
	case "partitions":
		e.Partitions, err = l.int32s(e.Partitions[:0])
	case "gen":
		e.Gen, err = l.int32()
	case "member_id":
		e.MemberID, err = d.internString(l)
	case "err":
		e.Err, err = d.string(l)
	case "ambiguous":
		e.Ambiguous, err = l.bool()
	case "auto":
		e.Auto, err = l.bool()
	case "action":
		e.Action, err = d.internString(l)
	case "target":
		e.Target, err = d.internString(l)
	case "target_inc":
		e.TargetInc, err = l.intN()
	case "step":
		e.Step, err = l.intN()
	case "params":
		var raw []byte
		if raw, err = l.skipValue(); err == nil {
			e.Params = string(raw)
		}
	case "state":
		e.State, err = d.internString(l)
	case "phase":
		e.Phase, err = d.internString(l)
	case "strategy":
		e.Strategy, err = d.internString(l)
	case "client":
		e.Client, err = d.internString(l)
	case "policy":
		e.Policy, err = d.internString(l)
	case "group":
		e.Group, err = d.internString(l)
	case "host":
		e.Host, err = d.internString(l)
	case "pid":
		e.PID, err = l.intN()
	case "exit_status":
		e.ExitStatus, err = l.intN()
	case "signal":
		e.Signal, err = d.internString(l)
	case "clock_offset":
		e.ClockOffset, err = l.int()
	default:
		// Unknown fields are allowed (a newer writer); their values are
		// still checked for well-formedness.
		_, err = l.skipValue()
	}
	if err != nil {
		var se *syntaxError
		if errors.As(err, &se) {
			return &syntaxError{Col: se.Col, Msg: fmt.Sprintf("field %q: %s", key, se.Msg)}
		}
		return fmt.Errorf("field %q: %w", key, err)
	}
	return nil
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

package history

import (
	"bytes"
	"encoding/binary"
	"math/bits"
)

// The canonical path: almost every line a history holds was written by
// AppendJSON, so its fields come in one known order, without whitespace,
// and its strings rarely need escapes. decodeCanonical reads such a line
// by matching each key's literal bytes against the fields still possible
// at that point of the order, and parses the values in place. Anything
// it does not expect (another order, an unknown or repeated field,
// whitespace, an escape, a number it does not parse at once) makes it
// give up: decode then starts over with the general decoder, which gives
// every other line the meaning, and every malformed line the error, it
// always had. The canonical path never reports an error of its own.

// canonicalKeys are the keys as a canonical line holds them, each with
// its quotes and colon: `"key":`.
var canonicalKeys = func() (k [numFields]string) {
	for f, spec := range fieldSpecs {
		k[f] = `"` + spec.key + `":`
	}
	return k
}()

// decodeCanonical parses a line in the canonical form into e (which the
// caller has reset) and reports whether it could. When it reports false,
// e holds a partial event: the caller resets it.
func (d *decoder) decodeCanonical(s []byte, e *Event) bool {
	end, ok := d.canonicalObject(s, e)
	return ok && end == len(s)
}

// decodeCanonicalLine parses a canonical line at the start of s, which
// holds more (a read buffer), into e (which the caller has reset). It
// reports where the line ends, its newline included, and whether it
// could parse one: a line that is not canonical, or not whole in s, is
// left to the line-by-line path.
func (d *decoder) decodeCanonicalLine(s []byte, e *Event) (int, bool) {
	d.sawRawJSON = false
	end, ok := d.canonicalObject(s, e)
	if !ok || end >= len(s) || s[end] != '\n' {
		return 0, false
	}
	// Only a raw JSON value (params) may hold whitespace, a newline too:
	// such an object would span lines, which read one at a time are
	// malformed.
	if d.sawRawJSON && bytes.IndexByte(s[:end], '\n') >= 0 {
		return 0, false
	}
	return end + 1, true
}

// canonicalObject parses the canonical object at the start of s into e
// and returns where it ends.
func (d *decoder) canonicalObject(s []byte, e *Event) (int, bool) {
	if len(s) < 2 || s[0] != '{' {
		return 0, false
	}
	i := 1
	if s[i] == '}' {
		i++
	} else {
		next := field(0) // the first field that may still come
		for {
			f, ok := matchKey(s, i, next)
			if !ok {
				return 0, false
			}
			i += len(canonicalKeys[f])
			if i, ok = d.value(s, i, f, e); !ok {
				return 0, false
			}
			next = f + 1
			if i >= len(s) {
				return 0, false
			}
			if s[i] == ',' {
				i++
				continue
			}
			if s[i] == '}' {
				i++
				break
			}
			return 0, false
		}
	}
	// What the general decoder's finish checks (the bounds too): it
	// reports these.
	return i, e.Kind != "" && e.T != 0 && e.Proc != "" && checkBounds(e) == nil
}

// keyWords holds each canonical key as two little-endian words and their
// masks (no key is longer than 16 bytes), so that matching a key is two
// loads and two compares.
var keyWords = func() (w [numFields][4]uint64) {
	for f, k := range canonicalKeys {
		if len(k) > 16 {
			panic("history: key " + k + " is longer than the 16 bytes the canonical path matches")
		}
		var b [16]byte
		copy(b[:], k)
		w[f][0] = binary.LittleEndian.Uint64(b[:8])
		w[f][1] = binary.LittleEndian.Uint64(b[8:])
		for j := range len(k) {
			w[f][2+j/8] |= 0xff << (8 * (j % 8))
		}
	}
	return w
}()

// matchKey finds which field, from next on in the canonical order, has
// its key at s[i:].
func matchKey(s []byte, i int, next field) (field, bool) {
	if len(s)-i >= 16 {
		w0 := binary.LittleEndian.Uint64(s[i:])
		w1 := binary.LittleEndian.Uint64(s[i+8:])
		for f := next; f < numFields; f++ {
			k := &keyWords[f]
			if w0&k[2] == k[0] && w1&k[3] == k[1] {
				return f, true
			}
		}
		return 0, false
	}
	rest := s[i:]
	for f := next; f < numFields; f++ {
		k := canonicalKeys[f]
		if len(rest) > len(k) && string(rest[:len(k)]) == k {
			return f, true
		}
	}
	return 0, false
}

// value parses the value of field f at s[i:] into e; it returns where the
// value ends.
func (d *decoder) value(s []byte, i int, f field, e *Event) (int, bool) {
	p := e.at(f)
	var ok bool
	switch fieldSpecs[f].typ {
	case tKind, tInterned:
		*(*string)(p), i, ok = d.cachedString(s, i, f)
	case tTime:
		*(*int64)(p), i, ok = d.timestamp(s, i)
	case tInt64:
		*(*int64)(p), i, ok = plainInt(s, i)
	case tInt32:
		var n int64
		n, i, ok = plainInt(s, i)
		*(*int32)(p), ok = int32(n), ok && n == int64(int32(n)) // beyond int32: the general decoder reports it
	case tInt:
		var n int64
		n, i, ok = plainInt(s, i)
		*(*int)(p) = int(n)
	case tString:
		var b []byte
		if b, i, ok = plainString(s, i); ok {
			*(*string)(p) = string(b)
		}
	case tKey:
		var b []byte
		if b, i, ok = plainString(s, i); ok {
			*(*string)(p) = d.keys.copy(b)
		}
	case tBool:
		*(*bool)(p), i, ok = plainBool(s, i)
	case tInt32s:
		v := (*[]int32)(p)
		*v, i, ok = plainInt32s(s, i, (*v)[:0])
	case tRawJSON:
		// Any JSON value, verbatim: the general lexer's skip, which
		// checks its well-formedness.
		l := lexer{s: s, i: i}
		raw, err := l.skipValue()
		if err != nil {
			return i, false
		}
		*(*string)(p), i, ok = string(raw), l.i, true
		d.sawRawJSON = true
	}
	return i, ok
}

// cachedString parses a string that repeats from line to line (the
// process, the topic, the producer): the previous value of the same
// field is compared first, the interning table consulted only when it
// differs.
func (d *decoder) cachedString(s []byte, i int, f field) (string, int, bool) {
	last := d.last[f]
	// last was read by plainString: bytes equal to it need no escapes.
	if end := i + 1 + len(last); end < len(s) && s[i] == '"' && s[end] == '"' && string(s[i+1:end]) == last {
		return last, end + 1, true
	}
	b, i, ok := plainString(s, i)
	if !ok {
		return "", i, false
	}
	var v string
	if fieldSpecs[f].typ == tKind {
		v = string(kindOf(d, b))
	} else {
		v = d.internBytes(b)
	}
	d.last[f] = v
	return v, i, true
}

// plainString parses a string without escapes at s[i:] and returns its
// bytes (a slice of s).
func plainString(s []byte, i int) ([]byte, int, bool) {
	if i >= len(s) || s[i] != '"' {
		return nil, i, false
	}
	i++
	start := i
	// Eight bytes at a time: the first that is a quote, a backslash or a
	// control character ends the run.
	for len(s)-i >= 8 {
		w := binary.LittleEndian.Uint64(s[i:])
		m := hasZeroByte(w^0x2222222222222222) | hasZeroByte(w^0x5c5c5c5c5c5c5c5c) | hasByteBelow(w, 0x20)
		if m == 0 {
			i += 8
			continue
		}
		i += bits.TrailingZeros64(m) / 8
		if s[i] == '"' {
			return s[start:i], i + 1, true
		}
		return nil, i, false
	}
	for ; i < len(s); i++ {
		c := s[i]
		if c == '"' {
			return s[start:i], i + 1, true
		}
		if c == '\\' || c < 0x20 {
			return nil, i, false
		}
	}
	return nil, i, false
}

// hasZeroByte sets the high bit of the lowest zero byte of w (and maybe of
// bytes above it: only the lowest is exact).
func hasZeroByte(w uint64) uint64 {
	return (w - 0x0101010101010101) &^ w & 0x8080808080808080
}

// hasByteBelow sets the high bit of the lowest byte of w below n (n <=
// 128; bytes above it may be marked too).
func hasByteBelow(w uint64, n byte) uint64 {
	return (w - 0x0101010101010101*uint64(n)) &^ w & 0x8080808080808080
}

// plainInt parses an integer at s[i:] that ends where a value ends (at a
// ',', '}' or ']'). Numbers of more than 19 digits, and anything the
// general lexer would have to judge, are left to it.
func plainInt(s []byte, i int) (int64, int, bool) {
	// Most integers of a line are of one or two digits (the incarnation,
	// the partition, the first offsets and seqs of a key): read at once,
	// without the word-wide parse.
	if len(s)-i >= 3 {
		if d0 := s[i] - '0'; d0 <= 9 {
			if c := s[i+1]; c == ',' || c == '}' || c == ']' {
				return int64(d0), i + 1, true
			}
			if d1 := s[i+1] - '0'; d1 <= 9 {
				if c := s[i+2]; c == ',' || c == '}' || c == ']' {
					return int64(d0)*10 + int64(d1), i + 2, true
				}
			}
		}
	}
	neg := false
	if i < len(s) && s[i] == '-' {
		neg = true
		i++
	}
	return plainDigits(s, i, i, 0, neg)
}

// timestamp parses an integer as plainInt does. The first eight digits
// of a timestamp in nanoseconds count units of 100 seconds: from one to
// the next they rarely change, so the last ones read are remembered with
// their value.
func (d *decoder) timestamp(s []byte, i int) (int64, int, bool) {
	if len(s)-i < 8 {
		return plainInt(s, i)
	}
	w := binary.LittleEndian.Uint64(s[i:])
	if w == d.tsWord && w != 0 { // 0: none remembered yet (eight digits are never 0)
		// The usual timestamp, 19 digits: the next eight are one word,
		// the last three the top of the word that ends with the byte
		// after them, which must end the value. No loop, no branch on a
		// digit.
		if len(s)-i >= 20 {
			w1 := binary.LittleEndian.Uint64(s[i+8:])
			w2 := binary.LittleEndian.Uint64(s[i+12:])
			if c := s[i+19]; leadingDigits(w1) == 8 && leadingDigits(w2) == 7 && (c == ',' || c == '}' || c == ']') {
				// At most 10^19-1: within a uint64, not always an int64.
				n := uint64(d.tsValue)*1e11 + uint64(parseEight(w1))*1e3 + uint64(parseEight(w2<<8&0xffffff0000000000))
				if n <= 1<<63-1 {
					return int64(n), i + 19, true
				}
			}
		}
		return plainDigits(s, i, i+8, uint64(d.tsValue), false)
	}
	n, j, ok := plainInt(s, i)
	if ok && s[i] != '-' && j-i >= 16 {
		d.tsWord, d.tsValue = w, parseEight(w)
	}
	return n, j, ok
}

// plainDigits parses the digits of an integer from s[i:] on, the number
// having started at start with the value n so far.
func plainDigits(s []byte, start, i int, n uint64, neg bool) (int64, int, bool) {
	// Eight bytes at a time: each word adds its leading digits (timestamps
	// have 19, so three words), ending at the first byte that is not one.
	for len(s)-i >= 8 {
		w := binary.LittleEndian.Uint64(s[i:])
		k := leadingDigits(w)
		if k == 8 {
			n = n*1e8 + uint64(parseEight(w))
			i += 8
			if i-start >= 16 {
				break
			}
			continue
		}
		if k > 0 {
			n = n*pow10[k] + uint64(parseEight(w<<(64-8*k)))
			i += k
		}
		goto end
	}
	for i < len(s) {
		c := s[i] - '0'
		if c > 9 {
			break
		}
		n = n*10 + uint64(c)
		i++
		if i-start > 19 {
			break
		}
	}
end:
	// 19 digits cannot overflow a uint64; more are left to the general
	// decoder (which takes leading zeros, as this loop does).
	if digits := i - start; digits == 0 || digits > 19 || i >= len(s) {
		return 0, i, false
	}
	if c := s[i]; c != ',' && c != '}' && c != ']' {
		return 0, i, false
	}
	if neg {
		if n > 1<<63 {
			return 0, i, false
		}
		return -int64(n), i, true
	}
	if n > 1<<63-1 {
		return 0, i, false
	}
	return int64(n), i, true
}

var pow10 = [9]uint64{1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8}

// leadingDigits returns how many of the eight bytes of w (little-endian,
// the first byte lowest) are ASCII digits before the first that is not.
func leadingDigits(w uint64) int {
	// A digit's byte becomes 0x33 here; the +6 carries out of a byte only
	// from one of 0xfa-0xff, which is not a digit itself: whatever it
	// does to the bytes above, the first non-digit stays exact.
	t := (w&0xF0F0F0F0F0F0F0F0 | (w+0x0606060606060606)&0xF0F0F0F0F0F0F0F0>>4) ^ 0x3333333333333333
	nonzero := ((t & 0x7F7F7F7F7F7F7F7F) + 0x7F7F7F7F7F7F7F7F | t) & 0x8080808080808080
	return bits.TrailingZeros64(nonzero) / 8
}

// parseEight returns the value of eight ASCII digits in w, the first
// digit in the lowest byte: pairs, then quadruples, then the eight, each
// step one multiply. Zero bytes below the first digit count as zeros.
func parseEight(w uint64) uint32 {
	w = (w & 0x0F0F0F0F0F0F0F0F) * 2561 >> 8
	w = (w & 0x00FF00FF00FF00FF) * 6553601 >> 16
	return uint32((w & 0x0000FFFF0000FFFF) * 42949672960001 >> 32)
}

// plainBool parses true or false at s[i:].
func plainBool(s []byte, i int) (bool, int, bool) {
	if len(s)-i >= 5 && string(s[i:i+4]) == "true" {
		return true, i + 4, true
	}
	if len(s)-i >= 6 && string(s[i:i+5]) == "false" {
		return false, i + 5, true
	}
	return false, i, false
}

// plainInt32s parses an array of partitions without whitespace.
func plainInt32s(s []byte, i int, dst []int32) ([]int32, int, bool) {
	if i >= len(s) || s[i] != '[' {
		return nil, i, false
	}
	i++
	if i < len(s) && s[i] == ']' {
		return dst, i + 1, true
	}
	for {
		n, j, ok := plainInt(s, i)
		if !ok || n < -1<<31 || n > 1<<31-1 {
			return nil, i, false
		}
		dst = append(dst, int32(n))
		i = j
		if s[i] == ']' {
			return dst, i + 1, true
		}
		if s[i] != ',' {
			return nil, i, false
		}
		i++
	}
}

package history

import (
	"math/bits"
	"strconv"
	"unicode/utf8"
	"unsafe"
)

// AppendJSON appends e as one JSON object (no newline) to b: the fields
// of fieldSpecs in its order, each written as its rule says (zero-valued
// optional fields left out; partition, offset and seq always written for
// the kinds that carry them, since 0 is a real value there).
func AppendJSON(b []byte, e *Event) []byte {
	// Every member is written with a comma before it; the first one's
	// becomes the object's opening brace (kind is always written).
	start := len(b)
	// The fields to write, in the table's order: those every event of
	// the kind writes and the optional ones that are not zero.
	for set := e.Kind.writtenFields() | e.nonZero(); set != 0; set &= set - 1 {
		f := field(bits.TrailingZeros64(uint64(set)))
		b = append(b, encodedKeys[f]...)
		spec := &fieldSpecs[f]
		p := unsafe.Add(unsafe.Pointer(e), spec.offset)
		switch spec.typ {
		case tKind, tString, tKey, tInterned:
			b = appendString(b, *(*string)(p))
		case tTime, tInt64:
			b = strconv.AppendInt(b, *(*int64)(p), 10)
		case tInt32:
			b = strconv.AppendInt(b, int64(*(*int32)(p)), 10)
		case tInt:
			b = strconv.AppendInt(b, int64(*(*int)(p)), 10)
		case tBool:
			b = strconv.AppendBool(b, *(*bool)(p))
		case tInt32s:
			b = appendInt32s(b, *(*[]int32)(p))
		case tRawJSON:
			b = append(b, *(*string)(p)...)
		}
	}
	b[start] = '{'
	return append(b, '}')
}

// encodedKeys are the fields' keys as AppendJSON writes them, each with
// the comma before it: `,"key":`.
var encodedKeys = func() (k [numFields]string) {
	for f, spec := range fieldSpecs {
		k[f] = `,"` + spec.key + `":`
	}
	return k
}()

func appendInt32s(b []byte, v []int32) []byte {
	b = append(b, '[')
	for i, n := range v {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(n), 10)
	}
	return append(b, ']')
}

const hexDigits = "0123456789abcdef"

// appendString appends s as a JSON string: quotes, backslashes and control
// characters escaped, invalid UTF-8 replaced by U+FFFD. The replacement
// is written as its UTF-8 bytes, as a valid U+FFFD is, so that a line read
// and written again is the same bytes.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, "\uFFFD"...)
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// Package keygen generates the keys of a workload's traffic: which key each
// record carries (a seeded draw from a distribution: uniform, zipf, hotspot
// or explicit shares) and its per-key sequence number (0, 1, 2, ... per key).
// The same seed gives the same (key, seq) stream, record for record.
package keygen

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Format is a stable key format: a literal prefix, one decimal integer verb
// (%d, optionally zero-padded to a width: %06d) and a literal suffix; %%
// is a literal percent sign. Key i is the format applied to i, exactly as
// fmt.Sprintf would render it, but without fmt's cost per record.
type Format struct {
	prefix, suffix string
	width          int
	zero           bool
}

// ParseFormat parses a key format such as "k%06d" or "tenant-%d.orders".
func ParseFormat(s string) (Format, error) {
	var f Format
	var lit strings.Builder
	verbs := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '%' {
			lit.WriteByte(c)
			continue
		}
		if i+1 < len(s) && s[i+1] == '%' {
			lit.WriteByte('%')
			i++
			continue
		}
		j := i + 1
		if j < len(s) && s[j] == '0' {
			f.zero = true
			j++
		}
		w := j
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		if j >= len(s) || s[j] != 'd' {
			return Format{}, fmt.Errorf("at byte %d: expected one integer verb %%d or %%0<width>d (e.g. k%%06d); %%%% for a literal %%", i)
		}
		if w < j {
			var err error
			f.width, err = strconv.Atoi(s[w:j])
			switch {
			case err != nil: // beyond int, so beyond 20 too; its digits are not echoed
				return Format{}, fmt.Errorf("at byte %d: a width of %d digits: expected at most 20", i, j-w)
			case f.width > 20:
				return Format{}, fmt.Errorf("at byte %d: width %d: expected at most 20", i, f.width)
			}
		}
		verbs++
		if verbs > 1 {
			return Format{}, errors.New("more than one %d verb: expected exactly one")
		}
		f.prefix = lit.String()
		lit.Reset()
		i = j
	}
	if verbs == 0 {
		return Format{}, errors.New("no %d verb: expected exactly one, e.g. k%06d, so that every key is distinct")
	}
	f.suffix = lit.String()
	return f, nil
}

// String returns the format in fmt's notation.
func (f Format) String() string {
	esc := func(s string) string { return strings.ReplaceAll(s, "%", "%%") }
	verb := "%"
	if f.zero {
		verb += "0"
	}
	if f.width > 0 {
		verb += strconv.Itoa(f.width)
	}
	return esc(f.prefix) + verb + "d" + esc(f.suffix)
}

// Append appends key i (i >= 0) to b.
func (f Format) Append(b []byte, i int) []byte {
	b = append(b, f.prefix...)
	var digits [20]byte
	d := strconv.AppendUint(digits[:0], uint64(i), 10)
	pad := byte(' ')
	if f.zero {
		pad = '0'
	}
	for k := len(d); k < f.width; k++ {
		b = append(b, pad)
	}
	b = append(b, d...)
	return append(b, f.suffix...)
}

// Key returns key i.
func (f Format) Key(i int) string { return string(f.Append(nil, i)) }

// Keyspace names a workload's keys by index: first the explicitly named
// keys (in the order given), then Count formatted keys, Format(0),
// Format(1), ...
type Keyspace struct {
	Named  []string
	Format Format
	Count  int
}

// Len returns the number of keys.
func (k *Keyspace) Len() int { return len(k.Named) + k.Count }

// Append appends key i to b.
func (k *Keyspace) Append(b []byte, i int) []byte {
	if i < len(k.Named) {
		return append(b, k.Named[i]...)
	}
	return k.Format.Append(b, i-len(k.Named))
}

// Key returns key i.
func (k *Keyspace) Key(i int) string {
	if i < len(k.Named) {
		return k.Named[i]
	}
	return k.Format.Key(i - len(k.Named))
}

// Index returns i such that Key(i) == key, if there is one.
func (f Format) Index(key string) (int, bool) {
	if len(key) < len(f.prefix)+len(f.suffix) || !strings.HasPrefix(key, f.prefix) || !strings.HasSuffix(key, f.suffix) {
		return 0, false
	}
	mid := key[len(f.prefix) : len(key)-len(f.suffix)]
	trimmed := strings.TrimLeft(mid, "0 ")
	if trimmed == "" && mid != "" {
		trimmed = "0"
	}
	i, err := strconv.ParseUint(trimmed, 10, 63)
	if err != nil {
		return 0, false
	}
	if f.Key(int(i)) != key {
		return 0, false
	}
	return int(i), true
}

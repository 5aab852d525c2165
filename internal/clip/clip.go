// Package clip bounds what a message quotes of its input. An error names
// the value it refuses so that its reader can find it, but a value can be
// as long as the file or the argument it came from: quoted whole, a 100 MB
// workload name is 100 MB of standard error, and the message is lost in
// it. Every message that quotes input quotes it through Quote or String;
// Message is the last line of defence, applied to whatever a command
// prints as its error. Plural counts in words, as every message does.
package clip

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Max is how many bytes of a value a message quotes: enough to recognise
// a name, a number or a path, far too few to flood a terminal.
const Max = 80

// String returns s, or its first Max bytes (cut at a character boundary)
// followed by how long it was: "xxxx… (20971520 bytes)".
func String(s string) string {
	if len(s) <= Max {
		return s
	}
	cut := Max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "… (" + strconv.Itoa(len(s)) + " bytes)"
}

// Quote is strconv.Quote of s, cut as String cuts it: the length, when
// given, stands outside the quotes.
func Quote(s string) string {
	if len(s) <= Max {
		return strconv.Quote(s)
	}
	cut := Max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strconv.Quote(s[:cut]) + "… (" + strconv.Itoa(len(s)) + " bytes)"
}

// Line bounds one line of a message; Lines bounds how many a message keeps.
const (
	Line  = 1000
	Lines = 200
)

// Message bounds a whole message that may quote input unclipped (a
// library's error, a flag package's "invalid value ..."): every run of
// characters without a space longer than Max is cut as String cuts it,
// then every line longer than Line, and after Lines lines the rest is
// counted, not printed.
func Message(msg string) string {
	if len(msg) <= Max {
		return msg
	}
	lines := strings.Split(msg, "\n")
	extra := 0
	if len(lines) > Lines {
		extra = len(lines) - Lines
		lines = lines[:Lines]
	}
	for i, l := range lines {
		l = longWords(l)
		if len(l) > Line {
			cut := Line
			for cut > 0 && !utf8.RuneStart(l[cut]) {
				cut--
			}
			l = l[:cut] + "… (" + strconv.Itoa(len(l)) + " bytes)"
		}
		lines[i] = l
	}
	out := strings.Join(lines, "\n")
	if extra > 0 {
		out += "\n… and " + strconv.Itoa(extra) + " more lines"
	}
	return out
}

// longWords cuts every run of characters without a space longer than Max.
func longWords(l string) string {
	if len(l) <= Max {
		return l
	}
	var b strings.Builder
	start := 0
	flush := func(end int) {
		b.WriteString(String(l[start:end]))
	}
	for i := 0; i < len(l); i++ {
		if l[i] == ' ' || l[i] == '\t' {
			flush(i)
			b.WriteByte(l[i])
			start = i + 1
		}
	}
	flush(len(l))
	return b.String()
}

// Plural returns a count and its noun, in the plural unless the count is
// one: "1 cell", "2 cells", "0 records". A noun whose plural is not its
// singular and an s is not for this.
func Plural[N ~int | ~int64](n N, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.FormatInt(int64(n), 10) + " " + noun + "s"
}

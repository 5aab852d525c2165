package clip

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestShortValuesAreUnchanged(t *testing.T) {
	for _, s := range []string{"", "range", "k%06d", strings.Repeat("a", Max)} {
		if String(s) != s {
			t.Errorf("String(%q) = %q", s, String(s))
		}
		if want := `"` + s + `"`; Quote(s) != want {
			t.Errorf("Quote(%q) = %s, want %s", s, Quote(s), want)
		}
	}
	if m := "w.yaml:3: name: got \"x\", expected lower-case letters"; Message(m) != m {
		t.Errorf("Message changed %q", m)
	}
}

func TestLongValuesAreCut(t *testing.T) {
	long := strings.Repeat("x", 20<<20)
	for name, got := range map[string]string{"String": String(long), "Quote": Quote(long)} {
		if len(got) > Max+40 || !strings.Contains(got, "(20971520 bytes)") {
			t.Errorf("%s: %d bytes: %.120s", name, len(got), got)
		}
	}
	// A cut never splits a character.
	s := strings.Repeat("é", Max)
	if got := String(s); !utf8.ValidString(got) {
		t.Errorf("String split a character: %q", got)
	}
}

func TestMessageBoundsWordsLinesAndCount(t *testing.T) {
	word := strings.Repeat("y", 120000)
	m := Message(`invalid value "` + word + `" for flag -threshold: "` + word + `": unknown metric`)
	if len(m) > 400 || !strings.Contains(m, "for flag -threshold:") || !strings.HasSuffix(m, "unknown metric") {
		t.Errorf("a message with long words: %d bytes: %.300s", len(m), m)
	}
	spaced := strings.Repeat("ab ", 100000)
	if m := Message(spaced); len(m) > Line+40 {
		t.Errorf("a long line of short words: %d bytes", len(m))
	}
	many := strings.Repeat("line\n", 10*Lines)
	if m := Message(many); strings.Count(m, "\n") > Lines+1 || !strings.Contains(m, "more lines") {
		t.Errorf("a message of %d lines: %d lines kept", 10*Lines, strings.Count(m, "\n"))
	}
}

func TestPlural(t *testing.T) {
	for _, c := range []struct {
		got, want string
	}{{Plural(1, "cell"), "1 cell"}, {Plural(0, "record"), "0 records"}, {Plural(int64(12), "member"), "12 members"}, {Plural(-1, "step"), "-1 steps"}} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

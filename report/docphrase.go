package report

// phrase is the text of a heading, a paragraph, an item or a cell: a run
// of spans, each in a style.
type phrase []span

// span is a piece of a phrase; one with a format shows only in it.
type span struct {
	text  string
	style style
	attr  string // tagged: the class; link: the address
	in    format
}

// style is how a span is written. A span's text is a value of the run
// unless it is prose or markdown: a value may hold anything, and the
// page escapes it as html/template escapes one (quotes and + too).
type style uint8

const (
	plain style = iota
	// prose: the report's own words: the page escapes only what a text
	// of HTML cannot hold (&, <, >), so they read in its source as written.
	prose
	// markdown: the capacity report's texts, in Markdown of the simplest
	// kind (**bold** and `code`), which the page turns into elements after
	// escaping the rest.
	markdown
	bold
	monospace // code
	// tagged: a tag's text, coloured by its class on the page.
	tagged
	link
	lineBreak // a line break within a table's heading
)

// The spans, one constructor per style.

func value(s string) span           { return span{text: s} }
func words(s string) span           { return span{text: s, style: prose} }
func markdownText(s string) span    { return span{text: s, style: markdown} }
func strong(s string) span          { return span{text: s, style: bold} }
func codeSpan(s string) span        { return span{text: s, style: monospace} }
func tagSpan(t tag) span            { return span{text: t.text, style: tagged, attr: t.class} }
func linkTo(title, url string) span { return span{text: title, style: link, attr: url} }
func newline() span                 { return span{style: lineBreak} }

// only restricts the span to one format.
func (s span) only(in format) span {
	s.in = in
	return s
}

// values are phrases of one value each: a table's heads.
func values(ss ...string) []phrase {
	out := make([]phrase, len(ss))
	for i, s := range ss {
		out[i] = phrase{value(s)}
	}
	return out
}

package report

import (
	"fmt"
	"strings"
)

// The reports are built once as documents and written twice: as Markdown
// (docmd.go), fit for a CI job summary, and as an HTML page (dochtml.go).
// A document is sections, each a heading and blocks; the writers are the
// only code that knows either syntax. Where the two forms of a report
// differ (Markdown draws Mermaid charts, the page embeds the figures), a
// part is given to one format only.

// document is a whole report: the title, the run's verdict (none when
// its text is empty), the line under the title, and the sections.
type document struct {
	title    string
	verdict  tag
	subtitle string
	sections []*section
}

// section is a heading, then blocks, in order. A heading with no text in
// a format is not written in it.
type section struct {
	title  phrase
	blocks []block
}

// add appends blocks to the section.
func (s *section) add(bs ...block) { s.blocks = append(s.blocks, bs...) }

// block is a part of a section: each kind below is written by both
// writers (docmd.go, dochtml.go).
type block interface {
	markdown(e *ewriter)
	html(b *strings.Builder, figures map[string]Embedded)
}

// format is a form a document is written in; everywhere is both.
type format uint8

const (
	everywhere format = iota
	inMarkdown
	inHTML
)

// shows reports whether a part restricted to in shows in format f.
func (in format) shows(f format) bool { return in == everywhere || in == f }

// only is a block written in one format only.
type only struct {
	in format
	block
}

// tag is a short text the page colours by its class: a verdict, with the
// verdict as its class.
type tag struct{ text, class string }

// paragraph is a text; class is the page's class for it. An empty
// paragraph keeps its line in the page's source, as an empty list does,
// so that the sources of two pages line up.
type paragraph struct {
	text  phrase
	class string
}

// paragraphOf is a paragraph of these spans.
func paragraphOf(spans ...span) *paragraph { return &paragraph{text: spans} }

// note is a paragraph the page sets as a remark, in small type.
func note(spans ...span) *paragraph { return &paragraph{text: spans, class: "note"} }

// bullets is a list, one item per text.
type bullets []phrase

// detailList is a list whose items have details: Markdown nests the
// details under their item; the page writes each item as a paragraph and
// its details as a list of the given class, below.
type detailList struct {
	items []detailItem
	class string
}

// detailItem is an item of a detailList and its details.
type detailItem struct {
	text    phrase
	details []phrase
}

// tableBlock is a table. align has a letter per column, l or r. On the
// page a table with a class is laid out by its class; one without
// right-aligns its r columns cell by cell. Markdown escapes the pipes of
// every cell, which would end it.
type tableBlock struct {
	class string
	align string
	head  []phrase
	rows  [][]cell
}

// cell is a table cell; class is the page's class for it (a verdict's).
type cell struct {
	text  phrase
	class string
}

// cells are cells of one value each.
func cells(ss ...string) []cell {
	out := make([]cell, len(ss))
	for i, p := range values(ss...) {
		out[i].text = p
	}
	return out
}

// subheading heads a part of a section.
type subheading phrase

// collapsible is a part the page shows folded under a summary line (the
// tag and the title), open when open; Markdown writes it as a section.
type collapsible struct {
	id     string
	open   bool
	tag    tag
	title  phrase
	blocks []block
}

// add appends blocks to the collapsible part.
func (c *collapsible) add(bs ...block) { c.blocks = append(c.blocks, bs...) }

// mermaidChart is a chart as Mermaid source: Markdown's figure (the page
// embeds plots instead).
type mermaidChart string

// placedFigure places a figure, by name, on the page (Markdown has none);
// lazy ones load when scrolled to. A figure the page was not given is
// left out.
type placedFigure struct {
	name string
	lazy bool
}

// The capacity report builds its sections with these, from texts in
// Markdown of the simplest kind (**bold** and `code`).

func (s *section) heading(t string) { s.title = phrase{markdownText(t)} }

func (s *section) para(format string, args ...any) {
	s.add(paragraphOf(markdownText(fmt.Sprintf(format, args...))))
}

func (s *section) list(items []string) {
	if len(items) == 0 {
		return
	}
	l := make(bullets, len(items))
	for i, it := range items {
		l[i] = phrase{markdownText(it)}
	}
	s.add(l)
}

// table adds a table; align has one letter per column, l or r. A cell
// that starts with ✓ is marked good, one with ✗ or "**never" bad.
func (s *section) table(align string, head []string, rows [][]string) {
	t := &tableBlock{align: align}
	for _, h := range head {
		t.head = append(t.head, phrase{markdownText(h)})
	}
	for _, r := range rows {
		row := make([]cell, len(r))
		for i, v := range r {
			row[i].text = phrase{markdownText(v)}
			switch {
			case strings.HasPrefix(v, "✗") || strings.Contains(v, "**never"):
				row[i].class = "bad"
			case strings.HasPrefix(v, "✓") || strings.HasPrefix(v, "**✓"):
				row[i].class = "good"
			}
		}
		t.rows = append(t.rows, row)
	}
	s.add(t)
}

func (s *section) chart(mermaid string) { s.add(mermaidChart(mermaid)) }

func (s *section) figure(name string) { s.add(placedFigure{name: name}) }

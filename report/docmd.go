package report

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// ewriter remembers the first write error, so that rendering code can
// write freely and check once.
type ewriter struct {
	w   *bufio.Writer
	err error
}

func (e *ewriter) printf(format string, args ...any) {
	if e.err == nil {
		_, e.err = fmt.Fprintf(e.w, format, args...)
	}
}

func (e *ewriter) flush() error {
	if e.err != nil {
		return e.err
	}
	return e.w.Flush()
}

// escapePipes keeps a table cell's pipes from ending the cell.
func escapePipes(s string) string { return strings.ReplaceAll(s, "|", "\\|") }

// markdown writes the document as Markdown: the title, the verdict in
// bold before the subtitle, then the sections.
func (d *document) markdown(w io.Writer) error {
	e := &ewriter{w: bufio.NewWriter(w)}
	e.printf("# %s\n\n", d.title)
	if d.verdict.text != "" {
		e.printf("**Verdict: %s** · ", d.verdict.text)
	}
	e.printf("%s\n\n", d.subtitle)
	for _, s := range d.sections {
		s.markdown(e)
	}
	return e.flush()
}

// markdown writes the section as Markdown.
func (s *section) markdown(e *ewriter) {
	if t := s.title.markdown(false); t != "" {
		e.printf("## %s\n\n", t)
	}
	for _, b := range s.blocks {
		b.markdown(e)
	}
}

// markdown writes the block if it shows in Markdown.
func (o only) markdown(e *ewriter) {
	if o.in.shows(inMarkdown) {
		o.block.markdown(e)
	}
}

// markdown writes the paragraph, if it has a text in Markdown.
func (p *paragraph) markdown(e *ewriter) {
	if t := p.text.markdown(false); t != "" {
		e.printf("%s\n\n", t)
	}
}

// markdown writes the items that have a text in Markdown, if any.
func (l bullets) markdown(e *ewriter) {
	items := markdownItems(l)
	for _, it := range items {
		e.printf("- %s\n", it)
	}
	if len(items) > 0 {
		e.printf("\n")
	}
}

// markdown writes each item with its details nested under it.
func (l *detailList) markdown(e *ewriter) {
	for _, n := range l.items {
		e.printf("- %s\n", n.text.markdown(false))
		for _, d := range markdownItems(n.details) {
			e.printf("  - %s\n", d)
		}
	}
	if len(l.items) > 0 {
		e.printf("\n")
	}
}

// markdownItems are the items that have a text in Markdown.
func markdownItems(ps []phrase) []string {
	var out []string
	for _, p := range ps {
		if t := p.markdown(false); t != "" {
			out = append(out, t)
		}
	}
	return out
}

// markdown writes the table; an empty cell is written "| |".
func (t *tableBlock) markdown(e *ewriter) {
	row := func(texts []phrase) {
		e.printf("|")
		for _, p := range texts {
			if s := p.markdown(true); s != "" {
				e.printf(" %s |", s)
			} else {
				e.printf(" |")
			}
		}
		e.printf("\n")
	}
	row(t.head)
	e.printf("|")
	for i := range t.head {
		if t.right(i) {
			e.printf("---:|")
		} else {
			e.printf("---|")
		}
	}
	e.printf("\n")
	for _, r := range t.rows {
		texts := make([]phrase, len(r))
		for i, c := range r {
			texts[i] = c.text
		}
		row(texts)
	}
	e.printf("\n")
}

// right reports whether column i is right-aligned.
func (t *tableBlock) right(i int) bool { return i < len(t.align) && t.align[i] == 'r' }

// markdown writes the subheading one level below a section's.
func (h subheading) markdown(e *ewriter) { e.printf("### %s\n\n", phrase(h).markdown(false)) }

// markdown writes a collapsible part as a section of its own; its tag is
// the page's (Markdown says the same in its text).
func (c *collapsible) markdown(e *ewriter) {
	e.printf("## %s\n\n", c.title.markdown(false))
	for _, b := range c.blocks {
		b.markdown(e)
	}
}

// markdown writes the chart as a mermaid code block, which GitHub draws.
func (m mermaidChart) markdown(e *ewriter) { e.printf("```mermaid\n%s```\n\n", string(m)) }

// markdown writes nothing: Markdown has the charts and links instead.
func (placedFigure) markdown(*ewriter) {}

// markdown renders the phrase's spans that show in Markdown; in a table
// cell, their pipes escaped.
func (p phrase) markdown(inTable bool) string {
	var b strings.Builder
	for _, s := range p {
		if !s.in.shows(inMarkdown) {
			continue
		}
		t := s.text
		if inTable {
			t = escapePipes(t)
		}
		switch s.style {
		case bold:
			b.WriteString("**" + t + "**")
		case monospace:
			b.WriteString("`" + t + "`")
		case link:
			b.WriteString("[" + t + "](" + s.attr + ")")
		case lineBreak:
			b.WriteString("<br>")
		default:
			b.WriteString(t)
		}
	}
	return b.String()
}

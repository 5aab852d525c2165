package report

import (
	"fmt"
	"io"
	"regexp"
	"strings"
)

// pageHead is a page's beginning, up to the line under its title: the
// title (twice) and the style sheet go in.
const pageHead = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>%s</title>
<style>
%s</style>
</head>
<body>
<h1>%s</h1>
<div class="sub">`

// html writes the document as one self-contained page styled by style
// (a style sheet, ending in a newline), with the figures it places
// embedded. Each section follows a blank line, an empty one too, so that
// the sources of two pages line up.
func (d *document) html(w io.Writer, style string, figures []Embedded) error {
	byName := make(map[string]Embedded, len(figures))
	for _, f := range figures {
		byName[f.Name] = f
	}
	var b strings.Builder
	title := escapeValue(d.title)
	fmt.Fprintf(&b, pageHead, title, style, title)
	if d.verdict.text != "" {
		fmt.Fprintf(&b, `<span class="badge %s">%s</span> &nbsp; `, escapeValue(d.verdict.class), escapeValue(d.verdict.text))
	}
	b.WriteString(escapeValue(d.subtitle) + "</div>\n")
	for _, s := range d.sections {
		b.WriteString("\n")
		s.html(&b, byName)
	}
	b.WriteString("\n</body>\n</html>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// html writes the section as HTML; figures are the embedded figures by
// name.
func (s *section) html(b *strings.Builder, figures map[string]Embedded) {
	if t := s.title.html(); t != "" {
		fmt.Fprintf(b, "<h2>%s</h2>\n", t)
	}
	for _, bl := range s.blocks {
		bl.html(b, figures)
	}
}

// html writes the block if it shows on the page.
func (o only) html(b *strings.Builder, figures map[string]Embedded) {
	if o.in.shows(inHTML) {
		o.block.html(b, figures)
	}
}

// html writes the paragraph, or an empty line when it has no text on the
// page.
func (p *paragraph) html(b *strings.Builder, _ map[string]Embedded) {
	if t := p.text.html(); t != "" {
		fmt.Fprintf(b, "<p%s>%s</p>", classAttr(p.class), t)
	}
	b.WriteString("\n")
}

// html writes the list on one line, or an empty line when it has no item
// on the page.
func (l bullets) html(b *strings.Builder, _ map[string]Embedded) {
	b.WriteString(htmlList(l, ""))
	b.WriteString("\n")
}

// html writes each item as a paragraph, its details as a list right after
// it on the same line, then a line end (an empty line when there is no
// item).
func (l *detailList) html(b *strings.Builder, _ map[string]Embedded) {
	for _, n := range l.items {
		fmt.Fprintf(b, "<p>%s</p>\n%s", n.text.html(), htmlList(n.details, l.class))
	}
	b.WriteString("\n")
}

// htmlList is a list of the items that have a text on the page, on one
// line ("" when none has).
func htmlList(items []phrase, class string) string {
	var lis strings.Builder
	for _, it := range items {
		if t := it.html(); t != "" {
			fmt.Fprintf(&lis, "<li>%s</li>", t)
		}
	}
	if lis.Len() == 0 {
		return ""
	}
	return "<ul" + classAttr(class) + ">" + lis.String() + "</ul>"
}

// html writes the table, scrolling sideways when it is wider than the
// page.
func (t *tableBlock) html(b *strings.Builder, _ map[string]Embedded) {
	fmt.Fprintf(b, "<div class=\"scroll\"><table%s>\n<tr>", classAttr(t.class))
	for _, h := range t.head {
		fmt.Fprintf(b, "<th>%s</th>", h.html())
	}
	b.WriteString("</tr>\n")
	for _, r := range t.rows {
		b.WriteString("<tr>")
		for i, c := range r {
			var classes []string
			if t.class == "" && t.right(i) {
				classes = append(classes, "num")
			}
			if c.class != "" {
				classes = append(classes, c.class)
			}
			fmt.Fprintf(b, "<td%s>%s</td>", classAttr(strings.Join(classes, " ")), c.text.html())
		}
		b.WriteString("</tr>\n")
	}
	b.WriteString("</table></div>\n")
}

// html writes the subheading one level below a section's.
func (h subheading) html(b *strings.Builder, _ map[string]Embedded) {
	fmt.Fprintf(b, "<h3>%s</h3>\n", phrase(h).html())
}

// html writes the part as a details element: the summary line is the
// tag, a wide space and the title.
func (c *collapsible) html(b *strings.Builder, figures map[string]Embedded) {
	open := ""
	if c.open {
		open = " open"
	}
	fmt.Fprintf(b, "<details id=\"%s\"%s>\n<summary>%s &nbsp; %s</summary>\n", escapeValue(c.id), open, phrase{tagSpan(c.tag)}.html(), c.title.html())
	for _, bl := range c.blocks {
		bl.html(b, figures)
	}
	b.WriteString("</details>\n")
}

// html writes nothing: the page embeds the plots instead.
func (mermaidChart) html(*strings.Builder, map[string]Embedded) {}

// html writes the figure with its title as the caption, if the page was
// given it.
func (p placedFigure) html(b *strings.Builder, figures map[string]Embedded) {
	if f, ok := figures[p.name]; ok {
		fmt.Fprintf(b, "<figure>%s<figcaption>%s</figcaption></figure>\n", f.Img(p.lazy), escapeValue(f.Title))
	}
}

// classAttr is an element's class attribute ("" for no class).
func classAttr(class string) string {
	if class == "" {
		return ""
	}
	return ` class="` + escapeValue(class) + `"`
}

// html renders the phrase's spans that show on the page.
func (p phrase) html() string {
	var b strings.Builder
	for _, s := range p {
		if !s.in.shows(inHTML) {
			continue
		}
		t := escapeValue(s.text)
		switch s.style {
		case prose:
			t = escapeProse(s.text)
		case markdown:
			t = mdBold.ReplaceAllString(t, "<b>$1</b>")
			t = mdCode.ReplaceAllString(t, "<code>$1</code>")
		case bold:
			t = "<b>" + t + "</b>"
		case monospace:
			t = "<code>" + t + "</code>"
		case tagged:
			t = "<span" + classAttr(s.attr) + ">" + t + "</span>"
		case link:
			t = `<a href="` + escapeValue(s.attr) + `">` + t + "</a>"
		case lineBreak:
			t = "<br>"
		}
		b.WriteString(t)
	}
	return b.String()
}

var (
	mdBold = regexp.MustCompile(`\*\*(.+?)\*\*`)
	mdCode = regexp.MustCompile("`([^`]+)`")
)

// escapeValue escapes a value for the page as html/template escapes one:
// quotes and + too, so that it is safe in an attribute as in a text.
var escapeValue = strings.NewReplacer("\x00", "\uFFFD", `"`, "&#34;", "&", "&amp;", "'", "&#39;", "+", "&#43;", "<", "&lt;", ">", "&gt;").Replace

// escapeProse escapes the report's own words: only what a text of HTML
// cannot hold.
var escapeProse = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace

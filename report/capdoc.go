package report

import (
	"fmt"
	"html/template"
	"regexp"
	"strings"
)

// section is one section of a report built once and written as Markdown
// and as HTML: a heading, then paragraphs, lists, tables and charts, in
// order. Texts are Markdown of the simplest kind (**bold** and `code`),
// which the HTML writer turns into elements after escaping the rest.
type section struct {
	title  string
	blocks []block
}

type block struct {
	para    string
	items   []string
	align   string
	head    []string
	rows    [][]string
	mermaid string // a Markdown chart (the HTML shows the section's figures instead)
	figure  string // a figure's name (HTML only)
}

func (s *section) heading(t string) { s.title = t }

func (s *section) para(format string, args ...any) {
	s.blocks = append(s.blocks, block{para: fmt.Sprintf(format, args...)})
}

func (s *section) list(items []string) {
	if len(items) > 0 {
		s.blocks = append(s.blocks, block{items: items})
	}
}

// table adds a table; align has one letter per column, l or r.
func (s *section) table(align string, head []string, rows [][]string) {
	s.blocks = append(s.blocks, block{align: align, head: head, rows: rows})
}

func (s *section) chart(mermaid string) { s.blocks = append(s.blocks, block{mermaid: mermaid}) }

func (s *section) figure(name string) { s.blocks = append(s.blocks, block{figure: name}) }

// markdown writes the section as Markdown.
func (s *section) markdown(e *ewriter) {
	e.printf("## %s\n\n", s.title)
	for _, b := range s.blocks {
		switch {
		case b.para != "":
			e.printf("%s\n\n", b.para)
		case b.items != nil:
			for _, it := range b.items {
				e.printf("- %s\n", it)
			}
			e.printf("\n")
		case b.head != nil:
			e.printf("| %s |\n|", strings.Join(b.head, " | "))
			for _, a := range b.align {
				if a == 'r' {
					e.printf("--:|")
				} else {
					e.printf("---|")
				}
			}
			e.printf("\n")
			for _, r := range b.rows {
				e.printf("| %s |\n", strings.Join(r, " | "))
			}
			e.printf("\n")
		case b.mermaid != "":
			e.printf("```mermaid\n%s```\n\n", b.mermaid)
		}
	}
}

var (
	mdBold = regexp.MustCompile(`\*\*(.+?)\*\*`)
	mdCode = regexp.MustCompile("`([^`]+)`")
)

// inline turns a text's **bold** and `code` into HTML, escaping the rest.
func inline(s string) template.HTML {
	h := template.HTMLEscapeString(s)
	h = mdBold.ReplaceAllString(h, "<b>$1</b>")
	h = mdCode.ReplaceAllString(h, "<code>$1</code>")
	return template.HTML(h)
}

// html writes the section as HTML; figures are the embedded figures by
// name.
func (s *section) html(b *strings.Builder, figures map[string]Embedded) {
	fmt.Fprintf(b, "<h2>%s</h2>\n", inline(s.title))
	for _, bl := range s.blocks {
		switch {
		case bl.para != "":
			fmt.Fprintf(b, "<p>%s</p>\n", inline(bl.para))
		case bl.items != nil:
			b.WriteString("<ul>\n")
			for _, it := range bl.items {
				fmt.Fprintf(b, "<li>%s</li>\n", inline(it))
			}
			b.WriteString("</ul>\n")
		case bl.head != nil:
			b.WriteString(`<div class="scroll"><table>` + "\n<tr>")
			for _, h := range bl.head {
				fmt.Fprintf(b, "<th>%s</th>", inline(h))
			}
			b.WriteString("</tr>\n")
			for _, r := range bl.rows {
				b.WriteString("<tr>")
				for i, v := range r {
					var classes []string
					if i < len(bl.align) && bl.align[i] == 'r' {
						classes = append(classes, "num")
					}
					switch {
					case strings.HasPrefix(v, "✗") || strings.Contains(v, "**never"):
						classes = append(classes, "bad")
					case strings.HasPrefix(v, "✓") || strings.HasPrefix(v, "**✓"):
						classes = append(classes, "good")
					}
					class := ""
					if len(classes) > 0 {
						class = ` class="` + strings.Join(classes, " ") + `"`
					}
					fmt.Fprintf(b, "<td%s>%s</td>", class, inline(v))
				}
				b.WriteString("</tr>\n")
			}
			b.WriteString("</table></div>\n")
		case bl.figure != "":
			if f, ok := figures[bl.figure]; ok {
				fmt.Fprintf(b, "<figure>%s<figcaption>%s</figcaption></figure>\n", f.Img(false), template.HTMLEscapeString(f.Title))
			}
		}
	}
}

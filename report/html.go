package report

import (
	"encoding/base64"
	"fmt"
	"html/template"
	"io"
)

// Embedded is a figure ready for the page: its SVG as a data URL.
type Embedded struct {
	Name, Title string
	URL         string
}

// Img returns the figure's <img> element. It is written out here rather
// than escaped as a value, which would turn every '+' of the base64 text
// into an entity; base64 needs no escaping, the alt text does.
func (e Embedded) Img(lazy bool) template.HTML {
	l := ""
	if lazy {
		l = ` loading="lazy"`
	}
	return template.HTML(`<img src="` + template.HTMLEscapeString(e.URL) + `" alt="` + template.HTMLEscapeString(e.Title) + `"` + l + `>`)
}

// Embed renders figures as SVG data URLs, so that report.html is one
// self-contained file.
func Embed(figs []*Figure) ([]Embedded, error) {
	out := make([]Embedded, 0, len(figs))
	for _, f := range figs {
		b, err := f.SVGBytes()
		if err != nil {
			return nil, fmt.Errorf("figure %s: %w", f.Name, err)
		}
		out = append(out, Embedded{Name: f.Name, Title: f.Title,
			URL: "data:image/svg+xml;base64," + base64.StdEncoding.EncodeToString(b)})
	}
	return out, nil
}

// WriteHTML writes report.html: every table and figure on one page.
// figures are the run's figures as Figures returns them, embedded.
func WriteHTML(w io.Writer, r *Run, figures []Embedded) error {
	return runDocument(r, "").html(w, reportStyle, figures)
}

// reportStyle is report.html's style sheet.
const reportStyle = `:root { --fg: #1d2330; --muted: #5b6475; --line: #d9dde5; --bg: #ffffff; --head: #f4f6f9;
        --valid: #1a7f37; --invalid: #c62828; --unknown: #9a6700; }
* { box-sizing: border-box; }
body { margin: 0; padding: 24px 32px 64px; color: var(--fg); background: var(--bg);
       font: 14px/1.45 -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
h1 { font-size: 22px; margin: 0 0 4px; }
h2 { font-size: 17px; margin: 32px 0 10px; padding-bottom: 4px; border-bottom: 1px solid var(--line); }
.sub { color: var(--muted); margin-bottom: 18px; }
.badge { display: inline-block; padding: 2px 10px; border-radius: 12px; font-weight: 600; color: #fff; }
.badge.valid { background: var(--valid); color: #fff; } .badge.invalid { background: var(--invalid); color: #fff; } .badge.unknown { background: var(--unknown); color: #fff; }
.valid { color: var(--valid); } .invalid { color: var(--invalid); font-weight: 600; } .unknown { color: var(--unknown); }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; margin: 8px 0 16px; }
th, td { border: 1px solid var(--line); padding: 4px 10px; vertical-align: top; }
th { background: var(--head); font-weight: 600; text-align: left; }
table.summary td { text-align: right; white-space: nowrap; font-variant-numeric: tabular-nums; }
table.summary td:first-child, table.summary th:first-child { text-align: left; }
table.summary th { text-align: center; font-weight: 600; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
figure { margin: 12px 0 24px; }
figure img { width: 100%; max-width: 1100px; height: auto; border: 1px solid var(--line); }
figcaption { color: var(--muted); font-size: 13px; margin-top: 4px; }
details { margin: 8px 0; border: 1px solid var(--line); border-radius: 6px; padding: 6px 12px; }
details > summary { cursor: pointer; font-weight: 600; font-size: 15px; }
ul.examples { margin: 2px 0 6px; color: var(--muted); font-size: 13px; }
.note { color: var(--muted); font-size: 13px; }
`

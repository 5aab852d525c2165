package report

import (
	"bytes"
	"html/template"
	"io"
	"path/filepath"
	"strings"

	"github.com/chaosbench/chaosbench/internal/sweep"
)

// WriteCapacityHTML writes capacity.html: the report's sections as one
// self-contained page, the figures embedded as SVG.
func WriteCapacityHTML(w io.Writer, j *sweep.Judgement, figures []Embedded) error {
	c := capacity{j}
	byName := map[string]Embedded{}
	for _, f := range figures {
		byName[f.Name] = f
	}
	var body strings.Builder
	for _, s := range c.sections() {
		s.html(&body, byName)
	}
	return capacityTemplate.Execute(w, struct {
		Title, Subtitle string
		Body            template.HTML
	}{c.title(), c.subtitle(), template.HTML(body.String())})
}

var capacityTemplate = template.Must(template.New("capacity").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>
:root { --fg: #1d2330; --muted: #5b6475; --line: #d9dde5; --bg: #ffffff; --head: #f4f6f9; --good: #1a7f37; --bad: #c62828; }
* { box-sizing: border-box; }
body { margin: 0; padding: 24px 32px 64px; color: var(--fg); background: var(--bg);
       font: 14px/1.45 -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; max-width: 1400px; }
h1 { font-size: 22px; margin: 0 0 4px; }
h2 { font-size: 17px; margin: 32px 0 10px; padding-bottom: 4px; border-bottom: 1px solid var(--line); }
.sub { color: var(--muted); margin-bottom: 18px; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; margin: 8px 0 16px; }
th, td { border: 1px solid var(--line); padding: 4px 10px; vertical-align: top; }
th { background: var(--head); font-weight: 600; text-align: left; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.good { color: var(--good); } td.bad { color: var(--bad); font-weight: 600; }
figure { margin: 12px 0 24px; }
figure img { width: 100%; max-width: 1100px; height: auto; border: 1px solid var(--line); }
figcaption { color: var(--muted); font-size: 13px; margin-top: 4px; }
code { background: var(--head); padding: 0 3px; border-radius: 3px; }
</style>
</head>
<body>
<h1>{{.Title}}</h1>
<div class="sub">{{.Subtitle}}</div>
{{.Body}}
</body>
</html>
`))

// WriteCapacity writes the capacity report into the sweep folder:
// capacity.md, capacity.html and its figures under plots/ (PNG and SVG),
// each to a temporary name renamed into place.
func WriteCapacity(j *sweep.Judgement) error {
	figs, err := CapacityFigures(j)
	if err != nil {
		return err
	}
	if err := writeFigures(j.Dir, figs); err != nil {
		return err
	}
	var md bytes.Buffer
	if err := WriteCapacityMarkdown(&md, j); err != nil {
		return err
	}
	if err := writeFile(filepath.Join(j.Dir, CapacityMarkdownFile), md.Bytes()); err != nil {
		return err
	}
	emb, err := Embed(figs)
	if err != nil {
		return err
	}
	var page bytes.Buffer
	if err := WriteCapacityHTML(&page, j, emb); err != nil {
		return err
	}
	return writeFile(filepath.Join(j.Dir, CapacityHTMLFile), page.Bytes())
}

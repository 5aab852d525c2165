package report

import (
	"encoding/base64"
	"fmt"
	"html/template"
	"io"
	"strings"

	"github.com/chaosbench/chaosbench/internal/summary"
)

// Embedded is a figure ready for the page: its SVG as a data URL.
type Embedded struct {
	Name, Title string
	URL         string
}

// Img returns the figure's <img> element. It is written out here rather
// than by the template, which would escape every '+' of the base64 text
// as an entity; base64 needs no escaping, the alt text does.
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

type htmlCell struct {
	ID, Name, Verdict, VerdictClass, Guarantee, Folder string
	Partial                                            bool
	Reasons                                            []string
	Disruptions                                        [][]htmlTableCell
	Findings                                           []htmlFinding
	Figures                                            []Embedded
}

// htmlTableCell is one cell of a table; Num: a right-aligned figure.
type htmlTableCell struct {
	Text string
	Num  bool
}

type htmlFinding struct {
	Cell, Checker, Kind, Count, Effect, EffectClass, Message string
	Examples                                                 []string
}

type htmlRow struct {
	Label  string
	Values []string
}

type htmlPage struct {
	Title, Subtitle, Verdict, VerdictClass string
	Headers                                []template.HTML
	Rows                                   []htmlRow
	Figures                                []Embedded
	Findings                               []htmlFinding
	Cells                                  []htmlCell
	DisruptionHeads                        []string
	TrafficNote                            string
	Differs                                [][4]string
	Clients                                []htmlClientTable
}

// htmlClientTable is a ClientTable, rendered.
type htmlClientTable struct {
	Title       string
	Heads       []string
	Rows        []htmlRow
	Differences []string
}

func verdictClass(v summary.Verdict) string { return string(v) }

// WriteHTML writes report.html: every table and figure on one page.
// figures are the run's figures as Figures returns them, embedded.
func WriteHTML(w io.Writer, r *Run, figures []Embedded) error {
	byName := map[string]Embedded{}
	for _, f := range figures {
		byName[f.Name] = f
	}
	pg := htmlPage{Title: r.Title(), Subtitle: r.Subtitle(), Verdict: VerdictText(r.Verdict), VerdictClass: verdictClass(r.Verdict)}
	for _, c := range disruptionColumns {
		pg.DisruptionHeads = append(pg.DisruptionHeads, c.head)
	}
	for _, g := range r.Groups {
		pg.Headers = append(pg.Headers, template.HTML(strings.ReplaceAll(template.HTMLEscapeString(strings.ReplaceAll(columnHeader(g), "<br>", "\n")), "\n", "<br>")))
	}
	row := func(label string, f func(*Group) string) {
		hr := htmlRow{Label: label}
		for _, g := range r.Groups {
			hr.Values = append(hr.Values, f(g))
		}
		pg.Rows = append(pg.Rows, hr)
	}
	row("verdict", groupVerdict)
	row("guarantee", func(g *Group) string { return g.Cells[0].S.Guarantee })
	row("host", hostText)
	for _, m := range tableMetrics(r.Groups) {
		m := m
		row(m.Label, func(g *Group) string { return groupValue(m, g) })
	}
	pg.TrafficNote, _ = trafficNote(r.Groups)
	if len(r.Groups) > 1 {
		for _, d := range Differences(r.Groups) {
			best, runner := d.Columns()
			pg.Differs = append(pg.Differs, [4]string{d.Metric.Label, best, runner, d.Verdict()})
		}
	}
	for _, t := range ClientTables(r) {
		ht := htmlClientTable{Title: t.Strategy + " · " + t.Policy}
		for _, g := range t.Groups {
			ht.Heads = append(ht.Heads, fmt.Sprintf("%s (%d)", g.Key.Client, len(g.Cells)))
		}
		for _, row := range t.Rows {
			ht.Rows = append(ht.Rows, htmlRow{Label: row.Metric.Label, Values: row.Values})
		}
		for _, d := range t.Differences {
			ht.Differences = append(ht.Differences, d.Text())
		}
		pg.Clients = append(pg.Clients, ht)
	}
	for _, ref := range sideBySideFigures {
		if f, ok := byName[ref.name]; ok {
			pg.Figures = append(pg.Figures, f)
		}
	}
	for i, c := range r.ordered() {
		s := c.S
		hc := htmlCell{ID: fmt.Sprintf("cell-%d", i+1), Name: cellName(c), Verdict: VerdictText(s.Verdict), VerdictClass: verdictClass(s.Verdict),
			Guarantee: s.Guarantee, Folder: c.Rel, Partial: !s.Cell.Complete, Reasons: s.VerdictReasons}
		for _, d := range s.Disruptions {
			var row []htmlTableCell
			for k, text := range disruptionCells(d) {
				row = append(row, htmlTableCell{Text: text, Num: disruptionColumns[k].num})
			}
			hc.Disruptions = append(hc.Disruptions, row)
		}
		for _, f := range s.Findings {
			hf := htmlFinding{Cell: hc.Name, Checker: f.Checker, Kind: f.Kind, Count: formatCount(float64(f.Count)),
				Effect: string(f.Verdict), EffectClass: verdictClass(f.Verdict), Message: f.Message}
			for _, x := range f.Examples {
				hf.Examples = append(hf.Examples, ExampleText(x))
			}
			hc.Findings = append(hc.Findings, hf)
			pg.Findings = append(pg.Findings, hf)
		}
		slug := CellSlug(c)
		for _, kind := range []string{"timeline", "pause", "duplicates", "skew", "latency", "moves"} {
			if f, ok := byName[kind+"-"+slug]; ok {
				hc.Figures = append(hc.Figures, f)
			}
		}
		pg.Cells = append(pg.Cells, hc)
	}
	return pageTemplate.Execute(w, pg)
}

var pageTemplate = template.Must(template.New("report").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>
:root { --fg: #1d2330; --muted: #5b6475; --line: #d9dde5; --bg: #ffffff; --head: #f4f6f9;
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
</style>
</head>
<body>
<h1>{{.Title}}</h1>
<div class="sub"><span class="badge {{.VerdictClass}}">{{.Verdict}}</span> &nbsp; {{.Subtitle}}</div>

{{if .Differs}}<h2>Where the strategies differ</h2>
<div class="scroll"><table>
<tr><th>metric</th><th>best</th><th>runner-up</th><th>beyond the repeat spread?</th></tr>
{{range .Differs}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{end}}</table></div>
<p class="note">Best is the lowest median; a difference is beyond the spread when the exact Mann-Whitney test of the two columns' repeats gives p &lt; 0.05.</p>
{{end}}
<h2>Strategies side by side</h2>
<div class="scroll"><table class="summary">
<tr><th></th>{{range .Headers}}<th>{{.}}</th>{{end}}</tr>
{{range .Rows}}<tr><td>{{.Label}}</td>{{range .Values}}<td>{{.}}</td>{{end}}</tr>
{{end}}</table></div>
{{if .TrafficNote}}<p class="note">{{.TrafficNote}}</p>{{end}}
<p class="note">Pauses, group stops, recovery and movement count the disruptions of the steady state and after (not the members joining at start); a pause is the target's when its partition belonged to the member the disruption is about (or was created by it), the other partitions' are the rebalance's own cost. Latency is produce-to-process, from the intended send time. Repeated cells show the median and the range over the repeats; a timing measured on a saturated host (the host row) is no sample of the group's: it is shown marked host-bound, and judged nowhere. Definitions: docs/summary.md.</p>

{{if .Clients}}<h2>Clients side by side</h2>
<p class="note">Each strategy and commit policy that ran on several clients: the median over repeats, and the range. A difference is listed when every repeat of one client lies beyond every repeat of the other and the medians differ by more than 10%.</p>
{{range .Clients}}<h3>{{.Title}}</h3>
<div class="scroll"><table class="summary">
<tr><th></th>{{range .Heads}}<th>{{.}}</th>{{end}}</tr>
{{range .Rows}}<tr><td>{{.Label}}</td>{{range .Values}}<td>{{.}}</td>{{end}}</tr>
{{end}}</table></div>
{{if .Differences}}<ul>{{range .Differences}}<li>{{.}}</li>{{end}}</ul>{{else}}<p class="note">No difference beyond the repeats' spread.</p>{{end}}
{{end}}{{end}}{{range .Figures}}<figure>{{.Img false}}<figcaption>{{.Title}}</figcaption></figure>
{{end}}

<h2>Findings</h2>
{{if .Findings}}<div class="scroll"><table>
<tr><th>cell</th><th>checker</th><th>kind</th><th>count</th><th>effect</th><th>what</th></tr>
{{range .Findings}}<tr><td>{{.Cell}}</td><td>{{.Checker}}</td><td>{{.Kind}}</td><td class="num">{{.Count}}</td><td class="{{.EffectClass}}">{{.Effect}}</td><td>{{.Message}}</td></tr>
{{end}}</table></div>{{else}}<p>No findings: no anomaly of any kind in any cell.</p>{{end}}

<h2>Cells</h2>
{{range .Cells}}<details id="{{.ID}}"{{if ne .VerdictClass "valid"}} open{{end}}>
<summary><span class="{{.VerdictClass}}">{{.Verdict}}</span> &nbsp; {{.Name}}</summary>
<p class="note">{{.Guarantee}} · folder <code>{{.Folder}}</code>{{if .Partial}} · <b>partial</b>{{end}}</p>
{{if .Reasons}}<ul>{{range .Reasons}}<li>{{.}}</li>{{end}}</ul>{{end}}
{{if .Disruptions}}<div class="scroll"><table>
<tr>{{range $.DisruptionHeads}}<th>{{.}}</th>{{end}}</tr>
{{range .Disruptions}}<tr>{{range .}}<td{{if .Num}} class="num"{{end}}>{{.Text}}</td>{{end}}</tr>
{{end}}</table></div>{{else}}<p>No disruption.</p>{{end}}
{{range .Findings}}<p><b>{{.Checker}}/{{.Kind}}</b> ({{.Count}}, <span class="{{.EffectClass}}">{{.Effect}}</span>): {{.Message}}</p>
{{if .Examples}}<ul class="examples">{{range .Examples}}<li>{{.}}</li>{{end}}</ul>{{end}}{{end}}
{{range .Figures}}<figure>{{.Img true}}<figcaption>{{.Title}}</figcaption></figure>
{{end}}</details>
{{end}}
</body>
</html>
`))

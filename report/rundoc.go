package report

import (
	"fmt"
	"strings"
)

// The run report is one document (doc.go), written as report.md and as
// report.html. Markdown is meant for a CI job summary: it draws Mermaid
// charts, links the figures and splits wide tables; the page embeds the
// figures and folds each cell's details (runcells.go).

// columnsPerTable caps how many strategies one table of report.md puts
// side by side; more are split over several tables.
const columnsPerTable = 6

// runDocument builds the run report. plotDir is where the figures are,
// relative to the report ("" to leave Markdown's links out).
func runDocument(r *Run, plotDir string) *document {
	// The page shows the side-by-side figures under the clients' tables
	// (under the strategies' when there are none); Markdown links them
	// in a section of its own, next.
	clients := clientsSection(r)
	for _, f := range sideBySideFigures {
		clients.add(placedFigure{name: f.name})
	}
	sections := []*section{differSection(r.Groups), strategiesSection(r.Groups)}
	if eos := exactlyOnceSection(r); eos != nil {
		sections = append(sections, eos)
	}
	sections = append(sections, clients, figureLinks(plotDir), findingsSection(r), cellsSection(r))
	return &document{title: r.Title(), verdict: verdictTag(r.Verdict), subtitle: r.Subtitle(), sections: sections}
}

// strategiesSection puts the strategies side by side, a column per
// group: one table on the page, a table per columnsPerTable groups in
// Markdown, each with its note on the traffic; then what the rows count,
// and Markdown's charts.
func strategiesSection(gs []*Group) *section {
	s := &section{title: phrase{words("Strategies side by side").only(inHTML)}}
	for i := 0; i < len(gs); i += columnsPerTable {
		part := gs[i:min(i+columnsPerTable, len(gs))]
		traffic, _ := trafficNote(part)
		s.add(summaryTable(part, inMarkdown), only{inMarkdown, paragraphOf(value(traffic))})
	}
	traffic, _ := trafficNote(gs)
	s.add(summaryTable(gs, inHTML), only{inHTML, note(value(traffic))})
	s.add(note(words("Pauses, group stops, recovery and movement count the disruptions of the steady state and after (not the members joining at start); a pause is the target's when its partition belonged to the member the disruption is about (or was created by it), the other partitions' are the rebalance's own cost. Latency is produce-to-process, from the intended send time. Repeated cells show the median and the range over the repeats; a timing measured on a saturated host (the host row) is no sample of the group's: it is shown marked host-bound, and judged nowhere. Definitions: docs/summary.md.")))
	for _, c := range headlineCharts(gs) {
		s.add(mermaidChart(c))
	}
	return s
}

// summaryTable is the groups side by side, in one format: Markdown's
// also counts each column's disruptions, and sets the verdict in bold.
func summaryTable(gs []*Group, in format) only {
	t := &tableBlock{class: "summary", align: "l" + strings.Repeat("r", len(gs)), head: []phrase{nil}}
	for _, g := range gs {
		t.head = append(t.head, columnHead(g))
	}
	row := func(label span, text func(*Group) string) {
		r := []cell{{text: phrase{label}}}
		for _, g := range gs {
			r = append(r, cell{text: phrase{value(text(g))}})
		}
		t.rows = append(t.rows, r)
	}
	verdict := value("verdict")
	if in == inMarkdown {
		verdict = strong("verdict")
	}
	row(verdict, groupVerdict)
	row(value("guarantee"), func(g *Group) string { return g.Cells[0].S.Guarantee })
	row(value("host"), hostText)
	if in == inMarkdown {
		row(value("disruptions"), func(g *Group) string {
			n := make([]float64, 0, len(g.Cells))
			for _, c := range g.Cells {
				n = append(n, float64(len(c.S.Disruptions)))
			}
			return formatCount(Median(n))
		})
	}
	for _, m := range tableMetrics(gs) {
		row(value(m.Label), func(g *Group) string { return groupValue(m, g) })
	}
	return only{in, t}
}

// columnHead names a group's column: the strategy over the commit policy
// and client, and how many repeats its values are the median of.
func columnHead(g *Group) phrase {
	h := phrase{value(g.Key.Strategy), newline(), value(g.Key.CommitPolicy + " · " + g.Key.Client)}
	if len(g.Cells) > 1 {
		h = append(h, newline(), value(fmt.Sprintf("median of %d", len(g.Cells))))
	}
	return h
}

// figureLinks links Markdown to the figures in the results folder (the
// page embeds them: nothing of this section shows there).
func figureLinks(plotDir string) *section {
	s := &section{}
	if plotDir == "" {
		return s
	}
	p := paragraphOf(value("Figures in the results folder (PNG and SVG; report.html embeds them): "))
	for i, f := range sideBySideFigures {
		if i > 0 {
			p.text = append(p.text, value(" · "))
		}
		p.text = append(p.text, linkTo(f.title, plotDir+"/"+f.name+".png"))
	}
	s.add(only{inMarkdown, p})
	return s
}

// findingsSection lists every cell's findings; when there is none, it
// says so (under no heading in Markdown).
func findingsSection(r *Run) *section {
	t := &tableBlock{align: "lllrll", head: values("cell", "checker", "kind", "count", "effect", "what")}
	for _, c := range r.ordered() {
		for _, f := range c.S.Findings {
			row := cells(cellName(c), f.Checker, f.Kind, formatCount(float64(f.Count)), string(f.Verdict), f.Message)
			row[4].class = string(f.Verdict)
			t.rows = append(t.rows, row)
		}
	}
	if len(t.rows) == 0 {
		s := &section{title: phrase{words("Findings").only(inHTML)}}
		s.add(paragraphOf(words("No findings: no anomaly of any kind in any cell.")))
		return s
	}
	s := &section{title: phrase{words("Findings")}}
	s.add(t)
	return s
}

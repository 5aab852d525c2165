package report

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/chaosbench/chaosbench/internal/summary"
)

// cellsSection is each cell's details: Markdown gives each a section, the
// page folds each under its verdict (open when not valid).
func cellsSection(r *Run) *section {
	s := &section{title: phrase{words("Cells").only(inHTML)}}
	for i, c := range r.ordered() {
		s.add(cellDetails(fmt.Sprintf("cell-%d", i+1), c))
	}
	return s
}

// cellFigures are the kinds of figure each cell has, in page order.
var cellFigures = []string{"timeline", "pause", "duplicates", "skew", "latency", "moves"}

// cellDetails is a cell's verdict and why, its disruptions, its findings
// with their examples, and its figures. The page shows the verdict on the
// folded line; Markdown, in the line under the heading.
func cellDetails(id string, c *Cell) *collapsible {
	s := c.S
	v := verdictTag(s.Verdict)
	d := &collapsible{id: id, open: s.Verdict != summary.Valid, tag: v, title: phrase{value(cellName(c))}}
	about := note(value(v.text+" · ").only(inMarkdown), value(s.Guarantee+" · folder "), codeSpan(c.Rel))
	if !s.Cell.Complete {
		about.text = append(about.text, value(" · "), strong("partial"))
	}
	var reasons bullets
	for _, r := range s.VerdictReasons {
		reasons = append(reasons, phrase{value(r)})
	}
	d.add(about, reasons)
	if len(s.Disruptions) == 0 {
		d.add(paragraphOf(words("No disruption.")))
	} else {
		d.add(disruptionTable(s.Disruptions))
	}
	if e := s.ExactlyOnce; e != nil {
		d.add(exactlyOnceDetails(e))
	}
	if a := s.Autoscale; a != nil {
		d.add(paragraphOf(words(fmt.Sprintf("Autoscaler: %d scale steps (%d up, %d down), %d changes of direction, between %d and %d members; "+
			"the highest lag per member %.0f records, %.2f times lagThreshold (%d).",
			a.Steps, a.Ups, a.Downs, a.Flaps, a.MinMembers, a.MaxMembers, a.MaxLagPerMember, a.MaxLagOverThreshold, a.LagThreshold))))
		d.add(scaleTable(a.Decisions))
	}
	d.add(findingDetails(s.Findings))
	for _, kind := range cellFigures {
		d.add(placedFigure{name: kind + "-" + CellSlug(c), lazy: true})
	}
	return d
}

// exactlyOnceDetails is a transactional cell's exactly_once section: the
// promise judged on the output topic, what it cost, and the violations'
// examples (the first three in Markdown).
func exactlyOnceDetails(e *summary.ExactlyOnceResult) *detailList {
	l := &detailList{class: "examples"}
	var causes []string
	for _, c := range slices.Sorted(maps.Keys(e.AbortsByCause)) {
		causes = append(causes, fmt.Sprintf("%s %d", c, e.AbortsByCause[c]))
	}
	aborts := "none"
	if len(causes) > 0 {
		aborts = strings.Join(causes, ", ")
	}
	text := fmt.Sprintf(": output read %d read_committed, %d read_uncommitted; output duplicates %d, lost outputs %d, aborted reads %d, reordered %d, invisible commits %d; transactions %d (committed %d, aborted %d, open at a crash %d); aborts by cause: %s; work redone %d; commit p50 %s, p95 %s; end to end (send to commit) p50 %s, p99 %s",
		e.ReadCommitted, e.ReadUncommitted, e.OutputDuplicates, e.LostOutputs, e.AbortedReads, e.Reordered, e.InvisibleCommits,
		e.Transactions, e.Committed, e.Aborted, e.Unended, aborts, e.WorkRedone, FormatMs(e.CommitLatency.P50), FormatMs(e.CommitLatency.P95),
		FormatMs(e.VisibleLatency.P50), FormatMs(e.VisibleLatency.P99))
	if !e.Verified {
		text = ": the output topic was not verified"
	}
	it := detailItem{text: phrase{strong("exactly_once"), value(" ("), tagSpan(tag{string(e.Verdict), string(e.Verdict)}), value(")" + text)}}
	for i, x := range e.Examples {
		in := everywhere
		if i >= 3 {
			in = inHTML
		}
		it.details = append(it.details, phrase{value(ExampleText(x)).only(in)})
	}
	l.items = append(l.items, it)
	return l
}

// disruptionTable is a row per disruption.
func disruptionTable(ds []summary.Disruption) *tableBlock {
	t := &tableBlock{}
	for _, c := range disruptionColumns {
		t.head = append(t.head, phrase{value(c.head)})
		t.align += map[bool]string{true: "r", false: "l"}[c.num]
	}
	for _, d := range ds {
		t.rows = append(t.rows, cells(disruptionCells(d)...))
	}
	return t
}

// scaleTable is a row per decision of the autoscaler and what it cost.
func scaleTable(ds []summary.ScaleStep) *tableBlock {
	t := &tableBlock{align: "rlrrrrrrl"}
	for _, h := range []string{"step", "scale", "lag", "longest pause", "group stop", "duplicates", "moved", "since step 1", "why"} {
		t.head = append(t.head, phrase{value(h)})
	}
	var t0 int64
	if len(ds) > 0 {
		t0 = ds[0].T
	}
	for _, d := range ds {
		t.rows = append(t.rows, cells(fmt.Sprint(d.Step), fmt.Sprintf("%s %d → %d", d.Action, d.From, d.To), fmt.Sprint(d.Lag),
			FormatMs(d.PauseMaxMs), FormatMs(d.GroupStopMs), fmt.Sprint(d.Duplicates), fmt.Sprint(d.Moved),
			fmt.Sprintf("+%.1f s", float64(d.T-t0)/1e9), d.Reason))
	}
	return t
}

// findingDetails are a cell's findings, each with its examples: every
// one on the page, the first three in Markdown (summary.json has the
// rest).
func findingDetails(fs []summary.Finding) *detailList {
	l := &detailList{class: "examples"}
	for _, f := range fs {
		it := detailItem{text: phrase{strong(f.Checker + "/" + f.Kind), value(fmt.Sprintf(" (%s, ", formatCount(float64(f.Count)))),
			tagSpan(tag{string(f.Verdict), string(f.Verdict)}), value("): " + f.Message)}}
		for i, x := range f.Examples {
			in := everywhere
			if i >= 3 {
				in = inHTML
			}
			it.details = append(it.details, phrase{value(ExampleText(x)).only(in)})
		}
		if len(f.Examples) > 3 {
			it.details = append(it.details, phrase{value(fmt.Sprintf("… %d more in summary.json", len(f.Examples)-3)).only(inMarkdown)})
		}
		l.items = append(l.items, it)
	}
	return l
}

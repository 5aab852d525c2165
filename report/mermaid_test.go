package report

import (
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The lines of an xychart-beta bar chart, as Mermaid's grammar has them
// (its documentation, "XY Chart"), restricted to what report.md writes:
// every text quoted, plain decimal numbers.
var (
	mmText   = `"[^"\n]*"`
	mmNumber = `-?[0-9]+(?:\.[0-9]+)?`
	mmLines  = []*regexp.Regexp{
		regexp.MustCompile(`^xychart-beta$`),
		regexp.MustCompile(`^    title ` + mmText + `$`),
		regexp.MustCompile(`^    x-axis \[(` + mmText + `(?:, ` + mmText + `)*)\]$`),
		regexp.MustCompile(`^    y-axis ` + mmText + ` (` + mmNumber + `) --> (` + mmNumber + `)$`),
		regexp.MustCompile(`^    bar \[(` + mmNumber + `(?:, ` + mmNumber + `)*)\]$`),
	}
)

// checkMermaid checks one chart against the grammar: the lines in order,
// as many bars as categories, every bar within the y axis.
func checkMermaid(t *testing.T, chart string) {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(chart, "\n"), "\n")
	if len(lines) != len(mmLines) {
		t.Errorf("%d lines, want %d:\n%s", len(lines), len(mmLines), chart)
		return
	}
	var groups [][]string
	for i, l := range lines {
		m := mmLines[i].FindStringSubmatch(l)
		if m == nil {
			t.Errorf("line %q does not match %s", l, mmLines[i])
			return
		}
		groups = append(groups, m)
	}
	cats := len(strings.Split(groups[2][1], `", "`))
	bars := strings.Split(groups[4][1], ", ")
	if cats != len(bars) {
		t.Errorf("%d categories, %d bars:\n%s", cats, len(bars), chart)
	}
	lo, _ := strconv.ParseFloat(groups[3][1], 64)
	hi, _ := strconv.ParseFloat(groups[3][2], 64)
	if !(hi > lo) {
		t.Errorf("y axis %g --> %g", lo, hi)
	}
	for _, b := range bars {
		if v, _ := strconv.ParseFloat(b, 64); v < lo || v > hi {
			t.Errorf("bar %s outside the axis %g --> %g", b, lo, hi)
		}
	}
}

// mermaidBlocks returns the ```mermaid blocks of a Markdown text.
func mermaidBlocks(md string) []string {
	var out []string
	for _, part := range strings.Split(md, "```mermaid\n")[1:] {
		out = append(out, part[:strings.Index(part, "```")])
	}
	return out
}

// Every chart report.md writes follows the grammar (the golden report's,
// and edge cases: quotes in a label, nothing but zeros, huge and tiny
// values, a group without a value).
func TestMermaidGrammar(t *testing.T) {
	md, err := os.ReadFile(filepath.Join("testdata", "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	blocks := mermaidBlocks(string(md))
	if len(blocks) != len(mermaidCharts) {
		t.Errorf("report.md has %d charts, want %d", len(blocks), len(mermaidCharts))
	}
	for _, b := range blocks {
		checkMermaid(t, b)
	}
	for _, tc := range []struct {
		xs []string
		ys []float64
	}{
		{[]string{`a "quoted" label`, "b"}, []float64{1, 2}},
		{[]string{"zero"}, []float64{0}},
		{[]string{"big", "small"}, []float64{1.5e9, 1e-9}},
		{[]string{"x"}, []float64{0.05}},
	} {
		checkMermaid(t, mermaidBar(`a "title"`, "", tc.xs, tc.ys))
	}
	// A group without a value is left out, not drawn as 0.
	k := Key{"range", "sync-batch", "confluent"}
	g1 := group(k, []float64{100}, []int64{1})
	g2 := group(Key{"sticky", "sync-batch", "franz"}, []float64{100}, []int64{1})
	g2.Cells[0].S.Pause.Stats.Count = 0
	first := headlineCharts([]*Group{g1, g2})[0]
	checkMermaid(t, first)
	if !strings.Contains(first, `x-axis ["range / confluent"]`) {
		t.Errorf("the group without pauses is drawn:\n%s", first)
	}
	if niceCeil(3061) != 5000 || niceCeil(903) != 1000 || niceCeil(44) != 50 || niceCeil(0.3) != 0.5 || math.IsNaN(niceCeil(0)) {
		t.Errorf("niceCeil: %g %g %g %g", niceCeil(3061), niceCeil(903), niceCeil(44), niceCeil(0.3))
	}
}

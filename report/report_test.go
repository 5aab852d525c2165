package report

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chaosbench/chaosbench/internal/check"
	"github.com/chaosbench/chaosbench/internal/summary"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// cases are known-answer cells of package check with distinct keys, and
// one repetition (partial-run, made iteration 1 of loss-at-least-once's
// group), so that the run has every kind of column.
var cases = []string{"kill-eager", "clean-cooperative", "loss-at-least-once", "partial-run", "at-most-once-duplicate",
	"zombie-pause", "add-partitions", "unplanned-rebalance"}

// sharedRun is the run every test reads: the cells copied into a
// temporary run folder and analysed once (TestMain).
var sharedRun *Run

func TestMain(m *testing.M) {
	flag.Parse()
	root, err := os.MkdirTemp("", "report-test-")
	if err != nil {
		panic(err)
	}
	sharedRun, err = makeRun(filepath.Join(root, "20260101T000000Z-known-answers"))
	code := 1
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
	} else {
		code = m.Run()
	}
	os.RemoveAll(root)
	os.Exit(code)
}

func testRun(t *testing.T) *Run {
	t.Helper()
	return sharedRun
}

// makeRun copies the cells into a run folder and loads it, analysing
// every cell.
func makeRun(dir string) (*Run, error) {
	for _, c := range cases {
		src := filepath.Join("..", "internal", "check", "testdata", c)
		dst := filepath.Join(dir, c)
		if err := os.MkdirAll(filepath.Join(dst, "history"), 0o755); err != nil {
			return nil, err
		}
		b, err := os.ReadFile(filepath.Join(src, "cell.json"))
		if err != nil {
			return nil, err
		}
		if c == "partial-run" {
			var m map[string]any
			if err := json.Unmarshal(b, &m); err != nil {
				return nil, err
			}
			m["iteration"] = 1
			b, _ = json.Marshal(m)
		}
		if err := os.WriteFile(filepath.Join(dst, "cell.json"), b, 0o644); err != nil {
			return nil, err
		}
		hs, _ := filepath.Glob(filepath.Join(src, "history", "*.jsonl"))
		for _, h := range hs {
			b, err := os.ReadFile(h)
			if err != nil {
				return nil, err
			}
			if err := os.WriteFile(filepath.Join(dst, "history", filepath.Base(h)), b, 0o644); err != nil {
				return nil, err
			}
		}
	}
	return Load(dir, LoadOptions{Analyze: &Analyzer{Check: check.CheckCells, Analyze: check.Options{}.AnalyzeInMemory}})
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./report -update)", err)
	}
	if !bytes.Equal(got, want) {
		gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
		for i := range max(len(gl), len(wl)) {
			var g, w string
			if i < len(gl) {
				g = gl[i]
			}
			if i < len(wl) {
				w = wl[i]
			}
			if g != w {
				t.Fatalf("%s differs from the golden file at line %d:\n got: %s\nwant: %s\n(run go test ./report -update if the change is intended)", name, i+1, g, w)
			}
		}
	}
}

func TestMarkdownGolden(t *testing.T) {
	r := testRun(t)
	var b bytes.Buffer
	if err := WriteMarkdown(&b, r, PlotDir); err != nil {
		t.Fatal(err)
	}
	golden(t, "report.md", b.Bytes())
}

func TestHTMLGolden(t *testing.T) {
	r := testRun(t)
	figs, err := Figures(r)
	if err != nil {
		t.Fatal(err)
	}
	// Stand-ins for the SVGs: the page's structure is what is compared.
	var emb []Embedded
	for _, f := range figs {
		emb = append(emb, Embedded{Name: f.Name, Title: f.Title, URL: "figure:" + f.Name})
	}
	var b bytes.Buffer
	if err := WriteHTML(&b, r, emb); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, f := range figs {
		if !strings.Contains(page, `src="figure:`+f.Name+`"`) {
			t.Errorf("figure %s is not on the page", f.Name)
		}
	}
	golden(t, "report.html", b.Bytes())
}

// TestWriteAll writes the whole report into the run folder: report.md
// links figures that exist, report.html embeds every figure.
func TestWriteAll(t *testing.T) {
	r := testRun(t)
	if err := WriteAll(r); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(r.Dir, MarkdownFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, ref := range sideBySideFigures {
		link := PlotDir + "/" + ref.name + ".png"
		if !bytes.Contains(md, []byte(link)) {
			t.Errorf("report.md does not link %s", link)
		}
		if _, err := os.Stat(filepath.Join(r.Dir, link)); err != nil {
			t.Error(err)
		}
	}
	page, err := os.ReadFile(filepath.Join(r.Dir, HTMLFile))
	if err != nil {
		t.Fatal(err)
	}
	figs, err := Figures(r)
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(page, []byte(`src="data:image/svg+xml;base64,`)); n != len(figs) {
		t.Errorf("report.html embeds %d figures, want %d", n, len(figs))
	}
	// Every figure: one of each side by side, six per cell, as a PNG of
	// the size asked for and an SVG document.
	if want := len(sideBySideFigures) + 6*len(r.Cells); len(figs) != want {
		t.Errorf("%d figures, want %d", len(figs), want)
	}
	names := map[string]bool{}
	for _, f := range figs {
		if names[f.Name] {
			t.Errorf("two figures named %s", f.Name)
		}
		names[f.Name] = true
		pf, err := os.Open(filepath.Join(r.Dir, PlotDir, f.Name+".png"))
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(pf)
		pf.Close()
		if err != nil {
			t.Fatalf("%s: %v", f.Name, err)
		}
		if w, h := img.Bounds().Dx(), img.Bounds().Dy(); w != int(f.W.Dots(96)+0.5) || h != int(f.H.Dots(96)+0.5) {
			t.Errorf("%s: %dx%d pixels, want %.0fx%.0f", f.Name, w, h, f.W.Dots(96), f.H.Dots(96))
		}
		svg, err := os.ReadFile(filepath.Join(r.Dir, PlotDir, f.Name+".svg"))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(bytes.TrimSpace(svg), []byte("<?xml")) || !bytes.Contains(svg, []byte("<svg")) {
			t.Errorf("%s: not an SVG document", f.Name)
		}
	}
	for _, ref := range sideBySideFigures {
		if !names[ref.name] {
			t.Errorf("no side-by-side figure %s", ref.name)
		}
	}
	if bytes.Contains(page, []byte(`src="http`)) || bytes.Contains(page, []byte(`href="http`)) {
		t.Error("report.html refers to something outside itself")
	}
	tmps, _ := filepath.Glob(filepath.Join(r.Dir, "*.tmp"))
	if len(tmps) > 0 {
		t.Errorf("temporary files left: %v", tmps)
	}
}

// TestLoadGroups: cells are grouped by strategy, policy and client, in
// design order, iterations in order.
func TestLoadGroups(t *testing.T) {
	r := testRun(t)
	var keys []string
	for _, g := range r.Groups {
		keys = append(keys, g.Key.String())
	}
	want := []string{
		"range · sync-batch · confluent",
		"range · commit-before-process · confluent",
		"roundrobin · sync-batch · confluent",
		"roundrobin · commit-before-process · confluent",
		"sticky · sync-batch · franz",
		"cooperative-sticky · async-batch · confluent",
		"cooperative-sticky · async-sync-on-revoke · confluent",
	}
	if strings.Join(keys, "\n") != strings.Join(want, "\n") {
		t.Errorf("groups:\n%s\nwant:\n%s", strings.Join(keys, "\n"), strings.Join(want, "\n"))
	}
	for _, g := range r.Groups {
		if g.Key.Strategy == "sticky" && (len(g.Cells) != 2 || g.Cells[1].S.Cell.Iteration != 1) {
			t.Errorf("sticky group: %d cells", len(g.Cells))
		}
	}
	if r.Verdict != summary.Invalid {
		t.Errorf("run verdict %s, want invalid", r.Verdict)
	}
}

package layers

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// Package report renders. It reaches no package that runs the analysis,
// and reads run folders only in its loaders, whose callers hand them the
// analysis to run (report.Analyzer): what a report shows is what the
// checkers wrote, never a figure computed while rendering.

// analysis are the packages that run the analysis.
var analysis = []string{"internal/check", "internal/check/synth", "assign"}

// reportLoaders are report's files that read run folders.
var reportLoaders = []string{"load.go", "scenariosload.go"}

// reads are the calls that read files or folders, by the import path of
// their package: a name, or a prefix ending in "*".
var reads = map[string][]string{
	"os":                          {"Open", "OpenFile", "ReadFile", "ReadDir", "Stat", "Lstat", "DirFS"},
	"io/fs":                       {"ReadFile", "ReadDir", "WalkDir", "Glob", "Stat"},
	"path/filepath":               {"Walk", "WalkDir", "Glob"},
	module + "internal/runfolder": {"Read*", "Find*"},
	module + "internal/summary":   {"Read*"},
	module + "internal/sweep":     {"Read*", "Find*", "Finished", "Measure*", "Analyze*"},
	module + "internal/history":   {"Open*", "Read*", "Files", "New*Reader*"},
	module + "workloads":          {"Load"},
}

// analysisDeps returns the analysis packages among a package's
// dependencies.
func analysisDeps(deps []string) []string {
	var out []string
	for _, d := range deps {
		if rel, ok := strings.CutPrefix(d, module); ok && slices.Contains(analysis, rel) {
			out = append(out, rel)
		}
	}
	return out
}

func TestReportRunsNoAnalysis(t *testing.T) {
	for _, p := range list(t) {
		if p.path == "report" {
			if bad := analysisDeps(p.deps); len(bad) > 0 {
				t.Errorf("report depends on %v: it renders, and the analysis is the commands' to run (report.Analyzer)", bad)
			}
			return
		}
	}
	t.Fatal("report: not found")
}

// readCalls returns the calls of a Go file that read files or folders.
func readCalls(fset *token.FileSet, f *ast.File) []string {
	imports := map[string]string{} // local name -> import path
	for _, im := range f.Imports {
		path, _ := strconv.Unquote(im.Path.Value)
		name := filepath.Base(path)
		if im.Name != nil {
			name = im.Name.Name
		}
		imports[name] = path
	}
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		x, ok := sel.X.(*ast.Ident)
		if !ok || x.Obj != nil {
			return true
		}
		for _, pat := range reads[imports[x.Name]] {
			if pre, ok := strings.CutSuffix(pat, "*"); ok && strings.HasPrefix(sel.Sel.Name, pre) || pat == sel.Sel.Name {
				out = append(out, fmt.Sprintf("%s: %s.%s", fset.Position(sel.Pos()), x.Name, sel.Sel.Name))
			}
		}
		return true
	})
	return out
}

func TestReportReadsOnlyInItsLoaders(t *testing.T) {
	dir := filepath.Join("..", "..", "report")
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("report's files: %v", err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") || slices.Contains(reportLoaders, filepath.Base(name)) {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range readCalls(fset, f) {
			t.Errorf("%s: report reads a run folder outside its loaders (%s)", c, strings.Join(reportLoaders, ", "))
		}
	}
}

// Both rules can fail: a dependency on the checkers, and a read of
// cell.json while rendering, are caught.
func TestReportRulesCatchViolations(t *testing.T) {
	if got := analysisDeps([]string{"fmt", module + "internal/summary", module + "internal/check"}); !slices.Equal(got, []string{"internal/check"}) {
		t.Errorf("analysisDeps = %v, want [internal/check]", got)
	}
	src := `package report

import (
	"os"
	rf "github.com/chaosbench/chaosbench/internal/runfolder"
)

func cpus(dir string) int {
	rec, _ := rf.ReadCell(dir)
	_, _ = os.ReadFile(dir)
	_ = rf.WriteFile(dir, nil)
	return rec.Machine.CPUs
}
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "capacitymd.go", src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	got := readCalls(fset, f)
	if len(got) != 2 || !strings.Contains(got[0], "rf.ReadCell") || !strings.Contains(got[1], "os.ReadFile") {
		t.Errorf("readCalls = %q, want rf.ReadCell and os.ReadFile (and not rf.WriteFile)", got)
	}
}

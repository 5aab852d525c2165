package layers

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/chaosbench/chaosbench/internal/vocab"
)

// The design's recipes (docs/design.md, "Recipes") name every file a new
// chaos action, commit policy or client touches. A row marked "every"
// must name every name of its kind; this test holds them to the
// vocabulary, so that a name added to internal/vocab and forgotten in one
// of them fails here.

// recipe is one recipe table: its kind's names and the vocabulary
// constants' prefix.
type recipe struct {
	marker, prefix string
	names          []string
}

var recipes = []recipe{
	{"actions", "Action", vocab.ActionNames()},
	{"policies", "Policy", vocab.PolicyNames()},
	{"clients", "Client", vocab.ClientNames()},
}

// recipeRow is a row of a recipe table: its files and whether every
// name must be in them.
type recipeRow struct {
	files []string
	every bool
}

var backquoted = regexp.MustCompile("`([^`]+)`")

// recipeRows reads the table that follows <!-- recipe: marker --> in doc.
func recipeRows(doc, marker string) ([]recipeRow, error) {
	_, rest, ok := strings.Cut(doc, "<!-- recipe: "+marker+" -->")
	if !ok {
		return nil, fmt.Errorf("no <!-- recipe: %s --> table", marker)
	}
	var rows []recipeRow
	for i, line := range strings.Split(rest, "\n")[1:] {
		if strings.TrimSpace(line) == "" {
			break
		}
		if i < 2 {
			continue
		}
		cells := strings.Split(strings.Trim(strings.TrimSpace(line), "|"), "|")
		if len(cells) != 3 {
			return nil, fmt.Errorf("recipe %s: %q: expected | files | what | every or if |", marker, line)
		}
		var r recipeRow
		for _, m := range backquoted.FindAllStringSubmatch(cells[0], -1) {
			r.files = append(r.files, m[1])
		}
		switch strings.TrimSpace(cells[2]) {
		case "every":
			r.every = true
		case "if":
		default:
			return nil, fmt.Errorf("recipe %s: %q: the last column is every or if", marker, line)
		}
		if len(r.files) == 0 {
			return nil, fmt.Errorf("recipe %s: %q: no file in backquotes", marker, line)
		}
		rows = append(rows, r)
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("recipe %s: no rows", marker)
	}
	return rows, nil
}

// vocabConstants maps each value of vocab.go's string constants with the
// prefix to the constant's name ("rolling_restart" -> ActionRollingRestart).
func vocabConstants(t *testing.T, prefix string) map[string]string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, filepath.Join("..", "vocab", "vocab.go"), nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, spec := range g.Specs {
			vs := spec.(*ast.ValueSpec)
			for i, n := range vs.Names {
				if i < len(vs.Values) && strings.HasPrefix(n.Name, prefix) {
					if lit, ok := vs.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
						v, _ := strconv.Unquote(lit.Value)
						out[v] = n.Name
					}
				}
			}
		}
	}
	return out
}

// mentions reports whether a file's text names a name: a Go file by the
// vocabulary constant or the quoted name, any other file by the name in
// backquotes or quoted.
func mentions(path, text, name, constant string) bool {
	if strings.HasSuffix(path, ".go") && constant != "" &&
		regexp.MustCompile(`\b`+regexp.QuoteMeta(constant)+`\b`).MatchString(text) {
		return true
	}
	return strings.Contains(text, strconv.Quote(name)) || strings.Contains(text, "`"+name+"`")
}

// missing returns, for each "every" row, the names none of its files
// mention; read gives a file's text.
func missing(rows []recipeRow, names []string, constants map[string]string, read func(string) (string, error)) ([]string, error) {
	var out []string
	for _, r := range rows {
		var texts []string
		for _, f := range r.files {
			text, err := read(f)
			if err != nil {
				return nil, err
			}
			texts = append(texts, text)
		}
		if !r.every {
			continue
		}
		for _, n := range names {
			if !slices.ContainsFunc(r.files, func(f string) bool {
				return mentions(f, texts[slices.Index(r.files, f)], n, constants[n])
			}) {
				out = append(out, fmt.Sprintf("%s: no %s", strings.Join(r.files, ", "), n))
			}
		}
	}
	return out, nil
}

// readRepo reads a file or, for a folder, checks that it exists.
func readRepo(rel string) (string, error) {
	path := filepath.Join("..", "..", filepath.FromSlash(rel))
	st, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	if st.IsDir() {
		return "", nil
	}
	b, err := os.ReadFile(path)
	return string(b), err
}

func TestRecipesNameEveryName(t *testing.T) {
	b, err := os.ReadFile(designPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, rc := range recipes {
		rows, err := recipeRows(string(b), rc.marker)
		if err != nil {
			t.Errorf("%s: %v", designPath, err)
			continue
		}
		miss, err := missing(rows, rc.names, vocabConstants(t, rc.prefix), readRepo)
		if err != nil {
			t.Errorf("%s: recipe %s: %v", designPath, rc.marker, err)
			continue
		}
		for _, m := range miss {
			t.Errorf("%s: recipe %s: %s (add it there, or the row is wrong)", designPath, rc.marker, m)
		}
	}
}

// The check can fail: a name missing from a file of an "every" row is
// caught, in Go by its constant or its quoted name, in a document by its
// name in backquotes; an "if" row is not held to every name.
func TestRecipesCatchAMissingName(t *testing.T) {
	doc := "<!-- recipe: actions -->\n| files | what | names |\n|---|---|---|\n" +
		"| `a.go` | | every |\n| `b.md`, `c.go` | | every |\n| `d.go` | | if |\n"
	rows, err := recipeRows(doc, "actions")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"a.go": `case vocab.ActionKill: case "fence":`,
		"b.md": "`kill`",
		"c.go": `x := 1`,
		"d.go": ``,
	}
	got, err := missing(rows, []string{"kill", "fence", "rolling_restart"},
		map[string]string{"kill": "ActionKill", "rolling_restart": "ActionRollingRestart"},
		func(f string) (string, error) { return files[f], nil })
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"a.go: no rolling_restart", "b.md, c.go: no fence", "b.md, c.go: no rolling_restart"}
	if !slices.Equal(got, want) {
		t.Errorf("missing = %q, want %q", got, want)
	}
	if _, err := missing(rows, nil, nil, func(f string) (string, error) { return "", os.ErrNotExist }); err == nil {
		t.Error("a recipe naming a file that does not exist passes")
	}
}

package layers

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The design's file map (docs/design.md, "File map") gives every file a
// reader may look for a line under its package: every Go file that is not
// a test, and the Java programs' sources (.java files and their pom.xml).
// This test holds the map to the tree, so that a file added without a
// line, or a line left for a file that is gone, fails here.

// fileEntry is a file the map lists.
type fileEntry struct {
	pkg  string // the package it is listed under
	path string // from the repository root, with slashes
	line int    // its line in the document
}

var (
	// mapPackage is a package's line: **`internal/vocab`**, maybe a lead after it.
	mapPackage = regexp.MustCompile("^\\*\\*`([^`]+)`\\*\\*")
	// mapItem is a file's line, "- `vocab.go`: what it holds", or a
	// folder's, "- `java/src/`: ...", whose files are the lines nested
	// under it (indented by two spaces a level).
	mapItem = regexp.MustCompile("^( *)- `([^`]+)`")
)

// fileMap reads the map that follows <!-- files: ... --> in doc, up to the
// next heading: its packages in order, and the files listed under them.
func fileMap(doc string) (pkgs []string, entries []fileEntry, err error) {
	before, rest, ok := strings.Cut(doc, "<!-- files:")
	if !ok {
		return nil, nil, fmt.Errorf("no <!-- files: ... --> marker before the file map")
	}
	first := strings.Count(before, "\n") + 2 // the line after the marker's
	var pkg string
	var folders []string // the folders open at each depth, relative to pkg
	for i, line := range strings.Split(rest, "\n")[1:] {
		n := first + i
		if strings.HasPrefix(line, "#") {
			break
		}
		if strings.TrimSpace(line) == "" {
			continue
		}
		if m := mapPackage.FindStringSubmatch(line); m != nil {
			if slices.Contains(pkgs, m[1]) {
				return nil, nil, fmt.Errorf("file map, line %d: package %s listed twice", n, m[1])
			}
			pkg, folders = m[1], nil
			pkgs = append(pkgs, pkg)
			continue
		}
		m := mapItem.FindStringSubmatch(line)
		if m == nil {
			return nil, nil, fmt.Errorf("file map, line %d: %q: expected **`package`** or - `file`: what it holds", n, line)
		}
		depth := len(m[1]) / 2
		switch name := m[2]; {
		case pkg == "":
			return nil, nil, fmt.Errorf("file map, line %d: %s comes before any **`package`** line", n, name)
		case len(m[1])%2 != 0 || depth > len(folders):
			return nil, nil, fmt.Errorf("file map, line %d: %q: a nested line is indented two spaces more than its folder's", n, line)
		case name == "" || strings.HasPrefix(name, "/") || slices.Contains(strings.Split(name, "/"), ".."):
			return nil, nil, fmt.Errorf("file map, line %d: %q: a file is named from its package's folder", n, name)
		default:
			rel := name
			if depth > 0 {
				rel = folders[depth-1] + name
			}
			folders = folders[:depth]
			if strings.HasSuffix(name, "/") {
				folders = append(folders, rel)
				continue
			}
			entries = append(entries, fileEntry{pkg, path.Join(pkg, rel), n})
		}
	}
	if len(entries) == 0 {
		return nil, nil, fmt.Errorf("file map: no files")
	}
	return pkgs, entries, nil
}

// layerOrder returns the packages of the design's layer table, in its
// order.
func layerOrder(doc string) ([]string, error) {
	rows, err := layerRows(doc)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, r := range rows {
		out = append(out, r[2])
	}
	return out, nil
}

// listed reports whether a file is one the map must list: a Go file that
// is not a test, or a Java program's source.
func listed(name string) bool {
	return strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go") ||
		strings.HasSuffix(name, ".java") || name == "pom.xml"
}

// source reports whether a file is of a kind the map lists, test or not.
func source(name string) bool {
	return strings.HasSuffix(name, ".go") || strings.HasSuffix(name, ".java") || name == "pom.xml"
}

// skipped reports whether a folder holds nothing the map lists: test
// data, run results (the top-level results/), hidden folders, folders the
// go command ignores (_*, testdata, vendor), build output (Maven's
// target/) and other modules (a folder with its own go.mod).
func skipped(root, dir string, d fs.DirEntry) bool {
	name := d.Name()
	if dir == root {
		return false
	}
	if strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") ||
		slices.Contains([]string{"testdata", "vendor", "node_modules", "target"}, name) ||
		filepath.Clean(dir) == filepath.Join(root, "results") {
		return true
	}
	_, err := os.Stat(filepath.Join(dir, "go.mod"))
	return err == nil
}

// treeFiles returns the files under root the map must list, as slash
// paths from root, leaving out the skipped folders and the files ignored
// says are ignored. It reads every .gitignore on its way, so that a
// change to one is a change to the test's inputs (go test caches a
// test's result by the files it opened).
func treeFiles(root string, ignored func(paths []string) (map[string]bool, error)) ([]string, error) {
	var files []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if skipped(root, p, d) {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Name() == ".gitignore" {
			_, err := os.ReadFile(p)
			return err
		}
		if !listed(d.Name()) {
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		files = append(files, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		return nil, err
	}
	ig, err := ignored(files)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(files, func(f string) bool { return ig[f] }), nil
}

// gitIgnored returns the paths (relative to root) git ignores there. Where
// there is no git, or root is not in a work tree, it returns none: the
// folders treeFiles skips are then all that is left out.
func gitIgnored(root string, paths []string) (map[string]bool, error) {
	if _, err := exec.LookPath("git"); err != nil {
		return nil, nil
	}
	cmd := exec.Command("git", "-C", root, "check-ignore", "-z", "--stdin")
	cmd.Stdin = strings.NewReader(strings.Join(paths, "\x00") + "\x00")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee) && ee.ExitCode() == 1: // nothing ignored
		return nil, nil
	case errors.As(err, &ee) && ee.ExitCode() == 128: // not a work tree
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("git check-ignore: %v: %s", err, stderr.Bytes())
	}
	ig := map[string]bool{}
	for _, p := range strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00") {
		ig[p] = true
	}
	return ig, nil
}

// home is the package a file belongs under: a Go file's folder; for any
// other file, the package of pkgs whose folder is its nearest ("" when
// none holds it).
func home(file string, pkgs []string) string {
	if strings.HasSuffix(file, ".go") {
		return path.Dir(file)
	}
	best := ""
	for _, p := range pkgs {
		if strings.HasPrefix(file, p+"/") && len(p) > len(best) {
			best = p
		}
	}
	return best
}

// mapDiffers says where the file map differs from the tree and from the
// layer table: pkgs and entries are the map's, tree the files it must
// list, order the layer table's packages, and exists whether a listed
// file is in the tree.
func mapDiffers(pkgs []string, entries []fileEntry, tree, order []string, exists func(string) bool) []string {
	const where = "docs/design.md's file map"
	var out []string
	for _, p := range order {
		if !slices.Contains(pkgs, p) {
			out = append(out, fmt.Sprintf("package %s has no lines in %s: add them, in the layer table's order", p, where))
		}
	}
	for _, p := range pkgs {
		if !slices.Contains(order, p) {
			out = append(out, fmt.Sprintf("package %s is in %s, not in the layer table: remove its lines", p, where))
		}
	}
	if len(out) == 0 && !slices.Equal(pkgs, order) {
		for i := range pkgs {
			if pkgs[i] != order[i] {
				out = append(out, fmt.Sprintf("%s lists %s where the layer table has %s: list the packages in the table's order", where, pkgs[i], order[i]))
				break
			}
		}
	}
	seen := map[string]int{}
	for _, e := range entries {
		if l, dup := seen[e.path]; dup {
			out = append(out, fmt.Sprintf("docs/design.md:%d: %s is listed twice in the file map (first at line %d): remove one", e.line, e.path, l))
			continue
		}
		seen[e.path] = e.line
		switch h := home(e.path, order); {
		case !exists(e.path):
			out = append(out, fmt.Sprintf("docs/design.md:%d: %s is gone: remove its line from the file map", e.line, e.path))
		case source(path.Base(e.path)) && !slices.Contains(tree, e.path):
			out = append(out, fmt.Sprintf("docs/design.md:%d: %s is a test, test data or an ignored file: remove its line from the file map", e.line, e.path))
		case h != e.pkg:
			out = append(out, fmt.Sprintf("docs/design.md:%d: %s is listed under %s: move its line in the file map under its own package, %s", e.line, e.path, e.pkg, h))
		}
	}
	for _, f := range tree {
		if _, ok := seen[f]; ok {
			continue
		}
		if h := home(f, order); h != "" {
			out = append(out, fmt.Sprintf("%s has no line in %s: add one under %s", f, where, h))
		} else {
			out = append(out, fmt.Sprintf("%s has no line in %s, and no package of the layer table holds it", f, where))
		}
	}
	return out
}

// The file map lists every file of the tree it must, each under its own
// package, and nothing else; its packages are the layer table's, in its
// order.
func TestFileMapIsTheTree(t *testing.T) {
	b, err := os.ReadFile(designPath)
	if err != nil {
		t.Fatal(err)
	}
	pkgs, entries, err := fileMap(string(b))
	if err != nil {
		t.Fatalf("%s: %v", designPath, err)
	}
	order, err := layerOrder(string(b))
	if err != nil {
		t.Fatalf("%s: %v", designPath, err)
	}
	root := filepath.Join("..", "..")
	tree, err := treeFiles(root, func(paths []string) (map[string]bool, error) { return gitIgnored(root, paths) })
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(tree, "internal/layers/doc.go") {
		t.Fatalf("the walk from %s found %d files, not internal/layers/doc.go: not the module's root", root, len(tree))
	}
	exists := func(p string) bool {
		st, err := os.Stat(filepath.Join(root, filepath.FromSlash(p)))
		return err == nil && !st.IsDir()
	}
	for _, d := range mapDiffers(pkgs, entries, tree, order, exists) {
		t.Error(d)
	}
}

// The check can fail: a file without a line, a line for a file that is
// gone, for a test or under another package, a line twice and a package
// out of the table's order are caught; the walk leaves out tests, test
// data, results, hidden and build folders, other modules and ignored
// files; a malformed map is an error.
func TestFileMapCheckCatchesDifferences(t *testing.T) {
	root := t.TempDir()
	for _, f := range []string{
		"go.mod", "a/a.go", "a/a_test.go", "a/new.go", "a/testdata/x.go", "a/README.md",
		"b/b.go", "b/java/pom.xml", "b/java/src/M.java", "b/java/src/N.java", "b/java/target/G.java",
		"results/r.go", ".hidden/h.go", "_old/o.go", "a/ignored.go", "other/go.mod", "other/o.go",
	} {
		p := filepath.Join(root, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tree, err := treeFiles(root, func(paths []string) (map[string]bool, error) {
		return map[string]bool{"a/ignored.go": true}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"a/a.go", "a/new.go", "b/b.go", "b/java/pom.xml", "b/java/src/M.java", "b/java/src/N.java"}
	if !slices.Equal(tree, want) {
		t.Errorf("treeFiles = %q, want %q", tree, want)
	}

	doc := "# Design\n\n<!-- files: -->\n\n" +
		"**`b`**: a lead.\n" +
		"- `b.go`: b\n" +
		"- `java/pom.xml`: its project\n" +
		"- `java/src/`: its sources\n" +
		"  - `M.java`: m\n" +
		"- `b.go`: again\n" +
		"**`a`**\n" +
		"- `a.go`: a\n" +
		"- `gone.go`: gone\n" +
		"- `a_test.go`: a test\n" +
		"- `README.md`: not required, but there\n" +
		"\n## Vocabulary\n- `after.go`: not the map's\n"
	pkgs, entries, err := fileMap(doc)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(pkgs, []string{"b", "a"}) || len(entries) != 8 || entries[2] != (fileEntry{"b", "b/java/src/M.java", 9}) {
		t.Fatalf("fileMap = %q, %v", pkgs, entries)
	}
	exists := func(p string) bool {
		_, err := os.Stat(filepath.Join(root, filepath.FromSlash(p)))
		return err == nil
	}
	got := mapDiffers(pkgs, entries, tree, []string{"a", "b"}, exists)
	want = []string{
		"docs/design.md's file map lists b where the layer table has a: list the packages in the table's order",
		"docs/design.md:10: b/b.go is listed twice in the file map (first at line 6): remove one",
		"docs/design.md:13: a/gone.go is gone: remove its line from the file map",
		"docs/design.md:14: a/a_test.go is a test, test data or an ignored file: remove its line from the file map",
		"a/new.go has no line in docs/design.md's file map: add one under a",
		"b/java/src/N.java has no line in docs/design.md's file map: add one under b",
	}
	if !slices.Equal(got, want) {
		t.Errorf("differences:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	// A file listed under another package than its own.
	moved := []fileEntry{{"a", "a/a.go", 1}, {"a", "b/b.go", 2}}
	got = mapDiffers([]string{"a", "b"}, moved, []string{"a/a.go", "b/b.go"}, []string{"a", "b"}, exists)
	want = []string{"docs/design.md:2: b/b.go is listed under a: move its line in the file map under its own package, b"}
	if !slices.Equal(got, want) {
		t.Errorf("differences %q, want %q", got, want)
	}
	// A package missing, and one the layer table does not have.
	got = mapDiffers([]string{"a", "c"}, moved[:1], []string{"a/a.go"}, []string{"a", "b"}, exists)
	want = []string{
		"package b has no lines in docs/design.md's file map: add them, in the layer table's order",
		"package c is in docs/design.md's file map, not in the layer table: remove its lines",
	}
	if !slices.Equal(got, want) {
		t.Errorf("differences %q, want %q", got, want)
	}

	for _, bad := range []string{
		"**`a`**\n- `a.go`: a\n",                                 // no marker
		"<!-- files: -->\n- `a.go`: before any package\n",        // no package
		"<!-- files: -->\n**`a`**\n a.go: not an item\n",         // not a line of the map
		"<!-- files: -->\n**`a`**\n- `a.go`: a\n  - `b.go`\n",    // nested under a file
		"<!-- files: -->\n**`a`**\n- `a.go`\n**`a`**\n",          // a package twice
		"<!-- files: -->\n**`a`**\n- `../b.go`: outside\n",       // out of the folder
		"<!-- files: -->\n**`a`**\n\n## Next\n- `a.go`: after\n", // no files
	} {
		if _, _, err := fileMap(bad); err == nil {
			t.Errorf("fileMap(%q) passes", bad)
		}
	}
}

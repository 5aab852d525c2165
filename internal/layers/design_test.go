package layers

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// designPath is the design document whose layer table states the rules
// of this package's test.
var designPath = filepath.Join("..", "..", "docs", "design.md")

// tableRow is one row of the design's layer table: | 0 | `internal/vocab` | ✓ | what |.
var tableRow = regexp.MustCompile("^\\| *([0-9]+) *\\| *`([^`]+)` *\\| *(✓?) *\\|")

// layerRows reads the rows of the layer table that follows the marker
// line in the design, in order: each row's layer, package and pure mark
// (tableRow's submatches).
func layerRows(doc string) ([][]string, error) {
	_, rest, ok := strings.Cut(doc, "<!-- layers:")
	if !ok {
		return nil, fmt.Errorf("no <!-- layers: ... --> marker before the layer table")
	}
	var rows [][]string
	lines := strings.Split(rest, "\n")[1:]
	for i, line := range lines {
		if strings.TrimSpace(line) == "" {
			break
		}
		if i < 2 { // the header and its rule
			continue
		}
		m := tableRow.FindStringSubmatch(line)
		if m == nil {
			return nil, fmt.Errorf("layer table: %q: expected | layer | `package` | ✓ or nothing | what |", line)
		}
		rows = append(rows, m)
	}
	return rows, nil
}

// layerTable reads the layer table that follows the marker line in the
// design: each package's layer, and which are pure.
func layerTable(doc string) (layers map[string]int, pure []string, err error) {
	rows, err := layerRows(doc)
	if err != nil {
		return nil, nil, err
	}
	layers = map[string]int{}
	for _, m := range rows {
		n, _ := strconv.Atoi(m[1])
		if _, dup := layers[m[2]]; dup {
			return nil, nil, fmt.Errorf("layer table: %s listed twice", m[2])
		}
		layers[m[2]] = n
		if m[3] != "" {
			pure = append(pure, m[2])
		}
	}
	return layers, pure, nil
}

// tableDiffers says where a layer table differs from the rules.
func tableDiffers(table map[string]int, tablePure []string, rules map[string]int, rulesPure []string) []string {
	var out []string
	for _, p := range slices.Sorted(mapsKeys(rules)) {
		switch l, ok := table[p]; {
		case !ok:
			out = append(out, fmt.Sprintf("%s (layer %d) is not in the table", p, rules[p]))
		case l != rules[p]:
			out = append(out, fmt.Sprintf("%s: layer %d in the table, %d in the rules", p, l, rules[p]))
		}
	}
	for _, p := range slices.Sorted(mapsKeys(table)) {
		if _, ok := rules[p]; !ok {
			out = append(out, fmt.Sprintf("%s is in the table, not in the rules", p))
		}
	}
	for _, p := range rulesPure {
		if !slices.Contains(tablePure, p) {
			out = append(out, fmt.Sprintf("%s is pure by the rules, not marked ✓ in the table", p))
		}
	}
	for _, p := range tablePure {
		if !slices.Contains(rulesPure, p) {
			out = append(out, fmt.Sprintf("%s is marked ✓ in the table, not pure by the rules", p))
		}
	}
	return out
}

func mapsKeys(m map[string]int) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// The design's layer table says what the rules of this test say.
func TestDesignTableIsTheRules(t *testing.T) {
	b, err := os.ReadFile(designPath)
	if err != nil {
		t.Fatal(err)
	}
	table, tablePure, err := layerTable(string(b))
	if err != nil {
		t.Fatalf("%s: %v", designPath, err)
	}
	for _, d := range tableDiffers(table, tablePure, layer, pure) {
		t.Errorf("%s: %s", designPath, d)
	}
}

// The check can fail: a table that moves, drops, adds or mislabels a
// package is caught.
func TestDesignTableCheckCatchesDifferences(t *testing.T) {
	doc := "<!-- layers: -->\n| layer | package | pure | what |\n|---|---|---|---|\n" +
		"| 0 | `a` | ✓ | |\n| 1 | `b` | | |\n| 2 | `c` | | |\n\nafter"
	table, tablePure, err := layerTable(doc)
	if err != nil {
		t.Fatal(err)
	}
	rules := map[string]int{"a": 0, "b": 2, "d": 3}
	got := tableDiffers(table, tablePure, rules, []string{"a", "b"})
	want := []string{"b: layer 1 in the table, 2 in the rules", "d (layer 3) is not in the table",
		"c is in the table, not in the rules", "b is pure by the rules, not marked ✓ in the table"}
	if !slices.Equal(got, want) {
		t.Errorf("differences %q, want %q", got, want)
	}
	if _, _, err := layerTable("| 0 | `a` | | |"); err == nil {
		t.Error("a design without the marker passes")
	}
	if _, _, err := layerTable("<!-- layers: -->\n| h |\n|---|\n| zero | `a` | | |\n"); err == nil {
		t.Error("a malformed row passes")
	}
}

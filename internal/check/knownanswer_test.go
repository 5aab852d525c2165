package check

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/*/history/*.jsonl from history.txt")

// TestKnownAnswers runs the checkers over every hand-written history
// under testdata and compares the summary with the case's want.json,
// written by hand from the history: every field want.json names must have
// exactly that value (lists must match in length and element by element;
// fields want.json leaves out are not compared).
func TestKnownAnswers(t *testing.T) {
	cases, err := filepath.Glob("testdata/*/history.txt")
	if err != nil || len(cases) == 0 {
		t.Fatalf("no known-answer cases under testdata (%v)", err)
	}
	for _, notation := range cases {
		dir := filepath.Dir(notation)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			evs, err := parseNotation(notation)
			if err != nil {
				t.Fatal(err)
			}
			hdir := filepath.Join(dir, "history")
			if *update {
				if err := writeHistories(hdir, evs); err != nil {
					t.Fatal(err)
				}
			} else {
				tmp := t.TempDir()
				if err := writeHistories(tmp, evs); err != nil {
					t.Fatal(err)
				}
				if diff := compareDirs(tmp, hdir); diff != "" {
					t.Fatalf("%s is stale (run go test -run TestKnownAnswers -update): %s", hdir, diff)
				}
			}
			s, err := AnalyzeCell(dir, Options{})
			if err != nil {
				t.Fatal(err)
			}
			got, err := toGeneric(s)
			if err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(filepath.Join(dir, "want.json"))
			if err != nil {
				t.Fatal(err)
			}
			var want any
			if err := json.Unmarshal(b, &want); err != nil {
				t.Fatalf("want.json: %v", err)
			}
			var diffs []string
			matchPartial("", want, got, &diffs)
			for _, d := range diffs {
				t.Error(d)
			}
			if t.Failed() {
				js, _ := json.MarshalIndent(s, "", "  ")
				t.Logf("summary:\n%s", js)
			}
		})
	}
}

func toGeneric(v any) (any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var g any
	err = json.Unmarshal(b, &g)
	return g, err
}

// matchPartial appends to diffs every place where got differs from want,
// looking only at the object fields want has.
func matchPartial(path string, want, got any, diffs *[]string) {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			*diffs = append(*diffs, fmt.Sprintf("%s: want an object, got %v", path, got))
			return
		}
		keys := make([]string, 0, len(w))
		for k := range w {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			gv, ok := g[k]
			if !ok {
				if w[k] == nil {
					continue
				}
				*diffs = append(*diffs, fmt.Sprintf("%s.%s: missing, want %v", path, k, jsonString(w[k])))
				continue
			}
			matchPartial(path+"."+k, w[k], gv, diffs)
		}
	case []any:
		g, ok := got.([]any)
		if !ok && got == nil {
			g, ok = []any{}, true
		}
		if !ok {
			*diffs = append(*diffs, fmt.Sprintf("%s: want a list, got %v", path, jsonString(got)))
			return
		}
		if len(g) != len(w) {
			*diffs = append(*diffs, fmt.Sprintf("%s: want %d elements, got %d: %s", path, len(w), len(g), jsonString(got)))
			return
		}
		for i := range w {
			matchPartial(fmt.Sprintf("%s[%d]", path, i), w[i], g[i], diffs)
		}
	default:
		if !reflect.DeepEqual(want, got) {
			*diffs = append(*diffs, fmt.Sprintf("%s: want %s, got %s", path, jsonString(want), jsonString(got)))
		}
	}
}

func jsonString(v any) string {
	b, _ := json.Marshal(v)
	if len(b) > 400 {
		b = append(b[:400], "..."...)
	}
	return string(b)
}

func compareDirs(a, b string) string {
	la, _ := filepath.Glob(filepath.Join(a, "*.jsonl"))
	lb, _ := filepath.Glob(filepath.Join(b, "*.jsonl"))
	if len(la) != len(lb) {
		return fmt.Sprintf("%d files, want %d", len(lb), len(la))
	}
	for i := range la {
		if filepath.Base(la[i]) != filepath.Base(lb[i]) {
			return fmt.Sprintf("file %s, want %s", filepath.Base(lb[i]), filepath.Base(la[i]))
		}
		x, _ := os.ReadFile(la[i])
		y, _ := os.ReadFile(lb[i])
		if !bytes.Equal(x, y) {
			return filepath.Base(la[i]) + " differs"
		}
	}
	return ""
}

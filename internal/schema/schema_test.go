package schema

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/chaosbench/chaosbench/internal/check"
	"github.com/chaosbench/chaosbench/internal/summary"
)

var update = flag.Bool("update", false, "rewrite the published schemas under docs/schema")

// summarySchema is docs/schema/summary.schema.json, from summary.Summary and
// the documentation of its fields.
func summarySchema(t *testing.T) []byte {
	t.Helper()
	docs, err := Docs(filepath.Join("..", "summary"))
	if err != nil {
		t.Fatal(err)
	}
	s := Generate(reflect.TypeFor[summary.Summary](), Options{
		ID:    "summary.schema.json",
		Title: "chaosbench summary.json",
		Description: "What the checkers found in one cell's history (chaos analyze), schema version " +
			jsonNumber(summary.SchemaVersion) + ". Field by field in docs/summary.md; generated from the Go type summary.Summary (go test ./internal/schema -update).",
		Docs:     docs,
		Enums:    map[string][]string{"Verdict": {string(summary.Valid), string(summary.Unknown), string(summary.Invalid)}},
		Required: []string{"schema_version"},
	})
	b, err := s.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func jsonNumber(n int) string { b, _ := json.Marshal(n); return string(b) }

const summaryPath = "../../docs/schema/summary.schema.json"

// The published schema is the one the Go type gives: it cannot drift.
func TestSummarySchemaIsCurrent(t *testing.T) {
	got := summarySchema(t)
	if *update {
		if err := os.WriteFile(summaryPath, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(summaryPath)
	if err != nil {
		t.Fatalf("%v (go test ./internal/schema -update writes it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is not what summary.Summary gives: run go test ./internal/schema -update and review the diff", summaryPath)
	}
}

// compile compiles a published schema.
func compile(t *testing.T, path string) *jsonschema.Schema {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	url := "file:///" + filepath.Base(path)
	if err := c.AddResource(url, doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(url)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return s
}

func validate(t *testing.T, s *jsonschema.Schema, name string, b []byte) error {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return s.Validate(v)
}

// Real summaries validate: those of every known-answer cell, analysed
// now, and the committed baseline's, written by an earlier version of the
// same schema. A summary with a field of the wrong type does not.
func TestRealSummariesValidate(t *testing.T) {
	s := compile(t, summaryPath)
	cases, _ := filepath.Glob(filepath.Join("..", "check", "testdata", "*", "cell.json"))
	if len(cases) < 10 {
		t.Fatalf("%d known-answer cells", len(cases))
	}
	var one []byte
	for _, c := range cases {
		sum, err := check.AnalyzeCell(filepath.Dir(c), check.Options{})
		if err != nil {
			t.Fatalf("%s: %v", c, err)
		}
		b, err := json.Marshal(sum)
		if err != nil {
			t.Fatal(err)
		}
		if err := validate(t, s, c, b); err != nil {
			t.Errorf("%s: the summary does not validate: %v", filepath.Dir(c), err)
		}
		one = b
	}
	baselines, _ := filepath.Glob(filepath.Join("..", "..", "results", "baselines", "*", "*", "*", "summary.json"))
	for _, p := range baselines {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := validate(t, s, p, b); err != nil {
			t.Errorf("%s does not validate: %v", p, err)
		}
	}
	t.Logf("%d analysed summaries and %d baseline summaries validated", len(cases), len(baselines))
	bad := strings.Replace(string(one), `"verdict":"`, `"verdict":"maybe-`, 1)
	if validate(t, s, "bad", []byte(bad)) == nil {
		t.Error("a summary with an unknown verdict validates")
	}
	bad = strings.Replace(string(one), `"schema_version":1`, `"schema_version":"1"`, 1)
	if validate(t, s, "bad", []byte(bad)) == nil {
		t.Error("a summary with a string schema_version validates")
	}
	if validate(t, s, "bad", []byte(`{"cell": {}}`)) == nil {
		t.Error("a summary without schema_version validates")
	}
	bad = strings.Replace(string(one), `"disruptions":[`, `"disruptions":[{"partitions":"many"},`, 1)
	if validate(t, s, "bad", []byte(bad)) == nil {
		t.Error("a disruption with a string partition count validates")
	}
}

// The mapping follows encoding/json.
func TestGenerate(t *testing.T) {
	type inner struct {
		A int `json:"a"`
	}
	type Doc struct {
		inner
		Name  string            `json:"name"`
		Opt   string            `json:"opt,omitempty"`
		Ptr   *float64          `json:"ptr"`
		List  []inner           `json:"list"`
		ByID  map[int]int64     `json:"by_id,omitempty"`
		Raw   json.RawMessage   `json:"raw,omitempty"`
		At    time.Time         `json:"at"`
		Props map[string]string `json:"props"`
		Skip  int               `json:"-"`
		priv  int
	}
	s := Generate(reflect.TypeFor[Doc](), Options{Docs: map[string]string{"Doc.Name": "the name"}, Required: []string{"name"}})
	b, _ := s.Marshal()
	got := string(b)
	for _, want := range []string{`"a": {`, `"ptr": {`, `"null"`, `"$ref": "#/definitions/inner"`,
		`"propertyNames"`, `"format": "date-time"`, `"description": "the name"`} {
		if !strings.Contains(got, want) {
			t.Errorf("no %s in\n%s", want, got)
		}
	}
	if req := s["required"].([]string); strings.Join(req, ",") != "name" {
		t.Errorf("required %v", req)
	}
	if strings.Contains(got, "Skip") || strings.Contains(got, "priv") {
		t.Errorf("unexported or skipped fields in\n%s", got)
	}
}

package workloads

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.yaml.in/yaml/v3"

	"github.com/chaosbench/chaosbench/internal/vocab"
)

// schemaPath is the published JSON Schema of workload files, which the
// shipped workloads name in their first line for editors
// (yaml-language-server).
const schemaPath = "../docs/schema/workload.schema.json"

const schemaLine = "# yaml-language-server: $schema=../docs/schema/workload.schema.json"

func readSchema(t *testing.T) map[string]any {
	t.Helper()
	f, err := os.Open(schemaPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatalf("%s: %v", schemaPath, err)
	}
	return doc.(map[string]any)
}

func compileSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	c := jsonschema.NewCompiler()
	if err := c.AddResource("file:///workload.schema.json", readSchema(t)); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("file:///workload.schema.json")
	if err != nil {
		t.Fatalf("%s: %v", schemaPath, err)
	}
	return s
}

// validateYAML validates a workload's YAML text against the schema.
func validateYAML(t *testing.T, s *jsonschema.Schema, name string, src []byte) error {
	t.Helper()
	var v any
	if err := yaml.Unmarshal(src, &v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return s.Validate(v)
}

// Every shipped workload, and the example of workloads/README.md,
// validates against the schema and names it for editors; files the
// decoder rejects for a name, a type or a range do not validate.
func TestWorkloadsValidateAgainstSchema(t *testing.T) {
	s := compileSchema(t)
	files := shipped()
	if len(files) < 4 {
		t.Fatalf("%d workloads", len(files))
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		want := schemaLine
		if filepath.Dir(f) != "." {
			want = strings.Replace(schemaLine, "../docs", "../../docs", 1)
		}
		if first, _, _ := strings.Cut(string(src), "\n"); first != want {
			t.Errorf("%s: the first line is %q, want %q", f, first, want)
		}
		if err := validateYAML(t, s, f, src); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	example := regexp.MustCompile("(?s)## Example\n\n```yaml\n(.*?)```").FindSubmatch(readme)
	if example == nil {
		t.Fatal("README.md: no example")
	}
	if _, err := Parse("example.yaml", example[1]); err != nil {
		t.Fatalf("the README's example does not load: %v", err)
	}
	if err := validateYAML(t, s, "README.md example", example[1]); err != nil {
		t.Errorf("the README's example: %v", err)
	}
	for name, bad := range map[string]string{
		"unknown field":       "duration: 1m\nproducer: {compresion: gzip}\n",
		"bare number":         "duration: 1m\nconsumer: {session_timeout: 10}\n",
		"unknown strategy":    "duration: 1m\nstrategies: [sticky, nosuch]\n",
		"out of range":        "duration: 1m\ntopic: {partitions: 0}\n",
		"string for a number": "duration: 1m\nkeys: {count: many}\n",
		"two brokers":         "duration: 1m\nbroker: {brokers: 2}\n",
		"bad target":          "duration: 1m\nchaos: {steps: [{at: 10s, action: kill, target: member-2}]}\n",
	} {
		if _, err := Parse("w.yaml", []byte(bad)); err == nil {
			t.Errorf("%s: the decoder accepts it; choose a case it refuses", name)
		}
		if validateYAML(t, s, name, []byte(bad)) == nil {
			t.Errorf("%s validates against the schema", name)
		}
	}
}

// probe is a field name no section has, nor resembles.
const probe = "zzzzzzzzzzzz"

// decoderFields returns the fields the decoder takes at a path (a list of
// keys, "[]" for a list's items), from its own error for an unknown one.
func decoderFields(t *testing.T, path []string) []string {
	t.Helper()
	var b strings.Builder
	indent := ""
	for _, p := range path {
		if p == "[]" {
			b.WriteString(indent + "-\n")
			indent += "  "
			continue
		}
		b.WriteString(indent + p + ":\n")
		indent += "  "
	}
	b.WriteString(indent + probe + ": 1\n")
	_, err := Parse("w.yaml", []byte(b.String()))
	if err == nil {
		t.Fatalf("%v: the decoder took an unknown field:\n%s", path, b.String())
	}
	m := regexp.MustCompile(probe + `: unknown field, expected one of ([^\n]+)`).FindStringSubmatch(err.Error())
	if m == nil {
		t.Fatalf("%v: no unknown-field error in %v", path, err)
	}
	return strings.Split(m[1], ", ")
}

// resolveRef follows a subschema's $ref (directly or as its allOf's only
// element) into the definitions.
func resolveRef(root, s map[string]any) map[string]any {
	for {
		if all, ok := s["allOf"].([]any); ok && len(all) == 1 {
			s = all[0].(map[string]any)
			continue
		}
		ref, ok := s["$ref"].(string)
		if !ok {
			return s
		}
		s = root["definitions"].(map[string]any)[strings.TrimPrefix(ref, "#/definitions/")].(map[string]any)
	}
}

// The schema cannot drift from the decoder: at every section of the
// schema (a closed object), it lists exactly the fields the decoder
// takes there; its names of strategies, commit policies and clients are
// the vocabulary's.
func TestSchemaMatchesDecoder(t *testing.T) {
	root := readSchema(t)
	sections := 0
	var walk func(s map[string]any, path []string)
	walk = func(s map[string]any, path []string) {
		s = resolveRef(root, s)
		if items, ok := s["items"].(map[string]any); ok {
			walk(items, append(slices.Clone(path), "[]"))
			return
		}
		props, ok := s["properties"].(map[string]any)
		if !ok {
			return
		}
		sections++
		var inSchema []string
		for name, sub := range props {
			inSchema = append(inSchema, name)
			walk(sub.(map[string]any), append(slices.Clone(path), name))
		}
		sort.Strings(inSchema)
		if s["additionalProperties"] != false {
			t.Errorf("%v: the section is not closed (additionalProperties: false), as the decoder is", path)
		}
		if got := decoderFields(t, path); !slices.Equal(got, inSchema) {
			t.Errorf("%v: the decoder takes %v, the schema lists %v", path, got, inSchema)
		}
	}
	walk(root, nil)
	if sections < 14 {
		t.Errorf("only %d sections checked", sections)
	}
	defs := root["definitions"].(map[string]any)
	for name, want := range map[string][]string{
		"strategies": vocab.StrategyNames(), "commit_policies": vocab.PolicyNames(), "clients": vocab.ClientNames(),
	} {
		one := defs[name].(map[string]any)["anyOf"].([]any)[0].(map[string]any)["enum"].([]any)
		var got []string
		for _, v := range one {
			got = append(got, v.(string))
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: the schema lists %v, the vocabulary %v", name, got, want)
		}
	}
}

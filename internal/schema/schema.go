// Package schema writes JSON Schemas (draft-07) of chaosbench's JSON files
// from the Go types that write them, so that a schema cannot drift from
// its file: a test regenerates each published schema (docs/schema/) and
// compares. Editors and other programs use the schemas to complete and
// check the files; chaosbench itself reads its files with the Go types.
//
// The mapping follows encoding/json: exported fields by their json names,
// embedded structs flattened, a nil slice, map or pointer written as
// null. A file's schema version changes only when a field changes meaning
// or disappears, so a file written by an earlier build of the same
// version may lack the fields added since: no property is required but
// those Options.Required names (the version itself). Objects allow
// properties they do not list: readers ignore the ones they do not know.
package schema

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"strings"
	"time"
)

// Schema is a JSON Schema document or subschema.
type Schema map[string]any

// Options describe what reflection cannot see.
type Options struct {
	// ID and Title head the document.
	ID, Title, Description string
	// Docs maps "Type.Field" (and "Type") to its documentation, the
	// description of the property (of the definition).
	Docs map[string]string
	// Enums lists the values of named string types, by type name.
	Enums map[string][]string
	// Required are the root's required properties.
	Required []string
}

// Generate returns the schema of the JSON encoding of t, a struct type.
func Generate(t reflect.Type, o Options) Schema {
	g := &gen{o: o, defs: map[string]Schema{}}
	root := g.object(t)
	if len(o.Required) > 0 {
		root["required"] = o.Required
	}
	doc := Schema{"$schema": "http://json-schema.org/draft-07/schema#"}
	if o.ID != "" {
		doc["$id"] = o.ID
	}
	if o.Title != "" {
		doc["title"] = o.Title
	}
	if o.Description != "" {
		doc["description"] = o.Description
	}
	for k, v := range root {
		doc[k] = v
	}
	if len(g.defs) > 0 {
		doc["definitions"] = g.defs
	}
	return doc
}

// Marshal renders a schema as indented JSON with a final newline.
func (s Schema) Marshal() ([]byte, error) {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

type gen struct {
	o    Options
	defs map[string]Schema
}

var timeType = reflect.TypeFor[time.Time]()
var rawType = reflect.TypeFor[json.RawMessage]()

// of returns the schema of a value of type t; nullable when a nil value
// of it is written as null.
func (g *gen) of(t reflect.Type) Schema {
	switch {
	case t == timeType:
		return Schema{"type": "string", "format": "date-time"}
	case t == rawType:
		return Schema{}
	}
	switch t.Kind() {
	case reflect.Pointer:
		return nullable(g.of(t.Elem()))
	case reflect.Struct:
		name := t.Name()
		if name == "" {
			return g.object(t)
		}
		if _, done := g.defs[name]; !done {
			g.defs[name] = Schema{} // a placeholder: recursive types end here
			def := g.object(t)
			if d := g.o.Docs[name]; d != "" {
				def["description"] = d
			}
			g.defs[name] = def
		}
		return Schema{"$ref": "#/definitions/" + name}
	case reflect.Slice, reflect.Array:
		return nullable(Schema{"type": "array", "items": g.of(t.Elem())})
	case reflect.Map:
		s := Schema{"type": "object", "additionalProperties": g.of(t.Elem())}
		if k := t.Key().Kind(); k >= reflect.Int && k <= reflect.Uint64 {
			s["propertyNames"] = Schema{"pattern": "^-?[0-9]+$"}
		}
		return nullable(s)
	case reflect.String:
		s := Schema{"type": "string"}
		if vs, ok := g.o.Enums[t.Name()]; ok && t.Name() != "string" {
			s["enum"] = vs
		}
		return s
	case reflect.Bool:
		return Schema{"type": "boolean"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return Schema{"type": "integer"}
	case reflect.Float32, reflect.Float64:
		return Schema{"type": "number"}
	case reflect.Interface:
		return Schema{}
	}
	panic(fmt.Sprintf("schema: no JSON schema for %s", t))
}

// nullable lets a schema also be null (a nil pointer, slice or map).
func nullable(s Schema) Schema {
	if typ, ok := s["type"].(string); ok {
		s["type"] = []string{typ, "null"}
		return s
	}
	if len(s) == 0 {
		return s
	}
	return Schema{"anyOf": []Schema{s, {"type": "null"}}}
}

// object returns the schema of a struct's fields.
func (g *gen) object(t reflect.Type) Schema {
	props := Schema{}
	g.fields(t, props)
	return Schema{"type": "object", "properties": props}
}

func (g *gen) fields(t reflect.Type, props Schema) {
	for i := range t.NumField() {
		f := t.Field(i)
		tag, hasTag := f.Tag.Lookup("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if f.Anonymous && !hasTag && f.Type.Kind() == reflect.Struct {
			g.fields(f.Type, props) // embedded: flattened
			continue
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		s := g.of(f.Type)
		if d := g.o.Docs[t.Name()+"."+f.Name]; d != "" {
			if _, ref := s["$ref"]; ref {
				s = Schema{"allOf": []Schema{s}} // draft-07 ignores siblings of $ref
			}
			s["description"] = d
		}
		props[name] = s
	}
}

// Docs reads the documentation of the types and fields declared in a Go
// package's folder (its doc comments, and a field's line comment), keyed
// as Options.Docs wants them: "Type" and "Type.Field".
func Docs(dir string) (map[string]string, error) {
	fset := token.NewFileSet()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		if err != nil {
			return nil, err
		}
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.TYPE {
				continue
			}
			for _, spec := range gd.Specs {
				ts := spec.(*ast.TypeSpec)
				doc := ts.Doc
				if doc == nil && len(gd.Specs) == 1 {
					doc = gd.Doc
				}
				if d := text(doc); d != "" {
					out[ts.Name.Name] = d
				}
				st, ok := ts.Type.(*ast.StructType)
				if !ok {
					continue
				}
				for _, fld := range st.Fields.List {
					d := text(fld.Doc)
					if d == "" {
						d = text(fld.Comment)
					}
					for _, n := range fld.Names {
						if d != "" {
							out[ts.Name.Name+"."+n.Name] = d
						}
					}
				}
			}
		}
	}
	return out, nil
}

// text is a comment group as one paragraph.
func text(g *ast.CommentGroup) string {
	if g == nil {
		return ""
	}
	return strings.Join(strings.Fields(g.Text()), " ")
}

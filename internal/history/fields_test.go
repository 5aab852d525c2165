package history

import (
	"encoding/json"
	"math"
	"os"
	"reflect"
	"strings"
	"testing"
)

// TestFieldSpecsCoverEvent: every Event field has exactly one entry in
// fieldSpecs, under the key its json tag gives it.
func TestFieldSpecsCoverEvent(t *testing.T) {
	ev := reflect.TypeFor[Event]()
	entries := map[uintptr][]string{}
	for _, spec := range fieldSpecs {
		entries[spec.offset] = append(entries[spec.offset], spec.key)
	}
	for i := range ev.NumField() {
		sf := ev.Field(i)
		tag, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if keys := entries[sf.Offset]; len(keys) != 1 || keys[0] != tag {
			t.Errorf("Event.%s (json %q): entries %q, want exactly one, %q", sf.Name, tag, keys, tag)
		}
	}
	if len(fieldSpecs) != ev.NumField() {
		t.Errorf("%d entries for %d Event fields", len(fieldSpecs), ev.NumField())
	}
}

// TestEveryFieldRoundTrips: each field of the description, set alone to
// values across its type's range on events of every kind, is written
// under its key where its rule says (for some kind at least) and left out
// elsewhere; encoding/json reads the same value from the line; and the
// canonical path (for values written without escapes) and the general
// decoder both read back the event that was written (or both refuse it,
// a value beyond its bound). A field that one of the three paths misses
// fails here.
func TestEveryFieldRoundTrips(t *testing.T) {
	ev := reflect.TypeFor[Event]()
	for _, spec := range fieldSpecs {
		var sf reflect.StructField
		for i := range ev.NumField() {
			if ev.Field(i).Offset == spec.offset {
				sf = ev.Field(i)
			}
		}
		everWritten := false
		for _, v := range valuesOf(spec.typ) {
			for _, k := range allKinds {
				e := Event{Kind: k, T: 1_800_000_000_005_220_010, Proc: "m1"}
				reflect.ValueOf(&e).Elem().FieldByIndex(sf.Index).Set(reflect.ValueOf(v).Convert(sf.Type))
				line := AppendJSON(nil, &e)
				var members map[string]json.RawMessage
				if err := json.Unmarshal(line, &members); err != nil {
					t.Fatalf("%s: invalid JSON: %v", line, err)
				}
				raw, written := members[spec.key]
				if rule := spec.when == ifNonZero || k.rules().has(spec.when); written != rule {
					t.Errorf("%s: %q written: %v, but its rule says %v", line, spec.key, written, rule)
				}
				want := e
				if written {
					everWritten = true
					if got := jsonValue(t, raw, spec.typ, sf.Type); !reflect.DeepEqual(got, reflect.ValueOf(v).Convert(sf.Type).Interface()) {
						t.Errorf("%s: encoding/json reads %q as %#v, want %#v", line, spec.key, got, v)
					}
				} else {
					reflect.ValueOf(&want).Elem().FieldByIndex(sf.Index).SetZero()
				}

				var gen Event
				if checkBounds(&want) != nil {
					// Beyond its bound (bounds.go): a bad line to both paths.
					if err := newDecoder().decodeGeneral(line, &gen); err == nil {
						t.Errorf("%s: general decoder: no error for a value beyond its bound", line)
					}
					if newDecoder().decodeCanonical(line, &gen) {
						t.Errorf("%s: the canonical path took a value beyond its bound", line)
					}
					continue
				}
				if err := newDecoder().decodeGeneral(line, &gen); err != nil {
					t.Fatalf("%s: general decoder: %v", line, err)
				}
				if !reflect.DeepEqual(normalize(gen), normalize(want)) {
					t.Errorf("%s: general decoder:\n got %+v\nwant %+v", line, gen, want)
				}
				if !canonicalExpected(&e) {
					continue
				}
				var fast Event
				if !newDecoder().decodeCanonical(line, &fast) {
					t.Errorf("%s: the canonical path gave up", line)
				} else if !reflect.DeepEqual(normalize(fast), normalize(want)) {
					t.Errorf("%s: canonical path:\n got %+v\nwant %+v", line, fast, want)
				}
			}
		}
		if !everWritten {
			t.Errorf("field %q is never written", spec.key)
		}
	}
}

// valuesOf returns values of every shape a field of type typ holds, none
// of them zero (what a zero value does is TestCanonicalRoundTrip's).
func valuesOf(typ valueType) []any {
	switch typ {
	case tKind:
		return []any{Produced, Member, Kind("future_kind"), Kind(`a"b`)}
	case tTime, tInt64, tInt:
		return []any{1, -1, 1_800_000_000_005_220_010, math.MaxInt64, math.MinInt64}
	case tInt32:
		return []any{1, -1, math.MaxInt32, math.MinInt32}
	case tString, tKey, tInterned:
		return []any{"v", "producer-0", "é✓", "a\"b\\c\n\x01"}
	case tBool:
		return []any{true}
	case tInt32s:
		return []any{[]int32{}, []int32{7}, []int32{0, 8, 16}, []int32{math.MinInt32, math.MaxInt32}}
	case tRawJSON:
		return []any{`{"duration_ms":20000}`, `{"n":[1,2,{"a":"}"}],"s":"x\"y"}`, `[]`, `"s"`, `-1.5e3`, `null`, `true`}
	}
	panic("valuesOf: no values for a value type")
}

// jsonValue is what encoding/json reads from a member's raw value, as
// the field's Go type (a raw JSON field: the value's text).
func jsonValue(t *testing.T, raw json.RawMessage, typ valueType, goType reflect.Type) any {
	t.Helper()
	if typ == tRawJSON {
		return string(raw)
	}
	v := reflect.New(goType)
	if err := json.Unmarshal(raw, v.Interface()); err != nil {
		t.Fatalf("encoding/json cannot read %s as %v: %v", raw, goType, err)
	}
	return v.Elem().Interface()
}

// TestFieldsDocumented: docs/history.md, the format's documentation,
// names every key of the description.
func TestFieldsDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../docs/history.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, spec := range fieldSpecs {
		if !strings.Contains(string(doc), "`"+spec.key+"`") {
			t.Errorf("docs/history.md does not document %q", spec.key)
		}
	}
}

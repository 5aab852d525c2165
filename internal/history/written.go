package history

import "unsafe"

// Which fields AppendJSON writes for an event: those its kind writes
// whatever their value (Kind.writtenFields), and the optional ones that
// are not zero (Event.nonZero). Both are sets of fields, so that the
// encoder visits only the fields it writes.

// fieldSet is a set of fields, bit f for field f.
type fieldSet uint64

// writtenFields returns the fields written on every event of kind k,
// whatever their value.
func (k Kind) writtenFields() fieldSet { return rulesFields[k.rules()] }

// rulesFields are, for each set of write rules, the fields written under
// them.
var rulesFields = func() (r [1 << numWriteRules]fieldSet) {
	if numFields > 64 {
		panic("history: more fields than a fieldSet holds")
	}
	for rules := range r {
		for f, spec := range fieldSpecs {
			if writeRules(rules).has(spec.when) {
				r[rules] |= 1 << f
			}
		}
	}
	return r
}()

// nonZero returns the optional fields that are not zero in e.
func (e *Event) nonZero() fieldSet {
	s := optionalFields.rest.nonZero(e)
	if !optionalFields.tail.zeroBytes(e) {
		s |= optionalFields.tail.nonZero(e)
	}
	return s
}

// optionalFields are the optional fields in two groups: the run of them
// that ends the table (those of chaos and member events, errors and
// flags), and the rest. Most events leave the run at the end zero: one
// comparison of its bytes with zeros then stands for its fields' tests.
var optionalFields = func() (o struct{ rest, tail optionalGroup }) {
	tail := numFields
	for tail > 0 && fieldSpecs[tail-1].when == ifNonZero {
		tail--
	}
	for f, spec := range fieldSpecs {
		if spec.when != ifNonZero {
			continue
		}
		g := &o.rest
		if field(f) >= tail {
			g = &o.tail
		}
		g.add(field(f))
	}
	return o
}()

// optionalGroup is a group of optional fields, by Go type; each type has
// its own loop, so that testing a field for zero is one load and one
// compare, as in code written for each field, with no dispatch.
type optionalGroup struct {
	strings, int64s, ints, int32s, bools, lists []optionalField
	// from and to bound the bytes of an Event the fields lie in.
	from, to uintptr
}

// optionalField is where an optional field lies in an Event and its bit.
type optionalField struct {
	offset uintptr
	bit    fieldSet
}

func (g *optionalGroup) add(f field) {
	spec := &fieldSpecs[f]
	of := optionalField{spec.offset, 1 << f}
	switch spec.typ {
	case tKind, tString, tKey, tInterned, tRawJSON:
		g.strings = append(g.strings, of)
	case tTime, tInt64:
		g.int64s = append(g.int64s, of)
	case tInt:
		g.ints = append(g.ints, of)
	case tInt32:
		g.int32s = append(g.int32s, of)
	case tBool:
		g.bools = append(g.bools, of)
	case tInt32s:
		g.lists = append(g.lists, of)
	}
	end := spec.offset + spec.typ.goType().Size()
	if g.to == 0 {
		g.from, g.to = spec.offset, end
	}
	g.from, g.to = min(g.from, spec.offset), max(g.to, end)
}

// zeroBytes reports whether the bytes of e the group's fields lie in are
// all zero, which makes every field zero (the converse does not hold: an
// empty string may point somewhere).
func (g *optionalGroup) zeroBytes(e *Event) bool {
	b := unsafe.Slice((*byte)(unsafe.Pointer(e)), unsafe.Sizeof(*e))
	return string(b[g.from:g.to]) == string(zeroEvent[g.from:g.to])
}

// zeroEvent is the bytes of a zero Event.
var zeroEvent [unsafe.Sizeof(Event{})]byte

func (g *optionalGroup) nonZero(e *Event) fieldSet {
	return nonZeroOf[string](e, g.strings) | nonZeroOf[int64](e, g.int64s) |
		nonZeroOf[int](e, g.ints) | nonZeroOf[int32](e, g.int32s) |
		nonZeroOf[bool](e, g.bools) | nonEmpty(e, g.lists)
}

func nonZeroOf[T comparable](e *Event, fields []optionalField) fieldSet {
	var s fieldSet
	var zero T
	for _, of := range fields {
		if *(*T)(unsafe.Add(unsafe.Pointer(e), of.offset)) != zero {
			s |= of.bit
		}
	}
	return s
}

func nonEmpty(e *Event, fields []optionalField) fieldSet {
	var s fieldSet
	for _, of := range fields {
		if len(*(*[]int32)(unsafe.Add(unsafe.Pointer(e), of.offset))) != 0 {
			s |= of.bit
		}
	}
	return s
}

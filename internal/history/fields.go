package history

import (
	"fmt"
	"reflect"
	"unsafe"
)

// fieldSpecs describes every Event field once, in the order AppendJSON
// writes them: its JSON key, the type of its value, when the writer
// writes it, and where it lies in an Event. The encoder (encode.go), the
// general decoder (decode.go) and the canonical path (canonical.go) are
// all driven by it: a new field is one entry here, and its line in
// docs/history.md. The canonical path expects the writer's order: keep
// the existing fields in theirs (the histories already written follow
// it). A key has at most 13 bytes (16 with its quotes and colon, as the
// canonical path matches it).
//
// Each path reaches a field through its offset and a switch on its
// valueType (a function value per field, measured too, cost the encoder
// a third more instructions: a call per field costs more than the
// switch). init checks every offset against the Go type its valueType
// reads and writes there.
var fieldSpecs = [...]fieldSpec{
	{"kind", tKind, always, unsafe.Offsetof(Event{}.Kind)},
	{"t", tTime, always, unsafe.Offsetof(Event{}.T)},
	{"proc", tInterned, always, unsafe.Offsetof(Event{}.Proc)},
	{"inc", tInt, always, unsafe.Offsetof(Event{}.Inc)},
	{"topic", tInterned, ifNonZero, unsafe.Offsetof(Event{}.Topic)},
	{"partition", tInt32, ifPartitionKind, unsafe.Offsetof(Event{}.Partition)},
	{"offset", tInt64, ifPartitionKind, unsafe.Offsetof(Event{}.Offset)},
	{"key", tKey, ifNonZero, unsafe.Offsetof(Event{}.Key)},
	{"seq", tInt64, ifSeqKind, unsafe.Offsetof(Event{}.Seq)},
	{"producer", tInterned, ifNonZero, unsafe.Offsetof(Event{}.Producer)},
	{"intended_t", tTime, ifNonZero, unsafe.Offsetof(Event{}.IntendedT)},
	{"sent_t", tTime, ifNonZero, unsafe.Offsetof(Event{}.SentT)},
	{"record_t", tTime, ifNonZero, unsafe.Offsetof(Event{}.RecordT)},
	{"partitions", tInt32s, ifPartitionsKind, unsafe.Offsetof(Event{}.Partitions)},
	{"gen", tInt32, ifNonZero, unsafe.Offsetof(Event{}.Gen)},
	{"member_id", tInterned, ifNonZero, unsafe.Offsetof(Event{}.MemberID)},
	{"err", tString, ifNonZero, unsafe.Offsetof(Event{}.Err)},
	{"ambiguous", tBool, ifNonZero, unsafe.Offsetof(Event{}.Ambiguous)},
	{"auto", tBool, ifNonZero, unsafe.Offsetof(Event{}.Auto)},
	{"action", tInterned, ifNonZero, unsafe.Offsetof(Event{}.Action)},
	{"target", tInterned, ifNonZero, unsafe.Offsetof(Event{}.Target)},
	{"target_inc", tInt, ifNonZero, unsafe.Offsetof(Event{}.TargetInc)},
	{"step", tInt, ifNonZero, unsafe.Offsetof(Event{}.Step)},
	{"params", tRawJSON, ifNonZero, unsafe.Offsetof(Event{}.Params)},
	{"state", tInterned, ifNonZero, unsafe.Offsetof(Event{}.State)},
	{"phase", tInterned, ifNonZero, unsafe.Offsetof(Event{}.Phase)},
	{"strategy", tInterned, ifNonZero, unsafe.Offsetof(Event{}.Strategy)},
	{"client", tInterned, ifNonZero, unsafe.Offsetof(Event{}.Client)},
	{"policy", tInterned, ifNonZero, unsafe.Offsetof(Event{}.Policy)},
	{"group", tInterned, ifNonZero, unsafe.Offsetof(Event{}.Group)},
	{"host", tInterned, ifNonZero, unsafe.Offsetof(Event{}.Host)},
	{"pid", tInt, ifNonZero, unsafe.Offsetof(Event{}.PID)},
	{"exit_status", tInt, ifNonZero, unsafe.Offsetof(Event{}.ExitStatus)},
	{"signal", tInterned, ifNonZero, unsafe.Offsetof(Event{}.Signal)},
	{"clock_offset", tInt64, ifNonZero, unsafe.Offsetof(Event{}.ClockOffset)},
	{"clock_error", tInt64, ifNonZero, unsafe.Offsetof(Event{}.ClockError)},
}

// fieldSpec describes one Event field (fieldSpecs).
type fieldSpec struct {
	key    string // the JSON key
	typ    valueType
	when   writeRule
	offset uintptr // of the field in an Event
}

// field is an Event field's index in fieldSpecs, its place in the
// canonical order.
type field uint8

// numFields is how many fields the format has.
const numFields = field(len(fieldSpecs))

// valueType is how a field's value is written and read, and which Go type
// the field has.
type valueType uint8

const (
	tKind     valueType = iota // Kind: the known kinds are read without a lookup
	tTime                      // int64 of Unix nanoseconds: the canonical path remembers their leading digits
	tInt64                     // int64
	tInt32                     // int32: a wider integer is out of range, never its low 32 bits
	tInt                       // int: read as an int64
	tString                    // string that differs from line to line (an error): a new string each time
	tKey                       // a record key: differs from line to line, one per record; copied into a block shared with other keys (keys.go)
	tInterned                  // string that repeats from line to line (a process, a topic): interned
	tBool                      // bool
	tInt32s                    // []int32: an array of integers in the int32 range
	tRawJSON                   // string holding any JSON value, written and read verbatim (only ever written when not empty)
)

// goType is the Go type of a field of value type t.
func (t valueType) goType() reflect.Type {
	switch t {
	case tKind:
		return reflect.TypeFor[Kind]()
	case tTime, tInt64:
		return reflect.TypeFor[int64]()
	case tInt32:
		return reflect.TypeFor[int32]()
	case tInt:
		return reflect.TypeFor[int]()
	case tString, tKey, tInterned, tRawJSON:
		return reflect.TypeFor[string]()
	case tBool:
		return reflect.TypeFor[bool]()
	case tInt32s:
		return reflect.TypeFor[[]int32]()
	}
	return nil
}

// writeRule says when AppendJSON writes a field.
type writeRule uint8

const (
	always           writeRule = iota
	ifNonZero                  // an optional field: its zero value is left out
	ifPartitionKind            // events of the kinds with a partition and an offset, 0 included
	ifSeqKind                  // produced and processed events, 0 included
	ifPartitionsKind           // assigned, revoked and lost events, an empty list included
	numWriteRules
)

// writeRules is a set of write rules, bit w for rule w.
type writeRules uint8

// rules returns the rules whose fields every event of kind k writes,
// whatever their value (ifNonZero is never one: it depends on the value).
func (k Kind) rules() writeRules {
	r := writeRules(1 << always)
	if k.hasPartition() {
		r |= 1 << ifPartitionKind
	}
	if k == Produced || k == Processed || k == Output {
		r |= 1 << ifSeqKind
	}
	if k == Assigned || k == Revoked || k == Lost {
		r |= 1 << ifPartitionsKind
	}
	return r
}

func (r writeRules) has(w writeRule) bool { return r&(1<<w) != 0 }

// at returns where field f lies in e, to be read or written as
// fieldSpecs[f].typ.goType() (init checks that it is that type; a Kind
// may be accessed as the string it is).
func (e *Event) at(f field) unsafe.Pointer {
	return unsafe.Add(unsafe.Pointer(e), fieldSpecs[f].offset)
}

// init checks each entry's offset: the three paths read and write an
// Event field there as its value type's Go type, which must be the
// field's own.
func init() {
	ev := reflect.TypeFor[Event]()
	for _, spec := range fieldSpecs {
		var at *reflect.StructField
		for i := range ev.NumField() {
			if sf := ev.Field(i); sf.Offset == spec.offset {
				at = &sf
				break
			}
		}
		if want := spec.typ.goType(); at == nil || want == nil || at.Type != want {
			panic(fmt.Sprintf("history: field %q: the Event field at offset %d is not of type %v", spec.key, spec.offset, want))
		}
		// An empty raw value would leave the line without a value.
		if spec.typ == tRawJSON && spec.when != ifNonZero {
			panic(fmt.Sprintf("history: field %q: a raw JSON field is written only when not empty", spec.key))
		}
	}
}

package member

import (
	"bytes"
	"fmt"
	"strconv"
)

// Output is what a transactional member's output record carries in its
// value (its key is the input record's key): the input record it was
// made from (partition, offset, producer, seq), the member incarnation and
// transaction that wrote it, and when it was made. The verifier reads it
// back into the history (Verify), where the analysis joins it to the
// input and to the transaction's events.
type Output struct {
	Partition int32  // the input record's partition
	Offset    int64  // the input record's offset
	Producer  string // the input record's producer (its stamp)
	Seq       int64  // the input record's per-key sequence number
	Writer    string // the member that wrote it: m2
	WriterInc int    // its incarnation
	Txn       int    // the transaction's number in the incarnation, from 1
	T         int64  // when the member made it, Unix nanoseconds
}

// outputMagic starts every output value: a value without it is not one
// of ours.
const outputMagic = "cbo1"

// AppendOutput appends o's value to b: space-separated fields after the
// magic, in a fixed order.
func AppendOutput(b []byte, o Output) []byte {
	b = append(b, outputMagic...)
	b = append(b, ' ')
	b = strconv.AppendInt(b, int64(o.Partition), 10)
	b = append(b, ' ')
	b = strconv.AppendInt(b, o.Offset, 10)
	b = append(b, ' ')
	b = append(b, dash(o.Producer)...)
	b = append(b, ' ')
	b = strconv.AppendInt(b, o.Seq, 10)
	b = append(b, ' ')
	b = append(b, dash(o.Writer)...)
	b = append(b, ' ')
	b = strconv.AppendInt(b, int64(o.WriterInc), 10)
	b = append(b, ' ')
	b = strconv.AppendInt(b, int64(o.Txn), 10)
	b = append(b, ' ')
	b = strconv.AppendInt(b, o.T, 10)
	return b
}

// ParseOutput reads a value AppendOutput wrote.
func ParseOutput(v []byte) (Output, error) {
	var o Output
	f := bytes.Fields(v)
	if len(f) != 9 || string(f[0]) != outputMagic {
		return o, fmt.Errorf("not an output value (%d fields)", len(f))
	}
	var bad error
	num := func(i int, bits int) int64 {
		n, err := strconv.ParseInt(string(f[i]), 10, bits)
		if (err != nil || n < 0) && bad == nil {
			bad = fmt.Errorf("output value field %d %q: expected a non-negative integer", i, f[i])
		}
		return n
	}
	o.Partition = int32(num(1, 32))
	o.Offset = num(2, 64)
	o.Producer = noDash(f[3])
	o.Seq = num(4, 64)
	o.Writer = noDash(f[5])
	o.WriterInc = int(num(6, 32))
	o.Txn = int(num(7, 32))
	o.T = num(8, 64)
	return o, bad
}

// dash stands for an empty name in an output value.
func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func noDash(b []byte) string {
	if string(b) == "-" {
		return ""
	}
	return string(b)
}

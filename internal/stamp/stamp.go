// Package stamp is the bookkeeping a produced record carries: which
// producer sent it, the sequence number of its key, when the pacer meant
// it to be sent and when it was handed to the client. The members copy
// the first three into their `processed` events, which is how the
// analysis joins a processed record to its production (docs/history.md,
// "The records"). The producer reads the stamp back from its delivery
// reports, which carry the value, so that a report finds its record
// without a per-record table between sending and reporting.
//
// The stamp is the front of the record's value; the rest of the value is
// the workload's filler. Its layout, integers big-endian:
//
//	offset  size  field
//	     0     2  magic "cb"
//	     2     1  version, 1
//	     3     1  n, the length of the producer's name
//	     4     8  seq, the key's sequence number, >= 0
//	    12     8  intended_t, ns since the Unix epoch, from 0 below 2^62
//	    20     8  sent_t, ns since the Unix epoch, from 0 below 2^62
//	    28     n  the producer's name
//
// Why the value, not headers: headers cost every party per record. With
// confluent-kafka-go each header's name and value are copied into C
// memory (two allocations) and librdkafka builds a header list for the
// record; three headers cost the producer more CPU than the rest of the
// produce call, and took about 60 bytes per record on the wire that the
// broker stored and every member parsed. A stamp inside a value the
// workload sends anyway costs nothing on the wire and a copy of about 40
// bytes to write; fixed offsets make it cheap to read and easy to bound.
//
// Why sent_t travels too: confluent-kafka-go finds a report's record
// through a per-message "opaque", which it keeps in a map behind one
// mutex that the sending goroutine and the report poller both take for
// every record; the two contend. With the report reading its record from
// the value it carries back, loadgen on confluent-kafka-go sent 1.20 to
// 1.32 times as many records a second (internal/loadgen/README.md).
package stamp

import (
	"encoding/binary"
	"fmt"
)

const (
	// magic and version open every stamp: a record without them is not
	// loadgen's (another producer's record on the same topic).
	magic   = "cb"
	version = 1
	// fixed is the size of the stamp before the producer's name.
	fixed = 28
	// MaxProducer is the longest producer name a stamp holds (its length
	// is one byte).
	MaxProducer = 255
	// maxT bounds intended_t as the history bounds its times.
	maxT = 1 << 62
)

// Stamp is a record's bookkeeping.
type Stamp struct {
	// Producer is the producing process's name in the run ("producer-0").
	// From Read, it aliases the value it was read from.
	Producer []byte
	// Seq is the sequence number of the record's key, from 0.
	Seq int64
	// IntendedT is when the pacer meant the record to be sent, ns since
	// the Unix epoch; latency is measured from it.
	IntendedT int64
	// SentT is when the producer handed the record to its client, ns
	// since the Unix epoch.
	SentT int64
}

// Len is the size of a stamp with a producer name of n bytes: the least
// a stamped value holds.
func Len(n int) int { return fixed + n }

// Check says whether a stamp can carry the producer name and the values,
// naming what it cannot.
func Check(s Stamp) error {
	switch {
	case len(s.Producer) > MaxProducer:
		return fmt.Errorf("producer name of %d bytes: a stamp holds at most %d", len(s.Producer), MaxProducer)
	case s.Seq < 0:
		return fmt.Errorf("seq %d: expected >= 0", s.Seq)
	case s.IntendedT < 0 || s.IntendedT >= maxT:
		return fmt.Errorf("intended_t %d: expected from 0 below 2^62", s.IntendedT)
	case s.SentT < 0 || s.SentT >= maxT:
		return fmt.Errorf("sent_t %d: expected from 0 below 2^62", s.SentT)
	}
	return nil
}

// Put writes s at the front of v, which must hold Len(len(s.Producer))
// bytes, and which s must pass Check: the producer checks its name once
// and its values come from its own clock and counters.
func Put(v []byte, s Stamp) {
	_ = v[fixed+len(s.Producer)-1]
	copy(v, magic)
	v[2] = version
	v[3] = byte(len(s.Producer))
	binary.BigEndian.PutUint64(v[4:], uint64(s.Seq))
	binary.BigEndian.PutUint64(v[12:], uint64(s.IntendedT))
	binary.BigEndian.PutUint64(v[20:], uint64(s.SentT))
	copy(v[fixed:], s.Producer)
}

// Read reads the stamp at the front of a record's value. It returns false
// for a value that does not open with one, or whose stamp is cut short or
// out of its bounds: a record of another producer, which members record
// without a producer, seq or intended time.
func Read(v []byte) (Stamp, bool) {
	if len(v) < fixed || v[0] != magic[0] || v[1] != magic[1] || v[2] != version {
		return Stamp{}, false
	}
	n := int(v[3])
	if len(v) < fixed+n {
		return Stamp{}, false
	}
	s := Stamp{
		Producer:  v[fixed : fixed+n : fixed+n],
		Seq:       int64(binary.BigEndian.Uint64(v[4:])),
		IntendedT: int64(binary.BigEndian.Uint64(v[12:])),
		SentT:     int64(binary.BigEndian.Uint64(v[20:])),
	}
	if s.Seq < 0 || s.IntendedT < 0 || s.IntendedT >= maxT || s.SentT < 0 || s.SentT >= maxT {
		return Stamp{}, false
	}
	return s, true
}

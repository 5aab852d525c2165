package stamp

import (
	"bytes"
	"strings"
	"testing"
)

// The layout, byte by byte: what the Java member reads too.
func TestPutLayout(t *testing.T) {
	v := bytes.Repeat([]byte{'A'}, 48)
	Put(v, Stamp{Producer: []byte("producer-0"), Seq: 0x0102, IntendedT: 0x1700000000000001, SentT: 0x1700000000000203})
	want := []byte{
		'c', 'b', 1, 10,
		0, 0, 0, 0, 0, 0, 0x01, 0x02,
		0x17, 0, 0, 0, 0, 0, 0, 0x01,
		0x17, 0, 0, 0, 0, 0, 0x02, 0x03,
		'p', 'r', 'o', 'd', 'u', 'c', 'e', 'r', '-', '0',
		'A', 'A', 'A', 'A', 'A', 'A', 'A', 'A', 'A', 'A', // the filler is left alone
	}
	if !bytes.Equal(v, want) {
		t.Fatalf("stamped value\n got %v\nwant %v", v, want)
	}
	if Len(10) != 38 {
		t.Fatalf("Len(10) = %d, want 38", Len(10))
	}
}

func TestReadRoundTrip(t *testing.T) {
	for _, s := range []Stamp{
		{Producer: []byte("producer-0"), Seq: 41, IntendedT: 1700000000000000001, SentT: 1700000000000000502},
		{Producer: []byte{}, Seq: 0, IntendedT: 0, SentT: 0},
		{Producer: []byte(strings.Repeat("p", MaxProducer)), Seq: 1<<63 - 1, IntendedT: maxT - 1, SentT: maxT - 1},
	} {
		v := make([]byte, Len(len(s.Producer))+7)
		Put(v, s)
		got, ok := Read(v)
		if !ok || !bytes.Equal(got.Producer, s.Producer) || got.Seq != s.Seq || got.IntendedT != s.IntendedT || got.SentT != s.SentT {
			t.Errorf("Read(Put(%+v)) = %+v, %v", s, got, ok)
		}
	}
}

// A value that is not a whole stamp within bounds reads as no stamp: a
// record of another producer.
func TestReadRefuses(t *testing.T) {
	good := make([]byte, Len(10))
	Put(good, Stamp{Producer: []byte("producer-0"), Seq: 5, IntendedT: 6, SentT: 7})
	edit := func(f func(v []byte) []byte) []byte {
		return f(append([]byte(nil), good...))
	}
	cases := map[string][]byte{
		"empty":              nil,
		"shorter than fixed": good[:fixed-1],
		"name cut short":     good[:len(good)-1],
		"wrong magic":        edit(func(v []byte) []byte { v[0] = 'x'; return v }),
		"wrong version":      edit(func(v []byte) []byte { v[2] = 2; return v }),
		"negative seq":       edit(func(v []byte) []byte { v[4] = 0x80; return v }),
		"negative intended":  edit(func(v []byte) []byte { v[12] = 0x80; return v }),
		"intended at 2^62":   edit(func(v []byte) []byte { v[12] = 0x40; return v }),
		"negative sent":      edit(func(v []byte) []byte { v[20] = 0x80; return v }),
		"sent at 2^62":       edit(func(v []byte) []byte { v[20] = 0x40; return v }),
		"plain text value":   []byte(strings.Repeat("ABCDEFGHIJ", 10)),
	}
	for name, v := range cases {
		if s, ok := Read(v); ok {
			t.Errorf("%s: Read = %+v, true; want false", name, s)
		}
	}
}

func TestCheck(t *testing.T) {
	ok := Stamp{Producer: []byte("producer-0"), Seq: 1, IntendedT: 2}
	if err := Check(ok); err != nil {
		t.Fatalf("Check(%+v) = %v", ok, err)
	}
	for _, s := range []Stamp{
		{Producer: make([]byte, MaxProducer+1)},
		{Seq: -1},
		{IntendedT: -1},
		{IntendedT: maxT},
		{SentT: -1},
		{SentT: maxT},
	} {
		if Check(s) == nil {
			t.Errorf("Check(seq %d, intended %d, sent %d, name of %d bytes) = nil, want an error", s.Seq, s.IntendedT, s.SentT, len(s.Producer))
		}
	}
}

// Whatever a value holds, Read neither panics nor returns a stamp out of
// bounds, and a stamp it returns is the one Put writes back.
func FuzzRead(f *testing.F) {
	v := make([]byte, Len(3))
	Put(v, Stamp{Producer: []byte("p-1"), Seq: 9, IntendedT: 10})
	f.Add(v)
	f.Add([]byte("cb\x01\xff"))
	f.Fuzz(func(t *testing.T, v []byte) {
		s, ok := Read(v)
		if !ok {
			return
		}
		if err := Check(s); err != nil {
			t.Fatalf("Read returned a stamp Check refuses: %v", err)
		}
		w := make([]byte, Len(len(s.Producer)))
		Put(w, s)
		if !bytes.Equal(w, v[:len(w)]) {
			t.Fatalf("Put(Read(v)) = %v, want %v", w, v[:len(w)])
		}
	})
}

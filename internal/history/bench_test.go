package history

import (
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"path/filepath"
	"testing"
)

// benchEvents are one event of each kind, shaped as real runs write them.
func benchEvents() []Event {
	const t = 1_800_000_000_005_220_010
	return []Event{
		{Kind: Produced, T: t, Proc: "producer-0", Topic: "orders", Partition: 39, Offset: 1234567, Key: "k84576", Seq: 811, IntendedT: t - 5_000_000, SentT: t - 4_900_000},
		{Kind: Processed, T: t, Proc: "m3", Inc: 1, Topic: "orders", Partition: 8, Offset: 1234567, Key: "k80593", Seq: 811, Producer: "producer-0", IntendedT: t - 5_000_000, RecordT: t - 4_800_000},
		{Kind: Committed, T: t, Proc: "m3", Inc: 1, Topic: "orders", Partition: 8, Offset: 1234568},
		{Kind: Assigned, T: t, Proc: "m3", Inc: 1, Topic: "orders", Partitions: []int32{0, 8, 16, 24, 32, 40, 48, 56}, Gen: 4, MemberID: "rdkafka-5f0c2a1e-77c1"},
		{Kind: Chaos, T: t, Proc: "chaos", Action: "pause", Target: "m2", TargetInc: 1, Step: 2, Params: `{"duration_ms":20000}`, PID: 4242},
		{Kind: Member, T: t, Proc: "m3", Inc: 1, State: StateStarted, Strategy: "sticky", Client: "franz", Policy: "sync-batch", Group: "g", Host: "h1", PID: 99, ClockOffset: -12},
	}
}

// BenchmarkDecode decodes one line of each kind, as the writer writes it.
func BenchmarkDecode(b *testing.B) {
	for _, e := range benchEvents() {
		line := AppendJSON(nil, &e)
		b.Run(string(e.Kind), func(b *testing.B) {
			d := newDecoder()
			var got Event
			b.SetBytes(int64(len(line)))
			b.ReportAllocs()
			cpu := cpuTime()
			for b.Loop() {
				got.Reset()
				if err := d.decode(line, &got); err != nil {
					b.Fatal(err)
				}
			}
			reportCPU(b, cpu, 1, "op")
		})
	}
}

// BenchmarkDecodeEncodingJSON decodes the same lines with encoding/json
// into an Event: what the hand-written decoders are measured against
// (README, "Why not encoding/json").
func BenchmarkDecodeEncodingJSON(b *testing.B) {
	// params is a JSON object on the line, which encoding/json reads as
	// raw bytes: the decoders here keep it as a string.
	type jsonEvent struct {
		Event
		Params json.RawMessage `json:"params,omitempty"`
	}
	for _, e := range benchEvents() {
		line := AppendJSON(nil, &e)
		b.Run(string(e.Kind), func(b *testing.B) {
			var got jsonEvent
			b.SetBytes(int64(len(line)))
			b.ReportAllocs()
			cpu := cpuTime()
			for b.Loop() {
				got.Event.Reset()
				got.Params = got.Params[:0]
				if err := json.Unmarshal(line, &got); err != nil {
					b.Fatal(err)
				}
			}
			reportCPU(b, cpu, 1, "op")
		})
	}
}

// BenchmarkDecodeGeneral decodes the same lines with the general decoder
// alone: what a line costs that the canonical path gives up on; and a
// line as another writer might write it (another field order, spaces, a
// field this reader does not know), which only the general decoder reads.
func BenchmarkDecodeGeneral(b *testing.B) {
	type named struct {
		name string
		line []byte
	}
	var lines []named
	for _, e := range benchEvents() {
		lines = append(lines, named{string(e.Kind), AppendJSON(nil, &e)})
	}
	lines = append(lines, named{"foreign", []byte(`{"t": 1800000000005220010, "kind": "processed", "proc": "m3", "inc": 1, ` +
		`"topic": "orders", "partition": 8, "offset": 1234567, "key": "k80593", "seq": 811, "producer": "producer-0", ` +
		`"intended_t": 1800000000000220010, "record_t": 1800000000000420010, "trace_id": "4bf92f3577b34da6"}`)})
	for _, l := range lines {
		b.Run(l.name, func(b *testing.B) {
			d := newDecoder()
			var got Event
			b.SetBytes(int64(len(l.line)))
			b.ReportAllocs()
			cpu := cpuTime()
			for b.Loop() {
				got.Reset()
				if err := d.decodeGeneral(l.line, &got); err != nil {
					b.Fatal(err)
				}
			}
			reportCPU(b, cpu, 1, "op")
		})
	}
}

// BenchmarkAppendJSON encodes one event of each kind, as Writer.Append
// does: into a buffer that is reused.
func BenchmarkAppendJSON(b *testing.B) {
	for _, e := range benchEvents() {
		buf := AppendJSON(nil, &e)
		b.Run(string(e.Kind), func(b *testing.B) {
			b.SetBytes(int64(len(buf)))
			b.ReportAllocs()
			cpu := cpuTime()
			for b.Loop() {
				buf = AppendJSON(buf[:0], &e)
			}
			reportCPU(b, cpu, 1, "op")
		})
	}
}

// writeBenchHistory writes a producer file and members' files of about n
// events in all, produced and processed alternating in time, the shape of
// a run's history.
func writeBenchHistory(tb testing.TB, dir string, n, members int) {
	tb.Helper()
	r := rand.New(rand.NewPCG(1, 2))
	prod, err := Create(dir, "producer-0", 0)
	if err != nil {
		tb.Fatal(err)
	}
	ms := make([]*Writer, members)
	for i := range ms {
		if ms[i], err = Create(dir, fmt.Sprintf("m%d", i+1), 0); err != nil {
			tb.Fatal(err)
		}
	}
	const partitions = 64
	offsets := make([]int64, partitions)
	seqs := make([]int64, 10_000)
	t := int64(1_800_000_000_000_000_000)
	for i := 0; i < n/2; i++ {
		t += 20_000
		k := r.IntN(len(seqs))
		p := int32(k % partitions)
		e := Event{Kind: Produced, T: t, Partition: p, Offset: offsets[p], Key: fmt.Sprintf("k%d", k), Seq: seqs[k], IntendedT: t - 100, SentT: t - 90}
		offsets[p]++
		seqs[k]++
		if err := prod.Append(&e); err != nil {
			tb.Fatal(err)
		}
		e.Kind, e.T, e.Producer, e.RecordT, e.SentT = Processed, t+5_000_000, "producer-0", t-50, 0
		if err := ms[int(p)%members].Append(&e); err != nil {
			tb.Fatal(err)
		}
	}
	for _, w := range append(ms, prod) {
		if err := w.Close(); err != nil {
			tb.Fatal(err)
		}
	}
}

// BenchmarkRead reads a history of 200,000 events: one file alone
// (FileReader), and all files merged in time order (Merger).
func BenchmarkRead(b *testing.B) {
	const events = 200_000
	dir := b.TempDir()
	writeBenchHistory(b, dir, events, 8)
	b.Run("FileReader", func(b *testing.B) {
		b.ReportAllocs()
		cpu := cpuTime()
		for b.Loop() {
			r, err := OpenFile(filepath.Join(dir, "producer-0.0.jsonl"))
			if err != nil {
				b.Fatal(err)
			}
			n := 0
			for {
				_, err := r.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					b.Fatal(err)
				}
				n++
			}
			r.Close()
			if n != events/2 {
				b.Fatalf("read %d events", n)
			}
		}
		b.ReportMetric(float64(events/2)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
		reportCPU(b, cpu, events/2, "event")
	})
	b.Run("Merger", func(b *testing.B) {
		b.ReportAllocs()
		cpu := cpuTime()
		for b.Loop() {
			m, err := OpenDir(dir)
			if err != nil {
				b.Fatal(err)
			}
			n := 0
			for {
				_, err := m.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					b.Fatal(err)
				}
				n++
			}
			m.Close()
			if n != events {
				b.Fatalf("read %d events", n)
			}
		}
		b.ReportMetric(float64(events)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
		reportCPU(b, cpu, events, "event")
	})
}

// BenchmarkReadAll reads every file of the history, one after another,
// on one goroutine: what decoding costs one core, for comparison with
// the Merger, which decodes them in parallel.
func BenchmarkReadAll(b *testing.B) {
	const events = 200_000
	dir := b.TempDir()
	writeBenchHistory(b, dir, events, 8)
	paths, err := Files(dir)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	cpu := cpuTime()
	for b.Loop() {
		n := 0
		for _, p := range paths {
			r, err := OpenFile(p)
			if err != nil {
				b.Fatal(err)
			}
			for {
				_, err := r.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					b.Fatal(err)
				}
				n++
			}
			r.Close()
		}
		if n != events {
			b.Fatalf("read %d events", n)
		}
	}
	b.ReportMetric(float64(events)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
	reportCPU(b, cpu, events, "event")
}

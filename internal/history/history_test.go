package history

import (
	"encoding/json"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func sample() []Event {
	return []Event{
		{Kind: Produced, T: 1, Proc: "producer-0", Topic: "t", Partition: 0, Offset: 0, Key: "k00001", Seq: 0, IntendedT: 1, SentT: 1},
		{Kind: Produced, T: 2, Proc: "producer-0", Partition: -1, Offset: -1, Key: "k\"q\\", Seq: 3, Err: "Local: Message timed out\n", Ambiguous: true},
		{Kind: Assigned, T: 3, Proc: "m1", Inc: 2, Topic: "t", Partitions: []int32{0, 1, 5}, Gen: 7, MemberID: "rdkafka-5f0c"},
		{Kind: Revoked, T: 4, Proc: "m1", Inc: 2, Topic: "t", Partitions: []int32{}},
		{Kind: Lost, T: 5, Proc: "m1", Inc: 2, Partitions: []int32{3}},
		{Kind: Processed, T: 6, Proc: "m2", Partition: 3, Offset: 9, Key: "é✓", Seq: 4, Producer: "producer-0", IntendedT: 2, RecordT: 3},
		{Kind: Committed, T: 7, Proc: "m2", Partition: 3, Offset: 10, Auto: true},
		{Kind: Committed, T: 8, Proc: "m2", Partition: 3, Offset: 10, Err: "Broker: Unknown member"},
		{Kind: Chaos, T: 9, Proc: "chaos", Action: "pause", Target: "m2", TargetInc: 1, Step: 2, Params: `{"duration":"10s","n":[1,2]}`, PID: 4242},
		{Kind: Member, T: 10, Proc: "m3", State: StateStarted, Strategy: "sticky", Client: "franz", Policy: "sync-batch", Group: "g", Host: "h", PID: 99, ClockOffset: -12},
		{Kind: Member, T: 11, Proc: "chaos", State: StateExited, Target: "m3", ExitStatus: -1, Signal: "SIGKILL"},
		{Kind: Phase, T: 12, Proc: "chaos", Phase: "drain"},
	}
}

func normalize(e Event) Event {
	if len(e.Partitions) == 0 {
		e.Partitions = nil
	}
	return e
}

func TestRoundTrip(t *testing.T) {
	d := newDecoder()
	for _, want := range sample() {
		line := AppendJSON(nil, &want)
		if !json.Valid(line) {
			t.Fatalf("invalid JSON: %s", line)
		}
		var got Event
		if err := d.decode(line, &got); err != nil {
			t.Fatalf("decode %s: %v", line, err)
		}
		if !reflect.DeepEqual(normalize(got), normalize(want)) {
			t.Errorf("round trip of %s:\n got %+v\nwant %+v", line, got, want)
		}
		// encoding/json agrees with our decoder on what the line says.
		var std map[string]any
		if err := json.Unmarshal(line, &std); err != nil {
			t.Fatal(err)
		}
		if std["kind"] != string(want.Kind) || (want.Key != "" && std["key"] != want.Key) {
			t.Errorf("encoding/json reads %v from %s", std, line)
		}
	}
}

// TestAppendJSONKnownLines: the writer's bytes for the sample events, as
// histories hold them. Readers of old histories depend on these: any
// change here is a change of the format.
func TestAppendJSONKnownLines(t *testing.T) {
	want := []string{
		`{"kind":"produced","t":1,"proc":"producer-0","inc":0,"topic":"t","partition":0,"offset":0,"key":"k00001","seq":0,"intended_t":1,"sent_t":1}`,
		`{"kind":"produced","t":2,"proc":"producer-0","inc":0,"partition":-1,"offset":-1,"key":"k\"q\\","seq":3,"err":"Local: Message timed out\n","ambiguous":true}`,
		`{"kind":"assigned","t":3,"proc":"m1","inc":2,"topic":"t","partitions":[0,1,5],"gen":7,"member_id":"rdkafka-5f0c"}`,
		`{"kind":"revoked","t":4,"proc":"m1","inc":2,"topic":"t","partitions":[]}`,
		`{"kind":"lost","t":5,"proc":"m1","inc":2,"partitions":[3]}`,
		`{"kind":"processed","t":6,"proc":"m2","inc":0,"partition":3,"offset":9,"key":"é✓","seq":4,"producer":"producer-0","intended_t":2,"record_t":3}`,
		`{"kind":"committed","t":7,"proc":"m2","inc":0,"partition":3,"offset":10,"auto":true}`,
		`{"kind":"committed","t":8,"proc":"m2","inc":0,"partition":3,"offset":10,"err":"Broker: Unknown member"}`,
		`{"kind":"chaos","t":9,"proc":"chaos","inc":0,"action":"pause","target":"m2","target_inc":1,"step":2,"params":{"duration":"10s","n":[1,2]},"pid":4242}`,
		`{"kind":"member","t":10,"proc":"m3","inc":0,"state":"started","strategy":"sticky","client":"franz","policy":"sync-batch","group":"g","host":"h","pid":99,"clock_offset":-12}`,
		`{"kind":"member","t":11,"proc":"chaos","inc":0,"target":"m3","state":"exited","exit_status":-1,"signal":"SIGKILL"}`,
		`{"kind":"phase","t":12,"proc":"chaos","inc":0,"phase":"drain"}`,
	}
	for i, e := range sample() {
		if got := string(AppendJSON(nil, &e)); got != want[i] {
			t.Errorf("event %d:\n got %s\nwant %s", i, got, want[i])
		}
	}
	// Fields a kind does not carry are left out, whatever their value.
	e := Event{Kind: Phase, T: 1, Proc: "chaos", Partition: 3, Offset: 4, Seq: 5, Partitions: []int32{1}}
	if got, want := string(AppendJSON(nil, &e)), `{"kind":"phase","t":1,"proc":"chaos","inc":0}`; got != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
	// An empty string is left out, even one that points somewhere.
	e = Event{Kind: Phase, T: 1, Proc: "chaos", Phase: "drain", Host: "h1"[:0], Signal: "SIGKILL"[:0]}
	if got, want := string(AppendJSON(nil, &e)), `{"kind":"phase","t":1,"proc":"chaos","inc":0,"phase":"drain"}`; got != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
}

func TestRoundTripRandomStrings(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	d := newDecoder()
	for i := 0; i < 2000; i++ {
		b := make([]byte, r.IntN(20))
		for j := range b {
			b[j] = byte(r.IntN(256))
		}
		e := Event{Kind: Processed, T: 1, Proc: "m", Key: string(b), Err: string(b)}
		line := AppendJSON(nil, &e)
		if !json.Valid(line) {
			t.Fatalf("invalid JSON for %q: %s", b, line)
		}
		var std struct{ Key string }
		if err := json.Unmarshal(line, &std); err != nil {
			t.Fatal(err)
		}
		var got Event
		if err := d.decode(line, &got); err != nil {
			t.Fatalf("decode %s: %v", line, err)
		}
		if got.Key != std.Key {
			t.Fatalf("key %q: we read %q, encoding/json reads %q", b, got.Key, std.Key)
		}
	}
}

func TestDecodeErrors(t *testing.T) {
	d := newDecoder()
	for line, want := range map[string]string{
		`{"kind":"processed","t":1}`:                           `missing "proc"`,
		`{"t":1,"proc":"m"}`:                                   `missing "kind"`,
		`{"kind":"processed","t":"1","proc":"m"}`:              `field "t"`,
		`{"kind":"processed","t":1.5,"proc":"m"}`:              `fraction`,
		`{"kind":"assigned","t":1,"proc":"m","partitions":[1,`: `field "partitions": expected an integer`,
		`{"kind":"assigned","t":1,"proc":"m","partitions":[1`:  `unterminated array`,
		`{"kind":"processed","t":1,"proc":"m"} x`:              `text after`,
		`not json`: `expected '{'`,
		`{"kind":"processed","t":1,"proc":"m","offset":99999999999999999999}`: `out of range`,
	} {
		var e Event
		err := d.decode([]byte(line), &e)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want one mentioning %q", line, err, want)
		}
	}
	// Unknown fields of any shape are accepted.
	var e Event
	if err := d.decode([]byte(`{"kind":"processed","t":1,"proc":"m","future":{"a":[1,"}"]},"x":null}`), &e); err != nil {
		t.Error(err)
	}
}

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestReaderReportsBadAndTruncatedLines(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "m1.0.jsonl",
		`{"kind":"processed","t":1,"proc":"m1","inc":0,"partition":0,"offset":0,"seq":0}`+"\n"+
			`{"kind":"processed","t":2,"proc":"m1"`+"\n"+ // malformed, line 2
			`{"kind":"processed","t":3,"proc":"m1","inc":0,"partition":0,"offset":1,"seq":1}`+"\n"+
			`{"kind":"processed","t":4,"pro`) // truncated, line 4
	evs, err := ReadFile(p)
	if len(evs) != 2 {
		t.Errorf("read %d events, want the 2 good ones", len(evs))
	}
	var les []*LineError
	for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
		var le *LineError
		if errors.As(e, &le) {
			les = append(les, le)
		}
	}
	if len(les) != 2 || les[0].Line != 2 || les[0].Truncated || les[1].Line != 4 || !les[1].Truncated {
		t.Fatalf("errors = %v", err)
	}
	if !strings.Contains(les[1].Error(), "m1.0.jsonl:4: truncated last line") {
		t.Errorf("message %q", les[1].Error())
	}
}

func TestMergeOrdersByTimeThenFile(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "a.0.jsonl", `{"kind":"phase","t":1,"proc":"a"}`+"\n"+`{"kind":"phase","t":5,"proc":"a"}`+"\n")
	writeFile(t, dir, "b.0.jsonl", `{"kind":"phase","t":1,"proc":"b"}`+"\n"+`{"kind":"phase","t":3,"proc":"b"}`+"\n"+`{"kind":"phase","t":9,"proc":"b"}`+"\n")
	writeFile(t, dir, "c.0.jsonl", "")
	writeFile(t, dir, "notes.txt", "ignored")
	m, err := OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	var got []string
	for {
		e, err := m.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, e.Proc+":"+string(rune('0'+e.T)))
	}
	if want := "a:1 b:1 b:3 a:5 b:9"; strings.Join(got, " ") != want {
		t.Errorf("order %v, want %s", got, want)
	}
}

func TestMergeReportsTimeGoingBackwards(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "a.0.jsonl", `{"kind":"phase","t":5,"proc":"a"}`+"\n"+`{"kind":"phase","t":2,"proc":"a"}`+"\n")
	m, err := OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if _, err := m.Next(); err != nil {
		t.Fatal(err)
	}
	_, err = m.Next()
	var le *LineError
	if !errors.As(err, &le) || le.Line != 2 {
		t.Errorf("got %v, want a LineError for line 2", err)
	}
}

func TestWriterNeverOverwritesAndStampsInOrder(t *testing.T) {
	dir := t.TempDir()
	w, err := Create(dir, "m1", 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Create(dir, "m1", 0); err == nil {
		t.Fatal("a second writer for the same file was allowed")
	}
	if err := w.Append(&Event{Kind: Phase, T: 100, Phase: "a"}); err != nil {
		t.Fatal(err)
	}
	if err := w.Append(&Event{Kind: Phase, T: 50, Phase: "b"}); err != nil {
		t.Fatal(err)
	}
	// Nothing reaches the file before Flush.
	if b, _ := os.ReadFile(w.Path()); len(b) != 0 {
		t.Errorf("file has %d bytes before Flush", len(b))
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	evs, err := ReadFile(w.Path())
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 2 || evs[1].T != 100 || evs[0].Proc != "m1" {
		t.Errorf("events %+v", evs)
	}
	if err := w.Append(&Event{Kind: Phase}); err == nil {
		t.Error("append after close accepted")
	}
}

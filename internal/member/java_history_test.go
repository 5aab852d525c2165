package member

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/chaosbench/chaosbench/internal/clock"
	"github.com/chaosbench/chaosbench/internal/history"
)

// The Java member writes the history format byte for byte as the Go
// writer does (docs/history.md): a history written by its History class,
// with every field a member writes and keys that need escaping, reads
// back through the Go reader with every field as written, and equals
// what history.AppendJSON writes for the same events.
func TestJavaHistoryReadsAsGo(t *testing.T) {
	j := requireJava(t)
	dir := t.TempDir()
	cmd := exec.Command(j.Java, "-cp", j.Classpath, "chaosbench.member.HistorySample", dir)
	cmd.Env = javaEnv()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("HistorySample: %v\n%s", err, out)
	}
	key := string([]byte{'k', '"', '\\', '\n', 1, 0xc3, 0xa9, 0xff, 'z'})
	want := []history.Event{
		{Kind: history.Member, T: 1000, State: history.StateStarted, Strategy: "cooperative-sticky", Client: "java",
			Policy: "async-sync-on-revoke", Group: `group "g"`, Host: "host-1", PID: 4242},
		{Kind: history.Member, T: 1001, State: history.StateJoining},
		{Kind: history.Assigned, T: 1002, Topic: "orders", Partitions: []int32{0, 3, 5}, Gen: 7, MemberID: "m7.2-5f1c"},
		{Kind: history.Processed, T: 1003, Partition: 3, Offset: 42, Key: key, Seq: 9, Producer: "producer-0", IntendedT: 900, RecordT: 950_000_000},
		{Kind: history.Processed, T: 1004, Key: "a", Producer: "producer-0"},
		{Kind: history.Committed, T: 1005, Partition: 3, Offset: 43},
		{Kind: history.Committed, T: 1005, Partition: 5, Offset: 10, Err: "CommitFailedException: Commit cannot be completed\tsince the group has already rebalanced"},
		{Kind: history.Committed, T: 1006, Offset: 1, Auto: true},
		{Kind: history.Txn, T: 1006, Step: 12, State: history.TxnAborted, Err: "rebalance: ProducerFencedException"},
		{Kind: history.Revoked, T: 1007, Topic: "orders", Partitions: []int32{3}, Gen: 7},
		{Kind: history.Lost, T: 1008, Topic: "orders", Partitions: []int32{}},
		{Kind: history.Member, T: 1008, State: history.StateStopping},
		{Kind: history.Clock, T: 1010, ClockOffset: -2_000_000_123, ClockError: 41_500},
	}
	var gob []byte
	for i := range want {
		want[i].Proc, want[i].Inc = "m7", 2
		gob = append(history.AppendJSON(gob, &want[i]), '\n')
	}
	got, err := os.ReadFile(filepath.Join(dir, history.FileName("m7", 2)))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, gob) {
		t.Errorf("the Java history differs from the Go writer's:\njava:\n%s\ngo:\n%s", got, gob)
	}

	// Read as written: one file, no merge (which would put its times on
	// the driver's clock by its clock event).
	evs, err := history.ReadFile(filepath.Join(dir, history.FileName("m7", 2)))
	if err != nil {
		t.Fatal(err)
	}
	// Invalid UTF-8 in a key reads back as U+FFFD, as from the Go writer.
	want[3].Key = "k\"\\\n\x01é\uFFFDz"
	if len(evs) != len(want) {
		t.Fatalf("read %d events, want %d", len(evs), len(want))
	}
	for i := range evs {
		e := &evs[i]
		g := *e
		if len(g.Partitions) == 0 && want[i].Partitions != nil {
			g.Partitions = []int32{}
		}
		if !reflect.DeepEqual(g, want[i]) {
			t.Errorf("event %d:\n got %+v\nwant %+v", i, g, want[i])
		}
	}
}

// The Java member measures its clock as the Go members do: against a
// real time endpoint, a clock 2 s ahead (skewed) is found 2 s ahead,
// within the measurement's error bound, and recorded as a clock event.
func TestJavaMeasuresItsClock(t *testing.T) {
	j := requireJava(t)
	srv, err := clock.Serve("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	dir := t.TempDir()
	const skew = 2 * time.Second
	cmd := exec.Command(j.Java, "-cp", j.Classpath, "chaosbench.member.HistorySample", dir, srv.URL(), strconv.FormatInt(int64(skew), 10))
	cmd.Env = javaEnv()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("HistorySample: %v\n%s", err, out)
	}
	evs, err := history.ReadFile(filepath.Join(dir, history.FileName("m8", 0)))
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 1 || evs[0].Kind != history.Clock {
		t.Fatalf("want one clock event, got %+v", evs)
	}
	e := evs[0]
	if e.ClockError <= 0 || e.ClockError > int64(clock.MaxRoundTrip)/2 {
		t.Errorf("error bound %d ns", e.ClockError)
	}
	if d := e.ClockOffset - int64(skew); d > e.ClockError+1 || d < -e.ClockError-1 {
		t.Errorf("offset %v, want %v within %v", time.Duration(e.ClockOffset), skew, time.Duration(e.ClockError))
	}
	if now := time.Now().Add(skew).UnixNano(); e.T > now || e.T < now-int64(time.Minute) {
		t.Errorf("t %d is not on the skewed clock (now %d)", e.T, now)
	}
	t.Logf("java: offset %v +- %v", time.Duration(e.ClockOffset), time.Duration(e.ClockError))
}

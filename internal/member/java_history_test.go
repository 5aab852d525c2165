package member

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"testing"

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

	m, err := history.OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	// Invalid UTF-8 in a key reads back as U+FFFD, as from the Go writer.
	want[3].Key = "k\"\\\n\x01é\uFFFDz"
	for i := 0; ; i++ {
		e, err := m.Next()
		if err != nil {
			if i != len(want) {
				t.Fatalf("read %d events, want %d: %v", i, len(want), err)
			}
			break
		}
		if i >= len(want) {
			t.Fatalf("more than %d events", len(want))
		}
		g := *e
		if len(g.Partitions) == 0 && want[i].Partitions != nil {
			g.Partitions = []int32{}
		}
		if !reflect.DeepEqual(g, want[i]) {
			t.Errorf("event %d:\n got %+v\nwant %+v", i, g, want[i])
		}
	}
}

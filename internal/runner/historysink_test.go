package runner_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chaosbench/chaosbench/internal/check"
	"github.com/chaosbench/chaosbench/internal/cluster"
	"github.com/chaosbench/chaosbench/internal/history"
	"github.com/chaosbench/chaosbench/internal/kafkatest"
	"github.com/chaosbench/chaosbench/internal/runfolder"
	"github.com/chaosbench/chaosbench/internal/runner"
)

// historySink is a short cell with a restart (a second incarnation) and a
// crash of whoever owns partition 0 (the driver finds the owner in the
// members' histories, which on the topic sink it reads from the topic).
const historySink = `
name: history-sink
seed: 5
duration: 6s
topic: {name: history-sink, partitions: 4, replication: 1}
keys: {count: 100, format: "k%04d", distribution: uniform}
producer: {client: franz, rate: 300, partitioner: murmur2}
consumer:
  members: 3
  processing: {cost: 1ms, distribution: fixed}
  session_timeout: 2s
  heartbeat_interval: 300ms
  max_poll_interval: 20s
strategies: [cooperative-sticky]
commit_policies: [sync-batch]
clients: [franz]
broker: {config: {group.initial.rebalance.delay.ms: "0"}}
chaos:
  warmup: 1s
  drain_timeout: 60s
  steps:
    - {at: 2s, action: restart, target: m2}
    - {at: 4s, action: kill, target: "owner:0"}
`

// The history topic against the file sink on the same run (the tee: both
// at once): every process's lines split back from the topic are its file,
// byte for byte, but for a killed incarnation, whose file may hold the
// lines of the one flush the kill cut short (the file is written first),
// and whose split is then a prefix of it. And a run on the topic alone
// finds the group formed and partition 0's owner from the topic, splits
// it whole into history/, and analyses as the file sink's runs do.
func TestRunHistoryTopic(t *testing.T) {
	kafkatest.Require(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	o := runner.Options{Spec: loadWorkload(t, historySink), Binary: chaosBinary, Warmup: -1,
		Cluster: cluster.Options{Provider: cluster.ProviderLocal, Local: cluster.LocalConfig{HeapMB: 512}}}
	c, err := cluster.Open(ctx, o.ClusterOptions(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	topic := kafkatest.Name(t, "history")
	run := func(t *testing.T, sink, spec string) string {
		t.Helper()
		var out strings.Builder
		o := o
		o.Spec = loadWorkload(t, spec)
		o.Open, o.ResultsDir, o.Out = c, t.TempDir(), &out
		o.History = runner.HistoryOptions{Sink: sink, Topic: topic}
		res, err := runner.Run(ctx, o)
		if err != nil || !res.Complete || len(res.Cells) != 1 {
			t.Fatalf("run (%s): %v %+v\n%s", sink, err, res, out.String())
		}
		return filepath.Join(res.Dir, res.Cells[0])
	}

	// The Go members and producer; then the java member's own writer
	// (History.java, TopicSink.java) beside the Go producer.
	for _, client := range []string{"franz", "java"} {
		t.Run("tee-"+client, func(t *testing.T) {
			spec := historySink
			if client == "java" {
				kafkatest.RequireJava(t)
				spec = strings.Replace(historySink, "clients: [franz]", "clients: [java]", 1)
			}
			teeSplitIsTheFiles(t, run(t, runfolder.SinkTee, spec))
		})
	}

	t.Run("topic", func(t *testing.T) {
		cell := run(t, runfolder.SinkTopic, historySink)
		split := readSplit(t, cell)
		if split.Dir != "history" || split.Records == 0 {
			t.Errorf("split: %+v", split)
		}
		// The owner of partition 0 was found and killed.
		killed := killedIncarnations(t, cell)
		if len(killed) != 1 {
			t.Errorf("killed %v, want one incarnation", killed)
		}
		a, err := check.AnalyzeCell(cell, check.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if !a.Cell.Complete || a.Loss.Lost != 0 || a.History.BadLines != 0 {
			b, _ := json.MarshalIndent(a.Summary, "", " ")
			t.Errorf("analysis of the split: complete %t, lost %d, bad lines %d\n%s", a.Cell.Complete, a.Loss.Lost, a.History.BadLines, b)
		}
	})
}

// teeSplitIsTheFiles checks a tee cell: every process's file split from
// the topic into history-topic/ is its file in history/, byte for byte,
// but a killed incarnation's, which may be a prefix of it.
func teeSplitIsTheFiles(t *testing.T, cell string) {
	t.Helper()
	split := readSplit(t, cell)
	if split.Dir != runfolder.TopicHistoryDir {
		t.Errorf("split into %q, want %q", split.Dir, runfolder.TopicHistoryDir)
	}
	killed := killedIncarnations(t, cell)
	files, err := history.Files(runfolder.HistoryDir(cell))
	if err != nil {
		t.Fatal(err)
	}
	compared, identical := 0, true
	for _, f := range files {
		name := filepath.Base(f)
		if name == "chaos.0.jsonl" { // the driver's own: always a file
			continue
		}
		want, _ := os.ReadFile(f)
		got, err := os.ReadFile(filepath.Join(cell, runfolder.TopicHistoryDir, name))
		if err != nil {
			t.Errorf("%s: not split from the topic: %v", name, err)
			continue
		}
		compared++
		switch {
		case bytes.Equal(got, want):
		case killed[name] && bytes.HasPrefix(want, got):
			t.Logf("%s (killed): the split holds %d of the file's %d bytes", name, len(got), len(want))
			identical = false
		default:
			t.Errorf("%s: the split (%d bytes) differs from the file (%d bytes)", name, len(got), len(want))
		}
	}
	// producer-0, m1, m2.0, m2.1, m3 at least.
	if topicFiles, _ := history.Files(filepath.Join(cell, runfolder.TopicHistoryDir)); compared < 5 || len(topicFiles) != compared {
		t.Errorf("compared %d files; the topic gave %d", compared, len(topicFiles))
	}

	// The cell analysed from the topic's files (and the driver's own)
	// gives the files' summary: the same one when every file is the
	// same, the same verdict when a killed incarnation's last flush is
	// missing from the topic.
	fromTopic := filepath.Join(t.TempDir(), filepath.Base(cell))
	copyFile := func(from, to string) {
		t.Helper()
		b, err := os.ReadFile(from)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(to, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	copyFile(filepath.Join(cell, runfolder.CellFile), filepath.Join(fromTopic, runfolder.CellFile))
	copyFile(filepath.Join(runfolder.HistoryDir(cell), "chaos.0.jsonl"), filepath.Join(runfolder.HistoryDir(fromTopic), "chaos.0.jsonl"))
	topicFiles, _ := history.Files(filepath.Join(cell, runfolder.TopicHistoryDir))
	for _, f := range topicFiles {
		copyFile(f, filepath.Join(runfolder.HistoryDir(fromTopic), filepath.Base(f)))
	}
	summaryOf := func(dir string) ([]byte, string) {
		t.Helper()
		a, err := check.AnalyzeCell(dir, check.Options{})
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.MarshalIndent(a.Summary, "", " ")
		if err != nil {
			t.Fatal(err)
		}
		return b, string(a.Verdict)
	}
	fileSummary, fileVerdict := summaryOf(cell)
	topicSummary, topicVerdict := summaryOf(fromTopic)
	switch {
	case identical && !bytes.Equal(fileSummary, topicSummary):
		t.Errorf("the topic's files analyse otherwise than the files:\n%s\nagainst\n%s", topicSummary, fileSummary)
	case fileVerdict != topicVerdict:
		t.Errorf("verdict from the topic's files %s, from the files %s", topicVerdict, fileVerdict)
	}
}

func readSplit(t *testing.T, cell string) runfolder.HistorySplit {
	t.Helper()
	s, found, err := runfolder.ReadHistorySplit(cell)
	if err != nil || !found || !s.Complete {
		t.Fatalf("history-split.json: found %t, %v: %+v", found, err, s)
	}
	rec, err := runfolder.ReadCell(cell)
	if err != nil || rec.History == nil || rec.History.Topic == "" || len(rec.History.StartOffsets) == 0 {
		t.Fatalf("cell.json history: %+v, %v", rec.History, err)
	}
	return s
}

// killedIncarnations are the history files of the incarnations the
// driver killed, as its history says.
func killedIncarnations(t *testing.T, cell string) map[string]bool {
	t.Helper()
	evs, err := history.ReadFile(filepath.Join(runfolder.HistoryDir(cell), "chaos.0.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, e := range evs {
		if e.Kind == history.Member && e.State == history.StateExited && e.Signal == "SIGKILL" {
			out[history.FileName(e.Target, e.TargetInc)] = true
		}
	}
	return out
}

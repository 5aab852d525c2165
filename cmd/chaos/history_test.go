package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chaosbench/chaosbench/internal/cli"
)

// The history sink's flags are checked before anything starts: status 2,
// the flag and what it expects named, no results folder.
func TestRunBadHistoryFlags(t *testing.T) {
	results := filepath.Join(t.TempDir(), "results")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--history-sink", "kafka"}, `--history-sink "kafka": expected one of file, topic, tee`},
		{[]string{"--history-topic", "h"}, "only with --history-sink topic or tee"},
		{[]string{"--history-bootstrap", "b:9092"}, "only with --history-sink topic or tee"},
		{[]string{"--history-sink", "topic", "--history-topic", "a/b"}, `--history-topic "a/b": expected a Kafka topic name`},
		{[]string{"--history-sink", "tee", "--history-topic", strings.Repeat("h", 250)}, "expected a Kafka topic name"},
		{[]string{"--history-sink", "topic", "-X", "ssl.keystore.location=/k.p12"}, "the history topic's client (franz-go)"},
	} {
		err := runRun(append(c.args, "--results", results, "../../workloads/default.yaml"))
		if exitStatus(err) != cli.ExitUsage || !strings.Contains(err.Error(), c.want) {
			t.Errorf("run %v: %v (status %d), want status 2 and %q", c.args, err, exitStatus(err), c.want)
		}
	}
	if _, err := os.Stat(results); !os.IsNotExist(err) {
		t.Errorf("%s exists after rejected runs (%v)", results, err)
	}
}

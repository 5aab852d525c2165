package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chaosbench/chaosbench/internal/cli"
	"github.com/chaosbench/chaosbench/internal/kafkatest"
)

func TestMain(m *testing.M) { kafkatest.Main(m) }

func isUsage(err error) bool {
	var ue *cli.UsageError
	return errors.As(err, &ue)
}

// `loadgen partition` gives Java's default partitioner's answer: the
// positive murmur2 hash (Kafka's UtilsTest values) modulo the partitions.
func TestPartitionAgreesWithJava(t *testing.T) {
	known := map[string]int32{"21": -973932308, "foobar": -790332482, "abc": 479470107,
		"a-little-bit-long-string": -985981536, "a-little-bit-longer-string": -1486304829}
	var keys []string
	for k := range known {
		keys = append(keys, k)
	}
	var out, errOut bytes.Buffer
	if err := partition(append([]string{"--partitioner", "murmur2", "--partitions", "12"}, keys...), nil, &out, &errOut); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(&out)
	n := 0
	for ; sc.Scan(); n++ {
		k, p, _ := strings.Cut(sc.Text(), "\t")
		if want := fmt.Sprint((known[k] & 0x7fffffff) % 12); p != want || k != keys[n] {
			t.Errorf("line %q: want %s\t%s", sc.Text(), keys[n], want)
		}
	}
	if n != len(keys) {
		t.Errorf("%d lines for %d keys", n, len(keys))
	}
	// Keys from stdin, one per line.
	out.Reset()
	if err := partition([]string{"--partitions", "12"}, strings.NewReader("21\nabc\n"), &out, &errOut); err != nil || out.String() != "21\t0\nabc\t3\n" {
		t.Errorf("stdin: %q, %v", out.String(), err)
	}
}

func TestUsageErrors(t *testing.T) {
	var out, errOut bytes.Buffer
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	os.WriteFile(bad, []byte("duration: 1m\nproducer: {acks: 2}\n"), 0o644)
	outDir := filepath.Join(t.TempDir(), "out")
	for name, err := range map[string]error{
		"partition: unknown partitioner": partition([]string{"--partitioner", "random", "--partitions", "3", "k"}, nil, &out, &errOut),
		"partition: no partitions":       partition([]string{"k"}, nil, &out, &errOut),
		"partition: bad flag":            partition([]string{"--partitons", "3"}, nil, &out, &errOut),
		"plan: no workload":              plan(nil, &out, &errOut),
		"plan: malformed workload":       plan([]string{bad}, &out, &errOut),
		"plan: --to below":               plan([]string{"--to", "4", "../../workloads/default.yaml"}, &out, &errOut),
		"plan: --to beyond int32":        plan([]string{"--to", "4294967297", "../../workloads/default.yaml"}, &out, &errOut),
		"plan: --to negative":            plan([]string{"--to", "-1", "../../workloads/default.yaml"}, &out, &errOut),
		"partition: beyond int32":        partition([]string{"--partitions", "4294967296", "k"}, nil, &out, &errOut),
		"run: unknown provider":          runLoad([]string{"--out", outDir, "--provider", "bogus", "../../workloads/default.yaml"}, &out, &errOut),
		"run: two brokers":               runLoad([]string{"--out", outDir, "--brokers", "2", "../../workloads/default.yaml"}, &out, &errOut),
		"run: -X set by the workload":    runLoad([]string{"--out", outDir, "-X", "acks=1", "../../workloads/default.yaml"}, &out, &errOut),
		"run: malformed workload":        runLoad([]string{"--out", outDir, bad}, &out, &errOut),
		"run: bad rate":                  runLoad([]string{"--out", outDir, "--rate", "fast", "../../workloads/default.yaml"}, &out, &errOut),
		"run: duration and records":      runLoad([]string{"--out", outDir, "--duration", "5s", "--records", "10", "../../workloads/default.yaml"}, &out, &errOut),
	} {
		if !isUsage(err) {
			t.Errorf("%s: %v (%T), want a usage error (exit status 2)", name, err, err)
		}
	}
	// A rejected workload starts nothing and writes nothing.
	if _, err := os.Stat(outDir); !os.IsNotExist(err) {
		t.Errorf("%s exists after rejected runs", outDir)
	}
}

func TestPlanHotKeys(t *testing.T) {
	var out, errOut bytes.Buffer
	if err := plan([]string{"../../workloads/hot-keys.yaml"}, &out, &errOut); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	// tenant-a (30% of the traffic) is on partition 3 under murmur2 with
	// 12 partitions; the other 50% spreads evenly, about 4.2% a partition.
	for _, want := range []string{"partitioner murmur2, 12 partitions", "hottest partition 3 carries 34.", "partitions 12 -> 24", "jump "} {
		if !strings.Contains(s, want) {
			t.Errorf("plan output lacks %q:\n%s", want, s)
		}
	}
	out.Reset()
	if err := plan([]string{"--json", "../../workloads/partition-growth.yaml"}, &out, &errOut); err != nil {
		t.Fatal(err)
	}
	var rep planReport
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Changes) != 1 || rep.Changes[0].From != 8 || rep.Changes[0].To != 12 || len(rep.Changes[0].Movements) != 4 {
		t.Errorf("partition-growth changes: %+v", rep.Changes)
	}
	for _, m := range rep.Changes[0].Movements {
		want := 2.0 / 3 // a modulo hash from 8 to 12 keeps h mod 24 < 8
		if m.Partitioner == "jump" {
			want = 1.0 / 3
		}
		if d := m.Keys - want; d < -0.03 || d > 0.03 {
			t.Errorf("%s moves %.3f of keys from 8 to 12, want about %.3f", m.Partitioner, m.Keys, want)
		}
	}
}

// TestGrowthScenariosMoveWhatTheySay holds the catalogue's growth
// scenarios to the shares of keys their statements say move from 24 to
// 36 partitions: two thirds under a modulo hash (a key stays only when
// its hash modulo 24 and 36 agree, 24 of every 72), a third under jump
// consistent hash ((36-24)/36).
func TestGrowthScenariosMoveWhatTheySay(t *testing.T) {
	for _, p := range []string{"murmur2", "consistent", "fnv1a", "jump"} {
		var out, errOut bytes.Buffer
		if err := plan([]string{"--json", "../../workloads/scenarios/growth-" + p + ".yaml"}, &out, &errOut); err != nil {
			t.Fatal(err)
		}
		var rep planReport
		if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
			t.Fatal(err)
		}
		if len(rep.Changes) != 1 || rep.Changes[0].From != 24 || rep.Changes[0].To != 36 {
			t.Fatalf("growth-%s: changes %+v", p, rep.Changes)
		}
		for _, m := range rep.Changes[0].Movements {
			if m.Partitioner != p {
				continue
			}
			want := 2.0 / 3
			if p == "jump" {
				want = 1.0 / 3
			}
			if d := m.Keys - want; d < -0.03 || d > 0.03 {
				t.Errorf("growth-%s moves %.3f of its keys, its statement says about %.3f", p, m.Keys, want)
			}
		}
	}
}

func TestRunAgainstBroker(t *testing.T) {
	c := kafkatest.Shared(t)
	dir := filepath.Join(t.TempDir(), "out")
	var out, errOut bytes.Buffer
	err := runLoad([]string{"--bootstrap", c.Bootstrap(), "--out", dir, "--topic", kafkatest.Name(t, "run"),
		"--records", "800", "--rate", "unlimited", "--quiet", "../../workloads/hot-keys.yaml"}, &out, &errOut)
	if err != nil {
		t.Fatalf("run: %v\n%s", err, errOut.String())
	}
	var sum Summary
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &sum); err != nil {
		t.Fatal(err)
	}
	if sum.Sent != 800 || sum.Acked != 800 || !sum.Complete || sum.Partitions != 12 || sum.Cluster == nil {
		t.Errorf("summary %+v", sum)
	}
	hist, err := os.ReadFile(filepath.Join(dir, "history", "producer-0.0.jsonl"))
	if err != nil || bytes.Count(hist, []byte("\n")) != 800 {
		t.Errorf("history: %d lines, %v", bytes.Count(hist, []byte("\n")), err)
	}
	for _, f := range []string{"producer.hlog", "workload.yaml", "logs/producer.log"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
	if !strings.Contains(out.String(), "sent 800, acked 800, errors 0") {
		t.Errorf("summary output:\n%s", out.String())
	}
	// The folder is never reused.
	if err := runLoad([]string{"--bootstrap", c.Bootstrap(), "--out", dir, "../../workloads/hot-keys.yaml"}, &out, &errOut); !isUsage(err) {
		t.Errorf("reusing --out: %v", err)
	}
}

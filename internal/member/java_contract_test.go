package member

import (
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chaosbench/chaosbench/internal/kafkaconf"
	"github.com/chaosbench/chaosbench/internal/kafkarelease"
	"github.com/chaosbench/chaosbench/internal/vocab"
	"github.com/chaosbench/chaosbench/workloads"
)

// javaView runs the Java member's --print-config on cfg's flags.
func javaView(t *testing.T, j JavaMember, cfg Config) (flags map[string]any, consumer map[string]string, version string) {
	t.Helper()
	argv := j.Command(append([]string{"--print-config"}, cfg.Args()...)...)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(javaEnv(), cfg.Env()...) // the secret properties, as a member gets them
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("--print-config: %v\n%s", err, stderrOf(err))
	}
	var v struct {
		Flags        map[string]any    `json:"flags"`
		Consumer     map[string]string `json:"consumer"`
		KafkaClients string            `json:"kafka_clients"`
	}
	d := json.NewDecoder(bytesReader(out))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		t.Fatalf("--print-config: %v\n%s", err, out)
	}
	return v.Flags, v.Consumer, v.KafkaClients
}

// The member contract (Config): every flag the Go side renders, the Java
// program reads to the same value. A Config with every field set (and
// values that trip a careless parser: a microsecond duration, '=' in a
// property value, spaces, non-ASCII) goes through Args, the Java program
// prints its view, and each flag is compared by the Go flag's own value.
func TestJavaReadsEveryFlag(t *testing.T) {
	j := requireJava(t)
	cfg := Config{
		Name: "m12", Inc: 3, HistoryDir: "/tmp/hist dir/é",
		Bootstrap: "127.0.0.1:9092,127.0.0.1:9093",
		Props:     kafkaconf.Props{"fetch.max.wait.ms": "250", "sasl.jaas.config": "a=b c=\"d\""},
		Group:     "group-x", Topic: "topic.y",
		Client: vocab.ClientJava, Strategy: vocab.CooperativeSticky, Policy: vocab.PolicyAsyncSyncOnRevoke,
		Processing:         workloads.Processing{Cost: 250 * time.Microsecond, Distribution: workloads.CostUniform, Jitter: 1500 * time.Nanosecond},
		Seed:               -42,
		MaxPollRecords:     77,
		SessionTimeout:     6500 * time.Millisecond,
		HeartbeatInterval:  time.Second + 300*time.Millisecond,
		MaxPollInterval:    90 * time.Minute,
		AutoCommitInterval: 1250 * time.Millisecond,
		Static:             true,
		Control:            true,
		ControlAddr:        "[::1]:4711",
		ClockURL:           "http://127.0.0.1:4567/chaosbench/time",
		ClockSkew:          -1500 * time.Millisecond,
		HistorySink:        "tee",
		HistoryTopic:       "history.x",
		HistoryBootstrap:   "127.0.0.1:9094",
	}
	view, _, _ := javaView(t, j, cfg)
	fs := flag.NewFlagSet("member", flag.ContinueOnError)
	cfg.Flags(fs)
	fs.VisitAll(func(f *flag.Flag) {
		got, ok := view[f.Name]
		if !ok {
			t.Errorf("-%s: the Java member does not read it", f.Name)
			return
		}
		if f.Name == "X" {
			m, _ := got.(map[string]any)
			if len(m) != len(cfg.Props) {
				t.Errorf("-X: Java read %v, want %v", got, cfg.Props)
			}
			for k, v := range cfg.Props {
				if m[k] != v {
					t.Errorf("-X %s: Java read %q, want %q", k, m[k], v)
				}
			}
			return
		}
		var want string
		switch v := f.Value.(flag.Getter).Get().(type) {
		case time.Duration:
			want = strconv.FormatInt(int64(v), 10)
		default:
			want = fmt.Sprint(v)
		}
		if g := fmt.Sprint(got); g != want {
			t.Errorf("-%s=%s: Java read %s, want %s", f.Name, f.Value, g, want)
		}
	})
	for k := range view {
		if k != "X" && fs.Lookup(k) == nil {
			t.Errorf("the Java member reads -%s, which Config does not have", k)
		}
	}
}

// What the Java member asks of Kafka's client, per strategy: the member's
// consumer settings (Config.ConsumerSettings), the client's by their
// Kafka names, with partition.assignment.strategy as the Java client
// names it (vocab's Assignor, the assignor's class); none of the group's;
// and besides them only what the member sets itself, by the same rules
// as the Go members: where it connects, who it is, where it starts, how
// it reads records and whether it auto-commits. A setting the Java
// member adds or leaves out is a difference here.
func TestJavaConsumerSettings(t *testing.T) {
	j := requireJava(t)
	const deserializer = "org.apache.kafka.common.serialization.ByteArrayDeserializer"
	for _, st := range vocab.Strategies() {
		for _, pol := range []string{vocab.PolicyAuto, vocab.PolicySyncBatch} {
			cfg := Defaults()
			cfg.Name, cfg.HistoryDir, cfg.Bootstrap, cfg.Group, cfg.Topic = "m1", "/tmp", "127.0.0.1:9092", "g", "t"
			cfg.Client, cfg.Strategy, cfg.Policy = vocab.ClientJava, st.Name, pol
			cfg.SessionTimeout, cfg.HeartbeatInterval = 7*time.Second, 700*time.Millisecond
			cfg.MaxPollInterval, cfg.AutoCommitInterval, cfg.MaxPollRecords = 70*time.Second, 1234*time.Millisecond, 77
			cfg.Static = pol == vocab.PolicyAuto // either membership, over the strategies
			cfg.Props = kafkaconf.Props{"fetch.min.bytes": "7"}
			_, got, version := javaView(t, j, cfg)
			if version != kafkarelease.Version {
				t.Errorf("kafka-clients %s, want the broker's %s", version, kafkarelease.Version)
			}
			want := map[string]string{
				"bootstrap.servers": "127.0.0.1:9092", "group.id": "g", "client.id": "m1.0", "auto.offset.reset": "earliest",
				"key.deserializer": deserializer, "value.deserializer": deserializer,
				"enable.auto.commit": strconv.FormatBool(cfg.autoCommit()), "fetch.min.bytes": "7",
			}
			if cfg.autoCommit() {
				// The library's own commits are seen only through it.
				want["interceptor.classes"] = "chaosbench.member.CommitRecorder"
			}
			for _, s := range cfg.ConsumerSettings().In(vocab.InClient) {
				want[s.Name] = s.Value
				if s.Name == vocab.SettingAssignmentStrategy {
					want[s.Name] = st.Assignor
				}
			}
			for _, k := range slices.Sorted(maps.Keys(want)) {
				if v, ok := got[k]; !ok || v != want[k] {
					t.Errorf("%s/%s: %s=%q (set %v), want %q", st.Name, pol, k, v, ok, want[k])
				}
			}
			for _, k := range slices.Sorted(maps.Keys(got)) {
				if _, ok := want[k]; !ok {
					t.Errorf("%s/%s: the Java member sets %s=%s, which the consumer settings do not give", st.Name, pol, k, got[k])
				}
			}
		}
	}
}

// The broken test double is the same on every client: the Java member
// reads the environment variable and value the Go members do.
func TestJavaTestDoubleNames(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("java", "src", "main", "java", "chaosbench", "member", "Member.java"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{TestDoubleEnv, TestDoubleOffsetsOutside} {
		if !strings.Contains(string(src), strconv.Quote(name)) {
			t.Errorf("Member.java does not spell %q", name)
		}
	}
}

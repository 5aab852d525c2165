package member

import (
	"encoding/json"
	"flag"
	"fmt"
	"os/exec"
	"strconv"
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

// What the Java member asks of Kafka's client, per strategy: the facts
// internal/vocab states (protocol, assignor) and the member's timings.
func TestJavaConsumerSettings(t *testing.T) {
	j := requireJava(t)
	for _, st := range vocab.Strategies() {
		for _, pol := range []string{vocab.PolicyAuto, vocab.PolicySyncBatch} {
			cfg := Defaults()
			cfg.Name, cfg.HistoryDir, cfg.Bootstrap, cfg.Group, cfg.Topic = "m1", "/tmp", "127.0.0.1:9092", "g", "t"
			cfg.Client, cfg.Strategy, cfg.Policy = vocab.ClientJava, st.Name, pol
			cfg.Static = true
			cfg.Props = kafkaconf.Props{"fetch.min.bytes": "7"}
			_, c, version := javaView(t, j, cfg)
			if version != kafkarelease.Version {
				t.Errorf("kafka-clients %s, want the broker's %s", version, kafkarelease.Version)
			}
			want := map[string]string{
				"group.id": "g", "client.id": "m1.0", "group.instance.id": "m1", "auto.offset.reset": "earliest",
				"max.poll.records": "500", "max.poll.interval.ms": "300000", "auto.commit.interval.ms": "5000",
				"enable.auto.commit": strconv.FormatBool(pol == vocab.PolicyAuto), "fetch.min.bytes": "7",
			}
			if st.Protocol == vocab.Consumer {
				want["group.protocol"] = "consumer"
				want["group.remote.assignor"] = st.Assignor
				for _, k := range []string{"partition.assignment.strategy", "session.timeout.ms", "heartbeat.interval.ms"} {
					if v, ok := c[k]; ok {
						t.Errorf("%s: %s=%s under the consumer protocol", st.Name, k, v)
					}
				}
			} else {
				want["group.protocol"] = "classic"
				want["partition.assignment.strategy"] = st.Assignor
				want["session.timeout.ms"] = "45000"
				want["heartbeat.interval.ms"] = "3000"
			}
			for k, v := range want {
				if c[k] != v {
					t.Errorf("%s/%s: %s=%q, want %q", st.Name, pol, k, c[k], v)
				}
			}
		}
	}
}

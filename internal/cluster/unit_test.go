package cluster

import (
	"context"
	"encoding/base64"
	"net"
	"strings"
	"testing"
	"time"
)

func TestClusterIDIsAKafkaUUID(t *testing.T) {
	for i := 0; i < 100; i++ {
		id, err := newClusterID()
		if err != nil {
			t.Fatal(err)
		}
		b, err := base64.RawURLEncoding.DecodeString(id)
		if err != nil || len(b) != 16 || strings.HasPrefix(id, "-") {
			t.Fatalf("cluster id %q: %d bytes, %v", id, len(b), err)
		}
	}
}

func TestReservedSettingsRejected(t *testing.T) {
	if err := checkReservedSettings(Settings{"log.dirs": "/x"}); err == nil || !strings.Contains(err.Error(), "log.dirs") {
		t.Errorf("log.dirs accepted: %v", err)
	}
	if err := checkReservedSettings(Settings{"group.initial.rebalance.delay.ms": "0"}); err != nil {
		t.Error(err)
	}
}

func TestParseSetting(t *testing.T) {
	k, v, err := ParseSetting("group.initial.rebalance.delay.ms=0")
	if err != nil || k != "group.initial.rebalance.delay.ms" || v != "0" {
		t.Errorf("got %q %q %v", k, v, err)
	}
	for _, bad := range []string{"novalue", "=3", ""} {
		if _, _, err := ParseSetting(bad); err == nil {
			t.Errorf("ParseSetting(%q) accepted", bad)
		}
	}
}

func TestDefaultLocalSettingsReplication(t *testing.T) {
	if got := DefaultLocalSettings(1)["offsets.topic.replication.factor"]; got != "1" {
		t.Errorf("1 node: offsets RF %s", got)
	}
	if got := DefaultLocalSettings(3)["offsets.topic.replication.factor"]; got != "3" {
		t.Errorf("3 nodes: offsets RF %s", got)
	}
}

func TestPickPortsDistinct(t *testing.T) {
	ports, err := pickPorts(0, 3)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int]bool{}
	for _, p := range ports {
		if p == 0 || seen[p] {
			t.Fatalf("ports %v", ports)
		}
		seen[p] = true
	}
}

// The docker provider runs the local provider's Kafka release, and hands
// broker settings to the apache/kafka image by the names it reads.
func TestDockerImageAndEnv(t *testing.T) {
	if DockerImage != "apache/kafka:"+KafkaVersion {
		t.Errorf("DockerImage %s: want Apache Kafka's image of %s", DockerImage, KafkaVersion)
	}
	for key, want := range map[string]string{
		"group.initial.rebalance.delay.ms":     "KAFKA_GROUP_INITIAL_REBALANCE_DELAY_MS",
		"group.consumer.heartbeat.interval.ms": "KAFKA_GROUP_CONSUMER_HEARTBEAT_INTERVAL_MS",
		"listener.name.a_b.x-y":                "KAFKA_LISTENER_NAME_A__B_X___Y",
	} {
		if got := dockerEnvName(key); got != want {
			t.Errorf("dockerEnvName(%s) = %s, want %s", key, got, want)
		}
	}
	env, err := dockerEnv(Settings{"group.initial.rebalance.delay.ms": "0", "offsets.topic.replication.factor": "1"}, "id")
	if err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]string{
		"KAFKA_GROUP_INITIAL_REBALANCE_DELAY_MS": "0", "KAFKA_PROCESS_ROLES": "broker,controller", "CLUSTER_ID": "id",
		"KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR": "1", "KAFKA_INTER_BROKER_LISTENER_NAME": "BROKER",
	} {
		if env[k] != want {
			t.Errorf("%s = %q, want %q", k, env[k], want)
		}
	}
	if _, err := dockerEnv(Settings{"listeners": "PLAINTEXT://:1"}, "id"); err == nil {
		t.Error("a listener setting was accepted: the provider owns them")
	}
}

// Extra listeners get ports of their own and their settings under their
// listener.name prefix; a bad one is refused.
func TestListenerConfig(t *testing.T) {
	l := &Local{cfg: LocalConfig{Listeners: []Listener{
		{Name: "SASL_SSL", Protocol: "SASL_SSL", Settings: Settings{"sasl.enabled.mechanisms": "SCRAM-SHA-512"}},
	}}}
	n := &localNode{ID: 1, Port: 9092, ControllerPort: 9093, ListenerPorts: []int{9099}}
	l.nodes = []*localNode{n}
	got := l.listenerConfig(n)
	for _, want := range []string{
		"listeners=PLAINTEXT://127.0.0.1:9092,CONTROLLER://127.0.0.1:9093,SASL_SSL://127.0.0.1:9099\n",
		"advertised.listeners=PLAINTEXT://127.0.0.1:9092,SASL_SSL://127.0.0.1:9099\n",
		"listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT,SASL_SSL:SASL_SSL\n",
		"listener.name.sasl_ssl.sasl.enabled.mechanisms=SCRAM-SHA-512\n",
		"inter.broker.listener.name=PLAINTEXT\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in\n%s", want, got)
		}
	}
	if b, err := l.ListenerBootstrap("SASL_SSL"); err != nil || b != "127.0.0.1:9099" {
		t.Errorf("ListenerBootstrap: %q, %v", b, err)
	}
	for _, bad := range [][]Listener{
		{{Name: "sasl", Protocol: "SASL_SSL"}},
		{{Name: "PLAINTEXT", Protocol: "SSL"}},
		{{Name: "X", Protocol: "SSL"}, {Name: "X", Protocol: "SSL"}},
		{{Name: "X", Protocol: "KERBEROS"}},
	} {
		if err := checkListeners(bad); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
}

// A broker that takes the connection and never answers is named, with
// the request it did not answer, instead of "context deadline exceeded".
func TestSilentBrokerNamed(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		var held []net.Conn
		for {
			c, err := l.Accept()
			if err != nil {
				for _, c := range held {
					c.Close()
				}
				return
			}
			held = append(held, c)
		}
	}()
	defer func(d time.Duration) { externalTimeout = d }(externalTimeout)
	externalTimeout = 2 * time.Second
	_, err = OpenExternal(context.Background(), l.Addr().String(), nil)
	want := l.Addr().String() + ": no answer to ApiVersions within 2s"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("a silent broker: %v, want %q", err, want)
	}
}

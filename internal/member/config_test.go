package member

import (
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/chaosbench/chaosbench/internal/kafkaconf"
	"github.com/chaosbench/chaosbench/internal/vocab"
	"github.com/chaosbench/chaosbench/workloads"
)

// testToken is a control token of the right shape.
const testToken = "0123456789abcdef0123456789abcdef"

func validConfig() Config {
	return Config{Name: "m1", HistoryDir: "/tmp/h", Bootstrap: "127.0.0.1:9092", Group: "g", Topic: "t",
		Strategy: vocab.Range, Policy: vocab.PolicySyncBatch}
}

func TestConfigDefaults(t *testing.T) {
	c := validConfig()
	if err := c.validate(); err != nil {
		t.Fatal(err)
	}
	if c.Client != vocab.ClientConfluent || c.MaxPollRecords != 500 || c.SessionTimeout != 45*time.Second ||
		c.HeartbeatInterval != 3*time.Second || c.MaxPollInterval != 300*time.Second {
		t.Errorf("defaults: %+v", c)
	}
	s := validConfig()
	s.Strategy = vocab.Sticky
	if err := s.validate(); err != nil || s.Client != vocab.ClientFranz {
		t.Errorf("sticky defaults to franz: client %q, %v", s.Client, err)
	}
}

func TestConfigErrorsNameTheFlag(t *testing.T) {
	for _, tc := range []struct {
		edit func(*Config)
		want string
	}{
		{func(c *Config) { c.Name = "bad name" }, "--name"},
		{func(c *Config) { c.Strategy = "sticky"; c.Client = vocab.ClientConfluent }, "no eager sticky"},
		{func(c *Config) { c.Strategy = "fair" }, "--strategy"},
		{func(c *Config) { c.Policy = "sometimes" }, "--policy"},
		{func(c *Config) { c.Client = "sarama" }, "--client"},
		{func(c *Config) { c.Processing.Distribution = "normal" }, "--processing-distribution"},
		{func(c *Config) { c.HeartbeatInterval = 10 * time.Second; c.SessionTimeout = 5 * time.Second }, "--heartbeat-interval"},
		{func(c *Config) { c.MaxPollRecords = -1 }, "--max-poll-records"},
		{func(c *Config) { c.Topic = "" }, "--topic"},
		{func(c *Config) {
			c.Client = vocab.ClientFranz
			c.Props = map[string]string{"isolation.level": "read_committed"}
		}, "-X isolation.level"},
		{func(c *Config) {
			c.Client = vocab.ClientFranz
			c.Props = map[string]string{"fetch.max.wait.ms": "soon"}
		}, "-X fetch.max.wait.ms=soon"},
		{func(c *Config) { c.Client = vocab.ClientFranz; c.Strategy = vocab.ConsumerUniform; c.Static = true }, "--static"},
		{func(c *Config) {
			c.Client = vocab.ClientFranz
			c.Policy = vocab.PolicyTransactional
			c.TransactionalID = "g.m1"
		}, "--output-topic"},
		{func(c *Config) {
			c.Client = vocab.ClientFranz
			c.Policy = vocab.PolicyTransactional
			c.OutputTopic = "o"
		}, "--transactional-id"},
		{func(c *Config) {
			c.Client, c.Policy, c.OutputTopic, c.TransactionalID = vocab.ClientFranz, vocab.PolicyTransactional, "o", "g.m1"
			c.TransactionTimeout = time.Hour
		}, "--transaction-timeout"},
		{func(c *Config) {
			c.Client, c.Policy, c.OutputTopic, c.TransactionalID = vocab.ClientFranz, vocab.PolicyTransactional, "o", "g.m1"
			c.CommitInterval = time.Minute
		}, "--commit-interval"},
		{func(c *Config) { c.ClockURL = "127.0.0.1:80" }, "--clock-url \"127.0.0.1:80\": expected an http:// address"},
		{func(c *Config) { c.ClockSkew = 400 * time.Hour }, "--clock-skew 400h0m0s: expected within"},
		{func(c *Config) { c.ControlAddr, c.ControlToken = "driver", testToken }, `--control-addr "driver": expected host:port`},
		{func(c *Config) { c.ControlAddr, c.ControlToken = "10.0.0.1:0", testToken }, `--control-addr "10.0.0.1:0": expected host:port`},
		{func(c *Config) { c.ControlAddr = "10.0.0.1:4000" }, "--control-addr: the run's token is missing: expected it in the environment variable CHAOSBENCH_CONTROL_TOKEN"},
		{func(c *Config) { c.ControlAddr, c.ControlToken = "10.0.0.1:4000", "short" }, "CHAOSBENCH_CONTROL_TOKEN: expected a token of 32 to 256 characters"},
		{func(c *Config) { c.ControlAddr, c.ControlToken, c.Control = "10.0.0.1:4000", testToken, true }, "--control-stdin and --control-addr: expected one control channel"},
		{func(c *Config) { c.HistorySink = "kafka" }, `--history-sink "kafka": expected one of file, topic, tee`},
		{func(c *Config) { c.HistorySink, c.HistoryBootstrap = "topic", "b:9092" }, `--history-topic "": expected a Kafka topic name`},
		{func(c *Config) { c.HistorySink, c.HistoryTopic, c.HistoryBootstrap = "tee", "a/b", "b:9092" }, `--history-topic "a/b"`},
		{func(c *Config) { c.HistorySink, c.HistoryTopic = "topic", "h" }, "--history-bootstrap: required by --history-sink topic"},
	} {
		c := validConfig()
		tc.edit(&c)
		err := c.validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v", tc.want, err)
		}
	}
}

// The member's command line is a contract: whatever a Config holds, Args
// renders and ParseArgs reads back the same Config. Every field is given
// a value other than its default (by reflection, so a field added without
// a flag fails here).
func TestArgsRoundTrip(t *testing.T) {
	want := Config{
		Name: "m3", Inc: 2, HistoryDir: "/tmp/h", Bootstrap: "127.0.0.1:9092",
		Props: kafkaconf.Props{"fetch.max.wait.ms": "100", "client.rack": "a=b"},
		Group: "g", Topic: "t", Client: vocab.ClientFranz, Strategy: vocab.CooperativeSticky, Policy: vocab.PolicyAsyncBatch,
		Processing: workloads.Processing{Cost: 3 * time.Millisecond, Distribution: workloads.CostUniform, Jitter: time.Millisecond},
		Seed:       -42, MaxPollRecords: 77,
		SessionTimeout: 7 * time.Second, HeartbeatInterval: 700 * time.Millisecond,
		MaxPollInterval: 70 * time.Second, AutoCommitInterval: 1500 * time.Millisecond,
		Static: true, Control: true,
		OutputTopic: "t.out", TransactionalID: "g.m3", TransactionTimeout: 20 * time.Second,
		CommitRecords: 100, CommitInterval: 2 * time.Second,
		ClockURL: "http://127.0.0.1:4567/chaosbench/time", ClockSkew: -1500 * time.Millisecond,
		ControlAddr: "10.0.0.7:4711", ControlToken: testToken,
		HistorySink: "tee", HistoryTopic: "history.x", HistoryBootstrap: "127.0.0.1:9094",
	}
	def := Defaults()
	wv, dv := reflect.ValueOf(want), reflect.ValueOf(def)
	for i := range wv.NumField() {
		if reflect.DeepEqual(wv.Field(i).Interface(), dv.Field(i).Interface()) {
			t.Errorf("field %s: the test gives it its default; give it another value", wv.Type().Field(i).Name)
		}
	}
	got, err := ParseArgs(want.Args())
	if err != nil {
		t.Fatalf("ParseArgs(%q): %v", want.Args(), err)
	}
	// The control token comes through the environment (Env), as the
	// secret properties do.
	for _, kv := range want.Env() {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	if err := got.ReadEnv(); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("round trip:\n got %+v\nwant %+v\nargs %q", got, want, want.Args())
	}
	// And the defaults themselves survive it.
	if got, err := ParseArgs(def.Args()); err != nil || !reflect.DeepEqual(got, def) {
		t.Errorf("defaults round trip: %+v, %v", got, err)
	}
	if got, err := ParseArgs(nil); err != nil || !reflect.DeepEqual(got, def) {
		t.Errorf("no arguments: %+v, %v; want the defaults", got, err)
	}
}

// A member's secret properties never reach its command line (readable by
// every user of the host, quoted by logs): they go through its
// environment, which ReadEnv takes back and clears.
func TestSecretsStayOffTheCommandLine(t *testing.T) {
	c := Defaults()
	c.Name, c.Props = "m1", kafkaconf.Props{"sasl.password": "hunter2", "ssl.key.password": "k=v", "sasl.username": "alice"}
	args := strings.Join(c.Args(), " ")
	if strings.Contains(args, "hunter2") || strings.Contains(args, "k=v") || !strings.Contains(args, "sasl.username=alice") {
		t.Errorf("args %s: want the user name, and no secret", args)
	}
	env := c.Env()
	if len(env) != 1 || !strings.HasPrefix(env[0], SecretsEnv+"=") || !strings.Contains(env[0], "hunter2") {
		t.Fatalf("env %q", env)
	}
	got, err := ParseArgs(c.Args())
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(SecretsEnv, strings.TrimPrefix(env[0], SecretsEnv+"="))
	if err := got.ReadEnv(); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Props, c.Props) {
		t.Errorf("props after ReadEnv %v, want %v", got.Props, c.Props)
	}
	if _, set := os.LookupEnv(SecretsEnv); set {
		t.Error("ReadEnv left the variable set")
	}
	if (Config{Props: kafkaconf.Props{"sasl.username": "u"}}).Env() != nil {
		t.Error("Env without secrets is not empty")
	}
	// Nor does the control channel's token: it is the run's key to every
	// member's commands.
	c.ControlToken = testToken
	if args := strings.Join(c.Args(), " "); strings.Contains(args, testToken) {
		t.Errorf("args %s hold the control token", args)
	}
	env = c.Env()
	if len(env) != 2 || env[0] != "CHAOSBENCH_CONTROL_TOKEN="+testToken {
		t.Fatalf("env %q: want the token, then the secrets", env)
	}
	got = Defaults()
	t.Setenv("CHAOSBENCH_CONTROL_TOKEN", testToken)
	if err := got.ReadEnv(); err != nil || got.ControlToken != testToken {
		t.Errorf("ReadEnv: token %q, %v", got.ControlToken, err)
	}
	if _, set := os.LookupEnv("CHAOSBENCH_CONTROL_TOKEN"); set {
		t.Error("ReadEnv left the token's variable set")
	}
	t.Setenv(SecretsEnv, "not json hunter2")
	if err := got.ReadEnv(); err == nil || strings.Contains(err.Error(), "hunter2") {
		t.Errorf("bad variable: %v", err)
	}
}

// What a confluent member could not apply is refused before a run,
// naming the property and the client, in librdkafka's words.
func TestCheckClientConfluent(t *testing.T) {
	for props, want := range map[string]kafkaconf.Props{
		"-X sasl.jaas.config: client confluent":        {"sasl.jaas.config": "x", "sasl.username": "u"},
		"client confluent":                             {"security.protocol": "SSL", "ssl.ca.location": "/nonexistent/ca.pem"},
		"sasl.mechanism=OAUTHBEARER: client confluent": {"security.protocol": "SASL_SSL", "sasl.mechanism": "OAUTHBEARER"},
		"-X no.such.property: client confluent":        {"no.such.property": "1"},
	} {
		err := CheckClient(vocab.ClientConfluent, vocab.Range, false, want)
		if err == nil || !strings.Contains(err.Error(), props) {
			t.Errorf("%v: %v, want an error with %q", want, err, props)
		}
	}
	if err := CheckClient(vocab.ClientConfluent, vocab.ConsumerRange, false, kafkaconf.Props{"fetch.wait.max.ms": "100", "security.protocol": "SASL_SSL", "sasl.mechanism": "SCRAM-SHA-512", "sasl.username": "u", "sasl.password": "p"}); err != nil {
		t.Errorf("good properties refused: %v", err)
	}
}

// A confluent cell's timings are librdkafka's to judge, before a run:
// the member's defaults hid a session timeout beyond its range and a poll
// interval below the session timeout until the members started.
func TestCheckConfigTimings(t *testing.T) {
	for want, edit := range map[string]func(*Config){
		"session.timeout.ms":   func(c *Config) { c.SessionTimeout = 2 * time.Hour },
		"max.poll.interval.ms": func(c *Config) { c.MaxPollInterval = 5 * time.Second; c.SessionTimeout = 10 * time.Second },
	} {
		cfg := Defaults()
		cfg.Client, cfg.Strategy = vocab.ClientConfluent, vocab.Range
		edit(&cfg)
		if err := CheckConfig(cfg); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want librdkafka's refusal naming it", want, err)
		}
	}
	cfg := Defaults()
	cfg.Client, cfg.Strategy = vocab.ClientConfluent, vocab.Range
	cfg.SessionTimeout, cfg.HeartbeatInterval, cfg.MaxPollInterval = 10*time.Second, time.Second, 30*time.Second
	if err := CheckConfig(cfg); err != nil {
		t.Errorf("good timings refused: %v", err)
	}
}

// A transactional.id per member is the same in every incarnation (a
// restart fences its previous one); per incarnation it is new in each.
func TestTransactionalID(t *testing.T) {
	if got := TransactionalID(workloads.TxnIDPerMember, "g", "m1", 2); got != "g.m1" {
		t.Errorf("per-member: %q", got)
	}
	if got := TransactionalID(workloads.TxnIDPerIncarnation, "g", "m1", 2); got != "g.m1.2" {
		t.Errorf("per-incarnation: %q", got)
	}
}

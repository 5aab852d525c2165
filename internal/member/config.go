// Package member is a consumer-group member: one OS process that joins a
// group with a given client, assignment strategy and offset-commit policy,
// simulates a per-record processing cost, and records everything it sees in
// its history (docs/history.md). `chaos member` runs it; the chaos driver
// starts, kills, stops and pauses such processes.
package member

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"net"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/chaosbench/chaosbench/internal/control"
	"github.com/chaosbench/chaosbench/internal/history"
	"github.com/chaosbench/chaosbench/internal/historytopic"
	"github.com/chaosbench/chaosbench/internal/kafkaconf"
	"github.com/chaosbench/chaosbench/internal/runfolder"
	"github.com/chaosbench/chaosbench/internal/vocab"
	"github.com/chaosbench/chaosbench/workloads"
)

// Config is one member incarnation: the member's contract with the driver
// that starts it. Args renders it as the member's command line and Flags
// binds that command line back to it, from one list of flags, so a flag's
// name, meaning and default are written once (Defaults). What is secret
// (the secret client properties, the control channel's token) goes
// through the environment instead (Env, ReadEnv). The driver's commands
// come on one of two channels: the standard input (Control) or the
// driver's control endpoint over the network (ControlAddr,
// internal/control), never both; each takes the same commands to the
// same handler.
type Config struct {
	Name       string // m1, m2, ...: the member's proc name in the history
	Inc        int    // incarnation
	HistoryDir string // where <name>.<inc>.jsonl is created

	Bootstrap string
	Props     kafkaconf.Props // passed through to the client (-X)
	Group     string
	Topic     string

	// Client is a client of internal/vocab (confluent, franz, java); empty:
	// the strategy's default client.
	Client   string
	Strategy string
	Policy   string

	Processing     workloads.Processing
	Seed           int64 // seeds the processing-cost generator
	MaxPollRecords int   // records per processing batch (max.poll.records)

	// SessionTimeout corresponds to session.timeout.ms (classic protocol;
	// the consumer protocol takes it from the broker's
	// group.consumer.session.timeout.ms).
	SessionTimeout time.Duration
	// HeartbeatInterval corresponds to heartbeat.interval.ms (classic).
	HeartbeatInterval time.Duration
	// MaxPollInterval corresponds to max.poll.interval.ms (franz-go: the
	// rebalance timeout).
	MaxPollInterval time.Duration
	// AutoCommitInterval corresponds to auto.commit.interval.ms.
	AutoCommitInterval time.Duration
	// Static sets group.instance.id to the member's name (static
	// membership, classic protocols).
	Static bool
	// Control: the member reads the driver's commands (slow <duration>)
	// from its standard input, the channel of a local run.
	Control bool
	// ControlAddr is the driver's control endpoint, host:port
	// (internal/control): the member connects out to it and takes the
	// driver's commands from there, acknowledging each, instead of from
	// its standard input. Empty: no network channel.
	ControlAddr string
	// ControlToken is the run's token, which the member proves it holds
	// to the control endpoint. It is secret, and goes through the
	// environment (control.TokenEnv), never on the command line.
	ControlToken string

	// The transactional policy's settings (unused by the others).
	// OutputTopic is the topic the member produces one output record per
	// input record to.
	OutputTopic string
	// TransactionalID corresponds to transactional.id (the driver names
	// it from the workload's scheme).
	TransactionalID string
	// TransactionTimeout corresponds to transaction.timeout.ms.
	TransactionTimeout time.Duration
	// CommitRecords commits the open transaction after the batch at which
	// it holds this many input records; CommitInterval once it has been
	// open this long. Neither (0, 0): after every batch.
	CommitRecords  int
	CommitInterval time.Duration

	// ClockURL is the driver's time endpoint (internal/clock): the member
	// measures its clock against it at its start and at its end and
	// records each measurement as a clock event. Empty: not measured.
	ClockURL string
	// ClockSkew is for tests of the clock correction: it is added to
	// every time the member stamps (its history's t, the clock it
	// measures), as if its clock ran that far ahead of the host's.
	ClockSkew time.Duration

	// HistorySink is where the member writes its history
	// (runfolder.Sinks): its file in HistoryDir (file, the default), the
	// history topic (topic), or both (tee); the java client's member as
	// the Go ones (its TopicSink).
	HistorySink string
	// HistoryTopic and HistoryBootstrap are the history topic and the
	// cluster it is on (the topic and tee sinks); the member tags its
	// records with Topic, the cell's topic (historytopic.Config.Cell).
	HistoryTopic     string
	HistoryBootstrap string
}

// Defaults are the member's settings where neither the driver nor the
// command line gives one: the clients' own defaults for the Kafka
// timings.
func Defaults() Config {
	return Config{
		Policy:             vocab.PolicySyncBatch,
		Processing:         workloads.Processing{Distribution: workloads.CostFixed},
		Seed:               1,
		MaxPollRecords:     500,
		SessionTimeout:     45 * time.Second,
		HeartbeatInterval:  3 * time.Second,
		MaxPollInterval:    300 * time.Second,
		AutoCommitInterval: 5 * time.Second,
		TransactionTimeout: 60 * time.Second,
		HistorySink:        runfolder.SinkFile,
	}
}

// Flags binds the member's command-line flags to c; each flag's default
// is c's value when Flags is called (start from Defaults).
func (c *Config) Flags(fs *flag.FlagSet) {
	fs.StringVar(&c.Name, "name", c.Name, "member name, the proc of its history (m1, m2, ...)")
	fs.IntVar(&c.Inc, "inc", c.Inc, "incarnation: 0, then +1 per restart")
	fs.StringVar(&c.HistoryDir, "history-dir", c.HistoryDir, "folder for the history file <name>.<inc>.jsonl")
	fs.StringVar(&c.Bootstrap, "bootstrap", c.Bootstrap, "bootstrap.servers")
	fs.Var(propsFlag{&c.Props}, "X", "client property key=value, repeatable (Kafka names)")
	fs.StringVar(&c.Group, "group", c.Group, "group.id")
	fs.StringVar(&c.Topic, "topic", c.Topic, "topic to consume")
	fs.StringVar(&c.Strategy, "strategy", c.Strategy, strings.Join(vocab.StrategyNames(), ", "))
	fs.StringVar(&c.Client, "client", c.Client, strings.Join(vocab.ClientNames(), " or ")+" (default: the strategy's default client)")
	fs.StringVar(&c.Policy, "policy", c.Policy, "commit policy: "+strings.Join(vocab.PolicyNames(), ", "))
	fs.DurationVar(&c.Processing.Cost, "processing-cost", c.Processing.Cost, "processing cost per record (mean for exponential)")
	fs.StringVar(&c.Processing.Distribution, "processing-distribution", c.Processing.Distribution, "fixed, uniform or exponential")
	fs.DurationVar(&c.Processing.Jitter, "processing-jitter", c.Processing.Jitter, "uniform distribution: cost +- jitter")
	fs.Int64Var(&c.Seed, "seed", c.Seed, "seed of the processing-cost generator")
	fs.IntVar(&c.MaxPollRecords, "max-poll-records", c.MaxPollRecords, "records per processing batch (max.poll.records)")
	fs.DurationVar(&c.SessionTimeout, "session-timeout", c.SessionTimeout, "session.timeout.ms, classic protocol")
	fs.DurationVar(&c.HeartbeatInterval, "heartbeat-interval", c.HeartbeatInterval, "heartbeat.interval.ms, classic protocol")
	fs.DurationVar(&c.MaxPollInterval, "max-poll-interval", c.MaxPollInterval, "max.poll.interval.ms")
	fs.DurationVar(&c.AutoCommitInterval, "auto-commit-interval", c.AutoCommitInterval, "auto.commit.interval.ms")
	fs.BoolVar(&c.Static, "static", c.Static, "static membership: group.instance.id = name")
	fs.BoolVar(&c.Control, "control-stdin", c.Control, "read driver commands (slow <duration>) from standard input")
	fs.StringVar(&c.ControlAddr, "control-addr", c.ControlAddr, "the driver's control endpoint, host:port: take its commands from there, with the run's token from "+control.TokenEnv+" (empty: none)")
	fs.StringVar(&c.OutputTopic, "output-topic", c.OutputTopic, "transactional policy: the topic of the output records")
	fs.StringVar(&c.TransactionalID, "transactional-id", c.TransactionalID, "transactional policy: transactional.id")
	fs.DurationVar(&c.TransactionTimeout, "transaction-timeout", c.TransactionTimeout, "transactional policy: transaction.timeout.ms")
	fs.IntVar(&c.CommitRecords, "commit-records", c.CommitRecords, "transactional policy: commit after the batch at which the transaction holds this many records (0: not by count)")
	fs.DurationVar(&c.CommitInterval, "commit-interval", c.CommitInterval, "transactional policy: commit once the transaction has been open this long (0: not by time)")
	fs.StringVar(&c.ClockURL, "clock-url", c.ClockURL, "the driver's time endpoint: measure this clock against it at start and end (empty: not measured)")
	fs.DurationVar(&c.ClockSkew, "clock-skew", c.ClockSkew, "testing only: add this to every time the member stamps, a clock running that far ahead")
	fs.StringVar(&c.HistorySink, "history-sink", c.HistorySink, "where the history goes: "+strings.Join(runfolder.Sinks, ", ")+" (file: <name>.<inc>.jsonl in --history-dir; topic: --history-topic; tee: both)")
	fs.StringVar(&c.HistoryTopic, "history-topic", c.HistoryTopic, "the history topic (--history-sink topic or tee)")
	fs.StringVar(&c.HistoryBootstrap, "history-bootstrap", c.HistoryBootstrap, "bootstrap.servers of the history topic's cluster (--history-sink topic or tee)")
}

// Args renders c as the member's flags (every flag, so that the member's
// own defaults never decide a run), client properties last, sorted. Secret
// properties (kafkaconf.IsSecret) are left out: they go through the
// environment (Env).
func (c Config) Args() []string {
	fs := flag.NewFlagSet("member", flag.ContinueOnError)
	c.Flags(fs)
	var args []string
	fs.VisitAll(func(f *flag.Flag) {
		if f.Name != "X" {
			args = append(args, "--"+f.Name+"="+f.Value.String())
		}
	})
	public := c.Props.Public()
	for _, k := range slices.Sorted(maps.Keys(public)) {
		args = append(args, "-X", k+"="+public[k])
	}
	return args
}

// SecretsEnv is the environment variable through which a member gets its
// secret client properties (kafkaconf.IsSecret), as a JSON object. They
// stay off its command line, which every user of the host can read
// (/proc/<pid>/cmdline, ps) and which logs and records quote. A process's
// environment is readable by its own user alone, and it leaves nothing
// behind when the harness is killed, as a file of secrets would; a
// launcher of Kubernetes pods would set it from a Secret.
const SecretsEnv = "CHAOSBENCH_MEMBER_SECRETS"

// Env returns the environment entries the member needs besides Args: its
// secret properties under SecretsEnv and the control channel's token
// under control.TokenEnv (nothing when it has neither).
func (c Config) Env() []string {
	var env []string
	if c.ControlToken != "" {
		env = append(env, control.TokenEnv+"="+c.ControlToken)
	}
	secrets := c.Props.Secrets()
	if len(secrets) == 0 {
		return env
	}
	b, err := json.Marshal(secrets)
	if err != nil {
		return env // a map of strings always marshals
	}
	return append(env, SecretsEnv+"="+string(b))
}

// ReadEnv adds the secret properties and the control token found in the
// environment (Env) to c, and clears the variables, so that nothing this
// process starts inherits them. A property on the command line keeps its
// value.
func (c *Config) ReadEnv() error {
	if tok, ok := os.LookupEnv(control.TokenEnv); ok {
		os.Unsetenv(control.TokenEnv)
		c.ControlToken = tok
	}
	v, ok := os.LookupEnv(SecretsEnv)
	if !ok {
		return nil
	}
	os.Unsetenv(SecretsEnv)
	var secrets map[string]string
	if err := json.Unmarshal([]byte(v), &secrets); err != nil {
		return fmt.Errorf("%s: expected a JSON object of properties", SecretsEnv)
	}
	if c.Props == nil && len(secrets) > 0 {
		c.Props = kafkaconf.Props{}
	}
	for k, val := range secrets {
		if _, set := c.Props[k]; !set {
			c.Props[k] = val
		}
	}
	return nil
}

// ParseArgs reads a member's flags (as Args renders them) over Defaults.
func ParseArgs(args []string) (Config, error) {
	c := Defaults()
	fs := flag.NewFlagSet("member", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	c.Flags(fs)
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("unexpected arguments %v", fs.Args())
	}
	return c, nil
}

// propsFlag collects repeated -X key=value into a Props.
type propsFlag struct{ p *kafkaconf.Props }

func (f propsFlag) String() string { return "" }

func (f propsFlag) Set(s string) error {
	k, v, err := kafkaconf.ParseProp(s)
	if err != nil {
		return err
	}
	if *f.p == nil {
		*f.p = kafkaconf.Props{}
	}
	(*f.p)[k] = v
	return nil
}

var nameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]*$`)

// validate checks the configuration and fills defaults.
func (c *Config) validate() error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if !nameRE.MatchString(c.Name) {
		bad("--name %q: expected letters, digits, '-' or '_'", c.Name)
	}
	if c.Inc < 0 {
		bad("--inc %d: expected >= 0", c.Inc)
	}
	if c.HistoryDir == "" {
		bad("--history-dir: required")
	}
	if c.Bootstrap == "" {
		bad("--bootstrap: required")
	}
	if c.Group == "" {
		bad("--group: required")
	}
	if c.Topic == "" {
		bad("--topic: required")
	}
	if c.ClockURL != "" && !strings.HasPrefix(c.ClockURL, "http://") {
		bad("--clock-url %q: expected an http:// address (the driver's time endpoint)", c.ClockURL)
	}
	if c.ControlAddr != "" {
		if c.Control {
			bad("--control-stdin and --control-addr: expected one control channel, not both")
		}
		if host, port, err := net.SplitHostPort(c.ControlAddr); err != nil || host == "" || !validPort(port) {
			bad("--control-addr %q: expected host:port (the driver's control endpoint)", c.ControlAddr)
		}
		if c.ControlToken == "" {
			bad("--control-addr: the run's token is missing: expected it in the environment variable %s", control.TokenEnv)
		} else if err := control.CheckToken(c.ControlToken); err != nil {
			bad("%s: %v", control.TokenEnv, err)
		}
	}
	if c.ClockSkew <= -history.MaxClockOffset || c.ClockSkew >= history.MaxClockOffset {
		bad("--clock-skew %v: expected within +-%v", c.ClockSkew, time.Duration(history.MaxClockOffset))
	}
	if err := c.checkHistorySink(); err != nil {
		errs = append(errs, err)
	}
	_, strategyKnown := vocab.LookupStrategy(c.Strategy)
	if !strategyKnown {
		bad("--strategy %q: expected one of %s", c.Strategy, strings.Join(vocab.StrategyNames(), ", "))
	}
	if c.Client == "" {
		c.Client = vocab.DefaultClient(c.Strategy)
	}
	if _, ok := vocab.LookupClient(c.Client); !ok {
		bad("--client %q: expected one of %s", c.Client, strings.Join(vocab.ClientNames(), ", "))
	} else if ok, why := vocab.Supports(c.Client, c.Strategy); strategyKnown && !ok {
		bad("--strategy %s: not available on --client %s: %s", c.Strategy, c.Client, why)
	}
	if _, ok := vocab.LookupPolicy(c.Policy); !ok {
		bad("--policy %q: expected one of %s", c.Policy, strings.Join(vocab.PolicyNames(), ", "))
	} else if err := checkPolicy(c.Client, c.Policy); err != nil {
		errs = append(errs, err)
	}
	switch c.Processing.Distribution {
	case "", workloads.CostFixed, workloads.CostUniform, workloads.CostExponential:
	default:
		bad("--processing-distribution %q: expected fixed, uniform or exponential", c.Processing.Distribution)
	}
	if c.Processing.Cost < 0 || c.Processing.Jitter < 0 {
		bad("--processing-cost and --processing-jitter: expected >= 0")
	}
	c.fillDefaults()
	if c.MaxPollRecords < 1 {
		bad("--max-poll-records %d: expected >= 1", c.MaxPollRecords)
	}
	if c.HeartbeatInterval >= c.SessionTimeout {
		bad("--heartbeat-interval %s: expected less than --session-timeout %s", c.HeartbeatInterval, c.SessionTimeout)
	}
	if vocab.IsTransactional(c.Policy) {
		if c.OutputTopic == "" || c.OutputTopic == c.Topic {
			bad("--output-topic %q: the transactional policy needs an output topic other than --topic", c.OutputTopic)
		}
		if c.TransactionalID == "" {
			bad("--transactional-id: required by the transactional policy")
		}
		if c.TransactionTimeout <= 0 || c.TransactionTimeout > 15*time.Minute {
			bad("--transaction-timeout %s: expected from 1ms to 15m (transaction.timeout.ms, within the broker's transaction.max.timeout.ms)", c.TransactionTimeout)
		}
		if c.CommitRecords < 0 {
			bad("--commit-records %d: expected >= 0", c.CommitRecords)
		}
		if c.CommitInterval < 0 || c.CommitInterval >= c.TransactionTimeout {
			bad("--commit-interval %s: expected from 0 to below --transaction-timeout %s", c.CommitInterval, c.TransactionTimeout)
		}
	}
	// The member's own check leaves out making a librdkafka client: it is
	// about to make the real one, which says the same, and a restart
	// should not wait for two. The java client's member checks its
	// properties itself when it starts (CheckClient would start a JVM to
	// do it), after their translation into Java's names, checked here.
	if c.Client != vocab.ClientJava {
		if err := checkClient(c.Client, c.Strategy, c.Static, c.Props, false); err != nil {
			errs = append(errs, err)
		}
	} else if _, err := c.Props.JavaProps(); err != nil {
		errs = append(errs, err) // what the JVM would never see
	}
	return errors.Join(errs...)
}

// validPort reports whether s is a TCP port number, 1 to 65535.
func validPort(s string) bool {
	n, err := strconv.Atoi(s)
	return err == nil && n >= 1 && n <= 65535
}

// checkHistorySink refuses a history sink the member cannot write to.
func (c *Config) checkHistorySink() error {
	if c.HistorySink == "" {
		c.HistorySink = runfolder.SinkFile
	}
	if !slices.Contains(runfolder.Sinks, c.HistorySink) {
		return fmt.Errorf("--history-sink %q: expected one of %s", c.HistorySink, strings.Join(runfolder.Sinks, ", "))
	}
	if c.HistorySink == runfolder.SinkFile {
		return nil
	}
	if err := historytopic.CheckTopic(c.HistoryTopic); err != nil {
		return fmt.Errorf("--history-topic %w", err)
	}
	if c.HistoryBootstrap == "" {
		return fmt.Errorf("--history-bootstrap: required by --history-sink %s", c.HistorySink)
	}
	return nil
}

// fillDefaults gives the zero settings of a Config built in code (not
// parsed) their Defaults.
func (c *Config) fillDefaults() {
	d := Defaults()
	fill := func(v, def *time.Duration) {
		if *v == 0 {
			*v = *def
		}
	}
	fill(&c.SessionTimeout, &d.SessionTimeout)
	fill(&c.HeartbeatInterval, &d.HeartbeatInterval)
	fill(&c.MaxPollInterval, &d.MaxPollInterval)
	fill(&c.AutoCommitInterval, &d.AutoCommitInterval)
	fill(&c.TransactionTimeout, &d.TransactionTimeout)
	if c.MaxPollRecords == 0 {
		c.MaxPollRecords = d.MaxPollRecords
	}
	if c.Processing.Distribution == "" {
		c.Processing.Distribution = d.Processing.Distribution
	}
}

// CheckClient rejects what a client cannot do with a strategy: static
// membership under the consumer protocol on franz-go, client properties
// a member on that client cannot apply (for confluent, librdkafka's own
// verdict on the member's whole configuration); for java, a missing or
// old JVM, no Maven to build the member, or properties Kafka's Java
// client refuses (checked by the Java member itself, once per distinct
// configuration). The chaos driver calls it for every cell before a run
// starts; a member calls it before it starts.
func CheckClient(client, strategy string, static bool, props kafkaconf.Props) error {
	cfg := Defaults()
	cfg.Client, cfg.Strategy, cfg.Static, cfg.Props = client, strategy, static, props
	return CheckConfig(cfg)
}

// CheckConfig is CheckClient for the whole configuration of a member: a
// confluent member's timings and commit policy go to librdkafka too, so
// that a value it would refuse at the member's start (session.timeout.ms
// beyond its range, max.poll.interval.ms below session.timeout.ms) is
// refused before a run starts. WorkloadConfig gives a cell's.
func CheckConfig(cfg Config) error {
	cfg.fillDefaults()
	if err := checkPolicy(cfg.Client, cfg.Policy); err != nil {
		return err
	}

	if cfg.Client == vocab.ClientConfluent {
		return checkConfluent(cfg)
	}
	return checkClient(cfg.Client, cfg.Strategy, cfg.Static, cfg.Props, false)
}

// WorkloadConfig is the configuration a workload gives every member of a
// cell: everything but the member's name, incarnation, seed and where it
// connects and writes.
func WorkloadConfig(s *workloads.Spec, c workloads.Cell) Config {
	cs := s.Consumer
	cfg := Defaults()
	cfg.Client, cfg.Strategy, cfg.Policy = c.Client, c.Strategy, c.CommitPolicy
	cfg.Processing = cs.Processing
	cfg.MaxPollRecords = cs.MaxPollRecords
	cfg.SessionTimeout, cfg.HeartbeatInterval = cs.SessionTimeout, cs.HeartbeatInterval
	cfg.MaxPollInterval, cfg.AutoCommitInterval = cs.MaxPollInterval, cs.AutoCommitInterval
	cfg.Static = cs.StaticMembership
	if vocab.IsTransactional(c.CommitPolicy) {
		cfg.TransactionTimeout = cs.Transaction.Timeout
		cfg.CommitRecords, cfg.CommitInterval = cs.Transaction.CommitRecords, cs.Transaction.CommitInterval
	}
	cfg.Props = kafkaconf.Props{}
	maps.Copy(cfg.Props, cs.Properties)
	return cfg
}

// TransactionalID is a member incarnation's transactional.id under the
// workload's scheme (workloads.Transaction.TransactionalID): the same in
// every incarnation of a member (per-member), or new in each.
func TransactionalID(scheme, group, name string, inc int) string {
	if scheme == workloads.TxnIDPerIncarnation {
		return fmt.Sprintf("%s.%s.%d", group, name, inc)
	}
	return group + "." + name
}

// checkPolicy refuses a commit policy the client's member does not
// implement (vocab.SupportsPolicy).
func checkPolicy(client, policy string) error {
	if ok, why := vocab.SupportsPolicy(client, policy); !ok && why != "" {
		return fmt.Errorf("--policy %s: not available on --client %s: %s", policy, client, why)
	}
	return nil
}

// checkClient is CheckClient; withLibrdkafka makes a librdkafka client to
// check a confluent member's configuration.
func checkClient(client, strategy string, static bool, props kafkaconf.Props, withLibrdkafka bool) error {
	switch client {
	case vocab.ClientJava:
		return checkJava(strategy, static, props)
	case vocab.ClientConfluent:
		if !withLibrdkafka {
			return props.CheckLibrdkafka()
		}
		cfg := Defaults()
		cfg.Client, cfg.Strategy, cfg.Static, cfg.Props = client, strategy, static, props
		return checkConfluent(cfg)
	}
	if client != vocab.ClientFranz {
		return nil
	}
	if static && vocab.IsConsumerProtocol(strategy) {
		return errors.New("--static: franz-go supports group.instance.id on classic groups only")
	}
	if _, err := props.FranzOpts(); err != nil {
		return err
	}
	_, err := franzConsumerOpts(props)
	return err
}

// ConsumerSettings are the member's consumer settings by Kafka name, each
// with where it goes: the client's own configuration, or the group's,
// held by the broker (vocab.ConsumerConfig.Settings states which, per
// protocol). They are c's as it is: validate gives a Config built in code
// its defaults. Every client's configuration is made from them
// (confluentConfig, franzSettingOpts; the java member's is held to them
// by its contract test), the cell record records them, and the driver
// sets the group's on each consumer-protocol group.
func (c Config) ConsumerSettings() vocab.Settings {
	cc := vocab.ConsumerConfig{
		Strategy:           c.Strategy,
		SessionTimeout:     c.SessionTimeout,
		HeartbeatInterval:  c.HeartbeatInterval,
		MaxPollInterval:    c.MaxPollInterval,
		AutoCommitInterval: c.AutoCommitInterval,
		MaxPollRecords:     c.MaxPollRecords,
	}
	if c.Static {
		cc.InstanceID = c.Name
	}
	return cc.Settings()
}

// autoCommit reports whether the policy lets the client commit by itself.
func (c *Config) autoCommit() bool {
	p, _ := vocab.LookupPolicy(c.Policy)
	return p.AutoCommit
}

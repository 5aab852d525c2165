// Package member is a consumer-group member: one OS process that joins a
// group with a given client, assignment strategy and offset-commit policy,
// simulates a per-record processing cost, and records everything it sees in
// its history (docs/history.md). `chaos member` runs it; the chaos driver
// starts, kills, stops and pauses such processes.
package member

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"regexp"
	"time"

	"github.com/chaosbench/chaosbench/internal/kafkaconf"
)

// Clients.
const (
	ClientConfluent = "confluent" // confluent-kafka-go, librdkafka
	ClientFranz     = "franz"     // franz-go
)

// Strategies, as design.md names them.
const (
	Range             = "range"
	RoundRobin        = "roundrobin"
	Sticky            = "sticky"
	CooperativeSticky = "cooperative-sticky"
	ConsumerUniform   = "consumer-uniform"
	ConsumerRange     = "consumer-range"
)

// Strategies lists every strategy in report order.
var Strategies = []string{Range, RoundRobin, Sticky, CooperativeSticky, ConsumerUniform, ConsumerRange}

// Commit policies, as design.md names them.
const (
	PolicyAuto              = "auto"
	PolicyAutoAfterProcess  = "auto-after-process"
	PolicySyncBatch         = "sync-batch"
	PolicyAsyncBatch        = "async-batch"
	PolicyAsyncSyncOnRevoke = "async-sync-on-revoke"
	PolicyCommitFirst       = "commit-before-process"
)

// Policies lists every commit policy.
var Policies = []string{PolicyAuto, PolicyAutoAfterProcess, PolicySyncBatch, PolicyAsyncBatch, PolicyAsyncSyncOnRevoke, PolicyCommitFirst}

// ConsumerProtocol reports whether the strategy uses KIP-848's consumer
// group protocol (assignment computed by the broker).
func ConsumerProtocol(strategy string) bool {
	return strategy == ConsumerUniform || strategy == ConsumerRange
}

// DefaultClient returns the client a strategy runs on by default: franz-go
// for eager sticky (librdkafka has none), confluent-kafka-go otherwise.
func DefaultClient(strategy string) string {
	if strategy == Sticky {
		return ClientFranz
	}
	return ClientConfluent
}

// Supports reports whether a client implements a strategy.
func Supports(client, strategy string) bool {
	switch client {
	case ClientConfluent:
		return strategy != Sticky && known(Strategies, strategy)
	case ClientFranz:
		return known(Strategies, strategy)
	}
	return false
}

func known(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// Processing is the simulated cost of processing one record.
type Processing struct {
	// Cost is the fixed cost, or the mean for exponential, or the centre for
	// uniform. Default 0: no cost.
	Cost time.Duration
	// Distribution is fixed (default), uniform (Cost +- Jitter) or
	// exponential (mean Cost).
	Distribution string
	// Jitter is the half-width of the uniform distribution.
	Jitter time.Duration
}

func (p Processing) String() string {
	switch p.Distribution {
	case "uniform":
		return fmt.Sprintf("uniform %s +- %s", p.Cost, p.Jitter)
	case "exponential":
		return fmt.Sprintf("exponential, mean %s", p.Cost)
	}
	return fmt.Sprintf("fixed %s", p.Cost)
}

// sample draws one record's cost.
func (p Processing) sample(r *rand.Rand) time.Duration {
	switch p.Distribution {
	case "uniform":
		d := p.Cost - p.Jitter + time.Duration(r.Int64N(int64(2*p.Jitter)+1))
		return max(d, 0)
	case "exponential":
		return time.Duration(math.Round(r.ExpFloat64() * float64(p.Cost)))
	}
	return p.Cost
}

// Config is one member incarnation.
type Config struct {
	Name       string // m1, m2, ...: the member's proc name in the history
	Inc        int    // incarnation
	HistoryDir string // where <name>.<inc>.jsonl is created

	Bootstrap string
	Props     kafkaconf.Props // passed through to the client (-X)
	Group     string
	Topic     string

	Client   string
	Strategy string
	Policy   string

	Processing     Processing
	Seed           int64 // seeds the processing-cost generator
	MaxPollRecords int   // records per processing batch, default 500

	// SessionTimeout corresponds to session.timeout.ms (classic protocol;
	// the consumer protocol takes it from the broker's
	// group.consumer.session.timeout.ms). Default 45s.
	SessionTimeout time.Duration
	// HeartbeatInterval corresponds to heartbeat.interval.ms (classic).
	// Default 3s.
	HeartbeatInterval time.Duration
	// MaxPollInterval corresponds to max.poll.interval.ms (franz-go: the
	// rebalance timeout). Default 300s.
	MaxPollInterval time.Duration
	// AutoCommitInterval corresponds to auto.commit.interval.ms. Default 5s.
	AutoCommitInterval time.Duration
	// Static sets group.instance.id to the member's name (static
	// membership, classic protocols).
	Static bool
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
	if !known(Strategies, c.Strategy) {
		bad("--strategy %q: expected one of %v", c.Strategy, Strategies)
	}
	if c.Client == "" {
		c.Client = DefaultClient(c.Strategy)
	}
	if c.Client != ClientConfluent && c.Client != ClientFranz {
		bad("--client %q: expected confluent or franz", c.Client)
	} else if known(Strategies, c.Strategy) && !Supports(c.Client, c.Strategy) {
		bad("--strategy %s: not available on --client %s (librdkafka has no eager sticky assignor; use franz)", c.Strategy, c.Client)
	}
	if !known(Policies, c.Policy) {
		bad("--policy %q: expected one of %v", c.Policy, Policies)
	}
	switch c.Processing.Distribution {
	case "", "fixed", "uniform", "exponential":
	default:
		bad("--processing-distribution %q: expected fixed, uniform or exponential", c.Processing.Distribution)
	}
	if c.Processing.Cost < 0 || c.Processing.Jitter < 0 {
		bad("--processing-cost and --processing-jitter: expected >= 0")
	}
	if c.MaxPollRecords == 0 {
		c.MaxPollRecords = 500
	}
	if c.MaxPollRecords < 1 {
		bad("--max-poll-records %d: expected >= 1", c.MaxPollRecords)
	}
	def := func(d *time.Duration, v time.Duration) {
		if *d == 0 {
			*d = v
		}
	}
	def(&c.SessionTimeout, 45*time.Second)
	def(&c.HeartbeatInterval, 3*time.Second)
	def(&c.MaxPollInterval, 300*time.Second)
	def(&c.AutoCommitInterval, 5*time.Second)
	if c.HeartbeatInterval >= c.SessionTimeout {
		bad("--heartbeat-interval %s: expected less than --session-timeout %s", c.HeartbeatInterval, c.SessionTimeout)
	}
	if err := CheckClient(c.Client, c.Strategy, c.Static, c.Props); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// CheckClient rejects what a client cannot do with a strategy: static
// membership under the consumer protocol on franz-go, client properties
// a member on that client cannot apply. The chaos driver calls it for
// every cell before a run starts; a member calls it before it starts.
func CheckClient(client, strategy string, static bool, props kafkaconf.Props) error {
	if client != ClientFranz {
		return nil
	}
	if static && ConsumerProtocol(strategy) {
		return errors.New("--static: franz-go supports group.instance.id on classic groups only")
	}
	if _, err := props.FranzOpts(); err != nil {
		return err
	}
	_, err := franzConsumerOpts(props)
	return err
}

// autoCommit reports whether the policy lets the client commit by itself.
func (c *Config) autoCommit() bool {
	return c.Policy == PolicyAuto || c.Policy == PolicyAutoAfterProcess
}

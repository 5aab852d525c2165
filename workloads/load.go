package workloads

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/chaosbench/chaosbench/internal/clip"
	"github.com/chaosbench/chaosbench/internal/vocab"
)

// Load reads and validates the workload file at path. Any problem gives an
// *Error listing every problem found (file, line, field, what was
// expected).
func Load(path string) (*Spec, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, &Error{Errs: []*FieldError{{File: path, Msg: err.Error()}}}
	}
	defer f.Close()
	// One byte more than the limit is enough for Parse to refuse it.
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, &Error{Errs: []*FieldError{{File: path, Msg: err.Error()}}}
	}
	return Parse(path, data)
}

var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// Parse reads and validates a workload; file names it in errors and gives
// the default workload name.
func Parse(file string, data []byte) (*Spec, error) {
	p := &problems{file: file}
	if len(data) > MaxFileSize {
		p.add(0, "", "more than %d bytes: expected a workload file of at most %d (even 10,000 explicit keys take less)", MaxFileSize, MaxFileSize)
		return nil, p.err()
	}
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			p.add(0, "", "empty workload: expected a YAML mapping with at least duration or records")
			return nil, p.err()
		}
		msg := err.Error()
		line := 0
		if m := yamlLine.FindStringSubmatch(msg); m != nil {
			line, _ = strconv.Atoi(m[1])
			msg = m[2]
		}
		msg = strings.TrimPrefix(msg, "yaml: ")
		if lines := strings.Split(string(data), "\n"); line > 0 && line <= len(lines) && strings.Contains(lines[line-1], "\t") {
			msg += " (the line has a tab: YAML indents with spaces)"
		}
		p.add(line, "", "not valid YAML: %s", clip.Message(msg))
		return nil, p.err()
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		p.add(extra.Line, "", "a second YAML document: expected one workload per file")
		return nil, p.err()
	}
	s := &Spec{File: file, pos: map[string]int{}}
	d := &decoder{problems: p, pos: s.pos}
	if len(doc.Content) == 0 {
		p.add(0, "", "empty workload: expected a YAML mapping with at least duration or records")
		return nil, p.err()
	}
	root := resolve(doc.Content[0])
	if root.Kind != yaml.MappingNode {
		p.add(root.Line, "", "got %s, expected a mapping of workload fields (name, seed, duration, topic, keys, ...)", describe(root))
		return nil, p.err()
	}
	d.decodeSpec(root, s)
	if err := p.err(); err != nil {
		return nil, err
	}
	s.applyDefaults()
	if err := s.Validate(); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *Spec) set(field string) bool {
	_, ok := s.pos[field]
	return ok
}

// byDefault sets *field to v unless the workload file set path.
func byDefault[T any](s *Spec, path string, field *T, v T) {
	if !s.set(path) {
		*field = v
	}
}

// Defaults, also documented in README.md.
const (
	DefaultSeed               = 1
	DefaultPartitions         = 12
	DefaultKeyCount           = 1000
	DefaultKeyFormat          = "k%06d"
	DefaultValueSize          = 100
	DefaultRate               = 1000
	DefaultMaxInFlight        = 5
	DefaultLinger             = 5 * time.Millisecond
	DefaultBatchSize          = 1000000
	DefaultMembers            = 3
	DefaultProcessingCost     = time.Millisecond
	DefaultMaxPollRecords     = 500
	DefaultSessionTimeout     = 45 * time.Second
	DefaultHeartbeatInterval  = 3 * time.Second
	DefaultMaxPollInterval    = 300 * time.Second
	DefaultAutoCommitInterval = 5 * time.Second
	DefaultDrainTimeout       = 60 * time.Second
	// DefaultTransactionTimeout is Kafka's transaction.timeout.ms.
	DefaultTransactionTimeout = 60 * time.Second
)

// applyDefaults fills in the fields the file leaves out; a field the
// file names keeps its value, even a zero one.
func (s *Spec) applyDefaults() {
	if !s.set("name") {
		base := filepath.Base(s.File)
		s.Name = strings.TrimSuffix(base, filepath.Ext(base))
	}
	byDefault(s, "seed", &s.Seed, DefaultSeed)
	s.applyTopicDefaults()
	s.applyProducerDefaults()
	s.applyConsumerDefaults()
	byDefault(s, "strategies", &s.Strategies, append([]string(nil), vocab.StrategyNames()...))
	byDefault(s, "commit_policies", &s.CommitPolicies, []string{vocab.PolicySyncBatch})
	byDefault(s, "broker.brokers", &s.Broker.Brokers, 1)
	if s.Broker.Config == nil {
		s.Broker.Config = map[string]string{}
	}
	byDefault(s, "chaos.drain_timeout", &s.Chaos.DrainTimeout, DefaultDrainTimeout)
	s.applyTargetDefaults()
}

// applyTopicDefaults fills in the topic and the records written to it
// (keys and values).
func (s *Spec) applyTopicDefaults() {
	t := &s.Topic
	byDefault(s, "topic.name", &t.Name, s.Name)
	byDefault(s, "topic.partitions", &t.Partitions, DefaultPartitions)
	byDefault(s, "topic.replication", &t.Replication, 1)
	k := &s.Keys
	byDefault(s, "keys.count", &k.Count, DefaultKeyCount)
	byDefault(s, "keys.format", &k.Format, DefaultKeyFormat)
	byDefault(s, "keys.distribution", &k.Distribution, DistUniform)
	byDefault(s, "value.size", &s.Value.Size, DefaultValueSize)
}

// applyProducerDefaults fills in the producer section.
func (s *Spec) applyProducerDefaults() {
	p := &s.Producer
	if !s.set("producer.client") {
		// franz-go: the faster producer here, so that the harness is never
		// the bottleneck (internal/loadgen/README.md, "Benchmark").
		p.Client = vocab.ClientFranz
	}
	byDefault(s, "producer.rate", &p.Rate, DefaultRate)
	byDefault(s, "producer.acks", &p.Acks, "all")
	byDefault(s, "producer.idempotence", &p.Idempotence, true)
	byDefault(s, "producer.max_in_flight", &p.MaxInFlight, DefaultMaxInFlight)
	byDefault(s, "producer.linger", &p.Linger, DefaultLinger)
	byDefault(s, "producer.batch_size", &p.BatchSize, DefaultBatchSize)
	byDefault(s, "producer.compression", &p.Compression, "none")
	byDefault(s, "producer.partitioner", &p.Partitioner, "murmur2")
}

// applyConsumerDefaults fills in the consumer section; a uniform
// processing cost's jitter defaults to the cost.
func (s *Spec) applyConsumerDefaults() {
	c := &s.Consumer
	byDefault(s, "consumer.members", &c.Members, DefaultMembers)
	byDefault(s, "consumer.processing.cost", &c.Processing.Cost, DefaultProcessingCost)
	byDefault(s, "consumer.processing.distribution", &c.Processing.Distribution, CostFixed)
	if !s.set("consumer.processing.jitter") && c.Processing.Distribution == CostUniform {
		c.Processing.Jitter = c.Processing.Cost
	}
	byDefault(s, "consumer.max_poll_records", &c.MaxPollRecords, DefaultMaxPollRecords)
	byDefault(s, "consumer.session_timeout", &c.SessionTimeout, DefaultSessionTimeout)
	byDefault(s, "consumer.heartbeat_interval", &c.HeartbeatInterval, DefaultHeartbeatInterval)
	byDefault(s, "consumer.max_poll_interval", &c.MaxPollInterval, DefaultMaxPollInterval)
	byDefault(s, "consumer.auto_commit_interval", &c.AutoCommitInterval, DefaultAutoCommitInterval)
	byDefault(s, "consumer.transaction.transactional_id", &c.Transaction.TransactionalID, TxnIDPerMember)
	byDefault(s, "consumer.transaction.timeout", &c.Transaction.Timeout, DefaultTransactionTimeout)
	if c.Properties == nil {
		c.Properties = map[string]string{}
	}
}

// Overrides replace parts of a workload from the command line. A field
// left nil is not overridden; one that is set is checked as the
// workload's own field would be: an override of 0 or less is refused,
// never taken for "not given".
type Overrides struct {
	// Duration replaces duration (and drops records).
	Duration *time.Duration
	// Records replaces records (and drops duration).
	Records *int64
	// Rate replaces the producer's rate with a constant rate (records/s,
	// 0 unlimited); the workload's ramp and steps are dropped.
	Rate *float64
	// ProducerOnly drops the chaos section (warmup and steps): for running
	// the producer side alone, where the schedule does not apply.
	ProducerOnly bool
	// Members replaces consumer.members (a sweep of group sizes); the
	// chaos plan is validated again against it.
	Members *int
}

// Override applies o and validates the result again (a shorter duration
// can leave chaos steps after the end of traffic).
func (s *Spec) Override(o Overrides) error {
	p := &problems{file: s.File}
	switch {
	case o.Duration != nil && o.Records != nil:
		p.add(0, "--duration", "and --records: expected one of the two")
	case o.Duration != nil && (*o.Duration <= 0 || *o.Duration > MaxDuration):
		p.add(0, "--duration", "got %v, expected a duration > 0 and at most %v", *o.Duration, MaxDuration)
	case o.Records != nil && (*o.Records < 1 || *o.Records > MaxRecords):
		p.add(0, "--records", "got %d, expected a number of records from 1 to %d", *o.Records, int64(MaxRecords))
	}
	if o.Members != nil && (*o.Members < 1 || *o.Members > MaxMembers) {
		p.add(0, "--members", "got %d, expected a group size from 1 to %d", *o.Members, MaxMembers)
	}
	if o.Rate != nil && !(*o.Rate >= 0 && *o.Rate <= MaxRate) {
		p.add(0, "--rate", "got %v, expected records/s from 0 (unlimited) to %d", *o.Rate, MaxRate)
	}
	if err := p.err(); err != nil {
		return err
	}
	if o.Duration != nil {
		s.Duration, s.Records = *o.Duration, 0
		s.pos["duration"] = s.Line("duration")
		delete(s.pos, "records")
	}
	if o.Records != nil {
		s.Records, s.Duration = *o.Records, 0
		s.pos["records"] = s.Line("records")
		delete(s.pos, "duration")
	}
	if o.ProducerOnly {
		s.Chaos.Warmup, s.Chaos.Steps = 0, nil
		for f := range s.pos {
			if f == "chaos.warmup" || strings.HasPrefix(f, "chaos.steps") {
				delete(s.pos, f)
			}
		}
	}
	if o.Members != nil {
		s.Consumer.Members = *o.Members
		s.pos["consumer.members"] = s.Line("consumer.members")
	}
	if o.Rate != nil {
		s.Producer.Rate = *o.Rate
		s.Producer.Ramp = nil
		s.Producer.Steps = nil
	}
	return s.Validate()
}

package member

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"

	"github.com/chaosbench/chaosbench/internal/clip"
	"github.com/chaosbench/chaosbench/internal/history"
	"github.com/chaosbench/chaosbench/internal/kafkaconf"
	"github.com/chaosbench/chaosbench/internal/vocab"
)

// confluentConfig returns the librdkafka configuration of a member: where
// it connects and who it is, the commit policy's auto-commit, then its
// consumer settings (Config.ConsumerSettings) as they are, librdkafka
// taking Kafka's names, then the -X properties. The group's settings
// (the consumer protocol's timings) are not the client's: librdkafka
// refuses session.timeout.ms, heartbeat.interval.ms and
// partition.assignment.strategy with group.protocol=consumer, and the
// settings do not give them then.
func confluentConfig(cfg *Config) kafka.ConfigMap {
	conf := kafka.ConfigMap{
		"bootstrap.servers":    cfg.Bootstrap,
		"group.id":             cfg.Group,
		"client.id":            fmt.Sprintf("%s.%d", cfg.Name, cfg.Inc),
		"auto.offset.reset":    "earliest",
		"enable.partition.eof": false,
		"enable.auto.commit":   cfg.autoCommit(),
		// auto: the library stores each offset when it hands the record
		// over (its default); auto-after-process stores after processing.
		"enable.auto.offset.store": cfg.Policy == vocab.PolicyAuto,
	}
	if cfg.Policy == vocab.PolicyTransactional {
		// The input as a downstream reader of committed data reads it;
		// with it librdkafka's offset fetches also wait for a pending
		// transactional commit (KIP-447's require_stable).
		conf["isolation.level"] = "read_committed"
	}
	for _, s := range cfg.ConsumerSettings().In(vocab.InClient) {
		if s.Name == vocab.SettingMaxPollRecords {
			continue // librdkafka has none: pollBatch gathers batches of it
		}
		conf[s.Name] = s.Value
	}
	for k, v := range cfg.Props {
		conf[k] = v
	}
	return conf
}

// checkConfluent makes (and closes) a consumer with the configuration a
// member of this strategy would have, without brokers: librdkafka checks
// every property's name and value, and loads TLS material, when a client
// is made, so a property it would refuse is refused before a run starts,
// in its words.
func checkConfluent(cfg Config) error {
	if err := cfg.Props.CheckLibrdkafka(); err != nil {
		return err
	}
	try := func(props kafkaconf.Props) error {
		c := cfg
		c.Name, c.Group, c.Props = "check", "check", props
		conf := confluentConfig(&c)
		conf["bootstrap.servers"] = ""
		conf["log_level"] = 0 // no warning about the missing brokers on stderr
		cons, err := kafka.NewConsumer(&conf)
		if err != nil {
			return err
		}
		cons.Close()
		if c.Policy != vocab.PolicyTransactional {
			return nil
		}
		c.TransactionalID = "check"
		pconf := confluentProducerConfig(&c)
		pconf["bootstrap.servers"] = ""
		pconf["log_level"] = 0
		prod, err := kafka.NewProducer(&pconf)
		if err != nil {
			return fmt.Errorf("transactional producer: %w", err)
		}
		prod.Close()
		return nil
	}
	err := try(cfg.Props)
	if err == nil {
		return nil
	}
	// librdkafka does not always name the property it refuses ("Java JAAS
	// configuration is not supported"): find the one without which it
	// accepts the rest.
	keys := slices.Sorted(maps.Keys(cfg.Props))
	for _, k := range keys {
		rest := cfg.Props.Clone()
		delete(rest, k)
		if try(rest) == nil {
			return fmt.Errorf("-X %s: client confluent: %w", clip.String(k), err)
		}
	}
	return fmt.Errorf("client confluent: %w", err)
}

type confluentMember struct {
	*state
	c *kafka.Consumer

	asyncMu   sync.Mutex
	asyncWG   sync.WaitGroup
	asyncNext map[int32]int64 // the next async commit, merged while one runs
	asyncBusy bool
}

// runConfluent runs the member's poll loop (runLoop) on a librdkafka
// consumer.
func runConfluent(ctx context.Context, s *state) error {
	if s.cfg.Policy == vocab.PolicyTransactional {
		return runConfluentTxn(ctx, s)
	}
	conf := confluentConfig(s.cfg)
	c, err := kafka.NewConsumer(&conf)
	if err != nil {
		return fmt.Errorf("confluent consumer: %w", err)
	}
	m := &confluentMember{state: s, c: c}
	if err := c.SubscribeTopics([]string{s.cfg.Topic}, m.rebalance); err != nil {
		c.Close()
		return fmt.Errorf("subscribe %s: %w", s.cfg.Topic, err)
	}
	return runLoop(ctx, s, m)
}

// pollBatch gathers up to MaxPollRecords records: it waits up to 100 ms for
// the first, then takes what is already fetched. Rebalance callbacks run
// inside Poll; the loop drops records of partitions revoked meanwhile.
func (m *confluentMember) pollBatch(_ context.Context, batch []record) ([]record, error) {
	timeout := 100
	for len(batch) < m.cfg.MaxPollRecords {
		ev := m.c.Poll(timeout)
		timeout = 0
		switch e := ev.(type) {
		case nil:
			return batch, nil
		case *kafka.Message:
			if e.TopicPartition.Error != nil {
				m.logf("fetch %v: %v", e.TopicPartition, e.TopicPartition.Error)
				continue
			}
			r := record{partition: e.TopicPartition.Partition, offset: int64(e.TopicPartition.Offset),
				key: string(e.Key), recordT: e.Timestamp.UnixNano()}
			r.setStamp(e.Value, &m.producers)
			batch = append(batch, r)
		case kafka.OffsetsCommitted:
			// Only the library's own (auto) commits arrive here: the
			// member's commits report on a queue of their own.
			m.recordCommit(e.Offsets, e.Error, true)
		case kafka.Error:
			m.logf("client error: %v (code %v, fatal %v)", e, e.Code(), e.IsFatal())
			if e.IsFatal() {
				return batch, fmt.Errorf("fatal client error: %w", e)
			}
		}
	}
	return batch, nil
}

// commitBatch commits a batch before it is processed (commit-before-process).
func (m *confluentMember) commitBatch(_ context.Context, offs map[int32]int64) { m.commitSync(offs) }

// allowRebalance has nothing to do: librdkafka runs rebalance callbacks
// inside Poll (and Close), never while a batch is processed.
func (m *confluentMember) allowRebalance() {}

// close leaves the group; librdkafka runs the rebalance callback for the
// revocation (recorded there) and, with auto-commit, commits the stored
// offsets.
func (m *confluentMember) close() error { return m.c.Close() }

// rebalance is the rebalance callback; it runs inside Poll (and Close).
func (m *confluentMember) rebalance(c *kafka.Consumer, ev kafka.Event) error {
	cooperative := c.GetRebalanceProtocol() == "COOPERATIVE"
	switch e := ev.(type) {
	case kafka.AssignedPartitions:
		var err error
		if cooperative {
			err = c.IncrementalAssign(e.Partitions)
		} else {
			err = c.Assign(e.Partitions)
		}
		if err != nil {
			m.logf("assign %v: %v", e.Partitions, err)
			return err
		}
		if len(e.Partitions) > 0 || !cooperative {
			m.assigned(partitionsOf(e.Partitions), 0, "")
		}
	case kafka.RevokedPartitions:
		ps := partitionsOf(e.Partitions)
		lost := c.AssignmentLost()
		if !lost && m.cfg.Policy == vocab.PolicyAsyncSyncOnRevoke {
			m.waitAsync()
			m.commitSync(m.takeUncommitted(ps))
		}
		if !lost && m.cfg.Policy == vocab.PolicyAutoAfterProcess {
			m.storeOffsets(m.takeUncommitted(ps))
		}
		kind := history.Revoked
		if lost {
			kind = history.Lost
		}
		if len(ps) > 0 || !cooperative {
			m.removed(kind, ps, 0)
		}
		var err error
		if cooperative {
			err = c.IncrementalUnassign(e.Partitions)
		} else {
			err = c.Unassign()
		}
		if err != nil {
			m.logf("unassign %v: %v", e.Partitions, err)
			return err
		}
	}
	return nil
}

func partitionsOf(tps []kafka.TopicPartition) []int32 {
	ps := make([]int32, len(tps))
	for i, tp := range tps {
		ps[i] = tp.Partition
	}
	return ps
}

func (m *confluentMember) toTPs(offs map[int32]int64) []kafka.TopicPartition {
	tps := make([]kafka.TopicPartition, 0, len(offs))
	for p, off := range offs {
		tps = append(tps, kafka.TopicPartition{Topic: &m.cfg.Topic, Partition: p, Offset: kafka.Offset(off)})
	}
	return tps
}

// afterBatch commits (or stores) what the batch processed, as the policy
// says. The history was flushed by process.
func (m *confluentMember) afterBatch(context.Context) {
	switch m.cfg.Policy {
	case vocab.PolicyAutoAfterProcess:
		m.storeOffsets(m.takeUncommitted(nil))
	case vocab.PolicySyncBatch:
		m.commitSync(m.takeUncommitted(nil))
	case vocab.PolicyAsyncBatch, vocab.PolicyAsyncSyncOnRevoke:
		m.commitAsync(m.takeUncommitted(nil))
	case vocab.PolicyCommitFirst:
		m.takeUncommitted(nil) // committed before processing
	}
}

// finalCommit is the policy's commit on a graceful close.
func (m *confluentMember) finalCommit() {
	switch m.cfg.Policy {
	case vocab.PolicySyncBatch, vocab.PolicyAsyncBatch, vocab.PolicyAsyncSyncOnRevoke:
		m.waitAsync()
		m.commitSync(m.takeUncommitted(nil))
	case vocab.PolicyAutoAfterProcess:
		m.storeOffsets(m.takeUncommitted(nil))
	default:
		m.waitAsync()
	}
	if err := m.flush(); err != nil {
		m.logf("history flush: %v", err)
	}
}

// storeOffsets hands processed offsets to the library's auto-commit.
func (m *confluentMember) storeOffsets(offs map[int32]int64) {
	if len(offs) == 0 {
		return
	}
	if _, err := m.c.StoreOffsets(m.toTPs(offs)); err != nil {
		// A partition revoked meanwhile cannot be stored: its next owner
		// starts from the last commit.
		m.logf("store offsets %v: %v", offs, err)
	}
}

func (m *confluentMember) commitSync(offs map[int32]int64) {
	if len(offs) == 0 {
		return
	}
	committed, err := m.c.CommitOffsets(m.toTPs(offs))
	failed := map[int32]int64{}
	if err != nil && len(committed) == 0 {
		for p, off := range offs {
			m.committed(p, off, err, false)
			if !fenced(err) {
				failed[p] = off
			}
		}
	} else {
		m.recordCommit(committed, err, false)
		for _, tp := range committed {
			if perr := tp.Error; perr != nil && !fenced(perr) {
				failed[tp.Partition] = offs[tp.Partition]
			}
		}
	}
	// Failed offsets go into the next commit, as with franz-go.
	m.restoreUncommitted(failed)
	if err := m.flush(); err != nil {
		m.logf("history flush: %v", err)
	}
}

// fenced reports whether a commit failed because the member's membership
// or generation is gone: its partitions' next owners start from the last
// commit, and retrying the offsets could rewind a newer owner's commit.
func fenced(err error) bool {
	var kerr kafka.Error
	if !errors.As(err, &kerr) {
		return false
	}
	switch kerr.Code() {
	case kafka.ErrUnknownMemberID, kafka.ErrIllegalGeneration, kafka.ErrStaleMemberEpoch:
		return true
	}
	return false
}

// recordCommit records the per-partition outcome of a commit.
func (m *confluentMember) recordCommit(tps []kafka.TopicPartition, err error, auto bool) {
	for _, tp := range tps {
		if tp.Offset < 0 { // nothing stored for the partition
			continue
		}
		perr := tp.Error
		if perr == nil {
			perr = err
		}
		m.committed(tp.Partition, int64(tp.Offset), perr, auto)
	}
}

// commitAsync commits in the background: one commit in flight at a time,
// later offsets merged into the next one, as an asynchronous commit API
// would (confluent-kafka-go's commit calls block).
func (m *confluentMember) commitAsync(offs map[int32]int64) {
	if len(offs) == 0 {
		return
	}
	m.asyncMu.Lock()
	defer m.asyncMu.Unlock()
	if m.asyncNext == nil {
		m.asyncNext = map[int32]int64{}
	}
	for p, off := range offs {
		m.asyncNext[p] = max(m.asyncNext[p], off)
	}
	if m.asyncBusy {
		return
	}
	m.asyncBusy = true
	m.asyncWG.Add(1)
	go m.asyncLoop()
}

func (m *confluentMember) asyncLoop() {
	defer m.asyncWG.Done()
	for {
		m.asyncMu.Lock()
		next := m.asyncNext
		m.asyncNext = nil
		if len(next) == 0 {
			m.asyncBusy = false
			m.asyncMu.Unlock()
			return
		}
		m.asyncMu.Unlock()
		m.commitSync(next)
	}
}

// waitAsync waits for the asynchronous commits in flight.
func (m *confluentMember) waitAsync() { m.asyncWG.Wait() }

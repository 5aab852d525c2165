package member

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"

	"github.com/chaosbench/chaosbench/internal/history"
	"github.com/chaosbench/chaosbench/internal/kafkaconf"
)

// confluentTxnMember is the transactional commit policy on
// confluent-kafka-go (librdkafka): the consumer of the other policies,
// reading read_committed, beside a transactional producer of its own, as
// librdkafka's documentation describes the loop: BeginTransaction, the
// batch's output records, SendOffsetsToTransaction with the consumer's
// group metadata (KIP-447), CommitTransaction; on an abortable error,
// AbortTransaction and a rewind of the consumer to the committed offsets.
// A revocation (in the rebalance callback, inside Poll) commits the open
// transaction while the member is still in the generation; a loss of
// partitions aborts it.
type confluentTxnMember struct {
	*confluentMember
	p *kafka.Producer

	txnState
	evDone chan struct{}

	// outside is the broken test double (TestDoubleEnv): no offsets in
	// the transaction; each transaction's offsets committed with a plain
	// CommitOffsets after the next one commits; prev are those late
	// offsets.
	outside bool
	prev    map[int32]int64
}

// confluentProducerConfig is the transactional producer's configuration:
// where it connects (the connection-level -X properties), who it is, and
// the transaction's settings.
func confluentProducerConfig(cfg *Config) kafka.ConfigMap {
	conf := kafka.ConfigMap{
		"bootstrap.servers":      cfg.Bootstrap,
		"client.id":              fmt.Sprintf("%s.%d", cfg.Name, cfg.Inc),
		"transactional.id":       cfg.TransactionalID,
		"transaction.timeout.ms": int(cfg.TransactionTimeout / time.Millisecond),
		"linger.ms":              5,
	}
	for k, v := range cfg.Props {
		if kafkaconf.IsConnectionKey(k) {
			conf[k] = v
		}
	}
	return conf
}

// runConfluentTxn runs the member's poll loop (runLoop) on a librdkafka
// consumer and transactional producer.
func runConfluentTxn(ctx context.Context, s *state) error {
	conf := confluentConfig(s.cfg)
	c, err := kafka.NewConsumer(&conf)
	if err != nil {
		return fmt.Errorf("confluent consumer: %w", err)
	}
	pconf := confluentProducerConfig(s.cfg)
	p, err := kafka.NewProducer(&pconf)
	if err != nil {
		c.Close()
		return fmt.Errorf("confluent transactional producer: %w", err)
	}
	m := &confluentTxnMember{confluentMember: &confluentMember{state: s, c: c}, p: p, evDone: make(chan struct{}), outside: offsetsOutside()}
	if m.outside {
		m.logf("test double %s: offsets committed outside the transactions", TestDoubleOffsetsOutside)
	}
	go m.deliveries()
	defer func() {
		p.Close()
		<-m.evDone
	}()
	ictx, cancel := context.WithTimeout(ctx, 60*time.Second)
	err = p.InitTransactions(ictx)
	cancel()
	if err != nil {
		c.Close()
		return fmt.Errorf("init transactions (%s): %w", s.cfg.TransactionalID, err)
	}
	if err := c.SubscribeTopics([]string{s.cfg.Topic}, m.txnRebalance); err != nil {
		c.Close()
		return fmt.Errorf("subscribe %s: %w", s.cfg.Topic, err)
	}
	s.emit = m.emit
	return runLoop(ctx, s, m)
}

// deliveries serves the producer's events, as CommitTransaction and
// AbortTransaction need: a failed output record marks the open
// transaction for an abort.
func (m *confluentTxnMember) deliveries() {
	defer close(m.evDone)
	for ev := range m.p.Events() {
		switch e := ev.(type) {
		case *kafka.Message:
			if err := e.TopicPartition.Error; err != nil {
				m.produceFailed(err)
			}
		case kafka.Error:
			m.logf("producer error: %v (fatal %v)", e, e.IsFatal())
		}
	}
}

// txnRebalance commits the open transaction before partitions are
// revoked (the member is still in the generation), aborts it when they
// were lost, then records the change as every member does.
func (m *confluentTxnMember) txnRebalance(c *kafka.Consumer, ev kafka.Event) error {
	if _, ok := ev.(kafka.RevokedPartitions); ok && m.open && m.fatal == nil {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		if c.AssignmentLost() {
			m.end(ctx, false, "rebalance: partitions lost")
		} else {
			m.mu.Lock()
			complete := m.produced == m.polled
			m.mu.Unlock()
			m.end(ctx, complete, "rebalance")
		}
		cancel()
	}
	return m.rebalance(c, ev)
}

func (m *confluentTxnMember) due() bool { return m.txnState.due(m.cfg, &m.mu) }

// pollBatch polls as the plain member does; with a commit interval, a
// poll that brings nothing commits a transaction whose interval passed.
func (m *confluentTxnMember) pollBatch(ctx context.Context, batch []record) ([]record, error) {
	if m.fatal != nil {
		return batch, m.fatal
	}
	n := len(batch)
	batch, err := m.confluentMember.pollBatch(ctx, batch)
	if err != nil {
		return batch, err
	}
	if m.open && len(batch) == n && ctx.Err() == nil && m.due() {
		m.end(ctx, true, "")
	}
	return batch, m.fatal
}

// beginBatch begins a transaction for the batch, unless one is open.
func (m *confluentTxnMember) beginBatch(_ context.Context, n int) error {
	if m.fatal != nil {
		return m.fatal
	}
	if m.open {
		m.polled += n
		return nil
	}
	m.txn++
	m.append(&history.Event{Kind: history.Txn, State: history.TxnBegin, Step: m.txn})
	if err := m.flush(); err != nil {
		return err
	}
	if err := m.p.BeginTransaction(); err != nil {
		return fmt.Errorf("begin transaction: %w", err)
	}
	m.open, m.openedAt, m.polled = true, time.Now(), n
	m.mu.Lock()
	m.produced = 0
	m.mu.Unlock()
	m.produceError(true)
	return nil
}

// emit produces r's output record into the open transaction (under the
// state's lock, right after r's processed event).
func (m *confluentTxnMember) emit(r *record) {
	v := AppendOutput(nil, Output{
		Partition: r.partition, Offset: r.offset, Producer: r.producer, Seq: r.seq,
		Writer: m.cfg.Name, WriterInc: m.cfg.Inc, Txn: m.txn, T: time.Now().UnixNano(),
	})
	m.produced++
	err := m.p.Produce(&kafka.Message{
		TopicPartition: kafka.TopicPartition{Topic: &m.cfg.OutputTopic, Partition: kafka.PartitionAny},
		Key:            []byte(r.key), Value: v,
	}, nil)
	if err != nil {
		m.produceFailed(err)
	}
}

func (m *confluentTxnMember) commitBatch(context.Context, map[int32]int64) {}

func (m *confluentTxnMember) afterBatch(ctx context.Context) {
	if m.open && m.due() {
		m.end(ctx, true, "")
	}
}

// finalCommit commits the open transaction on a graceful close when every
// polled record was processed and produced, and aborts it otherwise.
func (m *confluentTxnMember) finalCommit() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if m.open && m.fatal == nil {
		m.mu.Lock()
		complete := m.produced == m.polled
		m.mu.Unlock()
		m.end(ctx, complete, "shutdown")
	}
	if m.fatal != nil {
		m.logf("transaction: %v", m.fatal)
	}
	if err := m.flush(); err != nil {
		m.logf("history flush: %v", err)
	}
}

// end ends the open transaction: a commit (offsets to the transaction
// with the group's metadata, then CommitTransaction, retried while
// librdkafka says it may be) or an abort for cause, after which the
// consumer is rewound to the committed offsets. A fatal error ends the
// member.
func (m *confluentTxnMember) end(ctx context.Context, commit bool, cause string) {
	// A graceful stop cancels the loop's context: the commit or abort
	// under way still runs to its outcome (franztxn.go's end).
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	offs := m.takeUncommitted(nil)
	perr := m.produceError(false)
	if commit && perr != nil {
		commit, cause = false, "produce: "+perr.Error()
	}
	m.open = false
	if commit {
		m.append(&history.Event{Kind: history.Txn, State: history.TxnCommitting, Step: m.txn})
		if err := m.flush(); err != nil {
			m.fatal = err
			return
		}
		inTxn := offs
		if m.outside {
			inTxn = nil
		}
		err := m.commitTxn(ctx, inTxn)
		if err == nil && m.outside {
			m.append(&history.Event{Kind: history.Txn, State: history.TxnCommitted, Step: m.txn})
			if err := m.flush(); err != nil {
				m.fatal = err
				return
			}
			m.commitSync(m.prev) // the previous transaction's, outside this one
			m.prev = offs
			return
		}
		if err == nil {
			m.append(&history.Event{Kind: history.Txn, State: history.TxnCommitted, Step: m.txn})
			for p, off := range offs {
				m.committed(p, off, nil, false)
			}
			if err := m.flush(); err != nil {
				m.fatal = err
			}
			return
		}
		cause = m.abortCause(err)
		var ke kafka.Error
		if errors.As(err, &ke) && ke.IsFatal() {
			m.append(&history.Event{Kind: history.Txn, State: history.TxnAborted, Step: m.txn, Err: cause})
			m.fatal = fmt.Errorf("commit transaction %d: %w", m.txn, err)
			_ = m.flush()
			return
		}
	}
	aerr := m.p.AbortTransaction(ctx)
	m.append(&history.Event{Kind: history.Txn, State: history.TxnAborted, Step: m.txn, Err: cause})
	if aerr != nil {
		m.fatal = fmt.Errorf("abort transaction %d: %w", m.txn, aerr)
	}
	if err := m.flush(); err != nil && m.fatal == nil {
		m.fatal = err
	}
	m.rewind()
}

// commitTxn sends the offsets to the transaction and commits it,
// retrying what librdkafka calls retriable.
func (m *confluentTxnMember) commitTxn(ctx context.Context, offs map[int32]int64) error {
	md, err := m.c.GetConsumerGroupMetadata()
	if err != nil {
		return err
	}
	retry := func(f func() error) error {
		for try := 0; ; try++ {
			err := f()
			var ke kafka.Error
			if err == nil || try == 5 || !errors.As(err, &ke) || !ke.IsRetriable() || ctx.Err() != nil {
				return err
			}
		}
	}
	if len(offs) > 0 {
		if err := retry(func() error { return m.p.SendOffsetsToTransaction(ctx, m.toTPs(offs), md) }); err != nil {
			return err
		}
	}
	return retry(func() error { return m.p.CommitTransaction(ctx) })
}

// rewind seeks the partitions the member still owns back to their
// committed offsets (the start, without one): the aborted transaction's
// records are consumed again.
func (m *confluentTxnMember) rewind() {
	tps, err := m.c.Assignment()
	if err != nil || len(tps) == 0 {
		return
	}
	committed, err := m.c.Committed(tps, 10_000)
	if err != nil {
		m.logf("rewind: committed offsets: %v", err)
		return
	}
	for _, tp := range committed {
		if tp.Offset < 0 {
			tp.Offset = kafka.OffsetBeginning
		}
		if err := m.c.Seek(tp, 0); err != nil {
			m.logf("rewind %d to %v: %v", tp.Partition, tp.Offset, err)
		}
	}
}

// abortCause names why a commit failed: the transaction's timeout,
// fencing of the producer, the group's generation gone (a rebalance), or
// another error.
func (m *confluentTxnMember) abortCause(err error) string {
	var ke kafka.Error
	code := kafka.ErrNoError
	if errors.As(err, &ke) {
		code = ke.Code()
	}
	switch {
	case time.Since(m.openedAt) >= m.cfg.TransactionTimeout:
		return "timeout: " + err.Error()
	case code == kafka.ErrFenced || code == kafka.ErrProducerFenced || code == kafka.ErrInvalidProducerEpoch:
		return "fenced: " + err.Error()
	case code == kafka.ErrIllegalGeneration || code == kafka.ErrUnknownMemberID || code == kafka.ErrFencedInstanceID || code == kafka.ErrRebalanceInProgress:
		return "rebalance: " + err.Error()
	}
	return "error: " + err.Error()
}

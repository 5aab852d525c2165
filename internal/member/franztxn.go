package member

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/chaosbench/chaosbench/internal/history"
)

// franzTxnMember is the transactional commit policy on franz-go: a
// consume-transform-produce loop on kgo.GroupTransactSession.
//
// Why the session and not the plain transactional API: franz-go's plain
// client can begin and end a transaction, but it has no exported call
// that adds the consumer's offsets to it (Java's sendOffsetsToTransaction,
// librdkafka's SendOffsetsToTransaction); only the session sends a
// TxnOffsetCommit, with the group's member id and generation (KIP-447).
// The session also does what the other clients' documented loops leave
// to the application: it aborts a transaction that a revocation or a
// loss of partitions overtook, checks the membership with a heartbeat
// before EndTxn, and rewinds the consumer to the committed offsets after
// an abort. It commits the consumer's polled position, so the member
// commits only a transaction whose every polled record was processed and
// produced (a stop in the middle of a batch aborts).
type franzTxnMember struct {
	*franzMember
	sess *kgo.GroupTransactSession

	txnState
	buf []byte // an output record's value, built by emit

	// rebalanced: partitions were revoked or lost since the last End
	// (the session aborts the next End then).
	rebalanced atomic.Bool

	// outside is the broken test double (TestDoubleEnv): the plain
	// transactional client, and the offsets committed outside the
	// transaction, one transaction late; prev are those late offsets.
	outside bool
	prev    map[int32]int64
}

// runFranzTxn runs the member's poll loop (runLoop) on a franz-go group
// transact session.
func runFranzTxn(ctx context.Context, s *state) error {
	m := &franzTxnMember{franzMember: &franzMember{state: s}}
	m.outside = offsetsOutside()
	opts, err := franzGroupOpts(m.cfg)
	if err != nil {
		return err
	}
	opts = append(opts,
		kgo.OnPartitionsAssigned(m.onAssigned),
		kgo.OnPartitionsRevoked(m.onTxnRevoked),
		kgo.OnPartitionsLost(m.onTxnLost),
		kgo.TransactionalID(m.cfg.TransactionalID),
		kgo.TransactionTimeout(m.cfg.TransactionTimeout),
		// The input is read as a downstream reader of committed data
		// would read it.
		kgo.FetchIsolationLevel(kgo.ReadCommitted()),
	)
	if m.outside {
		m.logf("test double %s: offsets committed outside the transactions", TestDoubleOffsetsOutside)
		if m.cl, err = kgo.NewClient(opts...); err != nil {
			return fmt.Errorf("franz-go client: %w", err)
		}
	} else {
		m.sess, err = kgo.NewGroupTransactSession(opts...)
		if err != nil {
			return fmt.Errorf("franz-go transact session: %w", err)
		}
		m.cl = m.sess.Client()
	}
	s.emit = m.emit
	return runLoop(ctx, s, m)
}

func (m *franzTxnMember) onTxnRevoked(ctx context.Context, cl *kgo.Client, ps map[string][]int32) {
	m.rebalanced.Store(true)
	m.onRevoked(ctx, cl, ps)
}

func (m *franzTxnMember) onTxnLost(ctx context.Context, cl *kgo.Client, ps map[string][]int32) {
	m.rebalanced.Store(true)
	m.onLost(ctx, cl, ps)
}

// due reports whether the open transaction commits now: after every
// batch, or once it holds CommitRecords records or has been open
// CommitInterval.
func (m *franzTxnMember) due() bool { return m.txnState.due(m.cfg, &m.mu) }

// pollBatch polls as the plain member does, but first ends an open
// transaction that a rebalance has doomed (the session would abort it),
// and, with a commit interval, wakes up to commit a transaction whose
// interval passed while no records came.
func (m *franzTxnMember) pollBatch(ctx context.Context, batch []record) ([]record, error) {
	if m.fatal != nil {
		return batch, m.fatal
	}
	if m.open && m.rebalanced.Load() {
		m.end(ctx, false, "rebalance")
		if m.fatal != nil {
			return batch, m.fatal
		}
	}
	pctx := ctx
	if m.open && m.cfg.CommitInterval > 0 {
		var cancel context.CancelFunc
		pctx, cancel = context.WithDeadline(ctx, m.openedAt.Add(m.cfg.CommitInterval))
		defer cancel()
	}
	n := len(batch)
	batch, err := m.franzMember.pollBatch(pctx, batch)
	if err != nil {
		return batch, err
	}
	if m.open && len(batch) == n && ctx.Err() == nil && m.due() {
		m.end(ctx, true, "")
	}
	return batch, m.fatal
}

// beginBatch begins a transaction for the batch about to be processed,
// unless one is open: its begin event is written first.
func (m *franzTxnMember) beginBatch(ctx context.Context, n int) error {
	if m.open {
		m.polled += n
		return nil
	}
	m.txn++
	m.append(&history.Event{Kind: history.Txn, State: history.TxnBegin, Step: m.txn})
	if err := m.flush(); err != nil {
		return err
	}
	if err := m.beginTxn(); err != nil {
		return fmt.Errorf("begin transaction: %w", err)
	}
	m.open, m.openedAt, m.polled = true, time.Now(), n
	m.mu.Lock()
	m.produced = 0
	m.mu.Unlock()
	m.produceError(true)
	return nil
}

// emit produces r's output record into the open transaction. It runs
// under the state's lock, right after r's processed event is appended
// (state.processed), so an output exists only for a record on record as
// processed.
func (m *franzTxnMember) emit(r *record) {
	m.buf = AppendOutput(m.buf[:0], Output{
		Partition: r.partition, Offset: r.offset, Producer: r.producer, Seq: r.seq,
		Writer: m.cfg.Name, WriterInc: m.cfg.Inc, Txn: m.txn, T: time.Now().UnixNano(),
	})
	rec := &kgo.Record{Topic: m.cfg.OutputTopic, Key: []byte(r.key), Value: append([]byte(nil), m.buf...)}
	m.produced++
	m.cl.Produce(context.Background(), rec, func(_ *kgo.Record, err error) {
		if err != nil {
			m.produceFailed(err)
		}
	})
}

// commitBatch is commit-before-process's; the transactional policy never
// calls it.
func (m *franzTxnMember) commitBatch(context.Context, map[int32]int64) {}

// afterBatch commits the open transaction when it is due. A stop that
// cut the batch short leaves it to finalCommit, which commits only a
// complete batch: the session commits the polled position, past the
// records the stop left unprocessed.
func (m *franzTxnMember) afterBatch(ctx context.Context) {
	if ctx.Err() != nil {
		return
	}
	if m.open && m.due() {
		m.end(ctx, true, "")
	}
}

// finalCommit commits the open transaction on a graceful close when
// every record polled into it was processed and produced, and aborts it
// otherwise (a stop in the middle of a batch: the session would commit
// the polled position, past records never processed).
func (m *franzTxnMember) finalCommit() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if m.open && m.fatal == nil {
		m.mu.Lock()
		complete := m.produced == m.polled
		m.mu.Unlock()
		if complete {
			m.end(ctx, true, "")
		} else {
			m.end(ctx, false, "shutdown")
		}
	}
	if m.fatal != nil {
		m.logf("transaction: %v", m.fatal)
	}
	if err := m.flush(); err != nil {
		m.logf("history flush: %v", err)
	}
}

// end ends the open transaction: a commit (when commit and no output
// record failed) or an abort for cause. The processed offsets are taken
// either way: after an abort the session rewinds the consumer to the
// committed offsets, and they will be processed again. Its events:
// committing before the commit is sent, then committed (with a committed
// event per partition) or aborted with its cause; an error of the
// session's End is fatal (the session says none is retryable).
func (m *franzTxnMember) end(ctx context.Context, commit bool, cause string) {
	offs := m.takeUncommitted(nil)
	perr := m.produceError(false)
	if commit && perr != nil {
		commit, cause = false, "produce: "+perr.Error()
	}
	if commit {
		m.append(&history.Event{Kind: history.Txn, State: history.TxnCommitting, Step: m.txn})
		if err := m.flush(); err != nil {
			m.fatal = err
			return
		}
	}
	// A rebalance held since the poll (BlockRebalanceOnPoll) goes on
	// first: franz-go's offset commit inside End waits for a pending
	// join to finish, which waits for AllowRebalance, so a member that
	// fell out of the group (a zombie) would wait in End until it is
	// stopped. Let go, the session sees the revocation or loss and
	// aborts, as it is made to.
	m.cl.AllowRebalance()
	// A graceful stop cancels the loop's context; a commit already
	// sent must still learn its outcome, or the member would record as
	// aborted a transaction the coordinator commits (seen in the
	// catalogue's eos-deploy: "context canceled", its outputs visible).
	ectx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	committed, err := m.endTxn(ectx, commit)
	m.open = false
	switch {
	case committed && err == nil && m.outside:
		m.append(&history.Event{Kind: history.Txn, State: history.TxnCommitted, Step: m.txn})
		if err := m.flush(); err != nil {
			m.fatal = err
			return
		}
		m.commit(ctx, m.prev, true) // the previous transaction's, outside this one
		m.prev = offs
	case committed && err == nil:
		m.append(&history.Event{Kind: history.Txn, State: history.TxnCommitted, Step: m.txn})
		for p, off := range offs {
			m.committed(p, off, nil, false)
		}
	default:
		if commit {
			cause = m.abortCause(err)
		}
		m.append(&history.Event{Kind: history.Txn, State: history.TxnAborted, Step: m.txn, Err: cause})
		if err != nil {
			m.fatal = fmt.Errorf("end transaction %d: %w", m.txn, err)
		}
	}
	m.rebalanced.Store(false)
	if err := m.flush(); err != nil && m.fatal == nil {
		m.fatal = err
	}
}

// beginTxn begins a transaction: the session's, or the double's plain
// client's.
func (m *franzTxnMember) beginTxn() error {
	if m.sess != nil {
		return m.sess.Begin()
	}
	return m.cl.BeginTransaction()
}

// endTxn ends the transaction and reports whether it committed: the
// session's End (offsets in the transaction), or the double's plain
// EndTransaction, which sends no offsets.
func (m *franzTxnMember) endTxn(ctx context.Context, commit bool) (bool, error) {
	if m.sess != nil {
		return m.sess.End(ctx, kgo.TransactionEndTry(commit))
	}
	if commit {
		if err := m.cl.Flush(ctx); err != nil {
			return false, err
		}
	} else if err := m.cl.AbortBufferedRecords(ctx); err != nil {
		return false, err
	}
	err := m.cl.EndTransaction(ctx, kgo.TransactionEndTry(commit))
	return commit && err == nil, err
}

// abortCause names why a commit ended in an abort: the transaction's
// timeout, fencing by a newer producer of the same transactional.id, an
// error of the session, or (no error) a rebalance the session saw
// (a revocation or loss, a failed heartbeat, a refused offset commit).
func (m *franzTxnMember) abortCause(err error) string {
	switch {
	case err == nil:
		return "rebalance"
	case time.Since(m.openedAt) >= m.cfg.TransactionTimeout:
		return "timeout: " + err.Error()
	case errors.Is(err, kerr.ProducerFenced), errors.Is(err, kerr.InvalidProducerEpoch):
		return "fenced: " + err.Error()
	}
	return "error: " + err.Error()
}

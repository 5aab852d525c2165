package member

import (
	"os"
	"sync"
	"time"
)

// TestDoubleEnv names the environment variable that turns a
// transactional member, on any client, into a deliberately broken test
// double when it holds TestDoubleOffsetsOutside: its transactions hold
// the output records only, and it commits each transaction's input
// offsets with a plain offset commit after the next one (as an
// application committing asynchronously beside its transactions would).
// A crash then leaves committed outputs whose inputs the group reads
// again: the analysis must find them as output duplicates. Only the
// tests set it; the Java member reads the same variable.
const TestDoubleEnv = "CHAOSBENCH_MEMBER_TEST_DOUBLE"

// TestDoubleOffsetsOutside is TestDoubleEnv's value for the double.
const TestDoubleOffsetsOutside = "txn-offsets-outside"

// offsetsOutside reports whether this member is the broken test double.
func offsetsOutside() bool { return os.Getenv(TestDoubleEnv) == TestDoubleOffsetsOutside }

// txnState is what a transactional member keeps of its transactions,
// whichever client runs them (confluenttxn.go, franztxn.go): the poll
// loop's view of the open one, the output records produced into it, and
// the first of them that failed, which turns its commit into an abort.
type txnState struct {
	// Touched by the poll loop only.
	txn      int       // the current (or last) transaction's number, from 1
	open     bool      // a transaction is open
	openedAt time.Time // when it began
	polled   int       // records of its batches (beginBatch)
	fatal    error     // the client failed: the loop ends with it

	// produced counts the output records produced into the open
	// transaction (emit, under the member state's lock).
	produced int

	perr    sync.Mutex
	prodErr error // the first output record that failed, in the open transaction
}

// due reports whether the open transaction is to be committed now: after
// every batch unless the workload sets commit_records or commit_interval.
// mu is the member state's lock, under which produced is counted.
func (t *txnState) due(c *Config, mu *sync.Mutex) bool {
	if c.CommitRecords == 0 && c.CommitInterval == 0 {
		return true
	}
	mu.Lock()
	n := t.produced
	mu.Unlock()
	return (c.CommitRecords > 0 && n >= c.CommitRecords) ||
		(c.CommitInterval > 0 && time.Since(t.openedAt) >= c.CommitInterval)
}

// produceFailed records err if it is the open transaction's first failed
// output record.
func (t *txnState) produceFailed(err error) {
	t.perr.Lock()
	if t.prodErr == nil {
		t.prodErr = err
	}
	t.perr.Unlock()
}

// produceError returns the open transaction's first failed output record,
// and with reset forgets it (a new transaction begins).
func (t *txnState) produceError(reset bool) error {
	t.perr.Lock()
	defer t.perr.Unlock()
	err := t.prodErr
	if reset {
		t.prodErr = nil
	}
	return err
}

package member

import (
	"context"
	"errors"
	"fmt"

	"github.com/chaosbench/chaosbench/internal/vocab"
)

// groupClient is what the member's poll loop (runLoop) needs of a client
// library. confluent.go and franz.go implement it, each with its
// library's quirks, written down where they are dealt with.
type groupClient interface {
	// pollBatch appends up to max.poll.records fetched records to batch.
	// An error ends the loop: errClientClosed without one of its own.
	pollBatch(ctx context.Context, batch []record) ([]record, error)
	// commitBatch commits offsets synchronously: commit-before-process's
	// commit of a batch before it is processed.
	commitBatch(ctx context.Context, offs map[int32]int64)
	// afterBatch commits (or stores, or marks) what the batch processed,
	// as the policy says. The history was flushed by process.
	afterBatch(ctx context.Context)
	// allowRebalance lets a rebalance held while the batch was processed
	// go on (franz-go's BlockRebalanceOnPoll); a client whose rebalances
	// run inside its poll has nothing to do.
	allowRebalance()
	// finalCommit is the policy's commit on a graceful close.
	finalCommit()
	// close leaves the group; the client records the revocation it runs.
	close() error
}

// batchBeginner is a groupClient that acts before each batch is
// processed: the transactional member begins its transaction (unless one
// is open) for the batch's n records.
type batchBeginner interface {
	beginBatch(ctx context.Context, n int) error
}

// errClientClosed ends the poll loop without an error: the client was
// closed under it.
var errClientClosed = errors.New("client closed")

// runLoop is the member's poll loop, the same on every client: poll a
// batch, drop the records of partitions given up meanwhile, commit it
// first under commit-before-process, process it (the write-ahead rule:
// each record's event is flushed before anything is committed for it),
// then commit as the policy says, until ctx ends (a graceful close: the
// policy's final commit, then leave the group) or the client fails.
func runLoop(ctx context.Context, s *state, cl groupClient) error {
	var batch []record
	var runErr error
	for ctx.Err() == nil {
		var err error
		if batch, err = cl.pollBatch(ctx, batch[:0]); err != nil {
			if !errors.Is(err, errClientClosed) {
				runErr = err
			}
			break
		}
		batch = s.filterOwned(batch)
		if len(batch) > 0 {
			if s.cfg.Policy == vocab.PolicyCommitFirst {
				cl.commitBatch(ctx, batchOffsets(batch))
			}
			if b, ok := cl.(batchBeginner); ok {
				if err := b.beginBatch(ctx, len(batch)); err != nil {
					runErr = err
					cl.allowRebalance()
					break
				}
			}
			if err := s.process(ctx, batch); err != nil {
				runErr = err
				cl.allowRebalance()
				break
			}
			cl.afterBatch(ctx)
		}
		cl.allowRebalance()
	}
	s.stopping()
	cl.finalCommit()
	if err := cl.close(); err != nil && runErr == nil {
		runErr = fmt.Errorf("close: %w", err)
	}
	return runErr
}

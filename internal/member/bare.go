package member

import (
	"context"
	"fmt"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/chaosbench/chaosbench/internal/vocab"
)

// A bare consumer is what a member is without chaosbench: the same client,
// with the same settings (confluentConfig, franzGroupOpts), polling
// batches of max.poll.records and committing them as the policy says, but
// with no history, no processing simulation, no headers read and no
// bookkeeping of owned partitions. The harness-overhead benchmark
// (internal/member/benchmember) drains one topic with a member and with a
// bare consumer, side by side: the difference is what chaosbench costs,
// so that capacity figures can be said to describe Kafka and the client.

// BareResult is what a bare consumer saw: how many records it consumed,
// and when it took the first and the last (Unix ns, its own clock, as a
// member's history events are stamped).
type BareResult struct {
	Records int64 `json:"records"`
	FirstT  int64 `json:"first_t"`
	LastT   int64 `json:"last_t"`
}

// RunBare consumes as the member of cfg would, without recording
// anything, until ctx ends (a graceful close: the final commit, then
// leave the group). Only the policies without per-record bookkeeping are
// taken: sync-batch, async-batch and auto.
func RunBare(ctx context.Context, cfg Config) (BareResult, error) {
	if err := cfg.validate(); err != nil {
		return BareResult{}, &configError{err}
	}
	switch cfg.Policy {
	case vocab.PolicySyncBatch, vocab.PolicyAsyncBatch, vocab.PolicyAuto:
	default:
		return BareResult{}, &configError{fmt.Errorf("--policy %s: the bare consumer takes sync-batch, async-batch or auto", cfg.Policy)}
	}
	if cfg.Client == vocab.ClientFranz {
		return bareFranz(ctx, &cfg)
	}
	return bareConfluent(ctx, &cfg)
}

// count notes a batch of n records taken at t.
func (r *BareResult) count(n int, t time.Time) {
	if n == 0 {
		return
	}
	if r.Records == 0 {
		r.FirstT = t.UnixNano()
	}
	r.Records += int64(n)
	r.LastT = t.UnixNano()
}

func bareConfluent(ctx context.Context, cfg *Config) (BareResult, error) {
	var res BareResult
	conf := confluentConfig(cfg)
	c, err := kafka.NewConsumer(&conf)
	if err != nil {
		return res, fmt.Errorf("confluent consumer: %w", err)
	}
	// No rebalance callback: librdkafka assigns (and, for a cooperative
	// protocol, incrementally assigns) by itself.
	if err := c.SubscribeTopics([]string{cfg.Topic}, nil); err != nil {
		c.Close()
		return res, fmt.Errorf("subscribe %s: %w", cfg.Topic, err)
	}
	offs := map[int32]int64{}
	var runErr error
	for ctx.Err() == nil && runErr == nil {
		n := 0
		timeout := 100
		for n < cfg.MaxPollRecords {
			ev := c.Poll(timeout)
			timeout = 0
			if ev == nil {
				break
			}
			switch e := ev.(type) {
			case *kafka.Message:
				if e.TopicPartition.Error == nil {
					n++
					offs[e.TopicPartition.Partition] = int64(e.TopicPartition.Offset) + 1
				}
			case kafka.Error:
				if e.IsFatal() {
					runErr = fmt.Errorf("fatal client error: %w", e)
				}
			}
		}
		res.count(n, time.Now())
		if n > 0 && cfg.Policy != vocab.PolicyAuto {
			bareCommitConfluent(c, cfg, offs)
		}
	}
	if cfg.Policy != vocab.PolicyAuto {
		bareCommitConfluent(c, cfg, offs)
	}
	if err := c.Close(); err != nil && runErr == nil {
		runErr = fmt.Errorf("close: %w", err)
	}
	return res, runErr
}

// bareCommitConfluent commits the offsets taken so far, synchronously (the
// member's asynchronous commit is a synchronous one in the background,
// confluent-kafka-go's commit calls being blocking: the same request).
func bareCommitConfluent(c *kafka.Consumer, cfg *Config, offs map[int32]int64) {
	if len(offs) == 0 {
		return
	}
	tps := make([]kafka.TopicPartition, 0, len(offs))
	for p, off := range offs {
		tps = append(tps, kafka.TopicPartition{Topic: &cfg.Topic, Partition: p, Offset: kafka.Offset(off)})
	}
	_, _ = c.CommitOffsets(tps)
	clear(offs)
}

func bareFranz(ctx context.Context, cfg *Config) (BareResult, error) {
	var res BareResult
	opts, err := franzGroupOpts(cfg)
	if err != nil {
		return res, err
	}
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return res, fmt.Errorf("franz-go client: %w", err)
	}
	for ctx.Err() == nil {
		fs := cl.PollRecords(ctx, cfg.MaxPollRecords)
		if fs.IsClientClosed() {
			break
		}
		n := fs.NumRecords()
		res.count(n, time.Now())
		if n > 0 {
			switch cfg.Policy {
			case vocab.PolicySyncBatch:
				_ = cl.CommitUncommittedOffsets(ctx)
			case vocab.PolicyAsyncBatch:
				cl.CommitOffsets(ctx, cl.UncommittedOffsets(), nil)
			}
		}
		cl.AllowRebalance()
	}
	if cfg.Policy != vocab.PolicyAuto {
		// The final commit, as the member's graceful close makes it.
		_ = cl.CommitUncommittedOffsets(context.Background())
	}
	cl.CloseAllowingRebalance()
	return res, nil
}

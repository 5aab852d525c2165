package member

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/chaosbench/chaosbench/internal/history"
	"github.com/chaosbench/chaosbench/internal/kafkaconf"
	"github.com/chaosbench/chaosbench/internal/vocab"
)

// franzBalancers are franz-go's balancers by the value of
// partition.assignment.strategy (a classic strategy's name) or of
// group.remote.assignor (the broker's assignor, under the consumer
// protocol). franz-go asks the broker for range with its range balancer
// and for uniform with its sticky one.
var franzBalancers = map[string]map[string]func() kgo.GroupBalancer{
	vocab.SettingAssignmentStrategy: {
		vocab.Range:             kgo.RangeBalancer,
		vocab.RoundRobin:        kgo.RoundRobinBalancer,
		vocab.Sticky:            kgo.StickyBalancer,
		vocab.CooperativeSticky: kgo.CooperativeStickyBalancer,
	},
	vocab.SettingRemoteAssignor: {
		"range":   kgo.RangeBalancer,
		"uniform": kgo.StickyBalancer,
	},
}

// franzSettingOpts maps a member's consumer settings
// (Config.ConsumerSettings) to franz-go's options. A setting it has no
// mapping for is an error, never dropped: a setting added to the
// consumer's would otherwise leave franz-go members without it and
// nothing said. The group's settings (the consumer protocol's timings)
// are not the client's and are skipped; autoCommit says whether the
// commit policy auto-commits, without which auto.commit.interval.ms has
// nothing to time.
func franzSettingOpts(ss vocab.Settings, autoCommit bool) ([]kgo.Opt, error) {
	var opts []kgo.Opt
	for _, s := range ss.In(vocab.InClient) {
		var opt kgo.Opt
		var err error
		switch s.Name {
		case vocab.SettingGroupProtocol:
			switch vocab.Protocol(s.Value) {
			case vocab.Consumer:
				opt = kgo.ServerSideBalancer()
			case vocab.Classic: // franz-go's own unless told otherwise
			default:
				err = fmt.Errorf("consumer setting %s=%s: franz-go runs classic or consumer", s.Name, s.Value)
			}
		case vocab.SettingAssignmentStrategy, vocab.SettingRemoteAssignor:
			if balancer, ok := franzBalancers[s.Name][s.Value]; ok {
				opt = kgo.Balancers(balancer())
			} else {
				err = fmt.Errorf("consumer setting %s=%s: franz-go has no balancer for it", s.Name, s.Value)
			}
		case vocab.SettingSessionTimeout:
			opt, err = franzDuration(s, kgo.SessionTimeout)
		case vocab.SettingHeartbeatInterval:
			opt, err = franzDuration(s, kgo.HeartbeatInterval)
		case vocab.SettingMaxPollInterval:
			// franz-go has no max.poll.interval.ms: the nearest is how
			// long a member may take to rejoin a rebalance.
			opt, err = franzDuration(s, kgo.RebalanceTimeout)
		case vocab.SettingAutoCommitInterval:
			if autoCommit {
				opt, err = franzDuration(s, kgo.AutoCommitInterval)
			}
		case vocab.SettingMaxPollRecords:
			// Not an option: the argument of PollRecords (pollBatch).
		case vocab.SettingInstanceID:
			opt = kgo.InstanceID(s.Value)
		default:
			err = fmt.Errorf("consumer setting %s: franz-go members have no mapping for it (franzSettingOpts)", s.Name)
		}
		if err != nil {
			return nil, err
		}
		if opt != nil {
			opts = append(opts, opt)
		}
	}
	return opts, nil
}

// franzDuration is the option o of a timing setting, in milliseconds.
func franzDuration(s vocab.Setting, o func(time.Duration) kgo.GroupOpt) (kgo.Opt, error) {
	n, err := strconv.ParseInt(s.Value, 10, 64)
	if err != nil || n < 0 {
		return nil, fmt.Errorf("consumer setting %s=%s: expected milliseconds", s.Name, s.Value)
	}
	return o(time.Duration(n) * time.Millisecond), nil
}

// franzConsumerOpts translates the consumer properties franz-go has an
// equivalent for; any other property is an error rather than silently
// ignored.
func franzConsumerOpts(props map[string]string) ([]kgo.Opt, error) {
	var opts []kgo.Opt
	ms := func(k, v string) (time.Duration, error) {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("-X %s=%s: expected milliseconds", k, v)
		}
		return time.Duration(n) * time.Millisecond, nil
	}
	num := func(k, v string) (int32, error) {
		n, err := strconv.ParseInt(v, 10, 32)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("-X %s=%s: expected a non-negative integer", k, v)
		}
		return int32(n), nil
	}
	for k, v := range props {
		switch k {
		case "metadata.max.age.ms", "topic.metadata.refresh.interval.ms":
			d, err := ms(k, v)
			if err != nil {
				return nil, err
			}
			opts = append(opts, kgo.MetadataMaxAge(d))
		case "fetch.max.wait.ms":
			d, err := ms(k, v)
			if err != nil {
				return nil, err
			}
			opts = append(opts, kgo.FetchMaxWait(d))
		case "fetch.min.bytes":
			n, err := num(k, v)
			if err != nil {
				return nil, err
			}
			opts = append(opts, kgo.FetchMinBytes(n))
		case "fetch.max.bytes":
			n, err := num(k, v)
			if err != nil {
				return nil, err
			}
			opts = append(opts, kgo.FetchMaxBytes(n))
		case "max.partition.fetch.bytes":
			n, err := num(k, v)
			if err != nil {
				return nil, err
			}
			opts = append(opts, kgo.FetchMaxPartitionBytes(n))
		default:
			if kafkaconf.IsConnectionKey(k) {
				continue
			}
			return nil, fmt.Errorf("-X %s: franz-go members take only connection properties and metadata.max.age.ms (or topic.metadata.refresh.interval.ms), fetch.max.wait.ms, fetch.min.bytes, fetch.max.bytes, max.partition.fetch.bytes", k)
		}
	}
	return opts, nil
}

type franzMember struct {
	*state
	cl *kgo.Client
}

// runFranz runs the member's poll loop (runLoop) on a franz-go client.
func runFranz(ctx context.Context, s *state) error {
	if s.cfg.Policy == vocab.PolicyTransactional {
		return runFranzTxn(ctx, s)
	}
	m := &franzMember{state: s}
	opts, err := m.clientOpts()
	if err != nil {
		return err
	}
	m.cl, err = kgo.NewClient(opts...)
	if err != nil {
		return fmt.Errorf("franz-go client: %w", err)
	}
	return runLoop(ctx, s, m)
}

// clientOpts are the member's client options: franzGroupOpts, with the
// callbacks that record the member's assignments and auto-commits.
func (m *franzMember) clientOpts() ([]kgo.Opt, error) {
	opts, err := franzGroupOpts(m.cfg)
	if err != nil {
		return nil, err
	}
	opts = append(opts,
		kgo.OnPartitionsAssigned(m.onAssigned),
		kgo.OnPartitionsRevoked(m.onRevoked),
		kgo.OnPartitionsLost(m.onLost),
	)
	if m.cfg.autoCommit() {
		opts = append(opts, kgo.AutoCommitCallback(m.onAutoCommit))
	}
	return opts, nil
}

// franzGroupOpts are the settings of a franz-go member's client: the -X
// properties, the group, the consumer settings (franzSettingOpts: the
// strategy's balancer, the timings) and the commit policy's auto-commit.
// The bare consumer of the harness-overhead benchmark (bare.go) takes the
// same.
func franzGroupOpts(cfg *Config) ([]kgo.Opt, error) {
	opts, err := cfg.Props.FranzOpts()
	if err != nil {
		return nil, err
	}
	consumerOpts, err := franzConsumerOpts(cfg.Props)
	if err != nil {
		return nil, err
	}
	settingOpts, err := franzSettingOpts(cfg.ConsumerSettings(), cfg.autoCommit())
	if err != nil {
		return nil, err
	}
	opts = append(opts, consumerOpts...)
	opts = append(opts,
		kgo.SeedBrokers(strings.Split(cfg.Bootstrap, ",")...),
		kgo.ClientID(fmt.Sprintf("%s.%d", cfg.Name, cfg.Inc)),
		kgo.ConsumerGroup(cfg.Group),
		kgo.ConsumeTopics(cfg.Topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		// Java's and librdkafka's fetch.max.wait.ms default; franz-go's
		// own default (5s) would add latency the other client lacks.
		kgo.FetchMaxWait(500*time.Millisecond),
		// Rebalances wait while a polled batch is processed, as in the Java
		// client, where revocation happens inside poll().
		kgo.BlockRebalanceOnPoll(),
	)
	opts = append(opts, settingOpts...)
	switch cfg.Policy {
	case vocab.PolicyAuto:
	case vocab.PolicyAutoAfterProcess:
		opts = append(opts, kgo.AutoCommitMarks())
	default:
		opts = append(opts, kgo.DisableAutoCommit())
	}
	return opts, nil
}

// pollBatch polls up to max.poll.records records and appends them to
// batch (errClientClosed: the client was closed). Fetch errors are logged
// (a cancelled poll's are not). With BlockRebalanceOnPoll, a rebalance
// waits from here until allowRebalance.
func (m *franzMember) pollBatch(ctx context.Context, batch []record) ([]record, error) {
	fs := m.cl.PollRecords(ctx, m.cfg.MaxPollRecords)
	if fs.IsClientClosed() {
		return batch, errClientClosed
	}
	fs.EachError(func(t string, p int32, err error) {
		if !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
			m.logf("fetch %s/%d: %v", t, p, err)
		}
	})
	fs.EachRecord(func(r *kgo.Record) {
		rec := record{partition: r.Partition, offset: r.Offset, key: string(r.Key), recordT: r.Timestamp.UnixNano()}
		rec.setStamp(r.Value, &m.producers)
		batch = append(batch, rec)
	})
	return batch, nil
}

// commitBatch commits a batch before it is processed (commit-before-process).
func (m *franzMember) commitBatch(ctx context.Context, offs map[int32]int64) {
	m.commit(ctx, offs, true)
}

// allowRebalance lets a rebalance held since the poll go on: the batch
// was processed and committed, as in the Java client, where revocation
// happens inside poll().
func (m *franzMember) allowRebalance() { m.cl.AllowRebalance() }

// close leaves the group, which runs onRevoked one last time (recorded
// there).
func (m *franzMember) close() error {
	m.cl.CloseAllowingRebalance()
	return nil
}

func (m *franzMember) groupMeta() (string, int32) {
	id, gen := m.cl.GroupMetadata()
	return id, gen
}

func (m *franzMember) onAssigned(_ context.Context, _ *kgo.Client, ps map[string][]int32) {
	id, gen := m.groupMeta()
	m.assigned(ps[m.cfg.Topic], gen, id)
}

func (m *franzMember) onRevoked(ctx context.Context, cl *kgo.Client, ps map[string][]int32) {
	revoked := ps[m.cfg.Topic]
	switch m.cfg.Policy {
	case vocab.PolicyAsyncSyncOnRevoke:
		m.commit(ctx, m.takeUncommitted(revoked), true)
	case vocab.PolicyAuto, vocab.PolicyAutoAfterProcess:
		// Commit what auto-commit tracks (polled records, or the marked
		// ones), as franz-go's default revoke callback does.
		m.commitTracked(ctx)
	}
	_, gen := m.groupMeta()
	m.removed(history.Revoked, revoked, gen)
}

func (m *franzMember) onLost(_ context.Context, _ *kgo.Client, ps map[string][]int32) {
	_, gen := m.groupMeta()
	m.removed(history.Lost, ps[m.cfg.Topic], gen)
}

// afterBatch commits (or marks) what the batch processed, as the policy
// says. The history was flushed by process.
func (m *franzMember) afterBatch(ctx context.Context) {
	switch m.cfg.Policy {
	case vocab.PolicyAutoAfterProcess:
		// Only what was processed: a batch cut short by a stop leaves the
		// rest unmarked.
		m.cl.MarkCommitOffsets(m.toOffsets(m.takeUncommitted(nil)))
	case vocab.PolicySyncBatch:
		m.commit(ctx, m.takeUncommitted(nil), true)
	case vocab.PolicyAsyncBatch, vocab.PolicyAsyncSyncOnRevoke:
		m.commit(ctx, m.takeUncommitted(nil), false)
	case vocab.PolicyCommitFirst, vocab.PolicyAuto:
		m.takeUncommitted(nil)
	}
}

// finalCommit is the policy's commit on a graceful close.
func (m *franzMember) finalCommit() {
	ctx := context.Background()
	switch m.cfg.Policy {
	case vocab.PolicySyncBatch, vocab.PolicyAsyncBatch, vocab.PolicyAsyncSyncOnRevoke:
		m.commit(ctx, m.takeUncommitted(nil), true)
	case vocab.PolicyAuto, vocab.PolicyAutoAfterProcess:
		m.commitTracked(ctx)
	}
	if err := m.flush(); err != nil {
		m.logf("history flush: %v", err)
	}
}

func (m *franzMember) toOffsets(offs map[int32]int64) map[string]map[int32]kgo.EpochOffset {
	ps := make(map[int32]kgo.EpochOffset, len(offs))
	for p, off := range offs {
		ps[p] = kgo.EpochOffset{Epoch: -1, Offset: off}
	}
	return map[string]map[int32]kgo.EpochOffset{m.cfg.Topic: ps}
}

// commit commits offsets, synchronously or not; the outcome is recorded
// when the broker answers.
func (m *franzMember) commit(ctx context.Context, offs map[int32]int64, sync bool) {
	if len(offs) == 0 {
		return
	}
	done := func(_ *kgo.Client, req *kmsg.OffsetCommitRequest, resp *kmsg.OffsetCommitResponse, err error) {
		failed := m.recordResponse(req, resp, err, false)
		if len(failed) > 0 {
			m.restoreUncommitted(failed)
		}
		if err := m.flush(); err != nil {
			m.logf("history flush: %v", err)
		}
	}
	if sync {
		m.cl.CommitOffsetsSync(ctx, m.toOffsets(offs), done)
	} else {
		m.cl.CommitOffsets(ctx, m.toOffsets(offs), done)
	}
}

// commitTracked commits the offsets franz-go tracks for auto-commit: the
// marked ones under auto-after-process, the polled position under auto.
func (m *franzMember) commitTracked(ctx context.Context) {
	offs := m.cl.UncommittedOffsets()
	if m.cfg.Policy == vocab.PolicyAutoAfterProcess {
		offs = m.cl.MarkedOffsets()
	}
	m.cl.CommitOffsetsSync(ctx, offs, func(_ *kgo.Client, req *kmsg.OffsetCommitRequest, resp *kmsg.OffsetCommitResponse, err error) {
		m.recordResponse(req, resp, err, true)
	})
	if err := m.flush(); err != nil {
		m.logf("history flush: %v", err)
	}
}

func (m *franzMember) onAutoCommit(_ *kgo.Client, req *kmsg.OffsetCommitRequest, resp *kmsg.OffsetCommitResponse, err error) {
	m.recordResponse(req, resp, err, true)
	if err := m.flush(); err != nil {
		m.logf("history flush: %v", err)
	}
}

// recordResponse records each partition of a commit and returns the
// offsets of the partitions that failed with a retriable error.
func (m *franzMember) recordResponse(req *kmsg.OffsetCommitRequest, resp *kmsg.OffsetCommitResponse, err error, auto bool) map[int32]int64 {
	failed := map[int32]int64{}
	asked := map[int32]int64{}
	for _, t := range req.Topics {
		if t.Topic != m.cfg.Topic {
			continue
		}
		for _, p := range t.Partitions {
			asked[p.Partition] = p.Offset
		}
	}
	if err != nil || resp == nil {
		for p, off := range asked {
			m.committed(p, off, err, auto)
			failed[p] = off
		}
		return failed
	}
	for _, t := range resp.Topics {
		if t.Topic != m.cfg.Topic {
			continue
		}
		for _, p := range t.Partitions {
			perr := kerr.ErrorForCode(p.ErrorCode)
			m.committed(p.Partition, asked[p.Partition], perr, auto)
			if perr != nil && !errors.Is(perr, kerr.UnknownMemberID) && !errors.Is(perr, kerr.IllegalGeneration) && !errors.Is(perr, kerr.StaleMemberEpoch) {
				failed[p.Partition] = asked[p.Partition]
			}
		}
	}
	return failed
}

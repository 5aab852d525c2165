package loadgen

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/chaosbench/chaosbench/internal/kafkaconf"
	"github.com/chaosbench/chaosbench/workloads"
)

// SampleConfig says which records of an existing topic `loadgen sample`
// reads.
type SampleConfig struct {
	Bootstrap string
	// Props are connection properties (security, SASL, TLS, client.id).
	Props kafkaconf.Props
	Topic string
	// Records bounds the records read.
	Records int64
	// Since, if > 0, is the window: the records appended in the last
	// Since (by their timestamps); 0 is the whole retained log.
	Since time.Duration
	// Timeout bounds the reading; what was read by then is the sample.
	Timeout time.Duration
	// Log receives progress lines; default: discarded.
	Log io.Writer
}

// Sample reads a bounded sample of a topic's keys. It is read-only: a
// consumer of assigned partitions, in no group, that never commits an
// offset, so that no group of the topic's owners is touched.
//
// Its records are a window of the topic (the whole retained log, or the
// records of the last Since) and, when the window holds more than
// Records, the latest part of each partition's window in proportion to
// the partition's records, so that the sample's partitions weigh as the
// window's do. The window's record counts per partition (end minus start
// offsets) are the topic's partition skew, exact whatever is read.
func Sample(ctx context.Context, cfg SampleConfig) (*workloads.KeySample, error) {
	if cfg.Records < 1 {
		return nil, errors.New("sample: expected records >= 1")
	}
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	opts, err := franzConnection(cfg.Props)
	if err != nil {
		return nil, err
	}
	opts = append(opts, kgo.SeedBrokers(strings.Split(cfg.Bootstrap, ",")...))
	if _, ok := cfg.Props["client.id"]; !ok {
		opts = append(opts, kgo.ClientID("loadgen-sample"))
	}
	admCl, err := kgo.NewClient(opts...)
	if err != nil {
		return nil, err
	}
	adm := kadm.NewClient(admCl)
	defer adm.Close()
	from, end, err := window(ctx, adm, cfg)
	if err != nil {
		return nil, err
	}
	s, start, want, err := samplePlan(cfg, from, end)
	if err != nil {
		return nil, err
	}
	cl, err := kgo.NewClient(append(opts, kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{cfg.Topic: start}))...)
	if err != nil {
		return nil, err
	}
	defer cl.Close()
	if cfg.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, cfg.Timeout)
		defer cancel()
	}
	sampleRead(ctx, cl, cfg, s, want)
	if s.Records == 0 {
		return nil, fmt.Errorf("topic %s: no record could be read", cfg.Topic)
	}
	return s, nil
}

// samplePlan sizes the sample from each partition's window [from, end): the
// latest part of each, in proportion, so that about cfg.Records are read.
// It returns the empty sample, where each partition's reading starts, and
// the offset after the last record to read of each partition that has
// one.
func samplePlan(cfg SampleConfig, from, end []int64) (*workloads.KeySample, map[int32]kgo.Offset, map[int32]int64, error) {
	n := len(end)
	s := &workloads.KeySample{Topic: cfg.Topic, Partitions: n, Window: make([]int64, n),
		Keys: map[string]int64{}, KeyPartition: map[string]int32{}}
	var total int64
	for p := range n {
		s.Window[p] = max(end[p]-from[p], 0)
		total += s.Window[p]
	}
	if total == 0 {
		what := "the topic holds no record"
		if cfg.Since > 0 {
			what = fmt.Sprintf("no record was appended in the last %s (--since)", cfg.Since)
		}
		return nil, nil, nil, fmt.Errorf("topic %s: %s: nothing to sample", cfg.Topic, what)
	}
	frac := math.Min(1, float64(cfg.Records)/float64(total))
	start := map[int32]kgo.Offset{}
	want := map[int32]int64{}
	for p := range n {
		take := int64(math.Ceil(float64(s.Window[p]) * frac))
		if take == 0 {
			continue
		}
		start[int32(p)] = kgo.NewOffset().At(end[p] - take)
		want[int32(p)] = end[p]
	}
	fmt.Fprintf(cfg.Log, "sampling %s: %d partitions, %d records in the window, reading %.0f%% of each partition's\n", cfg.Topic, n, total, 100*frac)
	return s, start, want, nil
}

// sampleRead polls until every partition of want reached its last offset, the
// sample holds cfg.Records, ctx ends or nothing comes for idle, counting
// every record read into s.
func sampleRead(ctx context.Context, cl *kgo.Client, cfg SampleConfig, s *workloads.KeySample, want map[int32]int64) {
	next := time.Now().Add(5 * time.Second)
	for len(want) > 0 && s.Records < cfg.Records {
		// A partition whose last offsets hold no record (transaction
		// markers, a compacted log) never shows its last offset: a poll
		// that brings nothing for idle ends the reading.
		pctx, cancel := context.WithTimeout(ctx, idle)
		fs := cl.PollRecords(pctx, 10_000)
		cancel()
		if err := ctx.Err(); err != nil {
			fmt.Fprintf(cfg.Log, "stopped after %d records: %v\n", s.Records, context.Cause(ctx))
			return
		}
		if fs.NumRecords() == 0 && pctx.Err() != nil {
			fmt.Fprintf(cfg.Log, "stopped after %d records: nothing more for %s from %d partition(s) (transaction markers, a compacted log?)\n", s.Records, idle, len(want))
			return
		}
		fs.EachError(func(_ string, p int32, err error) {
			if !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) {
				fmt.Fprintf(cfg.Log, "fetch partition %d: %v\n", p, err)
			}
		})
		fs.EachRecord(func(r *kgo.Record) { sampleCount(s, want, r) })
		if time.Now().After(next) {
			fmt.Fprintf(cfg.Log, "%d records read\n", s.Records)
			next = time.Now().Add(5 * time.Second)
		}
	}
}

// sampleCount takes one record into the sample, if it is in its partition's
// window, and ends the partition's reading at its last offset.
func sampleCount(s *workloads.KeySample, want map[int32]int64, r *kgo.Record) {
	last, ok := want[r.Partition]
	if !ok || r.Offset >= last {
		return
	}
	s.Records++
	if r.Key == nil {
		s.Unkeyed++
	} else {
		k := string(r.Key)
		s.Keys[k]++
		if _, seen := s.KeyPartition[k]; !seen {
			s.KeyPartition[k] = r.Partition
		}
	}
	if r.Offset >= last-1 {
		delete(want, r.Partition)
	}
}

// idle is how long a poll may bring nothing before the reading ends.
const idle = 10 * time.Second

// window returns, per partition, the first offset of the window and the
// end offset.
func window(ctx context.Context, adm *kadm.Client, cfg SampleConfig) (from, end []int64, err error) {
	ends, err := adm.ListEndOffsets(ctx, cfg.Topic)
	if err != nil {
		return nil, nil, fmt.Errorf("topic %s: %w", cfg.Topic, err)
	}
	var starts kadm.ListedOffsets
	if cfg.Since > 0 {
		starts, err = adm.ListOffsetsAfterMilli(ctx, time.Now().Add(-cfg.Since).UnixMilli(), cfg.Topic)
	} else {
		starts, err = adm.ListStartOffsets(ctx, cfg.Topic)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("topic %s: %w", cfg.Topic, err)
	}
	n := 0
	var errs []error
	ends.Each(func(o kadm.ListedOffset) {
		if o.Err != nil {
			errs = append(errs, fmt.Errorf("partition %d: %w", o.Partition, o.Err))
		}
		n = max(n, int(o.Partition)+1)
	})
	if len(errs) > 0 || n == 0 {
		if n == 0 {
			errs = append(errs, errors.New("no partitions (does the topic exist?)"))
		}
		return nil, nil, fmt.Errorf("topic %s: %w", cfg.Topic, errors.Join(errs...))
	}
	from, end = make([]int64, n), make([]int64, n)
	ends.Each(func(o kadm.ListedOffset) { end[o.Partition] = o.Offset })
	for p := range n {
		from[p] = end[p]
	}
	starts.Each(func(o kadm.ListedOffset) {
		if o.Err == nil && o.Offset >= 0 && o.Offset < end[o.Partition] {
			from[o.Partition] = o.Offset
		}
	})
	return from, end, nil
}

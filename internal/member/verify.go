package member

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/chaosbench/chaosbench/internal/history"
	"github.com/chaosbench/chaosbench/internal/kafkaconf"
)

// VerifyProc is the verifier's proc name in the history.
const VerifyProc = "verify"

// VerifyConfig is what the verifier of a transactional cell's output
// needs.
type VerifyConfig struct {
	Bootstrap  string
	Props      kafkaconf.Props // connection properties
	Topic      string          // the output topic
	HistoryDir string          // where verify.0.jsonl is created
	// Settle bounds the wait for every transaction on the topic to end
	// (its last stable offset to reach its end): a crashed member's open
	// transaction ends only when the coordinator aborts it, after its
	// transaction timeout.
	Settle time.Duration
	// Idle ends a read that has seen nothing new for this long once it
	// has read a record (default 5s; 30s, or five times Idle, before
	// the first): the records of aborted transactions at a partition's
	// end are never handed to a read_committed reader.
	Idle time.Duration
}

// Verified is what the verifier read.
type Verified struct {
	// Settled: every transaction on the topic had ended before the reads.
	Settled bool
	// Committed and Uncommitted count the output records read with each
	// isolation level; Foreign those whose value was not an output value.
	Committed, Uncommitted, Foreign int64
	// Complete: both reads reached every partition's end.
	Complete bool
}

// Params is the verifier's result as the params of the driver's
// `verified` phase event.
func (v Verified) Params() string {
	return fmt.Sprintf(`{"settled":%t,"complete":%t,"read_committed":%d,"read_uncommitted":%d,"foreign":%d}`,
		v.Settled, v.Complete, v.Committed, v.Uncommitted, v.Foreign)
}

// Verify reads a transactional cell's output topic from the beginning
// twice, with isolation.level read_committed and then read_uncommitted,
// once every member has stopped, and writes every record it read to its
// own history file (proc VerifyProc), an output event each: the input
// record it was made from and the transaction that wrote it (Output),
// and where it lies in the output topic (params out_partition and
// out_offset). The analysis (internal/check) judges the policy's promise
// from them.
func Verify(ctx context.Context, cfg VerifyConfig) (Verified, error) {
	var v Verified
	if cfg.Idle <= 0 {
		cfg.Idle = 5 * time.Second
	}
	base, err := cfg.Props.FranzOpts()
	if err != nil {
		return v, err
	}
	base = append(base, kgo.SeedBrokers(strings.Split(cfg.Bootstrap, ",")...))
	adm, err := kgo.NewClient(base...)
	if err != nil {
		return v, err
	}
	defer adm.Close()
	ends, settled, err := settle(ctx, kadm.NewClient(adm), cfg.Topic, cfg.Settle)
	if err != nil {
		return v, err
	}
	v.Settled = settled
	if err := os.MkdirAll(cfg.HistoryDir, 0o755); err != nil {
		return v, err
	}
	hist, err := history.Create(cfg.HistoryDir, VerifyProc, 0)
	if err != nil {
		return v, err
	}
	v.Complete = true
	for _, level := range []string{history.ReadCommitted, history.ReadUncommitted} {
		n, foreign, complete, err := readOutput(ctx, base, cfg, level, ends, hist)
		if err != nil {
			hist.Close()
			return v, err
		}
		v.Foreign += foreign
		v.Complete = v.Complete && complete
		if level == history.ReadCommitted {
			v.Committed = n
		} else {
			v.Uncommitted = n
		}
	}
	return v, hist.Close()
}

// settle waits, up to wait, until every partition's last stable offset
// equals its end offset (no transaction open), and returns the end
// offsets.
func settle(ctx context.Context, adm *kadm.Client, topic string, wait time.Duration) (map[int32]int64, bool, error) {
	deadline := time.Now().Add(wait)
	for {
		end, err := adm.ListEndOffsets(ctx, topic)
		if err == nil {
			err = end.Error()
		}
		if err != nil {
			return nil, false, fmt.Errorf("output topic %s: end offsets: %w", topic, err)
		}
		stable, err := adm.ListCommittedOffsets(ctx, topic)
		if err == nil {
			err = stable.Error()
		}
		if err != nil {
			return nil, false, fmt.Errorf("output topic %s: last stable offsets: %w", topic, err)
		}
		ends := map[int32]int64{}
		settled := true
		end.Each(func(o kadm.ListedOffset) {
			ends[o.Partition] = o.Offset
			if s, ok := stable.Lookup(o.Topic, o.Partition); !ok || s.Offset < o.Offset {
				settled = false
			}
		})
		if settled || time.Now().After(deadline) {
			return ends, settled, nil
		}
		if !sleep(ctx, 500*time.Millisecond) {
			return nil, false, ctx.Err()
		}
	}
}

// readOutput reads the topic from its start with one isolation level
// until every partition's records up to its end were read, transaction
// markers included (a read_committed reader is handed no record of an
// aborted transaction, but the abort's marker), or nothing came for
// cfg.Idle.
func readOutput(ctx context.Context, base []kgo.Opt, cfg VerifyConfig, level string, ends map[int32]int64, hist *history.Writer) (n, foreign int64, complete bool, err error) {
	iso := kgo.ReadUncommitted()
	if level == history.ReadCommitted {
		iso = kgo.ReadCommitted()
	}
	opts := append(append([]kgo.Opt(nil), base...),
		kgo.ConsumeTopics(cfg.Topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.FetchIsolationLevel(iso),
		kgo.FetchMaxWait(500*time.Millisecond),
		// The transactions' markers too: a partition has been read to
		// its end when its last record, a marker, has.
		kgo.KeepControlRecords(),
	)
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return 0, 0, false, err
	}
	defer cl.Close()
	last := map[int32]int64{}
	for p := range ends {
		last[p] = -1
	}
	reached := func() bool {
		for p, end := range ends {
			if last[p]+1 < end {
				return false
			}
		}
		return true
	}
	// The first fetch waits for the client's metadata and the broker, a
	// few seconds on a busy host: the idle bound starts with it.
	idleSince, idle := time.Now(), max(5*cfg.Idle, 30*time.Second)
	for !reached() {
		if time.Since(idleSince) >= idle {
			return n, foreign, false, nil
		}
		pctx, cancel := context.WithTimeout(ctx, time.Second)
		fs := cl.PollFetches(pctx)
		cancel()
		if ctx.Err() != nil {
			return n, foreign, false, ctx.Err()
		}
		fs.EachRecord(func(r *kgo.Record) {
			idleSince, idle = time.Now(), cfg.Idle
			last[r.Partition] = r.Offset
			if r.Attrs.IsControl() {
				return
			}
			e := &history.Event{Kind: history.Output, State: level, Key: string(r.Key),
				Params: `{"out_partition":` + strconv.Itoa(int(r.Partition)) + `,"out_offset":` + strconv.FormatInt(r.Offset, 10) + `}`}
			o, perr := ParseOutput(r.Value)
			if perr != nil {
				foreign++
				e.Err = perr.Error()
			} else {
				n++
				e.Partition, e.Offset, e.Producer, e.Seq = o.Partition, o.Offset, o.Producer, o.Seq
				e.Target, e.TargetInc, e.Step = o.Writer, o.WriterInc, o.Txn
			}
			if aerr := hist.Append(e); aerr != nil && err == nil {
				err = aerr
			}
		})
		if err != nil {
			return n, foreign, false, err
		}
		if ferr := hist.Flush(); ferr != nil {
			return n, foreign, false, ferr
		}
	}
	return n, foreign, true, nil
}

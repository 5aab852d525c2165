// Package historytopic is the history sink of processes that do not share
// a disk with the driver: a history.Store that appends an incarnation's
// lines to a topic (one record a line, keyed by the incarnation, tagged
// with the cell), and the split of that topic back into the cell's
// history files (split.go), byte for byte what the file store writes.
//
// The write-ahead rule is the file store's: Flush returns once every line
// since the last one is acknowledged by the brokers (acks=all, idempotent
// producer), so a member commits an offset only after the processed
// events it covers are on the cluster. A flush costs a produce round trip
// where the file store's costs a write(2): 0.8 ms against 2 µs per
// record flushed alone, measured on a busy two-core host
// (BenchmarkFlush; docs/history.md, "The history topic's cost").
package historytopic

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/chaosbench/chaosbench/internal/history"
	"github.com/chaosbench/chaosbench/internal/runfolder"
)

// CellHeader is the header every record carries: the cell it belongs to
// (Config.Cell), so that runs and cells can share one history topic.
const CellHeader = "chaosbench-cell"

// Partitions is how many partitions the driver creates a history topic
// with: an incarnation's lines stay in one partition (its key's), and a
// cell's few dozen incarnations spread over sixteen.
const Partitions = 16

// DeliveryTimeout bounds a flush: a process whose lines the brokers have
// not acknowledged within it fails, as one whose history file cannot be
// written does. It outlasts a broker restart.
const DeliveryTimeout = 2 * time.Minute

// Config is where an incarnation's lines go.
type Config struct {
	Bootstrap string
	// Opts are the client's connection options: TLS and SASL, from the
	// run's client properties (kafkaconf.Props.FranzOpts of their
	// Connection part).
	Opts  []kgo.Opt
	Topic string
	// Cell tags every record (CellHeader).
	Cell string
}

// topicRE is a legal Kafka topic name (its length is checked apart).
var topicRE = regexp.MustCompile(`^[A-Za-z0-9._-]+$`)

// CheckTopic refuses a name Kafka refuses as a topic's: 1 to 249 of
// letters, digits, '.', '_' and '-', and neither "." nor "..".
func CheckTopic(name string) error {
	if name == "" || len(name) > 249 || !topicRE.MatchString(name) || name == "." || name == ".." {
		return fmt.Errorf("%q: expected a Kafka topic name: 1 to 249 letters, digits, '.', '_' or '-' (not . or ..)", name)
	}
	return nil
}

// Check refuses a Config a store or a split cannot work with.
func (c Config) Check() error {
	var errs []error
	if c.Bootstrap == "" {
		errs = append(errs, errors.New("history topic: no bootstrap"))
	}
	if err := CheckTopic(c.Topic); err != nil {
		errs = append(errs, fmt.Errorf("history topic %w", err))
	}
	if c.Cell == "" {
		errs = append(errs, errors.New("history topic: no cell tag"))
	}
	return errors.Join(errs...)
}

func (c Config) client(extra ...kgo.Opt) (*kgo.Client, error) {
	opts := append(slices.Clip(c.Opts), kgo.SeedBrokers(strings.Split(c.Bootstrap, ",")...))
	opts = append(opts, extra...)
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return nil, fmt.Errorf("history topic %s at %s: %w", c.Topic, c.Bootstrap, err)
	}
	return cl, nil
}

// Store is the history.Store of one incarnation on a topic.
type Store struct {
	cl      *kgo.Client
	cfg     Config
	key     []byte
	headers []kgo.RecordHeader
}

// Open returns the store of proc's incarnation inc. It connects lazily:
// the first flush reaches the brokers.
func Open(cfg Config, proc string, inc int) (*Store, error) {
	if err := cfg.Check(); err != nil {
		return nil, err
	}
	key := history.Key(proc, inc)
	if _, _, err := history.ParseKey(key); err != nil {
		return nil, err
	}
	cl, err := cfg.client(
		kgo.DefaultProduceTopic(cfg.Topic),
		kgo.ClientID(key+".history"),
		// Every flush waits for its records: nothing to gain by lingering.
		kgo.ProducerLinger(0),
		// Franz-go's defaults, stated: the write-ahead rule rests on them.
		kgo.RequiredAcks(kgo.AllISRAcks()),
		kgo.RecordDeliveryTimeout(DeliveryTimeout),
	)
	if err != nil {
		return nil, err
	}
	return &Store{cl: cl, cfg: cfg, key: []byte(key),
		headers: []kgo.RecordHeader{{Key: CellHeader, Value: []byte(cfg.Cell)}}}, nil
}

// WriteLines implements history.Store: one record a line, all of them
// produced at once, returning when the brokers have acknowledged every
// one (or the first error).
func (s *Store) WriteLines(lines []byte) error {
	data := bytes.Clone(lines) // franz-go holds the values until acknowledged
	recs := make([]*kgo.Record, 0, bytes.Count(data, []byte{'\n'}))
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			return fmt.Errorf("history topic %s: a line without its newline", s.cfg.Topic)
		}
		recs = append(recs, &kgo.Record{Key: s.key, Value: data[:i:i], Headers: s.headers})
		data = data[i+1:]
	}
	if err := s.cl.ProduceSync(context.Background(), recs...).FirstErr(); err != nil {
		return fmt.Errorf("history topic %s (key %s): %w", s.cfg.Topic, s.key, err)
	}
	return nil
}

// Close implements history.Store.
func (s *Store) Close() error {
	s.cl.Close()
	return nil
}

// NewWriter returns the history writer of proc's incarnation inc for a
// sink (runfolder.Sinks): its file in dir, its lines on the topic, or
// both (the tee). cfg is not used by the file sink.
func NewWriter(sink, dir, proc string, inc int, cfg Config) (*history.Writer, error) {
	switch sink {
	case "", runfolder.SinkFile:
		return history.Create(dir, proc, inc)
	case runfolder.SinkTopic:
		s, err := Open(cfg, proc, inc)
		if err != nil {
			return nil, err
		}
		return history.NewWriter(proc, inc, s), nil
	case runfolder.SinkTee:
		f, err := history.CreateFileStore(dir, proc, inc)
		if err != nil {
			return nil, err
		}
		s, err := Open(cfg, proc, inc)
		if err != nil {
			f.Close()
			return nil, err
		}
		return history.NewWriter(proc, inc, history.Tee{f, s}), nil
	}
	return nil, fmt.Errorf("history sink %q: expected one of %s", sink, strings.Join(runfolder.Sinks, ", "))
}

// Ensure creates the history topic if it does not exist, with Partitions
// partitions of replication replicas, and waits until every partition
// has a leader. A topic that exists is used as it is.
func Ensure(ctx context.Context, cfg Config, replication int16) error {
	cl, err := cfg.client()
	if err != nil {
		return err
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	resp, err := adm.CreateTopic(ctx, Partitions, replication, nil, cfg.Topic)
	if err == nil {
		err = resp.Err
	}
	if err != nil && !errors.Is(err, kerr.TopicAlreadyExists) {
		return fmt.Errorf("create history topic %s: %w", cfg.Topic, err)
	}
	for {
		md, err := adm.Metadata(ctx, cfg.Topic)
		if err == nil {
			if td, ok := md.Topics[cfg.Topic]; ok && td.Err == nil && len(td.Partitions) > 0 {
				ready := true
				for _, p := range td.Partitions {
					ready = ready && p.Leader >= 0
				}
				if ready {
					return nil
				}
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("history topic %s: partition leaders not elected: %w", cfg.Topic, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// EndOffsets are the topic's end offsets by partition: where a cell's
// records will begin (HistorySink.StartOffsets), or where a split ends.
func EndOffsets(ctx context.Context, cfg Config) (map[int32]int64, error) {
	cl, err := cfg.client()
	if err != nil {
		return nil, err
	}
	defer cl.Close()
	return endOffsets(ctx, kadm.NewClient(cl), cfg.Topic)
}

func endOffsets(ctx context.Context, adm *kadm.Client, topic string) (map[int32]int64, error) {
	listed, err := adm.ListEndOffsets(ctx, topic)
	if err != nil {
		return nil, fmt.Errorf("history topic %s: end offsets: %w", topic, err)
	}
	out := map[int32]int64{}
	var errs []error
	listed.Each(func(o kadm.ListedOffset) {
		if o.Err != nil {
			errs = append(errs, fmt.Errorf("history topic %s partition %d: %w", topic, o.Partition, o.Err))
			return
		}
		out[o.Partition] = o.Offset
	})
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("history topic %s: no partitions (does it exist?)", topic)
	}
	return out, nil
}

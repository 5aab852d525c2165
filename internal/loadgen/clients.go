package loadgen

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"
	"unsafe"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/chaosbench/chaosbench/internal/kafkaconf"
	"github.com/chaosbench/chaosbench/internal/stamp"
	"github.com/chaosbench/chaosbench/internal/vocab"
	"github.com/chaosbench/chaosbench/workloads"
)

// workloadProps are the client properties the workload's producer section
// sets: -X may not override them (the workload would say one thing and the
// run do another).
var workloadProps = map[string]string{
	"acks":                                  "producer.acks",
	"request.required.acks":                 "producer.acks",
	"enable.idempotence":                    "producer.idempotence",
	"max.in.flight.requests.per.connection": "producer.max_in_flight",
	"max.in.flight":                         "producer.max_in_flight",
	"linger.ms":                             "producer.linger",
	"queue.buffering.max.ms":                "producer.linger",
	"batch.size":                            "producer.batch_size",
	"compression.type":                      "producer.compression",
	"compression.codec":                     "producer.compression",
	"partitioner":                           "producer.partitioner",
	"bootstrap.servers":                     "--bootstrap",
}

// CheckProps rejects -X properties that the workload sets (New does too):
// a command calls it before it writes anything.
func CheckProps(props kafkaconf.Props) error {
	keys := make([]string, 0, len(props))
	for k := range props {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if by, ok := workloadProps[k]; ok {
			return fmt.Errorf("-X %s: set by the workload's %s: change it there", k, by)
		}
	}
	return nil
}

func (p *Producer) newClient() (client, error) {
	switch p.spec.Producer.Client {
	case vocab.ClientConfluent:
		return newConfluent(p)
	case vocab.ClientFranz:
		return newFranz(p)
	}
	return nil, fmt.Errorf("producer.client %q: expected confluent or franz", p.spec.Producer.Client)
}

// --- confluent-kafka-go (librdkafka) ---

type confluent struct {
	p     *Producer
	kp    *kafka.Producer
	topic string
	msg   kafka.Message
	done  chan struct{}
}

// CheckClient refuses, before anything starts, client properties the
// workload's producer client cannot apply: those the workload sets
// (CheckProps), for confluent what librdkafka refuses when a producer is
// made (without brokers: nothing connects), for franz what its options
// cannot express. The messages name the property and the client.
func CheckClient(s *workloads.Spec, props kafkaconf.Props) error {
	if err := CheckProps(props); err != nil {
		return err
	}
	switch s.Producer.Client {
	case vocab.ClientConfluent:
		if err := props.CheckLibrdkafka(); err != nil {
			return err
		}
		cm := confluentConfig(Config{Spec: s, Props: props, Proc: "check", MaxOutstanding: 1, DeliveryTimeout: time.Minute})
		cm["bootstrap.servers"] = ""
		cm["log_level"] = 0 // no warning about the missing brokers on stderr
		kp, err := kafka.NewProducer(&cm)
		if err != nil {
			return fmt.Errorf("producer client confluent: %w", err)
		}
		kp.Close()
	case vocab.ClientFranz:
		if _, err := franzConnection(props); err != nil {
			return err
		}
	}
	return nil
}

// confluentConfig is the librdkafka configuration of the producer.
func confluentConfig(cfg Config) kafka.ConfigMap {
	pr := cfg.Spec.Producer
	cm := kafka.ConfigMap{}
	for k, v := range cfg.Props {
		cm[k] = v
	}
	acks := pr.Acks
	if acks == "all" {
		acks = "-1"
	}
	for k, v := range map[string]kafka.ConfigValue{
		"bootstrap.servers":                     cfg.Bootstrap,
		"client.id":                             cfg.Proc,
		"acks":                                  acks,
		"enable.idempotence":                    pr.Idempotence,
		"max.in.flight.requests.per.connection": pr.MaxInFlight,
		"linger.ms":                             int(pr.Linger / time.Millisecond),
		"batch.size":                            pr.BatchSize,
		"compression.type":                      pr.Compression,
		"message.timeout.ms":                    int(cfg.DeliveryTimeout / time.Millisecond),
		// librdkafka counts a record until the delivery report event that
		// holds it (a whole batch) is destroyed, after the report reached
		// us: leave room above MaxOutstanding, which bounds the records.
		"queue.buffering.max.messages": 2*cfg.MaxOutstanding + 10000,
		// Reports carry the partition, offset and error, and the key and
		// value: the value's stamp says which record a report is of
		// (reports).
		"go.delivery.report.fields": "key,value",
		// librdkafka's own log lines go to Config.Log, not to stderr.
		"go.logs.channel.enable": true,
	} {
		cm[k] = v
	}
	return cm
}

func newConfluent(p *Producer) (*confluent, error) {
	cm := confluentConfig(p.cfg)
	kp, err := kafka.NewProducer(&cm)
	if err != nil {
		return nil, fmt.Errorf("confluent producer: %w", err)
	}
	c := &confluent{p: p, kp: kp, topic: p.topic, done: make(chan struct{})}
	c.msg.TopicPartition.Topic = &c.topic
	go c.reports()
	go func() {
		for l := range kp.Logs() {
			fmt.Fprintf(p.cfg.Log, "%s: librdkafka %s [%s]: %s\n", l.Timestamp.Format(time.RFC3339Nano), l.Name, l.Tag, l.Message)
		}
	}()
	return c, nil
}

func (c *confluent) name() string { return vocab.ClientConfluent }

// reports reads the delivery reports and client errors until the client
// is closed. A report finds its record in the stamp of the value it
// carries back (package stamp): its seq, intended and sent times; the
// partition and the key come with the report. No per-record state
// crosses from produce to report: confluent-kafka-go would keep a
// message's opaque in a map behind a mutex that its report poller and
// our sender then take for every record, and contend on.
func (c *confluent) reports() {
	defer close(c.done)
	for ev := range c.kp.Events() {
		switch e := ev.(type) {
		case *kafka.Message:
			st, ok := stamp.Read(e.Value)
			if !ok {
				// Every record loadgen sends is stamped: a report without
				// its stamp is a client fault, and its record unknown.
				fmt.Fprintf(c.p.cfg.Log, "%s: confluent producer: a delivery report without loadgen's stamp (partition %d, offset %d)\n",
					time.Now().Format(time.RFC3339Nano), e.TopicPartition.Partition, e.TopicPartition.Offset)
				continue
			}
			r := outRecord{seq: st.Seq, partition: e.TopicPartition.Partition, intended: st.IntendedT, sent: st.SentT}
			if err := e.TopicPartition.Error; err != nil {
				c.p.deliver(&r, string(e.Key), -1, err, confluentAmbiguous(err))
			} else {
				c.p.deliver(&r, string(e.Key), knownOffset(e.TopicPartition.Offset), nil, false)
			}
		case kafka.Error:
			fmt.Fprintf(c.p.cfg.Log, "%s: confluent producer: %v\n", time.Now().Format(time.RFC3339Nano), e)
		}
	}
}

// knownOffset is a delivered record's offset, or -1 when librdkafka
// acknowledged the record without one: it reports such records (seen
// around a partition count change) at kafka.OffsetInvalid, -1001, which is
// no offset and outside what a history may hold. The record was written;
// where is unknown, as franz-go's -1 says for the same case.
func knownOffset(o kafka.Offset) int64 {
	if o < 0 {
		return -1
	}
	return int64(o)
}

// confluentAmbiguous says whether a failed record may nonetheless have
// been written: timeouts and in-flight purges (the request may have
// reached the broker), and writes the leader appended but could not
// replicate in time.
func confluentAmbiguous(err error) bool {
	var ke kafka.Error
	if !errors.As(err, &ke) {
		return true
	}
	switch ke.Code() {
	case kafka.ErrMsgTimedOut, kafka.ErrTimedOut, kafka.ErrTimedOutQueue, kafka.ErrRequestTimedOut,
		kafka.ErrPurgeInflight, kafka.ErrTransport, kafka.ErrNotEnoughReplicasAfterAppend:
		return true
	}
	return false
}

func (c *confluent) produce(r *outRecord, key, value []byte) error {
	c.msg.TopicPartition.Partition = r.partition
	c.msg.Key = key
	c.msg.Value = value
	// librdkafka copies key and value before Produce returns; its report
	// finds the record by the value's stamp (reports).
	for {
		err := c.kp.Produce(&c.msg, nil)
		var ke kafka.Error
		if err == nil || !errors.As(err, &ke) || ke.Code() != kafka.ErrQueueFull {
			return err
		}
		// A full queue is backpressure: wait for reports to drain it. The
		// wait counts in the record's latency from its intended time.
		time.Sleep(100 * time.Microsecond)
	}
}

func (c *confluent) awaitPartitions(ctx context.Context, n int32) error {
	if c.p.sent.Load() == 0 && c.p.spec.Producer.Idempotence {
		warmProducerIDs(ctx, c.p)
	}
	var last error
	for {
		// A metadata request refreshes librdkafka's view of the topic,
		// which is what it checks an explicit partition against.
		md, err := c.kp.GetMetadata(&c.topic, false, 5000)
		if err == nil {
			if t, ok := md.Topics[c.topic]; ok && int32(len(t.Partitions)) >= n {
				return nil
			}
			last = fmt.Errorf("metadata shows fewer than %d partitions", n)
		} else {
			last = err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w (last: %v)", ctx.Err(), last)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func (c *confluent) flush(ctx context.Context) error {
	for c.p.outstanding.Load() > 0 {
		c.kp.Flush(100)
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
	return nil
}

func (c *confluent) purge() {
	_ = c.kp.Purge(kafka.PurgeQueue | kafka.PurgeInFlight | kafka.PurgeNonBlocking)
}

func (c *confluent) close() {
	c.kp.Close()
	<-c.done
}

// warmProducerIDs asks the cluster for one idempotent producer id, through
// a short-lived franz-go client, before traffic starts. On a new cluster
// the first such request makes the broker create and load the transaction
// state that hands out producer ids, which takes a second or more;
// librdkafka acquires its id in the background with no way to wait for
// it, so without this the first records of a fresh cluster would wait.
// It is best effort: on any error the producer starts anyway.
func warmProducerIDs(ctx context.Context, p *Producer) {
	opts, err := p.cfg.Props.Connection().FranzOpts()
	if err != nil {
		return
	}
	cl, err := kgo.NewClient(append(opts, kgo.SeedBrokers(strings.Split(p.cfg.Bootstrap, ",")...))...)
	if err != nil {
		return
	}
	defer cl.Close()
	wctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	_, _, _ = cl.ProducerID(wctx)
}

// --- franz-go ---

type franz struct {
	p       *Producer
	cl      *kgo.Client
	topic   string
	promise func(*kgo.Record, error) // f.promised
}

func newFranz(p *Producer) (*franz, error) {
	pr := p.spec.Producer
	opts, err := franzConnection(p.cfg.Props)
	if err != nil {
		return nil, err
	}
	opts = append(opts,
		kgo.SeedBrokers(strings.Split(p.cfg.Bootstrap, ",")...),
		kgo.DefaultProduceTopic(p.topic),
		kgo.RecordPartitioner(kgo.ManualPartitioner()),
		kgo.ProducerLinger(pr.Linger),
		kgo.ProducerBatchMaxBytes(int32(pr.BatchSize)),
		kgo.MaxBufferedRecords(p.cfg.MaxOutstanding+1000),
		kgo.RecordDeliveryTimeout(p.cfg.DeliveryTimeout),
	)
	if _, ok := p.cfg.Props["client.id"]; !ok {
		opts = append(opts, kgo.ClientID(p.cfg.Proc))
	}
	switch pr.Acks {
	case "all":
		opts = append(opts, kgo.RequiredAcks(kgo.AllISRAcks()))
	case "1":
		opts = append(opts, kgo.RequiredAcks(kgo.LeaderAck()))
	case "0":
		opts = append(opts, kgo.RequiredAcks(kgo.NoAck()))
	}
	if !pr.Idempotence {
		opts = append(opts, kgo.DisableIdempotentWrite(), kgo.MaxProduceRequestsInflightPerBroker(pr.MaxInFlight))
	}
	codec := map[string]kgo.CompressionCodec{
		"none": kgo.NoCompression(), "gzip": kgo.GzipCompression(), "snappy": kgo.SnappyCompression(),
		"lz4": kgo.Lz4Compression(), "zstd": kgo.ZstdCompression(),
	}[pr.Compression]
	opts = append(opts, kgo.ProducerBatchCompression(codec))
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return nil, fmt.Errorf("franz producer: %w", err)
	}
	f := &franz{p: p, cl: cl, topic: p.topic}
	f.promise = f.promised
	return f, nil
}

// franzConnection returns the franz producer's options from the
// properties, which may only be connection-level ones: how a producer
// behaves is the workload's producer section.
func franzConnection(props kafkaconf.Props) ([]kgo.Opt, error) {
	keys := make([]string, 0, len(props))
	for k := range props {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if !kafkaconf.IsConnectionKey(k) {
			return nil, fmt.Errorf("-X %s: producer client franz: it takes connection properties only (security, SASL, TLS, client.id)", k)
		}
	}
	return props.FranzOpts()
}

func (f *franz) name() string { return vocab.ClientFranz }

// franzRecord is one record in franz-go's hands: the record, the bytes of
// its key and value, and loadgen's own bookkeeping, in one allocation
// when they fit. (Recycling them through a pool costs more: a recycled
// record is cold in the cache, a new one is not.)
type franzRecord struct {
	rec kgo.Record // first: a *kgo.Record of a franzRecord is the franzRecord
	out outRecord
	buf [160]byte // key and value, when they fit: a 100-byte value and its key do
}

func (f *franz) produce(r *outRecord, key, value []byte) error {
	fr := &franzRecord{out: *r}
	// franz-go keeps the record until its promise: it gets its own copies.
	buf := fr.buf[:0]
	if n := len(key) + len(value); n > len(fr.buf) {
		buf = make([]byte, 0, n)
	}
	buf = append(buf, key...)
	buf = append(buf, value...)
	fr.rec = kgo.Record{Topic: f.topic, Partition: r.partition, Key: buf[:len(key)], Value: buf[len(key):]}
	f.cl.Produce(context.Background(), &fr.rec, f.promise)
	return nil
}

// promised is the promise of every record (one func value, not a closure
// per record).
func (f *franz) promised(rec *kgo.Record, err error) {
	fr := (*franzRecord)(unsafe.Pointer(rec))
	if err != nil {
		f.p.deliver(&fr.out, f.p.keyName(fr.out.key), -1, err, franzAmbiguous(err))
	} else {
		f.p.deliver(&fr.out, f.p.keyName(fr.out.key), rec.Offset, nil, false)
	}
}

// franzAmbiguous says whether a failed record may nonetheless have been
// written: everything but a non-retriable broker rejection.
func franzAmbiguous(err error) bool {
	var ke *kerr.Error
	if errors.As(err, &ke) {
		return ke.Retriable || ke == kerr.NotEnoughReplicasAfterAppend || ke == kerr.RequestTimedOut
	}
	return true
}

func (f *franz) awaitPartitions(ctx context.Context, n int32) error {
	if f.p.sent.Load() == 0 {
		// Before the first record: the producer id, and the topic's
		// metadata through the same client (franz-go loads a topic into
		// its producer on the first record to it).
		if f.p.spec.Producer.Idempotence {
			if _, _, err := f.cl.ProducerID(ctx); err != nil {
				return fmt.Errorf("producer id: %w", err)
			}
		}
		adm := kadm.NewClient(f.cl)
		for {
			md, err := adm.Metadata(ctx, f.topic)
			if err == nil {
				if t, ok := md.Topics[f.topic]; ok && t.Err == nil && int32(len(t.Partitions)) >= n {
					return nil
				}
			}
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(100 * time.Millisecond):
			}
		}
	}
	for {
		f.cl.ForceMetadataRefresh()
		if leader, _, err := f.cl.PartitionLeader(f.topic, n-1); err == nil && leader >= 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func (f *franz) flush(ctx context.Context) error {
	if err := f.cl.Flush(ctx); err != nil {
		return err
	}
	// Promises may still be running when Flush returns.
	for f.p.outstanding.Load() > 0 {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Millisecond):
		}
	}
	return nil
}

func (f *franz) purge() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = f.cl.AbortBufferedRecords(ctx)
}

func (f *franz) close() { f.cl.Close() }

// Package loadgen is chaosbench's producer: it replays a workload's traffic
// (keys, values, rate) against a Kafka cluster, records a `produced` event
// for every delivery report in the run's history, and keeps produce
// latencies in HdrHistograms.
//
// One goroutine draws the records in order from the workload's seeded key
// stream and one global pacer, and hands them to the client (confluent-kafka-go
// or franz-go) with their partition already chosen by the workload's
// partitioner, so the same key goes to the same partition whichever client
// sends it. Every record carries three headers (docs/history.md): producer,
// seq (its number among its key's records) and intended_t (when the pacer
// meant it to be sent, in Unix ns). Latency is measured from intended_t, so
// a stalled client or broker shows up as latency instead of silently
// lowering the rate (no coordinated omission).
package loadgen

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chaosbench/chaosbench/internal/history"
	"github.com/chaosbench/chaosbench/internal/kafkaconf"
	"github.com/chaosbench/chaosbench/internal/keygen"
	"github.com/chaosbench/chaosbench/internal/pace"
	"github.com/chaosbench/chaosbench/internal/partitioner"
	"github.com/chaosbench/chaosbench/workloads"
)

// Header names, as docs/history.md documents them.
const (
	HeaderProducer  = "producer"
	HeaderSeq       = "seq"
	HeaderIntendedT = "intended_t"
)

// Config configures a Producer.
type Config struct {
	// Spec is the workload: its topic, keys, value, producer sections,
	// duration or records, and seed drive the traffic.
	Spec *workloads.Spec
	// Topic is the topic to produce to; default Spec.Topic.Name. A chaos
	// run gives each cell its own (Spec.TopicFor).
	Topic string
	// Partitions is the topic's partition count at the start; default
	// Spec.Topic.Partitions. SetPartitions changes it during the run.
	Partitions int
	// Bootstrap is bootstrap.servers.
	Bootstrap string
	// Props are client properties for the cluster (-X): everything for
	// confluent, the connection-level ones for franz. A property the
	// workload sets (acks, linger.ms, ...) is an error: set it there.
	Props kafkaconf.Props
	// History receives a `produced` event for every delivery report. It is
	// flushed every 100 ms and at the end; the caller closes it.
	History history.Sink
	// Proc is the producer's process name in the run, written in every
	// record's producer header; default "producer-0".
	Proc string
	// LatencyLog, if not nil, receives the produce latencies as an
	// HdrHistogram log, one interval a second, tagged intended and sent.
	LatencyLog io.Writer
	// OnProgress, if not nil, is called once a second with the progress.
	OnProgress func(Progress)
	// Log receives the clients' error events; default: discarded.
	Log io.Writer
	// MaxOutstanding bounds the records handed to the client and not yet
	// reported; the pacer waits when it is reached. Default 100,000.
	MaxOutstanding int
	// DeliveryTimeout bounds the time from send to delivery report
	// (message.timeout.ms / delivery.timeout.ms); default 120s.
	DeliveryTimeout time.Duration
	// StopGrace is how long records in flight may still be acknowledged
	// after ctx is cancelled, before the rest is purged; default 5s.
	StopGrace time.Duration
}

// Progress is a snapshot of a running producer.
type Progress struct {
	Elapsed time.Duration `json:"elapsed"`
	// Sent counts records handed to the client.
	Sent int64 `json:"sent"`
	// Acked counts acknowledged records; Errors failed ones, of which
	// Ambiguous may nonetheless be in the log.
	Acked     int64 `json:"acked"`
	Errors    int64 `json:"errors"`
	Ambiguous int64 `json:"ambiguous"`
	// Rate is acknowledged records/s over the last second.
	Rate float64 `json:"rate"`
	// P99 is the 99th percentile of intended-to-ack latency over the last
	// second.
	P99 time.Duration `json:"p99"`
	// Partitions is the partition count the producer is using.
	Partitions int32 `json:"partitions"`
}

// Result is what a run produced.
type Result struct {
	Topic     string    `json:"topic"`
	Client    string    `json:"client"`
	Start     time.Time `json:"start"`
	End       time.Time `json:"end"`
	Sent      int64     `json:"sent"`
	Acked     int64     `json:"acked"`
	Errors    int64     `json:"errors"`
	Ambiguous int64     `json:"ambiguous"`
	// Unreported counts records the client never reported on (it was
	// closed first); they have no produced event.
	Unreported int64 `json:"unreported"`
	// PerPartition counts acknowledged records per partition.
	PerPartition []int64 `json:"per_partition"`
	// Interrupted is set when ctx ended the run before its duration or
	// record count.
	Interrupted bool `json:"interrupted"`
	// Latency holds the run's latency histograms.
	Latency LatencySummary `json:"latency"`
	// ValueSize is the value size, bytes.
	ValueSize int `json:"value_size"`
}

// Elapsed is the run's length, from the first send to the last report.
func (r *Result) Elapsed() time.Duration { return r.End.Sub(r.Start) }

// Rate returns acknowledged records per second over the run.
func (r *Result) Rate() float64 {
	if s := r.Elapsed().Seconds(); s > 0 {
		return float64(r.Acked) / s
	}
	return 0
}

// Producer replays a workload's traffic. Create it with New, run it once
// with Run.
type Producer struct {
	cfg       Config
	spec      *workloads.Spec
	topic     string
	keys      *keygen.Keyspace
	keyNames  []string // the keys as strings, for key spaces up to keyCacheMax
	gen       *keygen.Generator
	part      partitioner.Partitioner
	sched     pace.Schedule
	value     []byte
	proc      []byte
	wantParts atomic.Int32
	ran       atomic.Bool

	start   time.Time
	startNs int64
	tokens  chan struct{}

	sent, acked, errs, ambiguous atomic.Int64
	outstanding                  atomic.Int64
	failed                       atomic.Pointer[error]

	mu        sync.Mutex // guards what follows
	lat       *latency
	perPart   []int64
	lastAcked int64
	lastTick  time.Time
	progress  Progress
}

// New prepares a producer: it checks the configuration and builds the key
// stream, but connects to nothing.
func New(cfg Config) (*Producer, error) {
	s := cfg.Spec
	if s == nil {
		return nil, errors.New("loadgen: no workload")
	}
	if cfg.History == nil {
		return nil, errors.New("loadgen: no history sink")
	}
	if cfg.Bootstrap == "" {
		return nil, errors.New("loadgen: no bootstrap servers")
	}
	if cfg.Topic == "" {
		cfg.Topic = s.Topic.Name
	}
	if cfg.Partitions == 0 {
		cfg.Partitions = s.Topic.Partitions
	}
	if cfg.Proc == "" {
		cfg.Proc = "producer-0"
	}
	if cfg.MaxOutstanding <= 0 {
		cfg.MaxOutstanding = 100_000
	}
	if cfg.DeliveryTimeout <= 0 {
		cfg.DeliveryTimeout = 120 * time.Second
	}
	if cfg.StopGrace <= 0 {
		cfg.StopGrace = 5 * time.Second
	}
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	ks, gen, err := s.KeyStream()
	if err != nil {
		return nil, err
	}
	part, err := s.Partitioner()
	if err != nil {
		return nil, err
	}
	sched, err := s.RateSchedule()
	if err != nil {
		return nil, fmt.Errorf("%s: producer: %w", s.File, err)
	}
	p := &Producer{
		cfg: cfg, spec: s, topic: cfg.Topic, keys: ks, gen: gen, part: part, sched: sched,
		value:  Value(s),
		proc:   []byte(cfg.Proc),
		tokens: make(chan struct{}, cfg.MaxOutstanding),
	}
	if ks.Len() <= keyCacheMax {
		p.keyNames = make([]string, ks.Len())
		for i := range p.keyNames {
			p.keyNames[i] = ks.Key(i)
		}
	}
	p.wantParts.Store(int32(cfg.Partitions))
	p.progress.Partitions = int32(cfg.Partitions)
	if err := CheckProps(cfg.Props); err != nil {
		return nil, err
	}
	return p, nil
}

// keyCacheMax bounds the key spaces whose keys are kept as strings for the
// history events (up to about 40 MB).
const keyCacheMax = 1 << 20

func (p *Producer) keyName(i int) string {
	if p.keyNames != nil {
		return p.keyNames[i]
	}
	return p.keys.Key(i)
}

// Value returns the record value of a workload: value.size random
// upper-case letters drawn from the seed, the same for every record (as
// Kafka's ProducerPerformance does).
func Value(s *workloads.Spec) []byte {
	r := s.Rand("value")
	v := make([]byte, s.Value.Size)
	for i := range v {
		v[i] = 'A' + byte(r.IntN(26))
	}
	return v
}

// SetPartitions tells the producer that the topic now has n partitions (an
// add_partitions step). Before its next record the producer waits until its
// client sees them, then partitions with n: keys move as they would for a
// producer that refreshed its metadata. Counts below the current one are
// ignored: Kafka only adds partitions.
func (p *Producer) SetPartitions(n int) {
	for {
		cur := p.wantParts.Load()
		if int32(n) <= cur || p.wantParts.CompareAndSwap(cur, int32(n)) {
			return
		}
	}
}

// Snapshot returns the progress as of the last second.
func (p *Producer) Snapshot() Progress {
	p.mu.Lock()
	defer p.mu.Unlock()
	pr := p.progress
	pr.Sent, pr.Acked, pr.Errors, pr.Ambiguous = p.sent.Load(), p.acked.Load(), p.errs.Load(), p.ambiguous.Load()
	return pr
}

// outRecord is a record handed to the client, awaiting its report.
type outRecord struct {
	key       int
	seq       int64
	partition int32
	intended  int64 // Unix ns
	sent      int64 // Unix ns
}

// client is a Kafka client library seen from the producer.
type client interface {
	name() string
	// produce hands a record to the client. key and the headers are only
	// read during the call. A returned error means the record was not
	// taken (and will not be reported).
	produce(r *outRecord, key []byte, headers *headerValues) error
	// awaitPartitions returns once the client knows n partitions of the
	// topic. Before the first record it also serves as the client's
	// warm-up: connections and metadata are ready when traffic starts.
	awaitPartitions(ctx context.Context, n int32) error
	// flush returns once every record taken has been reported, or ctx ends.
	flush(ctx context.Context) error
	// purge fails every record not yet reported: not yet sent ones
	// definitely, in-flight ones ambiguously.
	purge()
	close()
}

// headerValues holds the header values of one record (reused).
type headerValues struct {
	seq, intended []byte
}

// now returns the current time as Unix ns on the producer's clock: the
// start's wall time plus the monotonic time since, so that intended, sent
// and ack times are mutually consistent even if the wall clock steps.
func (p *Producer) now() int64 { return p.startNs + int64(time.Since(p.start)) }

// Run produces until the workload's duration or record count is reached,
// or ctx ends, then waits for every record's delivery report (up to the
// delivery timeout; after ctx ends, up to StopGrace) and returns what
// happened. The history is flushed at least every 100 ms and at the end.
func (p *Producer) Run(ctx context.Context) (*Result, error) {
	if !p.ran.CompareAndSwap(false, true) {
		return nil, errors.New("loadgen: a Producer runs once")
	}
	c, err := p.newClient()
	if err != nil {
		return nil, err
	}
	// Traffic starts once the client knows the topic, so that the first
	// records' latency is not the client's start-up.
	rctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	err = c.awaitPartitions(rctx, p.wantParts.Load())
	cancel()
	if err != nil {
		c.close()
		return nil, fmt.Errorf("topic %s: the %s client sees no %d partitions: %w", p.topic, c.name(), p.wantParts.Load(), err)
	}
	p.start = time.Now()
	p.startNs = p.start.UnixNano()
	p.lastTick = p.start
	p.lat = newLatency(p.cfg.LatencyLog, p.start)
	p.perPart = make([]int64, p.wantParts.Load())

	tickDone := make(chan struct{})
	tickStop := make(chan struct{})
	go p.ticker(tickStop, tickDone)

	interrupted, sendErr := p.send(ctx, c)

	// Wait for the reports of everything sent.
	waitCtx, cancel := context.WithTimeout(context.Background(), p.cfg.DeliveryTimeout+10*time.Second)
	if interrupted {
		cancel()
		waitCtx, cancel = context.WithTimeout(context.Background(), p.cfg.StopGrace)
	}
	flushErr := c.flush(waitCtx)
	cancel()
	if p.outstanding.Load() > 0 {
		c.purge()
		purgeCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		_ = c.flush(purgeCtx)
		cancel()
	}
	unreported := p.outstanding.Load()
	c.close()
	close(tickStop)
	<-tickDone

	end := time.Now()
	p.mu.Lock()
	p.lat.rotate(end)
	res := &Result{
		Topic: p.topic, Client: c.name(), Start: p.start, End: end,
		Sent: p.sent.Load(), Acked: p.acked.Load(), Errors: p.errs.Load(), Ambiguous: p.ambiguous.Load(),
		Unreported:   unreported,
		PerPartition: append([]int64(nil), p.perPart...),
		Interrupted:  interrupted,
		Latency:      summarize(p.lat),
		ValueSize:    len(p.value),
	}
	logErr := p.lat.logErr
	p.mu.Unlock()

	errs := []error{sendErr}
	if f := p.failed.Load(); f != nil {
		errs = append(errs, *f)
	}
	if err := p.cfg.History.Flush(); err != nil {
		errs = append(errs, err)
	}
	errs = append(errs, logErr)
	if unreported > 0 {
		errs = append(errs, fmt.Errorf("%d records were never reported by the client (flush: %v)", unreported, flushErr))
	}
	return res, errors.Join(errs...)
}

// send is the producer's one sending goroutine: pacer, key stream,
// partitioner, client. It returns whether ctx ended it early.
func (p *Producer) send(ctx context.Context, c client) (interrupted bool, err error) {
	s := p.spec
	pacer := p.sched.Pacer()
	parts := p.wantParts.Load()
	key := make([]byte, 0, 64)
	var hv headerValues
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()
	for n := int64(0); ; n++ {
		if s.Records > 0 && n >= s.Records {
			return false, nil
		}
		now := time.Since(p.start)
		at, unlimited := pacer.Due(n, now)
		if s.Duration > 0 && at >= s.Duration {
			if unlimited {
				return false, nil
			}
			// Wait for the end of traffic, not just the last record.
			if wait := s.Duration - now; wait > 0 {
				timer.Reset(wait)
				select {
				case <-ctx.Done():
					return true, nil
				case <-timer.C:
				}
			}
			return false, nil
		}
		if at > now {
			timer.Reset(at - now)
			select {
			case <-ctx.Done():
				timer.Stop()
				return true, nil
			case <-timer.C:
			}
		} else if n&255 == 0 && ctx.Err() != nil {
			return true, nil
		}
		if p.failed.Load() != nil {
			return false, nil
		}
		if want := p.wantParts.Load(); want != parts {
			actx, cancel := context.WithTimeout(ctx, 60*time.Second)
			err := c.awaitPartitions(actx, want)
			cancel()
			if err != nil {
				if ctx.Err() != nil {
					return true, nil
				}
				return false, fmt.Errorf("topic %s grew to %d partitions, but the %s client did not see them: %w", p.topic, want, c.name(), err)
			}
			parts = want
			p.mu.Lock()
			for int32(len(p.perPart)) < parts {
				p.perPart = append(p.perPart, 0)
			}
			p.progress.Partitions = parts
			p.mu.Unlock()
		}

		k, seq := p.gen.Next()
		key = p.keys.Append(key[:0], k)
		r := &outRecord{key: k, seq: seq, partition: p.part.Partition(key, parts), intended: p.startNs + int64(at)}
		select {
		case p.tokens <- struct{}{}:
		default:
			select {
			case p.tokens <- struct{}{}:
			case <-ctx.Done():
				return true, nil
			}
		}
		hv.seq = strconv.AppendInt(hv.seq[:0], seq, 10)
		hv.intended = strconv.AppendInt(hv.intended[:0], r.intended, 10)
		p.outstanding.Add(1)
		p.sent.Add(1)
		r.sent = p.now()
		if err := c.produce(r, key, &hv); err != nil {
			// Not taken: no report will come. Record it as failed now.
			p.deliver(r, -1, fmt.Errorf("produce: %w", err), false)
		}
	}
}

// deliver records one delivery report. It is called by the clients'
// report goroutines.
func (p *Producer) deliver(r *outRecord, offset int64, err error, ambiguous bool) {
	ack := p.now()
	ev := history.Event{
		Kind: history.Produced, T: ack, Topic: p.topic,
		Partition: r.partition, Offset: offset,
		Key: p.keyName(r.key), Seq: r.seq, IntendedT: r.intended, SentT: r.sent,
	}
	if err != nil {
		ev.Offset = -1
		ev.Err = err.Error()
		ev.Ambiguous = ambiguous
	}
	p.mu.Lock()
	if aerr := p.cfg.History.Append(&ev); aerr != nil && p.failed.Load() == nil {
		e := fmt.Errorf("history: %w", aerr)
		p.failed.Store(&e)
	}
	if err == nil {
		p.lat.add(ack-r.intended, ack-r.sent)
		if int(r.partition) < len(p.perPart) {
			p.perPart[r.partition]++
		}
	}
	p.mu.Unlock()
	if err == nil {
		p.acked.Add(1)
	} else {
		p.errs.Add(1)
		if ambiguous {
			p.ambiguous.Add(1)
		}
	}
	p.outstanding.Add(-1)
	<-p.tokens
}

// ticker flushes the history every 100 ms and, every second, closes a
// latency interval and publishes the progress.
func (p *Producer) ticker(stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for i := 1; ; i++ {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		if err := p.cfg.History.Flush(); err != nil && p.failed.Load() == nil {
			e := fmt.Errorf("history: %w", err)
			p.failed.Store(&e)
		}
		if i%10 != 0 {
			continue
		}
		now := time.Now()
		p.mu.Lock()
		p.lat.rotate(now)
		acked := p.acked.Load()
		secs := now.Sub(p.lastTick).Seconds()
		p.progress.Rate = float64(acked-p.lastAcked) / secs
		p.progress.P99 = p.lat.lastP99
		p.progress.Elapsed = now.Sub(p.start)
		p.lastAcked, p.lastTick = acked, now
		p.mu.Unlock()
		if p.cfg.OnProgress != nil {
			p.cfg.OnProgress(p.Snapshot())
		}
	}
}

// LatencySummary gives percentiles of the run's produce latencies.
type LatencySummary struct {
	// Count is the number of acknowledged records measured.
	Count int64 `json:"count"`
	// Intended is ack time minus intended send time; Sent is ack time
	// minus the time the record was handed to the client.
	Intended Percentiles `json:"intended"`
	Sent     Percentiles `json:"sent"`
	// Clamped counts latencies above one hour, recorded as one hour.
	Clamped int64 `json:"clamped,omitempty"`
}

// Percentiles of a latency histogram, in milliseconds.
type Percentiles struct {
	P50  float64 `json:"p50_ms"`
	P90  float64 `json:"p90_ms"`
	P99  float64 `json:"p99_ms"`
	P999 float64 `json:"p999_ms"`
	Max  float64 `json:"max_ms"`
	Mean float64 `json:"mean_ms"`
}

func summarize(l *latency) LatencySummary {
	pct := func(h interface {
		ValueAtQuantile(float64) int64
		Max() int64
		Mean() float64
	}) Percentiles {
		ms := func(us int64) float64 { return float64(us) / 1e3 }
		return Percentiles{
			P50: ms(h.ValueAtQuantile(50)), P90: ms(h.ValueAtQuantile(90)), P99: ms(h.ValueAtQuantile(99)),
			P999: ms(h.ValueAtQuantile(99.9)), Max: ms(h.Max()), Mean: h.Mean() / 1e3,
		}
	}
	return LatencySummary{
		Count:    l.totalIntended.TotalCount(),
		Intended: pct(l.totalIntended),
		Sent:     pct(l.totalSent),
		Clamped:  l.clamped,
	}
}

// Package loadgen is chaosbench's producer: it replays a workload's traffic
// (keys, values, rate) against a Kafka cluster, records a `produced` event
// for every delivery report in the run's history, and keeps produce
// latencies in HdrHistograms.
//
// One goroutine draws the records in order from the workload's seeded key
// stream and one global pacer, and hands them to the client (confluent-kafka-go
// or franz-go) with their partition already chosen by the workload's
// partitioner, so the same key goes to the same partition whichever client
// sends it. Every record carries a stamp at the front of its value
// (internal/stamp, docs/history.md): its producer, seq (its number among
// its key's records), intended_t (when the pacer meant it to be sent, in
// Unix ns) and sent_t. Latency is measured from intended_t, so
// a stalled client or broker shows up as latency instead of silently
// lowering the rate (no coordinated omission).
package loadgen

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chaosbench/chaosbench/internal/clock"
	"github.com/chaosbench/chaosbench/internal/history"
	"github.com/chaosbench/chaosbench/internal/kafkaconf"
	"github.com/chaosbench/chaosbench/internal/keygen"
	"github.com/chaosbench/chaosbench/internal/pace"
	"github.com/chaosbench/chaosbench/internal/partitioner"
	"github.com/chaosbench/chaosbench/internal/stamp"
	"github.com/chaosbench/chaosbench/workloads"
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
	// ClockURL is the driver's time endpoint (internal/clock): the
	// producer measures its clock against it before its traffic and after
	// it, and records each measurement as a clock event. Empty: not
	// measured.
	ClockURL string
	// ClockSkew is for tests of the clock correction: it is added to
	// every time the producer stamps (its events' times, the stamps'
	// intended and sent times, the clock it measures), as if its clock
	// ran that far ahead of the host's.
	ClockSkew time.Duration
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
	value     []byte // the workload's filler; a record's value is it, stamped
	proc      []byte
	wantParts atomic.Int32
	ran       atomic.Bool

	start   time.Time
	startNs int64

	sent, acked, errs, ambiguous atomic.Int64
	// outstanding counts the records handed to the client and not yet
	// reported. When it reaches MaxOutstanding the sender sets waiting
	// and sleeps on room, which a report sends to once outstanding is
	// down to resumeAt (a 64th below): one wake-up per so many reports,
	// not one per report, which would hand the CPU back and forth
	// between the sender and the reports at every record.
	outstanding atomic.Int64
	waiting     atomic.Bool
	room        chan struct{}
	resumeAt    int64
	failed      atomic.Pointer[error]

	mu        sync.Mutex    // guards what follows
	ev        history.Event // the event being appended, reused
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
	if len(cfg.Proc) > stamp.MaxProducer {
		return nil, fmt.Errorf("loadgen: producer name of %d bytes: a record's stamp holds at most %d", len(cfg.Proc), stamp.MaxProducer)
	}
	if cfg.ClockSkew <= -history.MaxClockOffset || cfg.ClockSkew >= history.MaxClockOffset {
		return nil, fmt.Errorf("loadgen: clock skew %v: expected within +-%v", cfg.ClockSkew, time.Duration(history.MaxClockOffset))
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
		value:    Value(s),
		proc:     []byte(cfg.Proc),
		room:     make(chan struct{}, 1),
		resumeAt: int64(cfg.MaxOutstanding - max(cfg.MaxOutstanding/64, 1)),
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

// Value returns the record value of a workload before its stamp:
// value.size random upper-case letters drawn from the seed, the same for
// every record (as Kafka's ProducerPerformance does). Each record's value
// is this one with its stamp written over the front (package stamp).
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
	// produce hands a record to the client. r, key and value (stamped)
	// are only read during the call: a client keeps its own copies. A
	// returned error means the record was not taken (and will not be
	// reported).
	produce(r *outRecord, key, value []byte) error
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
	// The clock is measured on the clock the events are stamped with
	// (now), then traffic starts: its first intended times are not
	// behind by the measurement.
	p.start = time.Now()
	p.startNs = p.start.Add(p.cfg.ClockSkew).UnixNano()
	p.measureClock()
	p.start = time.Now()
	p.startNs = p.start.Add(p.cfg.ClockSkew).UnixNano()
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
	p.measureClock()

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
		ValueSize:    p.valueSize(),
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

// measureClock measures the producer's clock against the driver's time
// endpoint, if it has one, and records it (a clock event). A failure is
// logged: the producer's history is then read on its own clock.
func (p *Producer) measureClock() {
	if p.cfg.ClockURL == "" {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	m, err := clock.Measure(ctx, p.cfg.ClockURL, p.now, clock.Samples)
	if err != nil {
		if p.cfg.Log != nil {
			fmt.Fprintf(p.cfg.Log, "%s: clock: %v\n", time.Now().Format(time.RFC3339Nano), err)
		}
		return
	}
	ev := m.Event()
	p.mu.Lock()
	defer p.mu.Unlock()
	if err := p.cfg.History.Append(&ev); err != nil && p.failed.Load() == nil {
		e := fmt.Errorf("history: %w", err)
		p.failed.Store(&e)
	}
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

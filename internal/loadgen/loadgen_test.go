package loadgen

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/chaosbench/chaosbench/internal/cluster"
	"github.com/chaosbench/chaosbench/internal/history"
	"github.com/chaosbench/chaosbench/internal/kafkatest"
	"github.com/chaosbench/chaosbench/internal/partitioner"
	"github.com/chaosbench/chaosbench/internal/stamp"
	"github.com/chaosbench/chaosbench/workloads"
)

func TestMain(m *testing.M) { kafkatest.Main(m) }

func spec(t *testing.T, src string) *workloads.Spec {
	t.Helper()
	s, err := workloads.Parse("test.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func createTopic(t *testing.T, c cluster.Cluster, topic string, parts int32) {
	t.Helper()
	adm, err := cluster.NewAdmin(c.Bootstrap(), c.Props())
	if err != nil {
		t.Fatal(err)
	}
	defer adm.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := cluster.CreateTopic(ctx, adm, topic, parts, 1, nil); err != nil {
		t.Fatal(err)
	}
}

// run produces a workload to a fresh topic and returns the result, the
// produced events and the latency log.
func run(t *testing.T, c cluster.Cluster, s *workloads.Spec, topic string, during func(p *Producer), opts ...func(*Config)) (*Result, []history.Event, []byte) {
	t.Helper()
	createTopic(t, c, topic, int32(s.Topic.Partitions))
	dir := t.TempDir()
	w, err := history.Create(dir, "producer-0", 0)
	if err != nil {
		t.Fatal(err)
	}
	var hlog bytes.Buffer
	cfg := Config{Spec: s, Topic: topic, Bootstrap: c.Bootstrap(), History: w, LatencyLog: &hlog, Log: os.Stderr}
	for _, o := range opts {
		o(&cfg)
	}
	p, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if during != nil {
		go during(p)
	}
	res, err := p.Run(ctx)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := history.OpenFile(w.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var evs []history.Event
	for {
		e, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		ev := *e
		ev.Partitions = nil
		evs = append(evs, ev)
	}
	return res, evs, hlog.Bytes()
}

// consumed reads the whole topic: records by (partition, offset).
func consumed(t *testing.T, c cluster.Cluster, topic string, want int) map[[2]int64]*kgo.Record {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.Bootstrap()), kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out := map[[2]int64]*kgo.Record{}
	for len(out) < want {
		fs := cl.PollFetches(ctx)
		if err := ctx.Err(); err != nil {
			t.Fatalf("consumed %d of %d records: %v", len(out), want, err)
		}
		fs.EachRecord(func(r *kgo.Record) { out[[2]int64{int64(r.Partition), r.Offset}] = r })
	}
	return out
}

// checkProduced checks the history against the workload and the topic.
func checkProduced(t *testing.T, c cluster.Cluster, s *workloads.Spec, topic string, res *Result, evs []history.Event, parts int32) {
	t.Helper()
	part, _ := s.Partitioner()
	if int64(len(evs)) != res.Sent || res.Acked != res.Sent || res.Errors != 0 || res.Unreported != 0 {
		t.Fatalf("%d events; result %+v", len(evs), res)
	}
	nextOffset := map[int32]int64{}
	nextSeq := map[string]int64{}
	byOffset := slices.Clone(evs)
	slices.SortFunc(byOffset, func(a, b history.Event) int {
		if a.Partition != b.Partition {
			return int(a.Partition - b.Partition)
		}
		return int(a.Offset - b.Offset)
	})
	seqs := map[string][]int64{}
	for _, e := range byOffset {
		if e.Kind != history.Produced || e.Topic != topic || e.Proc != "producer-0" || e.Err != "" {
			t.Fatalf("event %+v", e)
		}
		if want := part.Partition([]byte(e.Key), parts); e.Partition != want {
			t.Fatalf("key %s on partition %d, the %s partitioner says %d", e.Key, e.Partition, part.Name(), want)
		}
		if e.Offset != nextOffset[e.Partition] {
			t.Fatalf("partition %d: offset %d, want %d (idempotent: no gaps)", e.Partition, e.Offset, nextOffset[e.Partition])
		}
		nextOffset[e.Partition]++
		if !(e.IntendedT <= e.SentT && e.SentT <= e.T) {
			t.Fatalf("times out of order: intended %d sent %d ack %d", e.IntendedT, e.SentT, e.T)
		}
		seqs[e.Key] = append(seqs[e.Key], e.Seq)
	}
	// Each key's records are numbered 0, 1, 2, ... and, being on one
	// partition of an idempotent producer, are in that order in the log.
	for k, ss := range seqs {
		for i, sq := range ss {
			if sq != int64(i) {
				t.Fatalf("key %s: seqs in log order %v", k, ss)
			}
		}
		nextSeq[k] = int64(len(ss))
	}
	var total int64
	for p, n := range res.PerPartition {
		if n != nextOffset[int32(p)] {
			t.Errorf("partition %d: result counts %d, history %d", p, n, nextOffset[int32(p)])
		}
		total += n
	}
	if total != res.Acked {
		t.Errorf("per partition sums to %d, acked %d", total, res.Acked)
	}
	// The records in Kafka carry what the history says: the stamp, then
	// the workload's filler, no header.
	recs := consumed(t, c, topic, len(evs))
	value := Value(s)
	n := stamp.Len(len("producer-0"))
	for _, e := range evs {
		r := recs[[2]int64{int64(e.Partition), e.Offset}]
		if r == nil {
			t.Fatalf("no record at %d/%d", e.Partition, e.Offset)
		}
		st, ok := stamp.Read(r.Value)
		if string(r.Key) != e.Key || !ok || string(st.Producer) != "producer-0" || st.Seq != e.Seq || st.IntendedT != e.IntendedT || st.SentT != e.SentT ||
			len(r.Value) != max(len(value), n) || !bytes.Equal(r.Value[n:], value[min(n, len(value)):]) || len(r.Headers) != 0 {
			t.Fatalf("record %d/%d: key %q value %q headers %v, history %+v", e.Partition, e.Offset, r.Key, r.Value, r.Headers, e)
		}
	}
}

func checkLatencyLog(t *testing.T, hlog []byte, acked int64) {
	t.Helper()
	rd := hdrhistogram.NewHistogramLogReader(bytes.NewReader(hlog))
	counts := map[string]int64{}
	for {
		h, err := rd.NextIntervalHistogram()
		if err != nil {
			t.Fatalf("latency log: %v", err)
		}
		if h == nil {
			break
		}
		counts[h.Tag()] += h.TotalCount()
	}
	if counts[TagIntended] != acked || counts[TagSent] != acked {
		t.Errorf("latency log counts %v, want %d of each tag", counts, acked)
	}
}

func TestProduceEachClient(t *testing.T) {
	c := kafkatest.Shared(t)
	for _, client := range []string{"confluent", "franz"} {
		t.Run(client, func(t *testing.T) {
			s := spec(t, fmt.Sprintf(`records: 3000
seed: 4
topic: {partitions: 6}
keys: {count: 50, distribution: zipf, zipf: {exponent: 1.2}}
value: {size: 64}
producer: {client: %s, rate: unlimited, partitioner: murmur2}
`, client))
			topic := kafkatest.Name(t, "lg")
			res, evs, hlog := run(t, c, s, topic, nil)
			checkProduced(t, c, s, topic, res, evs, 6)
			checkLatencyLog(t, hlog, res.Acked)
			if res.Client != client || res.Latency.Count != res.Acked || res.Latency.Intended.P50 <= 0 {
				t.Errorf("result %+v", res)
			}
		})
	}
}

// Two runs with the same seed send the same keys in the same order: the
// same (key, seq) at every (partition, offset). Another seed does not.
func TestSameSeedSameTraffic(t *testing.T) {
	c := kafkatest.Shared(t)
	src := `records: 2000
seed: %d
topic: {partitions: 4}
keys: {count: 200, distribution: hotspot, hotspot: {share: 0.7, hot_keys: 5}}
producer: {client: %s, rate: unlimited, partitioner: jump}
`
	stream := func(seed int, client string) []string {
		s := spec(t, fmt.Sprintf(src, seed, client))
		_, evs, _ := run(t, c, s, kafkatest.Name(t, "seed"), nil)
		slices.SortFunc(evs, func(a, b history.Event) int {
			if a.Partition != b.Partition {
				return int(a.Partition - b.Partition)
			}
			return int(a.Offset - b.Offset)
		})
		out := make([]string, len(evs))
		for i, e := range evs {
			out[i] = fmt.Sprintf("%d/%d %s %d", e.Partition, e.Offset, e.Key, e.Seq)
		}
		return out
	}
	a, b := stream(1, "confluent"), stream(1, "franz")
	if !slices.Equal(a, b) {
		t.Errorf("seed 1 twice (confluent, then franz): streams differ")
	}
	if c := stream(2, "confluent"); slices.Equal(a, c) {
		t.Errorf("seeds 1 and 2 gave the same stream")
	}
}

// The pacer's intended times follow the rate exactly, and the run lasts
// its duration.
func TestRateAndDuration(t *testing.T) {
	c := kafkatest.Shared(t)
	s := spec(t, `duration: 2s
topic: {partitions: 3}
producer: {rate: 500}
`)
	var progress []Progress
	res, evs, _ := run(t, c, s, kafkatest.Name(t, "rate"), nil, func(cfg *Config) {
		cfg.OnProgress = func(p Progress) { progress = append(progress, p) }
	})
	// A progress report a second: counts that only grow, and the last
	// second's rate and p99 once records are acknowledged. (No bounds on
	// the rate itself: it depends on the machine's load.)
	if len(progress) < 1 {
		t.Fatalf("%d progress reports in a 2 s run", len(progress))
	}
	measured := false
	for i, p := range progress {
		if p.Partitions != 3 || p.Acked > res.Acked || (i > 0 && (p.Sent < progress[i-1].Sent || p.Acked < progress[i-1].Acked)) {
			t.Errorf("progress report %d: %+v (previous %+v)", i, p, progress[max(i-1, 0)])
		}
		measured = measured || (p.Rate > 0 && p.P99 > 0)
	}
	if !measured && progress[len(progress)-1].Acked > 0 {
		t.Errorf("no report with a rate and a p99: %+v", progress)
	}
	if res.Sent != 1000 {
		t.Errorf("sent %d records in 2 s at 500/s, want 1000", res.Sent)
	}
	intended := make([]int64, len(evs))
	for i, e := range evs {
		intended[i] = e.IntendedT
	}
	slices.Sort(intended)
	for i := 1; i < len(intended); i++ {
		if d := intended[i] - intended[i-1]; d < 1_999_000 || d > 2_001_000 {
			t.Fatalf("intended times %d and %d are %v apart, want 2ms", i-1, i, time.Duration(d))
		}
	}
	if el := res.Elapsed(); el < 2*time.Second {
		t.Errorf("run took %v, want at least its 2s duration", el)
	}
}

// Partitions added during a run: once told, the producer partitions with
// the new count, as a producer that refreshed its metadata would.
func TestSetPartitions(t *testing.T) {
	c := kafkatest.Shared(t)
	for _, client := range []string{"confluent", "franz"} {
		t.Run(client, func(t *testing.T) {
			s := spec(t, fmt.Sprintf(`duration: 4s
topic: {partitions: 4}
keys: {count: 100}
producer: {client: %s, rate: 1000}
`, client))
			topic := kafkatest.Name(t, "grow")
			var switched time.Time
			res, evs, _ := run(t, c, s, topic, func(p *Producer) {
				time.Sleep(1500 * time.Millisecond)
				adm, err := cluster.NewAdmin(c.Bootstrap(), nil)
				if err != nil {
					t.Error(err)
					return
				}
				defer adm.Close()
				if _, err := adm.UpdatePartitions(context.Background(), 8, topic); err != nil {
					t.Error(err)
					return
				}
				switched = time.Now()
				p.SetPartitions(8)
			})
			part, _ := s.Partitioner()
			onNew := 0
			for _, e := range evs {
				old, grown := part.Partition([]byte(e.Key), 4), part.Partition([]byte(e.Key), 8)
				switch {
				case e.Err != "":
					t.Fatalf("error after growth: %+v", e)
				case e.Partition == grown && e.Partition >= 4:
					onNew++
					if time.Unix(0, e.SentT).Before(switched) {
						t.Fatalf("record sent to new partition %d before SetPartitions", e.Partition)
					}
				case e.Partition != old && e.Partition != grown:
					t.Fatalf("key %s on partition %d: neither %d (4 partitions) nor %d (8)", e.Key, e.Partition, old, grown)
				}
			}
			if onNew == 0 || len(res.PerPartition) != 8 {
				t.Errorf("%d records on the new partitions, per partition %v", onNew, res.PerPartition)
			}
		})
	}
}

// Cancelling the context ends the run early; every record sent still gets
// exactly one produced event.
func TestInterrupt(t *testing.T) {
	c := kafkatest.Shared(t)
	s := spec(t, "duration: 1m\ntopic: {partitions: 2}\nproducer: {rate: 2000}\n")
	topic := kafkatest.Name(t, "intr")
	createTopic(t, c, topic, 2)
	w, _ := history.Create(t.TempDir(), "producer-0", 0)
	defer w.Close()
	p, err := New(Config{Spec: s, Topic: topic, Bootstrap: c.Bootstrap(), History: w})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		// Interrupt once traffic flows.
		for p.Snapshot().Sent < 500 {
			time.Sleep(10 * time.Millisecond)
		}
		cancel()
	}()
	res, err := p.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Interrupted || res.Sent < 500 || res.Sent >= 120000 || res.Acked+res.Errors != res.Sent {
		t.Errorf("result %+v", res)
	}
	snap := p.Snapshot()
	if snap.Acked != res.Acked || snap.Sent != res.Sent {
		t.Errorf("snapshot %+v, result %+v", snap, res)
	}
}

func TestConfigErrors(t *testing.T) {
	s := spec(t, "duration: 1m\n")
	w, _ := history.Create(t.TempDir(), "producer-0", 0)
	defer w.Close()
	_, err := New(Config{Spec: s, Bootstrap: "localhost:1", History: w, Props: map[string]string{"linger.ms": "100"}})
	if err == nil || !strings.Contains(err.Error(), "-X linger.ms: set by the workload's producer.linger") {
		t.Errorf("got %v", err)
	}
	if _, err := New(Config{Spec: s, Bootstrap: "localhost:1"}); err == nil {
		t.Error("no history: no error")
	}
}

// librdkafka's own partitioners put each key where ours say: its
// murmur2_random is Java's partitioner, its consistent_random the CRC-32
// one, its fnv1a the FNV-1a one. The records go through the real broker
// with no partition set; the delivery reports say where they landed.
func TestLibrdkafkaPartitionersAgree(t *testing.T) {
	c := kafkatest.Shared(t)
	const parts = 12
	for _, pc := range []struct{ librdkafka, ours string }{
		{"murmur2_random", "murmur2"}, {"murmur2", "murmur2"},
		{"consistent_random", "consistent"}, {"consistent", "consistent"},
		{"fnv1a", "fnv1a"}, {"fnv1a_random", "fnv1a"},
	} {
		t.Run(pc.librdkafka, func(t *testing.T) {
			topic := kafkatest.Name(t, "part")
			createTopic(t, c, topic, parts)
			ours, _ := partitioner.New(pc.ours)
			keys := librdkafkaPartitions(t, c.Bootstrap(), topic, pc.librdkafka, 2000)
			for key, got := range keys {
				if want := ours.Partition([]byte(key), parts); got != want {
					t.Errorf("key %q: librdkafka's %s chose %d, our %s says %d", key, pc.librdkafka, got, pc.ours, want)
				}
			}
		})
	}
}

func TestCreateTopicExisting(t *testing.T) {
	c := kafkatest.Shared(t)
	topic := kafkatest.Name(t, "exists")
	createTopic(t, c, topic, 3)
	adm, _ := cluster.NewAdmin(c.Bootstrap(), nil)
	defer adm.Close()
	ctx := context.Background()
	if err := cluster.CreateTopic(ctx, adm, topic, 3, 1, nil); err != nil {
		t.Errorf("existing topic with the same partitions: %v", err)
	}
	if err := cluster.CreateTopic(ctx, adm, topic, 6, 1, nil); err == nil || !strings.Contains(err.Error(), "has 3 partitions") {
		t.Errorf("existing topic with other partitions: %v", err)
	}
}

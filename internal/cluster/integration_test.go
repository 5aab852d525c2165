package cluster_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/chaosbench/chaosbench/internal/cluster"
	"github.com/chaosbench/chaosbench/internal/kafkatest"
)

func TestMain(m *testing.M) { kafkatest.Main(m) }

const (
	records    = 10_000
	keys       = 100
	partitions = 6
	members    = 3
)

// createTopic creates a topic and waits until its leaders are known.
func createTopic(t testing.TB, c cluster.Cluster, topic string, parts int32, rf int16, configs map[string]*string) {
	t.Helper()
	adm, err := cluster.NewAdmin(c.Bootstrap(), c.Props())
	if err != nil {
		t.Fatal(err)
	}
	defer adm.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := cluster.CreateTopic(ctx, adm, topic, parts, rf, configs); err != nil {
		t.Fatal(err)
	}
}

// record i has key k<i mod keys> and value "<i>".
func recordKey(i int) string { return fmt.Sprintf("k%03d", i%keys) }

// produceConfluent produces records [from, to) with librdkafka, acks=all and
// idempotence, and returns how many were acknowledged.
func produceConfluent(t *testing.T, bootstrap, topic string, from, to int) int {
	t.Helper()
	p, err := kafka.NewProducer(&kafka.ConfigMap{
		"bootstrap.servers":  bootstrap,
		"acks":               "all",
		"enable.idempotence": true,
		"linger.ms":          5,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	deliveries := make(chan kafka.Event, 1000)
	acked := 0
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := from; i < to; i++ {
			m := (<-deliveries).(*kafka.Message)
			if m.TopicPartition.Error != nil {
				t.Errorf("delivery: %v", m.TopicPartition.Error)
				continue
			}
			acked++
		}
	}()
	for i := from; i < to; i++ {
		err := p.Produce(&kafka.Message{
			TopicPartition: kafka.TopicPartition{Topic: &topic, Partition: kafka.PartitionAny},
			Key:            []byte(recordKey(i)),
			Value:          []byte(strconv.Itoa(i)),
		}, deliveries)
		if err != nil {
			t.Fatalf("produce %d: %v", i, err)
		}
	}
	<-done
	return acked
}

// produceFranz produces records [from, to) with franz-go, acks=all and
// idempotence (its defaults).
func produceFranz(t *testing.T, bootstrap, topic string, from, to int) int {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(bootstrap, ",")...), kgo.DefaultProduceTopic(topic))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	var rs []*kgo.Record
	for i := from; i < to; i++ {
		rs = append(rs, &kgo.Record{Key: []byte(recordKey(i)), Value: []byte(strconv.Itoa(i))})
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := cl.ProduceSync(ctx, rs...).FirstErr(); err != nil {
		t.Fatalf("produce: %v", err)
	}
	return len(rs)
}

// seen collects what a group consumed, by record number and by member.
type seen struct {
	mu       sync.Mutex
	values   map[int]bool
	byMember map[int]int
	assigned map[int]int // partitions each member holds now
	all      chan struct{}
	want     int
}

func newSeen(want int) *seen {
	return &seen{values: map[int]bool{}, byMember: map[int]int{}, assigned: map[int]int{}, all: make(chan struct{}), want: want}
}

func (s *seen) setAssigned(member, n int) {
	s.mu.Lock()
	s.assigned[member] = n
	s.mu.Unlock()
}

// waitSpread waits until every member holds at least one partition and all
// partitions are held: the group has formed and split the topic.
func (s *seen) waitSpread(t *testing.T, members, partitions int, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		s.mu.Lock()
		total, holders := 0, 0
		for _, n := range s.assigned {
			total += n
			if n > 0 {
				holders++
			}
		}
		snapshot := fmt.Sprint(s.assigned)
		s.mu.Unlock()
		if holders == members && total == partitions {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("group did not split %d partitions over %d members in %s: %s", partitions, members, timeout, snapshot)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (s *seen) add(t *testing.T, member int, key, value []byte) {
	i, err := strconv.Atoi(string(value))
	if err != nil || recordKey(i) != string(key) {
		t.Errorf("member %d: unexpected record key=%q value=%q", member, key, value)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.byMember[member]++
	if !s.values[i] {
		s.values[i] = true
		if len(s.values) == s.want {
			close(s.all)
		}
	}
}

func (s *seen) wait(t *testing.T, timeout time.Duration) {
	t.Helper()
	select {
	case <-s.all:
	case <-time.After(timeout):
		s.mu.Lock()
		defer s.mu.Unlock()
		t.Fatalf("consumed %d of %d distinct records in %s (per member %v)", len(s.values), s.want, timeout, s.byMember)
	}
}

// consumeConfluent runs a group member with librdkafka until ctx ends.
func consumeConfluent(ctx context.Context, t *testing.T, wg *sync.WaitGroup, member int, conf kafka.ConfigMap, topic string, s *seen) {
	defer wg.Done()
	c, err := kafka.NewConsumer(&conf)
	if err != nil {
		t.Errorf("member %d: %v", member, err)
		return
	}
	defer c.Close()
	if err := c.Subscribe(topic, nil); err != nil {
		t.Errorf("member %d: subscribe: %v", member, err)
		return
	}
	for ctx.Err() == nil {
		if a, err := c.Assignment(); err == nil {
			s.setAssigned(member, len(a))
		}
		switch e := c.Poll(100).(type) {
		case *kafka.Message:
			s.add(t, member, e.Key, e.Value)
		case kafka.Error:
			if e.IsFatal() {
				t.Errorf("member %d: %v", member, e)
				return
			}
		}
	}
}

// consumeFranz runs a group member with franz-go until ctx ends.
func consumeFranz(ctx context.Context, t *testing.T, wg *sync.WaitGroup, member int, bootstrap, group, topic string, s *seen, opts ...kgo.Opt) {
	defer wg.Done()
	var mu sync.Mutex
	held := map[int32]bool{}
	update := func(ps map[string][]int32, add bool) {
		mu.Lock()
		defer mu.Unlock()
		for _, p := range ps[topic] {
			if add {
				held[p] = true
			} else {
				delete(held, p)
			}
		}
		s.setAssigned(member, len(held))
	}
	opts = append([]kgo.Opt{
		kgo.SeedBrokers(strings.Split(bootstrap, ",")...),
		kgo.ConsumerGroup(group), kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.OnPartitionsAssigned(func(_ context.Context, _ *kgo.Client, ps map[string][]int32) { update(ps, true) }),
		kgo.OnPartitionsRevoked(func(_ context.Context, _ *kgo.Client, ps map[string][]int32) { update(ps, false) }),
		kgo.OnPartitionsLost(func(_ context.Context, _ *kgo.Client, ps map[string][]int32) { update(ps, false) }),
	}, opts...)
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		t.Errorf("member %d: %v", member, err)
		return
	}
	defer cl.Close()
	for ctx.Err() == nil {
		fs := cl.PollFetches(ctx)
		fs.EachError(func(tp string, p int32, err error) {
			if ctx.Err() == nil {
				t.Logf("member %d: fetch %s/%d: %v", member, tp, p, err)
			}
		})
		fs.EachRecord(func(r *kgo.Record) { s.add(t, member, r.Key, r.Value) })
	}
}

func confluentGroupConf(bootstrap, group string, extra kafka.ConfigMap) kafka.ConfigMap {
	conf := kafka.ConfigMap{
		"bootstrap.servers":  bootstrap,
		"group.id":           group,
		"auto.offset.reset":  "earliest",
		"enable.auto.commit": true,
	}
	for k, v := range extra {
		conf[k] = v
	}
	return conf
}

// TestGroupConsumesAll produces 10,000 keyed records and has a 3-member
// group consume them back, for each client and group protocol.
func TestGroupConsumesAll(t *testing.T) {
	c := kafkatest.Shared(t)
	cases := []struct {
		name    string
		produce func(*testing.T, string, string, int, int) int
		member  func(ctx context.Context, t *testing.T, wg *sync.WaitGroup, member int, bootstrap, group, topic string, s *seen)
	}{
		{"confluent-classic", produceConfluent, func(ctx context.Context, t *testing.T, wg *sync.WaitGroup, m int, b, g, topic string, s *seen) {
			consumeConfluent(ctx, t, wg, m, confluentGroupConf(b, g, kafka.ConfigMap{"partition.assignment.strategy": "cooperative-sticky"}), topic, s)
		}},
		{"confluent-consumer-protocol", produceConfluent, func(ctx context.Context, t *testing.T, wg *sync.WaitGroup, m int, b, g, topic string, s *seen) {
			consumeConfluent(ctx, t, wg, m, confluentGroupConf(b, g, kafka.ConfigMap{"group.protocol": "consumer", "group.remote.assignor": "uniform"}), topic, s)
		}},
		{"franz-classic", produceFranz, func(ctx context.Context, t *testing.T, wg *sync.WaitGroup, m int, b, g, topic string, s *seen) {
			consumeFranz(ctx, t, wg, m, b, g, topic, s, kgo.Balancers(kgo.StickyBalancer()))
		}},
		{"franz-consumer-protocol", produceFranz, func(ctx context.Context, t *testing.T, wg *sync.WaitGroup, m int, b, g, topic string, s *seen) {
			consumeFranz(ctx, t, wg, m, b, g, topic, s, kgo.Balancers(kgo.RangeBalancer()), kgo.ServerSideBalancer())
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			topic, group := kafkatest.Name(t, "topic"), kafkatest.Name(t, "group")
			createTopic(t, c, topic, partitions, 1, nil)
			s := newSeen(records)
			ctx, cancel := context.WithCancel(context.Background())
			var wg sync.WaitGroup
			for m := 0; m < members; m++ {
				wg.Add(1)
				go tc.member(ctx, t, &wg, m, c.Bootstrap(), group, topic, s)
			}
			s.waitSpread(t, members, partitions, 60*time.Second)
			if n := tc.produce(t, c.Bootstrap(), topic, 0, records); n != records {
				t.Fatalf("acknowledged %d of %d records", n, records)
			}
			s.wait(t, 90*time.Second)
			cancel()
			wg.Wait()
			s.mu.Lock()
			defer s.mu.Unlock()
			if len(s.byMember) != members {
				t.Errorf("records came from %d member(s) (%v), want all %d", len(s.byMember), s.byMember, members)
			}
		})
	}
}

// TestNodeKilledWhileConsuming kills one broker of a 3-node cluster while a
// group consumes and the producer goes on, then restarts it: every
// acknowledged record is consumed.
func TestNodeKilledWhileConsuming(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a 3-node cluster")
	}
	c := kafkatest.Start(t, cluster.LocalConfig{Nodes: 3})
	topic, group := kafkatest.Name(t, "topic"), kafkatest.Name(t, "group")
	createTopic(t, c, topic, partitions, 3, map[string]*string{"min.insync.replicas": kadm.StringPtr("2")})

	s := newSeen(records)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var wg sync.WaitGroup
	for m := 0; m < members; m++ {
		wg.Add(1)
		go consumeConfluent(ctx, t, &wg, m, confluentGroupConf(c.Bootstrap(), group, nil), topic, s)
	}
	acked := produceConfluent(t, c.Bootstrap(), topic, 0, records/2)

	// Kill the group's coordinator: the hardest node to lose.
	adm, err := cluster.NewAdmin(c.Bootstrap(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer adm.Close()
	victim := 1
	if r := adm.FindGroupCoordinators(ctx, group)[group]; r.Err == nil {
		victim = int(r.NodeID)
	}
	t.Logf("killing node %d (group coordinator)", victim)
	if err := c.KillNode(victim); err != nil {
		t.Fatal(err)
	}
	acked += produceConfluent(t, c.Bootstrap(), topic, records/2, records)
	if acked != records {
		t.Fatalf("acknowledged %d of %d records with one node down", acked, records)
	}
	s.wait(t, 2*time.Minute)

	start := time.Now()
	if err := c.StartNode(context.Background(), victim); err != nil {
		t.Fatalf("restart node %d: %v", victim, err)
	}
	t.Logf("node %d back in %s", victim, time.Since(start).Round(time.Millisecond))
	info, err := c.Info(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if info.Brokers != 3 {
		t.Errorf("after restart: %d brokers, want 3", info.Brokers)
	}
	cancel()
	wg.Wait()
}

// TestInfo checks what `chaos cluster status --json` reports.
func TestInfo(t *testing.T) {
	c := kafkatest.Shared(t)
	info, err := c.Info(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if info.KafkaVersion != cluster.KafkaVersion && info.KafkaVersion == "" {
		t.Errorf("kafka_version empty")
	}
	if info.Brokers != 1 || info.ClusterID == "" || info.Bootstrap != c.Bootstrap() {
		t.Errorf("info = %+v", info)
	}
	// The broker's own report agrees with the release the provider runs.
	if !strings.Contains(info.BrokerVersion, majorMinor(cluster.KafkaVersion)) {
		t.Errorf("broker_version %q, want %s", info.BrokerVersion, majorMinor(cluster.KafkaVersion))
	}
	// The provider reports the broker's own view of the settings it set.
	if got := info.BrokerSettings["group.initial.rebalance.delay.ms"]; got != "0" {
		t.Errorf("group.initial.rebalance.delay.ms = %q, want the test setting 0", got)
	}
	if got := info.BrokerSettings["group.consumer.session.timeout.ms"]; got != kafkatest.TestSettings["group.consumer.session.timeout.ms"] {
		t.Errorf("group.consumer.session.timeout.ms = %q", got)
	}
}

package cluster_test

import (
	"context"
	"crypto/rand"
	"net"
	"slices"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/chaosbench/chaosbench/internal/cluster"
	"github.com/chaosbench/chaosbench/internal/kafkatest"
	"github.com/chaosbench/chaosbench/internal/netfault"
)

// A client bootstrapped at its network path is told only its path's
// proxies, so all its traffic goes through them: a disconnect of its path
// stops its fetches while a client on another path goes on, and it
// fetches again once healed.
func TestNetPathCarriesAllOfAClientsTraffic(t *testing.T) {
	c := kafkatest.Start(t, cluster.LocalConfig{NetPaths: []string{"a", "b"}})
	pa, ok := c.NetPath("a")
	if !ok {
		t.Fatal("no path a")
	}
	pb, _ := c.NetPath("b")
	const topic = "netpath"
	createTopic(t, c, topic, 2, 1, nil)

	// The metadata on a path names the path's proxies, not the brokers.
	adm, err := cluster.NewAdmin(pa.Bootstrap(), nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	md, err := adm.Metadata(ctx)
	adm.Close()
	if err != nil {
		t.Fatal(err)
	}
	var told []string
	for _, b := range md.Brokers {
		told = append(told, kadmAddr(b))
	}
	if !slices.Equal(told, pa.Listen()) {
		t.Fatalf("path a's metadata names brokers %v, expected its proxies %v (the brokers are at %s)", told, pa.Listen(), c.Bootstrap())
	}

	// A producer on the cluster's own listener, two consumers on paths.
	prod, err := cluster.NewClient(c.Bootstrap(), nil, kgo.DefaultProduceTopic(topic))
	if err != nil {
		t.Fatal(err)
	}
	defer prod.Close()
	go func() {
		for ctx.Err() == nil {
			prod.Produce(ctx, &kgo.Record{Value: []byte("x")}, nil)
			time.Sleep(10 * time.Millisecond)
		}
	}()
	var got [2]atomic.Int64
	for i, p := range []*netfault.Path{pa, pb} {
		cl, err := cluster.NewClient(p.Bootstrap(), nil, kgo.ConsumeTopics(topic), kgo.FetchMaxWait(200*time.Millisecond),
			kgo.RequestTimeoutOverhead(time.Second), kgo.RetryTimeout(time.Second))
		if err != nil {
			t.Fatal(err)
		}
		defer cl.Close()
		go func() {
			for ctx.Err() == nil {
				fs := cl.PollFetches(ctx)
				got[i].Add(int64(fs.NumRecords()))
			}
		}()
	}
	grows := func(i int, within time.Duration) bool {
		from := got[i].Load()
		deadline := time.Now().Add(within)
		for time.Now().Before(deadline) {
			if got[i].Load() > from+10 {
				return true
			}
			time.Sleep(50 * time.Millisecond)
		}
		return false
	}
	for i := range got {
		if !grows(i, time.Minute) {
			t.Fatalf("consumer %d fetches nothing before any fault", i)
		}
	}
	if err := pa.Apply(netfault.Fault{Kind: netfault.Disconnect}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second) // what was in flight arrives
	cut := got[0].Load()
	if !grows(1, 10*time.Second) {
		t.Fatal("consumer b stopped fetching while only path a was cut")
	}
	time.Sleep(3 * time.Second)
	if n := got[0].Load(); n != cut {
		t.Fatalf("consumer a fetched %d records through its disconnected path: its traffic does not all go through its proxies", n-cut)
	}
	pa.Heal()
	if !grows(0, time.Minute) {
		t.Fatal("consumer a does not fetch again after its path healed")
	}

	// The other faults, on a producer of path b: each shows in its round
	// trips, and is gone once healed.
	pc, err := cluster.NewClient(pb.Bootstrap(), nil, kgo.DefaultProduceTopic(topic), kgo.ProducerLinger(0), kgo.ProducerBatchMaxBytes(1<<20))
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	send := func(size int) (time.Duration, error) {
		start := time.Now()
		// Random bytes: the client compresses, and zeros would shrink.
		v := make([]byte, size)
		_, _ = rand.Read(v)
		err := pc.ProduceSync(ctx, &kgo.Record{Value: v}).FirstErr()
		return time.Since(start), err
	}
	if _, err := send(10); err != nil {
		t.Fatal(err)
	}
	if err := pb.Apply(netfault.Fault{Kind: netfault.Latency, Delay: 150 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	if d, err := send(10); err != nil || d < 300*time.Millisecond {
		t.Errorf("a produce through 150 ms each way took %v (%v), want at least 300 ms", d, err)
	}
	pb.Heal()
	if err := pb.Apply(netfault.Fault{Kind: netfault.Bandwidth, Rate: 16 << 10}); err != nil {
		t.Fatal(err)
	}
	if d, err := send(48 << 10); err != nil || d < 2*time.Second {
		t.Errorf("48 KiB at 16 KiB/s took %v (%v), want at least 2 s", d, err)
	}
	pb.Heal()
	if err := pb.Apply(netfault.Fault{Kind: netfault.Reset}); err != nil {
		t.Fatal(err)
	}
	// Through a reset path nothing is acknowledged; once healed, the
	// client connects again and the record goes through.
	done := make(chan error, 1)
	go func() { done <- pc.ProduceSync(ctx, &kgo.Record{Value: []byte("r")}).FirstErr() }()
	select {
	case err := <-done:
		t.Fatalf("a produce completed through a path that resets every connection: %v", err)
	case <-time.After(3 * time.Second):
	}
	pb.Heal()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("the produce held by the reset failed once healed: %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the produce held by the reset did not complete within a minute of the heal")
	}
	if d, err := send(10); err != nil {
		t.Errorf("after the reset healed, a produce failed after %v: %v", d, err)
	}
}

func kadmAddr(b kadm.BrokerDetail) string {
	return net.JoinHostPort(b.Host, strconv.Itoa(int(b.Port)))
}

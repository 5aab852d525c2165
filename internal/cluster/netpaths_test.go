package cluster_test

import (
	"context"
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
}

func kadmAddr(b kadm.BrokerDetail) string {
	return net.JoinHostPort(b.Host, strconv.Itoa(int(b.Port)))
}

package cluster_test

import (
	"context"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/chaosbench/chaosbench/internal/cluster"
	"github.com/chaosbench/chaosbench/internal/kafkatest"
	"github.com/chaosbench/chaosbench/internal/netfault"
)

// partitionView is a partition's leader and in-sync replicas as one
// broker sees them.
type partitionView struct {
	leader int32
	isr    []int32
}

// viewFrom asks one broker (and no other) for the topic's partitions.
func viewFrom(ctx context.Context, b *kgo.Broker, topic string) (map[int32]partitionView, error) {
	req := kmsg.NewPtrMetadataRequest()
	rt := kmsg.NewMetadataRequestTopic()
	rt.Topic = kmsg.StringPtr(topic)
	req.Topics = append(req.Topics, rt)
	rctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	resp, err := req.RequestWith(rctx, b)
	if err != nil {
		return nil, err
	}
	out := map[int32]partitionView{}
	for _, t := range resp.Topics {
		for _, p := range t.Partitions {
			out[p.Partition] = partitionView{leader: p.Leader, isr: p.ISR}
		}
	}
	return out, nil
}

// A broker cut off from the others (its links to and from both faulted:
// no replication, no controller quorum, no heartbeat) is fenced by the
// controller after the broker session timeout, and the leaders of its
// partitions move to the others, while the clients' listener still
// answers; once healed it rejoins: it is back in every partition's
// in-sync replicas. Closing the cluster leaves nothing listening on the
// links' proxies.
func TestBrokerCutMovesLeadersAndHealRejoins(t *testing.T) {
	c := kafkatest.Start(t, cluster.LocalConfig{Nodes: 3, BrokerPaths: true})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	const topic = "brokercut"
	createTopic(t, c, topic, 6, 3, nil)
	info, err := c.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(info.BrokerLinks) != 6 {
		t.Fatalf("broker links %v, expected one for each of the 6 ordered pairs of nodes", info.BrokerLinks)
	}
	cl, err := cluster.NewClient(c.Bootstrap(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	// waitView polls broker id's view until ok holds of it.
	waitView := func(id int32, within time.Duration, ok func(map[int32]partitionView) bool) (map[int32]partitionView, time.Duration, bool) {
		start := time.Now()
		var last map[int32]partitionView
		for time.Since(start) < within {
			if v, err := viewFrom(ctx, cl.Broker(int(id)), topic); err == nil && len(v) == 6 {
				last = v
				if ok(v) {
					return v, time.Since(start), true
				}
			}
			time.Sleep(250 * time.Millisecond)
		}
		return last, time.Since(start), false
	}
	allIn := func(id int32) func(map[int32]partitionView) bool {
		return func(v map[int32]partitionView) bool {
			for _, p := range v {
				if p.leader < 0 || !slices.Contains(p.isr, id) {
					return false
				}
			}
			return true
		}
	}
	before, _, ok := waitView(1, 30*time.Second, allIn(1))
	if !ok {
		t.Fatalf("the topic's partitions are not all led and replicated on 3 brokers: %v", before)
	}
	k := before[0].leader // cut partition 0's leader
	other := int32(1)
	if k == 1 {
		other = 2
	}
	var led []int32
	for p, v := range before {
		if v.leader == k {
			led = append(led, p)
		}
	}
	cut, ok := c.BrokerCut(int(k))
	if !ok {
		t.Fatalf("no cut of broker %d", k)
	}
	if err := cut.Apply(netfault.Fault{Kind: netfault.Disconnect}); err != nil {
		t.Fatal(err)
	}
	healed := false
	defer func() {
		if !healed {
			cut.Heal()
		}
	}()
	moved, took, ok := waitView(other, 60*time.Second, func(v map[int32]partitionView) bool {
		for _, p := range v {
			if p.leader == k || slices.Contains(p.isr, k) {
				return false
			}
		}
		return true
	})
	if !ok {
		t.Fatalf("broker %d cut off from the others for %v: broker %d still sees it leading or in sync: %v", k, took.Round(time.Millisecond), other, moved)
	}
	t.Logf("broker %d cut off: the leaders of partitions %v moved after %v (broker %d's view: %v)", k, led, took.Round(100*time.Millisecond), other, moved)
	// The clients' listener of the cut broker still answers: only its
	// links to the other brokers are cut.
	var kAddr string
	for _, n := range info.Nodes {
		if n.ID == int(k) {
			kAddr = n.Address
		}
	}
	kcl, err := cluster.NewClient(kAddr, nil)
	if err != nil {
		t.Fatal(err)
	}
	if v, err := viewFrom(ctx, kcl.SeedBrokers()[0], topic); err != nil {
		t.Errorf("the cut broker's client listener does not answer: %v", err)
	} else {
		t.Logf("the cut broker's own view, not told of the move: %v", v)
	}
	kcl.Close()
	cut.Heal()
	healed = true
	after, took, ok := waitView(other, 60*time.Second, allIn(k))
	if !ok {
		t.Fatalf("broker %d healed: not back in every partition's in-sync replicas within %v: %v", k, took.Round(time.Millisecond), after)
	}
	t.Logf("broker %d healed: back in every partition's in-sync replicas after %v", k, took.Round(100*time.Millisecond))

	cl.Close()
	if err := c.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	for name, addrs := range info.BrokerLinks {
		for _, a := range strings.Split(addrs, ",") {
			if conn, err := net.DialTimeout("tcp", a, time.Second); err == nil {
				conn.Close()
				t.Errorf("%s's proxy %s still accepts connections after the cluster closed", name, a)
			}
		}
	}
}

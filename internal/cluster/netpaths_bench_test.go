package cluster_test

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/chaosbench/chaosbench/internal/cluster"
	"github.com/chaosbench/chaosbench/internal/kafkatest"
)

// BenchmarkNetPathRoundTrip measures what a network path adds when no
// fault is on it: one acks=all produce round trip at a time, on the
// broker's own listener (direct) and through a path's proxy (path),
// side by side on one broker (docs/network.md):
//
//	go test -run '^$' -bench NetPathRoundTrip -benchtime 2000x ./internal/cluster
func BenchmarkNetPathRoundTrip(b *testing.B) {
	c := kafkatest.Start(b, cluster.LocalConfig{NetPaths: []string{"bench"}})
	const topic = "netpath-bench"
	createTopic(b, c, topic, 1, 1, nil)
	path, _ := c.NetPath("bench")
	for _, tc := range []struct{ name, bootstrap string }{{"direct", c.Bootstrap()}, {"path", path.Bootstrap()}} {
		b.Run(tc.name, func(b *testing.B) {
			cl, err := cluster.NewClient(tc.bootstrap, nil, kgo.DefaultProduceTopic(topic), kgo.ProducerLinger(0))
			if err != nil {
				b.Fatal(err)
			}
			defer cl.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			// A first record opens the connections.
			if err := cl.ProduceSync(ctx, &kgo.Record{Value: []byte("warm")}).FirstErr(); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := cl.ProduceSync(ctx, &kgo.Record{Value: []byte("x")}).FirstErr(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

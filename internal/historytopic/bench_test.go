package historytopic_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/chaosbench/chaosbench/internal/history"
	"github.com/chaosbench/chaosbench/internal/historytopic"
	"github.com/chaosbench/chaosbench/internal/kafkatest"
)

func TestMain(m *testing.M) { kafkatest.Main(m) }

// BenchmarkFlush measures what the write-ahead rule costs per record on
// each sink, side by side on one real broker: a member's processed event
// appended and flushed, the file sink's write(2) against the topic
// sink's acknowledged produce. flush=1 is a member with a processing cost
// (every record flushed before the next one's work); flush=100 a member
// at zero cost, whose batch of records reaches the sink in one flush.
// The two sinks take turns in rounds, so that the host's load falls on
// both alike; each reports its wall time per record, and the ratio.
//
//	go test -run '^$' -bench Flush -benchtime 20000x ./internal/historytopic
func BenchmarkFlush(b *testing.B) {
	c := kafkatest.Shared(b)
	for _, every := range []int{1, 100} {
		b.Run(fmt.Sprintf("flush=%d", every), func(b *testing.B) {
			cfg := historytopic.Config{Bootstrap: c.Bootstrap(), Topic: kafkatest.Name(b, "history"), Cell: "bench"}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			if err := historytopic.Ensure(ctx, cfg, 1); err != nil {
				b.Fatal(err)
			}
			file, err := history.Create(b.TempDir(), "m1", 0)
			if err != nil {
				b.Fatal(err)
			}
			defer file.Close()
			store, err := historytopic.Open(cfg, "m1", 0)
			if err != nil {
				b.Fatal(err)
			}
			topic := history.NewWriter("m1", 0, store)
			defer topic.Close()
			// The first flush connects: not a record's cost.
			if err := topic.Flush(); err != nil {
				b.Fatal(err)
			}
			e := history.Event{Kind: history.Processed, Partition: 3, Key: "k0042", Producer: "producer-0", IntendedT: time.Now().UnixNano(), RecordT: time.Now().UnixNano()}
			write := func(w *history.Writer, n int, first int) time.Duration {
				start := time.Now()
				for i := range n {
					ev := e
					ev.Offset, ev.Seq = int64(first+i), int64(first+i)
					if err := w.Append(&ev); err != nil {
						b.Fatal(err)
					}
					if (i+1)%every == 0 || i == n-1 {
						if err := w.Flush(); err != nil {
							b.Fatal(err)
						}
					}
				}
				return time.Since(start)
			}
			round := 10 * every
			var fileT, topicT time.Duration
			b.ResetTimer()
			for done := 0; done < b.N; done += round {
				n := min(round, b.N-done)
				fileT += write(file, n, done)
				topicT += write(topic, n, done)
			}
			b.StopTimer()
			perFile := float64(fileT.Nanoseconds()) / float64(b.N)
			perTopic := float64(topicT.Nanoseconds()) / float64(b.N)
			b.ReportMetric(perFile, "file-ns/record")
			b.ReportMetric(perTopic, "topic-ns/record")
			b.ReportMetric(perTopic/perFile, "topic/file")
		})
	}
}

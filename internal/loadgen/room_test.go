package loadgen

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chaosbench/chaosbench/internal/history"
	"github.com/chaosbench/chaosbench/workloads"
)

// queueClient takes records into a queue that goroutines of the test
// report on, as a client's report goroutines would.
type queueClient struct{ ch chan outRecord }

func (q *queueClient) name() string { return "queue" }
func (q *queueClient) produce(r *outRecord, _, _ []byte) error {
	q.ch <- *r
	return nil
}
func (q *queueClient) awaitPartitions(context.Context, int32) error { return nil }
func (q *queueClient) flush(context.Context) error                  { return nil }
func (q *queueClient) purge()                                       {}
func (q *queueClient) close()                                       {}

// The sender never has more than MaxOutstanding records unreported, and
// never sleeps through the reports that make room (a lost wake-up would
// hang the run), whatever the bound and however many goroutines report.
func TestOutstandingBound(t *testing.T) {
	const records = 20000
	for _, limit := range []int{1, 2, 7, 100, 30000} {
		t.Run(fmt.Sprint(limit), func(t *testing.T) {
			s, err := workloads.Parse("bound.yaml", fmt.Appendf(nil, `name: bound
seed: 1
records: %d
topic: {partitions: 6}
keys: {count: 100, distribution: uniform}
value: {size: 10}
producer: {client: franz, rate: unlimited}
`, records))
			if err != nil {
				t.Fatal(err)
			}
			w, err := history.Create(t.TempDir(), "producer-0", 0)
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			p, err := New(Config{Spec: s, History: w, Bootstrap: "unused", MaxOutstanding: limit})
			if err != nil {
				t.Fatal(err)
			}
			p.start = time.Now()
			p.startNs = p.start.UnixNano()
			p.lat = newLatency(nil, p.start)
			p.perPart = make([]int64, 6)
			c := &queueClient{ch: make(chan outRecord, 64)}
			var over atomic.Int64
			done := make(chan struct{})
			for range 3 {
				go func() {
					defer func() { done <- struct{}{} }()
					for r := range c.ch {
						if n := p.outstanding.Load(); n > int64(limit) {
							over.Store(n)
						}
						p.deliver(&r, "k", 0, nil, false)
					}
				}()
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			interrupted, err := p.send(ctx, c)
			close(c.ch)
			for range 3 {
				<-done
			}
			if interrupted || err != nil {
				t.Fatalf("send: interrupted %v, %v (a lost wake-up stalls it until the timeout)", interrupted, err)
			}
			if n := over.Load(); n != 0 {
				t.Errorf("%d records outstanding, bound %d", n, limit)
			}
			if got := p.acked.Load(); got != records || p.outstanding.Load() != 0 {
				t.Errorf("acked %d of %d, %d outstanding", got, records, p.outstanding.Load())
			}
		})
	}
}

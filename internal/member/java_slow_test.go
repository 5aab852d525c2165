package member_test

import (
	"strings"
	"testing"
	"time"

	"github.com/chaosbench/chaosbench/internal/history"
	"github.com/chaosbench/chaosbench/internal/kafkatest"
	"github.com/chaosbench/chaosbench/internal/vocab"
)

// A java member stalled beyond max.poll.interval.ms (the slow command) is
// put out of the group by its own client: its partitions go to the other
// member while it still processes its batch (a zombie), its commit of
// that batch fails, and at its next poll its history says the partitions
// were lost.
func TestJavaSlowBeyondMaxPollIntervalIsLost(t *testing.T) {
	kafkatest.RequireJava(t)
	c := kafkatest.Shared(t)
	topic := kafkatest.Name(t, "topic")
	createTopic(t, c, topic)
	g := newGroup(t, c, topic, vocab.Range, vocab.ClientJava, vocab.PolicySyncBatch)
	g.args = append(g.args, "--max-poll-interval", "3s")
	g.start("m1")
	g.start("m2")
	p := newProducer(t, c.Bootstrap(), topic)
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(100 * time.Millisecond):
				p.produce(20)
			}
		}
	}()
	g.waitProcessing("m1")
	g.waitProcessing("m2")
	g.mu.Lock()
	m1 := g.procs["m1"]
	g.mu.Unlock()
	slowAt := time.Now().UnixNano()
	if err := m1.Control("slow 6s"); err != nil {
		t.Fatal(err)
	}
	// The stall, the poll timeout and the rebalance, then m1's next poll.
	deadline := time.Now().Add(40 * time.Second)
	var lost, failed, taken bool
	for time.Now().Before(deadline) && !(lost && failed && taken) {
		time.Sleep(500 * time.Millisecond)
		lost, failed, taken = false, false, false
		for _, e := range g.eventsSoFar(t) {
			if e.T < slowAt {
				continue
			}
			switch {
			case e.Proc == "m1" && e.Kind == history.Lost && len(e.Partitions) > 0:
				lost = true
			case e.Proc == "m1" && e.Kind == history.Committed && e.Err != "":
				failed = failed || strings.Contains(e.Err, "CommitFailed")
			case e.Proc == "m2" && e.Kind == history.Assigned && len(e.Partitions) > 0:
				taken = true
			}
		}
	}
	if !lost || !failed || !taken {
		t.Errorf("after m1's stall beyond max.poll.interval.ms: lost %v, failed commit %v, m2 took partitions %v\n%s", lost, failed, taken, g.logs())
	}
}

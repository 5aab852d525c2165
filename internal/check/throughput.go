package check

import (
	"github.com/chaosbench/chaosbench/internal/history"
	"github.com/chaosbench/chaosbench/internal/summary"
)

// Throughput (docs/summary.md, `throughput`): the distinct records the
// group processed, over the time from the first processing to the last.
// Every processing stretches the time (a redelivery and work redone take
// the group's time too); a record counts once. Under a fixed offered
// rate, a group that keeps up processes at that rate, and one slowed by
// its commits or its rebalances takes longer to finish the same records:
// the figure side by side with another policy's on the same workload is
// what that policy cost.
type throughputCheck struct {
	g             *model
	firstT, lastT int64
}

func (c *throughputCheck) processed(_ *partition, _ *member, e *history.Event) {
	if c.firstT == 0 || e.T < c.firstT {
		c.firstT = e.T
	}
	c.lastT = max(c.lastT, e.T)
}

func (c *throughputCheck) result(s *summary.Summary) {
	var r summary.ThroughputResult
	for _, p := range c.g.parts {
		r.Records += p.processed.len() // distinct offsets
	}
	if r.Records > 0 {
		r.SpanMs = float64(c.lastT-c.firstT) / 1e6
	}
	if r.SpanMs > 0 {
		r.PerSecond = float64(r.Records) / (r.SpanMs / 1e3)
	}
	s.Throughput = r
}

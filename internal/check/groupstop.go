package check

import (
	"math"

	"github.com/chaosbench/chaosbench/internal/summary"
)

// Group stop (docs/summary.md, `group_stop`): the longest interval during
// which no partition was live (model.live), attributed to the disruption
// whose pause took the last live partition. Eager protocols stop the
// group; incremental ones should not. The run shutting down is no group
// stop. A stop still going on when the history ends counts up to the end
// of the analysed history.
type groupStopCheck struct {
	g *model
	// stopT is when the group stopped, in disruption stopD (nil: the
	// group is not stopped, or stopped while shutting down).
	stopT int64
	stopD *disruption
	// byDisruption holds each disruption's longest stop, by disruption
	// ID - 1.
	byDisruption []int64
}

// groupStopped: d's pause took the last live partition at t.
func (c *groupStopCheck) groupStopped(t int64, d *disruption) {
	if c.g.shutdown {
		return
	}
	c.stopT, c.stopD = t, d
}

// groupResumed: a partition is live again at t.
func (c *groupStopCheck) groupResumed(t int64) {
	d := c.stopD
	if d == nil {
		return
	}
	for len(c.byDisruption) < d.out.ID {
		c.byDisruption = append(c.byDisruption, 0)
	}
	c.byDisruption[d.out.ID-1] = max(c.byDisruption[d.out.ID-1], t-c.stopT)
	c.stopD = nil
}

func (c *groupStopCheck) result(s *summary.Summary) {
	end := c.g.endT()
	for _, d := range c.g.disr {
		var stop int64
		if d.out.ID <= len(c.byDisruption) {
			stop = c.byDisruption[d.out.ID-1]
		}
		if c.stopD == d && c.g.live == 0 {
			// The group was still stopped when the history ended.
			stop = max(stop, end-c.stopT)
		}
		s.Disruptions[d.out.ID-1].GroupStopMs = float64(stop) / 1e6
	}
	r := &s.GroupStop
	r.Check = summary.Check{Verdict: summary.Valid, Expect: "measured: eager protocols stop the group, incremental ones should not"}
	for _, d := range s.Disruptions {
		if summary.PreSteady(d.Phase) {
			continue
		}
		if d.GroupStopMs > 0 {
			r.Disruptions++
		}
		r.MaxMs = math.Max(r.MaxMs, d.GroupStopMs)
	}
}

package check

import (
	"math"

	"github.com/chaosbench/chaosbench/internal/summary"
)

// Recovery (docs/summary.md, `recovery`): for each finished disruption,
// the time from its start until the group's processing rate (over the
// trailing Options.RateWindow) is back to Options.RecoveryFraction of the
// rate before it and its lag back to the lag before it
// (timeline.recovery). It reads the disruptions' rows and the timeline,
// and has no hooks.
type recoveryCheck struct {
	g *model
}

func (c *recoveryCheck) result(s *summary.Summary) {
	g := c.g
	r := &s.Recovery
	r.Check = summary.Check{Verdict: summary.Valid, Expect: "measured: no expectation"}
	r.RateWindowMs = float64(g.opts.RateWindow) / 1e6
	r.BaselineMs = float64(g.opts.BaselineWindow) / 1e6
	stop := g.cell.TrafficEndT
	rw := int64(g.opts.RateWindow)
	// The rate and lag "before" a disruption are the steady state's: the
	// baseline starts no earlier than the end of the previous disruption's
	// recovery, and a disruption that came before the group had recovered
	// (or too soon after to measure) inherits the previous baseline.
	var prev baseline
	var prevEnd int64 // when the previous disruption recovered; -1: it did not
	for i := range s.Disruptions {
		d := &s.Disruptions[i]
		var base baseline
		if prevEnd >= 0 {
			base = g.tl.baselineOf(max(d.StartT-int64(g.opts.BaselineWindow), prevEnd), d.StartT, rw)
		}
		if !base.ok {
			base = prev
		}
		if base.ok {
			d.RateBefore, d.LagBefore = base.rate*1e9, base.lag
		}
		var at int64
		if d.Unfinished {
			d.RecoveryNote = "the disruption never ended"
		} else {
			d.RecoveryMs, at, d.RecoveryNote = g.tl.recovery(d.StartT, d.EndT, stop, rw, g.opts.RecoveryFraction, base)
		}
		switch {
		case d.RecoveryMs != nil:
			prevEnd = max(prevEnd, at)
		case !d.Unfinished && d.RecoveryNote != "" && !base.ok:
			// Nothing to recover to: later ones measure their own.
		default:
			prevEnd = -1
		}
		if base.ok {
			prev = base
		}
		if summary.PreSteady(d.Phase) {
			continue
		}
		if d.RecoveryMs != nil {
			r.Recovered++
			r.MaxMs = math.Max(r.MaxMs, *d.RecoveryMs)
		} else {
			r.NotRecovered++
		}
	}
}

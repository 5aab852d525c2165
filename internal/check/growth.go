package check

import (
	"github.com/chaosbench/chaosbench/internal/history"
	"github.com/chaosbench/chaosbench/internal/summary"
)

// New partitions (docs/summary.md, "Partitions added"): a partition an
// add_partitions step creates has no owner until the group takes it on,
// and the records the producer sends to it meanwhile wait all that time.
// Its pause runs from its creation (the step's event) to its first
// processed record, like any other partition's (pause.go): it belongs to
// the step's disruption, counts in its partition-seconds and percentiles,
// and keeps its window open until the partition is live. A new partition
// that never receives a record is left out of the pauses, as any
// partition without traffic is; an idle one (its owner took it on before
// any record came) ends at the takeover.
//
// The time to take on new partitions is the step's own figure: from the
// step to the moment the last of its new partitions was first assigned to
// a member (with or without records: the assignment is the group's part),
// unfinished while one was never assigned.

// partitionsAdded: step d grew the topic (e is its chaos event): from
// params.from (or the partitions known so far) to params.partitions.
func (g *model) partitionsAdded(d *disruption, e *history.Event) {
	from := int(paramInt(e.Params, "from"))
	if from <= 0 {
		from = len(g.parts)
	}
	to := int(paramInt(e.Params, "partitions"))
	if to <= from {
		return
	}
	d.out.PartitionsFrom, d.out.PartitionsTo = from, to
	for id := from; id < to; id++ {
		p := g.part(int32(id))
		if p.everOwned || p.owner != nil {
			continue // already known to the group: nothing waits
		}
		p.added = d
		d.added++
		g.beginPause(p, e.T, d, "", nil)
		if pp := p.pause; pp != nil && pp.d == d {
			pp.target = true
		}
	}
}

// takenOn: p, created by a step, got its first owner at t.
func (g *model) takenOn(p *partition, t int64) {
	d := p.added
	p.added = nil
	d.takenOn++
	if t > d.takeOnT {
		d.takeOnT = t
	}
}

// growthColumns fills the take-on column of d's row.
func growthColumns(o *summary.Disruption, d *disruption) {
	if d.added == 0 {
		return
	}
	o.NewPartitions = d.added
	if d.takenOn == d.added {
		o.TakeOnMs = ptr(float64(d.takeOnT-o.StartT) / 1e6)
	}
}

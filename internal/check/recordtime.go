package check

import (
	"fmt"
	"time"

	"github.com/chaosbench/chaosbench/internal/clip"
	"github.com/chaosbench/chaosbench/internal/history"
	"github.com/chaosbench/chaosbench/internal/summary"
)

// Record timestamps (docs/summary.md, `processed_before_timestamp`): a
// bound on each member's clock correction that does not come from the
// driver's endpoint. A record's Kafka timestamp (`record_t`) is stamped
// before any member can consume the record: by the producer's client as
// it sends it (CreateTime, what chaosbench's topics use) or by the
// partition leader as it appends it (LogAppendTime). A member whose
// processing time, on the driver's clock after the merge's correction,
// is earlier than the record's timestamp by more than recordTimeSlack
// has a correction off by at least the difference, against the clock
// that stamped the record: the broker's or the producer host's, the
// driver's on one host. The bound is one-sided: it catches a member's
// clock put too far behind, never too far ahead. Reported, not judged,
// as negative latency is: the clock that stamped the record may be the
// one that is off.
type recordTimeCheck struct {
	g *model
	// early[m.idx]: m's records processed before their timestamp.
	early []recordEarly
}

type recordEarly struct {
	n     int64
	worst int64 // the most, ns
	ex    *summary.Example
}

// recordTimeSlack is what a member's time may precede a record's
// timestamp by before it counts: the clock measurements' error bounds
// (tens of microseconds on one host, a few hundred across a data centre)
// with room to spare. A Kafka timestamp is whole milliseconds, cut, never
// rounded up: it adds nothing.
const recordTimeSlack = int64(10 * time.Millisecond)

func (c *recordTimeCheck) processed(p *partition, m *member, e *history.Event) {
	if e.RecordT == 0 || e.T >= e.RecordT-recordTimeSlack {
		return
	}
	for len(c.early) <= m.idx {
		c.early = append(c.early, recordEarly{})
	}
	r := &c.early[m.idx]
	r.n++
	if d := e.RecordT - e.T; d > r.worst {
		r.worst = d
		r.ex = &summary.Example{T: e.T, Proc: m.name, Partition: ptr(p.id), Offset: ptr(e.Offset),
			Detail: fmt.Sprintf("processed %s before its timestamp", time.Duration(d).Round(time.Microsecond))}
	}
}

func (c *recordTimeCheck) result(s *summary.Summary) {
	var n, worst int64
	var ex []summary.Example
	members := 0
	for _, m := range c.g.memberOrder {
		if m.idx >= len(c.early) || c.early[m.idx].n == 0 {
			continue
		}
		r := c.early[m.idx]
		n += r.n
		worst = max(worst, r.worst)
		members++
		if len(ex) < c.g.opts.MaxExamples {
			ex = append(ex, *r.ex)
		}
	}
	if n == 0 {
		return
	}
	s.Findings = append(s.Findings, summary.Finding{Checker: "clock", Kind: "processed_before_timestamp", Verdict: summary.Valid, Count: n,
		Message: fmt.Sprintf("%s of %s processed before their Kafka timestamp, by up to %s: the member's clock, as corrected, is behind the clock that stamped the records (the producer's client, or the broker under LogAppendTime) by at least that much",
			clip.Plural(n, "record"), clip.Plural(members, "member"), time.Duration(worst).Round(time.Microsecond)),
		Examples: ex})
}

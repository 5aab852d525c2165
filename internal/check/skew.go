package check

import (
	"math"
	"sort"

	"github.com/chaosbench/chaosbench/internal/summary"
)

// Skew (docs/summary.md, `skew`): records per partition (max/mean,
// coefficient of variation, share of the hottest partition), records
// processed per member per second of ownership, and partitions per member
// (max - min): at the end of traffic (spread) and the largest whenever an
// assignment settled (max spread). Records per partition, records per
// member and time of ownership are the model's (partition.records,
// member.processed, member.ownedNs); this checker samples the spread.
type skewCheck struct {
	g         *model
	maxSpread int
	final     map[string]int // the assignment at the end of traffic
}

// windowClosed samples the spread of a settled assignment.
func (c *skewCheck) windowClosed(d *disruption) {
	if c.g.shutdown {
		return
	}
	c.maxSpread = max(c.maxSpread, spread(c.assignmentCounts()))
}

// trafficEnded keeps the assignment at the end of traffic: when the
// drain began or, without a drain phase, when the run began to shut down
// or the history ended, whichever came first.
func (c *skewCheck) trafficEnded() {
	if c.final != nil {
		return
	}
	c.final = c.assignmentCounts()
	c.maxSpread = max(c.maxSpread, spread(c.final))
}

// assignmentCounts returns the partitions owned per live member (by
// name), members that own nothing included.
func (c *skewCheck) assignmentCounts() map[string]int {
	n := map[string]int{}
	for _, m := range c.g.memberOrder {
		if m.alive && m.joined {
			n[m.proc] += 0
		}
	}
	for _, p := range c.g.parts {
		if p.owner != nil {
			n[p.owner.proc]++
		}
	}
	return n
}

func spread(c map[string]int) int {
	if len(c) == 0 {
		return 0
	}
	lo, hi := math.MaxInt, 0
	for _, n := range c {
		lo, hi = min(lo, n), max(hi, n)
	}
	return hi - lo
}

func (c *skewCheck) result(s *summary.Summary) {
	c.trafficEnded()
	r := &s.Skew
	r.Check = summary.Check{Verdict: summary.Valid, Expect: "measured: no expectation"}
	c.recordsPerPartition(r)
	r.Members = c.memberLoads()
	r.PartitionsPerMember = c.final
	r.Spread = spread(r.PartitionsPerMember)
	r.MaxSpread = c.maxSpread
}

// recordsPerPartition fills the partitions' side: the acknowledged
// records of each (or, without acknowledgements, those processed).
func (c *skewCheck) recordsPerPartition(r *summary.SkewResult) {
	g := c.g
	n := len(g.parts)
	r.RecordsPerPartition = make([]int64, n)
	useProduced := g.stats.Acked > 0
	var sum int64
	var hot int64 = -1
	for i, p := range g.parts {
		v := p.records
		if !useProduced {
			v = p.processed.len()
		}
		r.RecordsPerPartition[i] = v
		sum += v
		if v > hot {
			hot, r.HottestPartition = v, p.id
		}
	}
	if n > 0 && sum > 0 {
		mean := float64(sum) / float64(n)
		var ss float64
		for _, v := range r.RecordsPerPartition {
			d := float64(v) - mean
			ss += d * d
		}
		r.MaxOverMean = float64(hot) / mean
		r.CV = math.Sqrt(ss/float64(n)) / mean
		r.HottestShare = float64(hot) / float64(sum)
	}
}

// memberLoads returns each member's work, across its incarnations, by
// name: records processed per second of ownership, the ownership still
// running counted up to the end of the analysed history.
func (c *skewCheck) memberLoads() []summary.MemberLoad {
	type load struct {
		processed, ownedNs int64
	}
	stop := c.g.endT()
	loads := map[string]*load{}
	var names []string
	for _, m := range c.g.memberOrder {
		l := loads[m.proc]
		if l == nil {
			l = &load{}
			loads[m.proc] = l
			names = append(names, m.proc)
		}
		l.processed += m.processed
		l.ownedNs += m.ownedNs
		if m.owned > 0 && stop > m.ownedSince {
			l.ownedNs += stop - m.ownedSince
		}
	}
	sort.Strings(names)
	out := []summary.MemberLoad{}
	for _, n := range names {
		l := loads[n]
		if l.processed == 0 && l.ownedNs == 0 {
			continue
		}
		ml := summary.MemberLoad{Member: n, Processed: l.processed, OwnedSeconds: float64(l.ownedNs) / 1e9}
		if l.ownedNs > 0 {
			ml.RecordsPerSec = float64(l.processed) / ml.OwnedSeconds
		}
		out = append(out, ml)
	}
	return out
}

package check

import (
	"math"
	"sort"
)

// Skew (design.md, "Skew"): records per partition (max/mean, coefficient
// of variation, share of the hottest partition), records processed per
// member per second of ownership, and partitions per member (max - min).
type skewState struct {
	procs     map[string]*procLoad
	order     []*procLoad
	maxSpread int
	final     map[string]int // the assignment at the end of traffic
}

// procLoad is one member's work, across its incarnations.
type procLoad struct {
	name      string
	processed int64
	ownedNs   int64
}

func (s *skewState) init() { s.procs = map[string]*procLoad{} }

func (a *analyzer) procLoad(proc string) *procLoad {
	l := a.skew.procs[proc]
	if l == nil {
		l = &procLoad{name: proc}
		a.skew.procs[proc] = l
		a.skew.order = append(a.skew.order, l)
	}
	return l
}

// assignmentCounts returns the partitions owned per live member (by
// name), members that own nothing included.
func (a *analyzer) assignmentCounts() map[string]int {
	c := map[string]int{}
	for _, m := range a.memberOrder {
		if m.alive && m.joined {
			c[m.proc] += 0
		}
	}
	for _, p := range a.parts {
		if p.owner != nil {
			c[p.owner.proc]++
		}
	}
	return c
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

// sampleSpread records the spread of a settled assignment (a disruption's
// window just closed).
func (a *analyzer) sampleSpread() {
	if a.shutdown {
		return
	}
	a.skew.maxSpread = max(a.skew.maxSpread, spread(a.assignmentCounts()))
}

// sampleSpreadFinal records the assignment at the end of traffic.
func (a *analyzer) sampleSpreadFinal() {
	if a.skew.final != nil {
		return
	}
	a.skew.final = a.assignmentCounts()
	a.skew.maxSpread = max(a.skew.maxSpread, spread(a.skew.final))
}

func (a *analyzer) skewResult(s *Summary) {
	r := &s.Skew
	r.Check = Check{Verdict: Valid, Expect: "measured: no expectation"}
	n := len(a.parts)
	r.RecordsPerPartition = make([]int64, n)
	useProduced := a.stats.Acked > 0
	var sum int64
	var hot int64 = -1
	for i, p := range a.parts {
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
	// Close the ownership still running at the end.
	stop := a.endT()
	for _, m := range a.memberOrder {
		if m.owned > 0 && stop > m.ownedSince {
			m.load.ownedNs += stop - m.ownedSince
			m.ownedSince = stop
		}
	}
	r.Members = []MemberLoad{}
	for _, l := range a.skew.order {
		if l.processed == 0 && l.ownedNs == 0 {
			continue
		}
		ml := MemberLoad{Member: l.name, Processed: l.processed, OwnedSeconds: float64(l.ownedNs) / 1e9}
		if l.ownedNs > 0 {
			ml.RecordsPerSec = float64(l.processed) / ml.OwnedSeconds
		}
		r.Members = append(r.Members, ml)
	}
	sort.Slice(r.Members, func(i, j int) bool { return r.Members[i].Member < r.Members[j].Member })
	r.PartitionsPerMember = a.skew.final
	if r.PartitionsPerMember == nil {
		r.PartitionsPerMember = map[string]int{}
	}
	r.Spread = spread(r.PartitionsPerMember)
	r.MaxSpread = a.skew.maxSpread
}

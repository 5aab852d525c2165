package check

import "sort"

// intervals is a set of int64 kept as sorted, disjoint, non-adjacent
// closed runs [lo, hi]. Kafka offsets of a partition and a producer's
// sequence numbers of a key are dense and arrive almost in order, so a set
// of millions of them is usually a handful of runs: memory grows with the
// gaps (losses, skipped sequence numbers), not with the members.
type intervals struct {
	runs []run
	n    int64
}

type run struct{ lo, hi int64 }

// add inserts x and reports whether it was new.
func (s *intervals) add(x int64) bool {
	k := len(s.runs)
	if k > 0 {
		last := &s.runs[k-1]
		switch {
		case x == last.hi+1:
			last.hi = x
			s.n++
			return true
		case x > last.hi+1:
			s.runs = append(s.runs, run{x, x})
			s.n++
			return true
		case x >= last.lo:
			return false
		}
	} else {
		s.runs = append(s.runs, run{x, x})
		s.n++
		return true
	}
	// x is below the last run: find the first run whose hi >= x-1.
	i := sort.Search(len(s.runs), func(i int) bool { return s.runs[i].hi >= x-1 })
	r := &s.runs[i]
	if x >= r.lo && x <= r.hi {
		return false
	}
	s.n++
	switch {
	case x == r.hi+1:
		r.hi = x
		if i+1 < len(s.runs) && s.runs[i+1].lo == x+1 {
			r.hi = s.runs[i+1].hi
			s.runs = append(s.runs[:i+1], s.runs[i+2:]...)
		}
	case x == r.lo-1:
		r.lo = x
	default: // x < r.lo-1: a new run before r
		s.runs = append(s.runs, run{})
		copy(s.runs[i+1:], s.runs[i:])
		s.runs[i] = run{x, x}
	}
	return true
}

// has reports whether x is in the set.
func (s *intervals) has(x int64) bool {
	i := sort.Search(len(s.runs), func(i int) bool { return s.runs[i].hi >= x })
	return i < len(s.runs) && s.runs[i].lo <= x
}

// len returns the number of elements.
func (s *intervals) len() int64 { return s.n }

// max returns the largest element, or -1 for an empty set.
func (s *intervals) max() int64 {
	if len(s.runs) == 0 {
		return -1
	}
	return s.runs[len(s.runs)-1].hi
}

// countFrom returns the number of elements >= lo.
func (s *intervals) countFrom(lo int64) int64 {
	var n int64
	for i := len(s.runs) - 1; i >= 0; i-- {
		r := s.runs[i]
		if r.hi < lo {
			break
		}
		if r.lo >= lo {
			n += r.hi - r.lo + 1
		} else {
			n += r.hi - lo + 1
		}
	}
	return n
}

// countIn returns the number of elements in [lo, hi].
func (s *intervals) countIn(lo, hi int64) int64 {
	if hi < lo {
		return 0
	}
	var n int64
	i := sort.Search(len(s.runs), func(i int) bool { return s.runs[i].hi >= lo })
	for ; i < len(s.runs) && s.runs[i].lo <= hi; i++ {
		a, b := max(s.runs[i].lo, lo), min(s.runs[i].hi, hi)
		n += b - a + 1
	}
	return n
}

// each calls f for each run of elements in [lo, hi], clipped to it, in
// order.
func (s *intervals) each(lo, hi int64, f func(a, b int64)) {
	i := sort.Search(len(s.runs), func(i int) bool { return s.runs[i].hi >= lo })
	for ; i < len(s.runs) && s.runs[i].lo <= hi; i++ {
		f(max(s.runs[i].lo, lo), min(s.runs[i].hi, hi))
	}
}

// minus calls f for each run of elements of s that are not in o, in
// order, and stops early when f returns false.
func (s *intervals) minus(o *intervals, f func(lo, hi int64) bool) {
	j := 0
	for _, r := range s.runs {
		lo := r.lo
		for lo <= r.hi {
			for j < len(o.runs) && o.runs[j].hi < lo {
				j++
			}
			if j == len(o.runs) || o.runs[j].lo > r.hi {
				if !f(lo, r.hi) {
					return
				}
				break
			}
			if o.runs[j].lo > lo {
				if !f(lo, o.runs[j].lo-1) {
					return
				}
			}
			lo = o.runs[j].hi + 1
		}
	}
}

// countCommon returns the number of elements in both s and o.
func (s *intervals) countCommon(o *intervals) int64 {
	var n int64
	i, j := 0, 0
	for i < len(s.runs) && j < len(o.runs) {
		a, b := s.runs[i], o.runs[j]
		lo, hi := max(a.lo, b.lo), min(a.hi, b.hi)
		if lo <= hi {
			n += hi - lo + 1
		}
		if a.hi < b.hi {
			i++
		} else {
			j++
		}
	}
	return n
}

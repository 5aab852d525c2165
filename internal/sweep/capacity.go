package sweep

import (
	"errors"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/chaosbench/chaosbench/internal/history"
	"github.com/chaosbench/chaosbench/internal/stat"
)

// Capacity is what a group driven to saturation sustained: a capacity
// run's cell, where the producer runs far ahead of the group and no chaos
// step interrupts it, read from its history (docs/capacity.md).
//
// The group drains a backlog whose records spread over the partitions as
// the workload's keys do. A member is busy from its first record to its
// last; the group's throughput, records over the time from the first
// record processed to the last, is the highest rate the group can sustain
// under this key distribution: a member whose partitions carry share s of
// the traffic keeps up with a rate R only while R x s is at most what it
// processes, and draining a backlog of N records takes it N x s over that
// rate, the longest of which is N over the highest sustainable rate.
type Capacity struct {
	// Records counts records processed (first processings: redeliveries
	// are not work the group could take on).
	Records int64 `json:"records"`
	// SpanMs runs from the first record processed to the last.
	SpanMs float64 `json:"span_ms"`
	// Throughput is Records over SpanMs: records/s the group sustains.
	Throughput float64 `json:"throughput"`
	// Members are the members that processed records, by name.
	Members []MemberRate `json:"members"`
	// MemberRate is the median of the members' rates: what one member
	// sustains at the workload's processing cost, batch size, client and
	// commit policy.
	MemberRate float64 `json:"member_rate"`
	// Shares are each partition's share of the acknowledged records;
	// HottestShare and HottestPartition the largest.
	Shares           []float64 `json:"partition_shares"`
	HottestShare     float64   `json:"hottest_share"`
	HottestPartition int32     `json:"hottest_partition"`
	// MaxMemberShare is the largest share of the records one member
	// processed: the member that bounds the group (it took that share of
	// the backlog at its own rate).
	MaxMemberShare float64 `json:"max_member_share"`
	// HottestRate is the hottest partition's records over the time from
	// its first record processed to its last: what one partition
	// sustained, at most one member's rate.
	HottestRate float64 `json:"hottest_rate"`
}

// MemberRate is one member's part of a capacity run.
type MemberRate struct {
	Member  string  `json:"member"`
	Records int64   `json:"records"`
	SpanMs  float64 `json:"span_ms"`
	Rate    float64 `json:"rate"` // records/s while busy
	// Share is its share of the records processed: of its partitions',
	// whatever moved between members.
	Share float64 `json:"share"`
	// Partitions are the partitions it processed.
	Partitions []int32 `json:"partitions"`
}

// span is a stretch of processing: how many records, first and last time.
type span struct {
	n           int64
	first, last int64
}

func (s *span) add(t int64) {
	if s.n == 0 || t < s.first {
		s.first = t
	}
	s.last = max(s.last, t)
	s.n++
}

func (s span) ms() float64 { return float64(s.last-s.first) / 1e6 }

// rate is records per second over the span: the first record marks its
// start, so n records over it make n-1 intervals.
func (s span) rate() float64 {
	if s.n < 2 || s.last <= s.first {
		return 0
	}
	return float64(s.n-1) / (float64(s.last-s.first) / 1e9)
}

// MeasureCapacity reads a capacity run's cell (its history folder).
func MeasureCapacity(histDir string) (*Capacity, error) {
	m, err := history.OpenDir(histDir)
	if err != nil {
		return nil, err
	}
	defer m.Close()
	var group span
	byMember := map[string]*span{}
	memberParts := map[string]map[int32]bool{}
	byPart := map[int32]*span{}
	top := map[int32]int64{} // next offset of each partition not yet processed
	acked := map[int32]int64{}
	for {
		e, err := m.Next()
		if err == io.EOF {
			break
		}
		var le *history.LineError
		if errors.As(err, &le) {
			continue // counted by the checkers (unreadable_lines)
		}
		if err != nil {
			return nil, err
		}
		switch e.Kind {
		case history.Produced:
			if e.Err == "" && !e.Ambiguous {
				acked[e.Partition]++
			}
		case history.Processed:
			next, seen := top[e.Partition]
			if seen && e.Offset < next {
				continue // a redelivery
			}
			top[e.Partition] = e.Offset + 1
			group.add(e.T)
			if byMember[e.Proc] == nil {
				byMember[e.Proc] = &span{}
				memberParts[e.Proc] = map[int32]bool{}
			}
			byMember[e.Proc].add(e.T)
			memberParts[e.Proc][e.Partition] = true
			if byPart[e.Partition] == nil {
				byPart[e.Partition] = &span{}
			}
			byPart[e.Partition].add(e.T)
		}
	}
	c := &Capacity{Records: group.n, SpanMs: group.ms(), Throughput: group.rate()}
	var total int64
	parts := int32(0)
	for p, n := range acked {
		total += n
		parts = max(parts, p+1)
	}
	for p := range byPart {
		parts = max(parts, p+1)
	}
	c.Shares = make([]float64, parts)
	for p, n := range acked {
		if total > 0 {
			c.Shares[p] = float64(n) / float64(total)
		}
	}
	for p, sh := range c.Shares {
		if sh > c.HottestShare {
			c.HottestShare, c.HottestPartition = sh, int32(p)
		}
	}
	if s := byPart[c.HottestPartition]; s != nil {
		c.HottestRate = s.rate()
	}
	var rates []float64
	for name, s := range byMember {
		mr := MemberRate{Member: name, Records: s.n, SpanMs: s.ms(), Rate: s.rate()}
		if group.n > 0 {
			mr.Share = float64(s.n) / float64(group.n)
		}
		for p := range memberParts[name] {
			mr.Partitions = append(mr.Partitions, p)
		}
		slices.Sort(mr.Partitions)
		c.MaxMemberShare = math.Max(c.MaxMemberShare, mr.Share)
		c.Members = append(c.Members, mr)
		if mr.Rate > 0 {
			rates = append(rates, mr.Rate)
		}
	}
	slices.SortFunc(c.Members, func(a, b MemberRate) int { return compareMembers(a.Member, b.Member) })
	if len(rates) > 0 {
		c.MemberRate = stat.Median(rates) // 0, not NaN, when no member has a rate: JSON has no NaN
	}
	return c, nil
}

// compareMembers orders m1, m2, ..., m10 by number.
func compareMembers(a, b string) int {
	if len(a) != len(b) && strings.HasPrefix(a, "m") && strings.HasPrefix(b, "m") {
		return len(a) - len(b)
	}
	return strings.Compare(a, b)
}

package check

import (
	"fmt"
	"math"

	"github.com/chaosbench/chaosbench/internal/summary"
)

// timeline counts processing and acknowledgements in fixed-width bins
// from the first event of the history. When the bins would exceed their
// cap, adjacent pairs merge and the width doubles, so memory is bounded
// by the cap, whatever the run's length.
type timeline struct {
	t0      int64
	w       int64
	maxBins int
	proc    []int64 // processed events, duplicates included
	ack     []int64 // acknowledged records
	// lag[i] is the group's lag at the end of bin i: the sum over
	// partitions of the highest acknowledged offset minus the highest
	// processed offset (at least 0), the way Kafka's consumer lag is log
	// end minus position. A skipped record is not lag: the group moved past
	// it.
	lag []int64
	// peak[i] is the largest lag at any moment of bin i (records in flight
	// included), for telling a backlog from the steady state's in-flight
	// records.
	peak  []int64
	marks []summary.Mark
	// A baseline never reaches back before the steady phase began (or,
	// without phase events, the first processing).
	steadyT, firstProcT int64
}

func (tl *timeline) init(w int64, maxBins int) { tl.w, tl.maxBins = w, maxBins }

func (tl *timeline) start(t int64) { tl.t0 = t }

func (tl *timeline) bin(t int64) int {
	i := (t - tl.t0) / tl.w
	for i >= int64(tl.maxBins) {
		tl.coarsen()
		i = (t - tl.t0) / tl.w
	}
	for int(i) >= len(tl.proc) {
		var carry int64 // a bin without events keeps the lag it started with
		if n := len(tl.lag); n > 0 {
			carry = tl.lag[n-1]
		}
		tl.proc = append(tl.proc, 0)
		tl.ack = append(tl.ack, 0)
		tl.lag = append(tl.lag, carry)
		tl.peak = append(tl.peak, carry)
	}
	return int(i)
}

func (tl *timeline) coarsen() {
	const (
		sum = iota
		last
		peak
	)
	merge := func(s []int64, how int) []int64 {
		out := s[:0]
		for i := 0; i < len(s); i += 2 {
			v := s[i]
			if i+1 < len(s) {
				switch how {
				case sum:
					v += s[i+1]
				case last:
					v = s[i+1]
				case peak:
					v = max(v, s[i+1])
				}
			}
			out = append(out, v)
		}
		return out
	}
	tl.proc, tl.ack = merge(tl.proc, sum), merge(tl.ack, sum)
	tl.lag, tl.peak = merge(tl.lag, last), merge(tl.peak, peak)
	tl.w *= 2
}

func (tl *timeline) processed(t int64, lag int64) {
	if tl.firstProcT == 0 {
		tl.firstProcT = t
	}
	i := tl.bin(t)
	tl.proc[i]++
	tl.lag[i] = lag
	tl.peak[i] = max(tl.peak[i], lag)
}

func (tl *timeline) acked(t int64, lag int64) {
	i := tl.bin(t)
	tl.ack[i]++
	tl.lag[i] = lag
	tl.peak[i] = max(tl.peak[i], lag)
}

func (tl *timeline) mark(t int64, label, kind string) {
	tl.bin(t)
	tl.marks = append(tl.marks, summary.Mark{T: t, Label: label, Kind: kind})
}

func (tl *timeline) result() summary.Timeline {
	return summary.Timeline{
		StartT:    tl.t0,
		BinMs:     float64(tl.w) / 1e6,
		Processed: append([]int64{}, tl.proc...),
		Acked:     append([]int64{}, tl.ack...),
		Lag:       append([]int64{}, tl.lag...),
		Marks:     tl.marks,
	}
}

// baseline is the group's state before a disruption: its processing rate
// (events per ns) and its lag.
type baseline struct {
	rate float64
	lag  int64
	ok   bool
}

// baselineOf measures the bins that end within [from, start) and begin at
// or after the steady phase (or the first processing): the mean rate and
// the largest lag at a bin's end. It is not ok without at least rateWindow
// of such bins with processing in them.
func (tl *timeline) baselineOf(from, start, rateWindow int64) baseline {
	floor := tl.steadyT
	if floor == 0 {
		floor = tl.firstProcT
	}
	b1 := min(int((start-tl.t0)/tl.w), len(tl.proc)) // the first bin not entirely before start
	b0 := max(int(ceilDiv(max(from, floor)-tl.t0, tl.w)), 0)
	if int64(b1-b0)*tl.w < max(rateWindow, tl.w) {
		return baseline{}
	}
	var sum int64
	lag := int64(math.MinInt64)
	for i := b0; i < b1; i++ {
		sum += tl.proc[i]
		lag = max(lag, tl.lag[i])
	}
	if sum == 0 {
		return baseline{}
	}
	return baseline{rate: float64(sum) / float64(int64(b1-b0)*tl.w), lag: lag, ok: true}
}

// recovery returns the time from start until the group's processing rate
// is back to frac of the rate before and the lag back to the lag before
// (base), searching from the end of the disruption window (endT) up to
// the end of traffic (stopT, 0: the end of the timeline). The rate after
// is the mean over the trailing rateWindow, never reaching back before
// start. The second result is the end of recovery (0 if none).
func (tl *timeline) recovery(start, endT, stopT, rateWindow int64, frac float64, base baseline) (ms *float64, at int64, note string) {
	if len(tl.proc) == 0 {
		return nil, 0, "empty timeline"
	}
	if !base.ok {
		return nil, 0, "no steady processing before it to compare with"
	}
	w := tl.w
	first := int(ceilDiv(start-tl.t0, w)) // first bin starting at or after start
	k := int(max(rateWindow/w, 1))
	j0 := max(int((endT-tl.t0)/w), first)
	last := len(tl.proc) - 1
	if stopT > 0 {
		last = min(last, int((stopT-tl.t0)/w)-1)
	}
	for j := j0; j <= last; j++ {
		lo := max(j-k+1, first)
		var n int64
		for i := lo; i <= j; i++ {
			n += tl.proc[i]
		}
		rate := float64(n) / float64(int64(j-lo+1)*w)
		if rate >= frac*base.rate && tl.lag[j] <= base.lag {
			end := tl.t0 + int64(j+1)*w
			v := float64(end-start) / 1e6
			return &v, end, ""
		}
	}
	what := "the history"
	if stopT > 0 {
		what = "traffic"
	}
	return nil, 0, fmt.Sprintf("not recovered before the end of %s (rate before %.0f/s, lag before %d)", what, base.rate*1e9, base.lag)
}

func ceilDiv(a, b int64) int64 {
	if a <= 0 {
		return -((-a) / b)
	}
	return (a + b - 1) / b
}

// peakBefore returns the largest lag at any moment of the bins that end
// within [from, start) (and not before the steady phase); ok is false when
// there is no such bin.
func (tl *timeline) peakBefore(from, start int64) (lag int64, ok bool) {
	if len(tl.peak) == 0 {
		return 0, false
	}
	floor := tl.steadyT
	if floor == 0 {
		floor = tl.firstProcT
	}
	b1 := min(int((start-tl.t0)/tl.w), len(tl.peak))
	b0 := max(int(ceilDiv(max(from, floor)-tl.t0, tl.w)), 0)
	for i := b0; i < b1; i++ {
		if !ok || tl.peak[i] > lag {
			lag, ok = tl.peak[i], true
		}
	}
	return lag, ok
}

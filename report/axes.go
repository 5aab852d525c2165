package report

import (
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
)

// compactTicks are gonum's default ticks, labelled compactly: 0, 2.5k,
// 5k, 1.2M.
type compactTicks struct{}

func (compactTicks) Ticks(lo, hi float64) []plot.Tick {
	ts := plot.DefaultTicks{}.Ticks(lo, hi)
	for i := range ts {
		if ts[i].Label != "" {
			ts[i].Label = compact(ts[i].Value)
		}
	}
	return ts
}

func compact(v float64) string {
	a := math.Abs(v)
	f := func(x float64, suffix string) string {
		return strconv.FormatFloat(math.Round(x*100)/100, 'f', -1, 64) + suffix
	}
	switch {
	case a >= 1e9:
		return f(v/1e9, "G")
	case a >= 1e6:
		return f(v/1e6, "M")
	case a >= 1e4:
		return f(v/1e3, "k")
	}
	return f(v, "")
}

// niceBelow and niceAbove round to the 1-2-5 sequence, for axis bounds.
func niceBelow(v float64) float64 {
	d := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{5, 2, 1} {
		if d*m <= v {
			return d * m
		}
	}
	return d
}

func niceAbove(v float64) float64 {
	d := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 5, 10} {
		if d*m >= v {
			return d * m
		}
	}
	return d * 10
}

// msTicks labels a log axis of milliseconds readably: 1 ms … 10 s.
type msTicks struct{}

func (msTicks) Ticks(lo, hi float64) []plot.Tick {
	var ts []plot.Tick
	for d := math.Pow(10, math.Floor(math.Log10(lo))); d <= hi*10; d *= 10 {
		for _, m := range []float64{1, 2, 5} {
			v := d * m
			if v < lo*0.999 || v > hi*1.001 {
				continue
			}
			label := FormatMs(v)
			label = strings.Replace(label, ".0 s", " s", 1)
			if m == 2 && hi/lo > 1000 {
				label = "" // a wide range: 1 and 5 are enough
			}
			ts = append(ts, plot.Tick{Value: v, Label: label})
		}
	}
	if len(ts) < 2 {
		return plot.LogTicks{Prec: -1}.Ticks(lo, hi)
	}
	return ts
}

// intTicks puts ticks on integers only (partitions).
type intTicks struct{}

func (intTicks) Ticks(lo, hi float64) []plot.Tick {
	step := math.Max(1, math.Pow(10, math.Floor(math.Log10(math.Max(hi-lo, 1))))/2)
	if (hi-lo)/step > 12 {
		step *= 2
	}
	var ts []plot.Tick
	for v := math.Ceil(lo/step) * step; v <= hi; v += step {
		ts = append(ts, plot.Tick{Value: v, Label: strconv.Itoa(int(v))})
	}
	return ts
}

// percentileScale spreads percentiles the way latency plots do: by the
// number of nines, log10(1/(1-p/100)).
type percentileScale struct{}

func (percentileScale) Normalize(min, max, x float64) float64 {
	t := func(v float64) float64 { return math.Log10(1 / (1 - math.Min(v, 99.999)/100)) }
	lo, hi := t(min), t(max)
	if hi == lo {
		return 0
	}
	return (t(x) - lo) / (hi - lo)
}

type percentileTicks struct{}

func (percentileTicks) Ticks(lo, hi float64) []plot.Tick {
	var ts []plot.Tick
	for _, v := range []float64{50, 75, 90, 99, 99.9, 99.99} {
		if v >= lo && v <= hi {
			ts = append(ts, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', -1, 64) + "%"})
		}
	}
	return ts
}

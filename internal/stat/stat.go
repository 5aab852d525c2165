// Package stat describes a sample of measurements: its median, and its
// spread (extremes and quartiles). The reports, the comparisons, the
// capacity sweep and the benchmarks all give a median with a range beside
// it, and compute both here, the same way: the median of an even count
// is the mean of the middle two, and nothing is a number (NaN), never 0,
// so that a missing measurement cannot pass for a measured zero. The
// package imports nothing of the project.
package stat

import (
	"math"
	"slices"
)

// Median returns the median of xs (the mean of the middle two for an
// even count), NaN for none.
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Sorted(slices.Values(xs))
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// Spread describes a sample: how many, the median, the extremes and the
// quartiles (linear interpolation between the closest ranks, as most
// statistics packages compute them by default).
type Spread struct {
	N                        int
	Median, Min, Max, Q1, Q3 float64
}

// SpreadOf returns the spread of xs (NaN values for none).
func SpreadOf(xs []float64) Spread {
	s := Spread{N: len(xs), Median: math.NaN(), Min: math.NaN(), Max: math.NaN(), Q1: math.NaN(), Q3: math.NaN()}
	if len(xs) == 0 {
		return s
	}
	v := slices.Sorted(slices.Values(xs))
	q := func(p float64) float64 {
		h := p * float64(len(v)-1)
		lo := math.Floor(h)
		if int(lo)+1 >= len(v) {
			return v[len(v)-1]
		}
		return v[int(lo)] + (h-lo)*(v[int(lo)+1]-v[int(lo)])
	}
	s.Median, s.Min, s.Max, s.Q1, s.Q3 = Median(v), v[0], v[len(v)-1], q(0.25), q(0.75)
	return s
}

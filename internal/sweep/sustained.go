package sweep

import "github.com/chaosbench/chaosbench/internal/stat"

// A point's capacity is one figure, computed in one place: the sweep
// compares it with the target rate before running the point at it, and
// the judgement holds the point's targets to it.

// Sustained is what the point sustained: the spread, over the iterations
// of its capacity run, of the throughput each drained its backlog at
// (records/s). Its median is the point's capacity. N is 0 when no
// capacity run finished.
func (row *Row) Sustained() stat.Spread {
	thr := make([]float64, len(row.Capacity))
	for i, it := range row.Capacity {
		thr[i] = it.Throughput
	}
	return stat.SpreadOf(thr)
}

// PointCapacity measures what a point of the sweep in dir sustained, from
// its newest finished capacity run: the Sustained of the row Analyze
// would make of it.
func PointCapacity(dir string, p Point) (stat.Spread, error) {
	row := Row{Point: p}
	if _, err := row.measureCapacity(dir); err != nil {
		return stat.Spread{}, err
	}
	return row.Sustained(), nil
}

// BelowRate reports whether a point whose capacity is c cannot sustain
// rate: it was measured, and its median is below the rate. The sweep does
// not run such a point at the target rate, which it cannot meet (unless
// told to), and the report says so where its target run would be.
func BelowRate(c stat.Spread, rate float64) bool {
	return rate > 0 && c.N > 0 && c.Median < rate
}

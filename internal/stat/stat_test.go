package stat

import (
	"math"
	"testing"
)

func TestMedian(t *testing.T) {
	for _, c := range []struct {
		xs   []float64
		want float64
	}{
		{[]float64{3, 1, 2}, 2},
		{[]float64{4, 1, 3, 2}, 2.5},
		{[]float64{7}, 7},
	} {
		if got := Median(c.xs); got != c.want {
			t.Errorf("Median(%v) = %v, want %v", c.xs, got, c.want)
		}
	}
	if got := Median(nil); !math.IsNaN(got) {
		t.Errorf("Median(nil) = %v, want NaN", got)
	}
	xs := []float64{3, 1, 2}
	Median(xs)
	if xs[0] != 3 || xs[1] != 1 {
		t.Errorf("Median sorted its argument: %v", xs)
	}
}

func TestSpread(t *testing.T) {
	s := SpreadOf([]float64{5, 1, 4, 2, 3})
	if s.N != 5 || s.Median != 3 || s.Min != 1 || s.Max != 5 || s.Q1 != 2 || s.Q3 != 4 {
		t.Errorf("%+v", s)
	}
	if s := SpreadOf([]float64{1, 2, 3, 4}); s.Q1 != 1.75 || s.Q3 != 3.25 || s.Median != 2.5 {
		t.Errorf("%+v", s)
	}
	if s := SpreadOf(nil); s.N != 0 || !math.IsNaN(s.Median) {
		t.Errorf("%+v", s)
	}
}

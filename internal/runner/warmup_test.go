package runner

import (
	"testing"
)

// The JIT has gone quiet once its share of the host's CPU averages below
// 2% over the last five seconds.
func TestSettled(t *testing.T) {
	for _, c := range []struct {
		jit  []float64
		want bool
	}{
		{[]float64{0, 0, 0}, false}, // too short to tell
		{[]float64{0.3, 0.25, 0.2, 0.1, 0.05, 0.01}, false},
		{[]float64{0.3, 0.2, 0.01, 0.01, 0.02, 0.01, 0.03}, true},
		{[]float64{0, 0, 0, 0, 0, 0.2}, false}, // a late burst: a path not compiled yet
	} {
		if got := settled(c.jit); got != c.want {
			t.Errorf("settled(%v) = %v, want %v", c.jit, got, c.want)
		}
	}
}

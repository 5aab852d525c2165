package workloads

import (
	"math/rand/v2"
	"testing"
	"time"
)

func TestProcessingCostDistributions(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const n = 20000
	mean := func(p Processing) time.Duration {
		var sum time.Duration
		for i := 0; i < n; i++ {
			d := p.Sample(r)
			if d < 0 {
				t.Fatalf("%v: negative cost %s", p, d)
			}
			sum += d
		}
		return sum / n
	}
	if got := mean(Processing{Cost: time.Millisecond}); got != time.Millisecond {
		t.Errorf("fixed: mean %s", got)
	}
	for _, p := range []Processing{{Cost: time.Millisecond, Distribution: "uniform", Jitter: 500 * time.Microsecond}, {Cost: time.Millisecond, Distribution: "exponential"}} {
		if got := mean(p); got < 950*time.Microsecond || got > 1050*time.Microsecond {
			t.Errorf("%v: mean %s, want 1ms within 5%%", p, got)
		}
	}
}

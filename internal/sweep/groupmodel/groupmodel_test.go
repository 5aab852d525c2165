package groupmodel

import (
	"math"
	"reflect"
	"testing"

	"github.com/chaosbench/chaosbench/workloads"
)

// Four members over eight partitions: every strategy gives each two
// partitions; the capacity is the member rate over the busiest member's
// share; a crash of the busiest moves at least its two partitions. The
// model is seeded: the same workload gives the same model. A group larger
// than the deploy's simulated restarts says so in Restarts.
func TestProduction(t *testing.T) {
	spec, err := workloads.Parse("w.yaml", []byte("duration: 30s\nkeys: {count: 10000}\nstrategies: [range, cooperative-sticky]\n"))
	if err != nil {
		t.Fatal(err)
	}
	strategies := []string{"range", "cooperative-sticky", "no-such-strategy"}
	m := Production(spec, strategies, 4, 8, 100)
	if len(m.Strategies) != 2 || m.Restarts != 4 || m.HottestShare <= 1.0/8 || m.HottestShare > 0.2 {
		t.Fatalf("model %+v", m)
	}
	for _, s := range m.Strategies {
		if s.Spread != 0 || s.MaxShare < 0.25 || s.MaxShare > 0.3 || math.Abs(s.Capacity-100/s.MaxShare) > 1e-9 {
			t.Errorf("%s: spread %d, busiest share %v, capacity %v", s.Strategy, s.Spread, s.MaxShare, s.Capacity)
		}
		if s.Crash.Moves < 2 || s.MaxShareNMinus1 <= s.MaxShare || s.Deploy.Rounds == 0 {
			t.Errorf("%s: crash %+v, busiest share after it %v, deploy %+v", s.Strategy, s.Crash, s.MaxShareNMinus1, s.Deploy)
		}
	}
	if again := Production(spec, strategies, 4, 8, 100); !reflect.DeepEqual(m, again) {
		t.Error("the same workload gives another model")
	}
	if big := Production(spec, strategies[:1], 30, 60, 100); big.Restarts != deployRestarts {
		t.Errorf("30 members: %d restarts simulated, want %d", big.Restarts, deployRestarts)
	}
}

package groupmodel

import (
	"math"
	"reflect"
	"slices"
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

// The crash the capacity report must judge (docs/capacity.md): three
// partitions, p1 carrying 51% of the traffic. Under range, m1..m3 own p0,
// p1, p2; whichever member crashes, range gives the first survivor two
// partitions, p0 and p1 (76%), so the group left sustains the member rate
// over 0.76, not what a fresh group of two (whose sticky assignment may
// keep p1 alone) measured.
func TestCrashLeftRange(t *testing.T) {
	shares := []float64{0.25, 0.51, 0.24}
	c, ok := CrashLeft("range", 3, 3, shares)
	if !ok {
		t.Fatal("no crash model")
	}
	if math.Abs(c.MaxShare-0.76) > 1e-12 || c.Crashed != "m1" || !slices.Equal(c.CrashedPartitions, []int32{0}) ||
		c.Busiest != "m2" || !slices.Equal(c.Partitions, []int32{0, 1}) || math.Abs(c.FreshMaxShare-0.51) > 1e-12 || c.Idle != 0 || c.Standby() {
		t.Errorf("range 3 x 3: %+v (standby %v)", c, c.Standby())
	}
}

// Sticky and incremental assignors keep the survivors' partitions: the
// dead member's one partition lands on a survivor that has one already,
// so the busiest survivor holds the hot p1 and another (75% or 76%).
func TestCrashLeftSticky(t *testing.T) {
	shares := []float64{0.25, 0.51, 0.24}
	for _, s := range []string{"sticky", "cooperative-sticky", "consumer-uniform"} {
		c, ok := CrashLeft(s, 3, 3, shares)
		if !ok || c.MaxShare < 0.75-1e-12 || c.MaxShare > 0.76+1e-12 || len(c.Partitions) != 2 || !slices.Contains(c.Partitions, 1) {
			t.Errorf("%s 3 x 3: %+v", s, c)
		}
	}
}

// Four members on three partitions: one is idle, and it is the standby:
// whichever member crashes, its partition goes to the idle one (the
// balance every assignor keeps), and no survivor holds more than one.
func TestCrashLeftStandby(t *testing.T) {
	shares := []float64{0.25, 0.51, 0.24}
	for _, s := range []string{"range", "roundrobin", "sticky", "cooperative-sticky", "consumer-uniform", "consumer-range"} {
		c, ok := CrashLeft(s, 4, 3, shares)
		if !ok || c.Idle != 1 || math.Abs(c.MaxShare-0.51) > 1e-12 || len(c.Partitions) != 1 || !c.Standby() {
			t.Errorf("%s 4 x 3: %+v (standby %v)", s, c, c.Standby())
		}
	}
	// Two members on three partitions: nobody is idle, nothing is a standby.
	if c, ok := CrashLeft("range", 2, 3, shares); !ok || c.Idle != 0 || c.Standby() || math.Abs(c.MaxShare-1) > 1e-12 {
		t.Errorf("range 2 x 3: %+v", c)
	}
	if _, ok := CrashLeft("range", 1, 3, shares); ok {
		t.Error("a group of one: a crash model")
	}
}

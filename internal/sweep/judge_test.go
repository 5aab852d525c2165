package sweep_test

import (
	"math"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/chaosbench/chaosbench/internal/stat"
	"github.com/chaosbench/chaosbench/internal/sweep"
	"github.com/chaosbench/chaosbench/internal/sweep/sweeptest"
	"github.com/chaosbench/chaosbench/workloads"
)

func TestJudge(t *testing.T) {
	tab, spec := sweeptest.Table(t)
	c := sweep.Judge(t.TempDir(), tab, spec, workloads.Targets{Rate: 150, MaxLag: 100, MaxPause: 10 * time.Second, MaxCatchUp: time.Minute}, nil)
	// 3 members over 4 partitions sustain 199 >= 150, but 2 members (their
	// N-1) only 193: the smallest that meets everything is 3 (N-1 = 2
	// sustains 193 >= 150).
	if c.Best == nil || c.Best.Row.Members != 3 || c.Best.Row.Partitions != 4 {
		t.Fatalf("best %v, want 3 members over 4 partitions", c.Best)
	}
	byName := map[string]*sweep.Config{}
	for _, cf := range c.Configs {
		byName[cf.Row.Point.Name] = cf
	}
	// One member: a crash leaves nobody, and the backlog never drains.
	if m1 := byName["m1_p4"]; m1.Meets || !math.IsInf(m1.DrainS, 1) {
		t.Errorf("m1_p4: meets %v, drain %v", m1.Meets, m1.DrainS)
	}
	// Backlog after a crash in m3_p4: 150 records/s x 7 s = 1050, drained
	// at 193 - 150 = 43 records/s spare: 24.4 s.
	m3 := byName["m3_p4"]
	if math.Abs(m3.Backlog-1050) > 1e-9 || math.Abs(m3.DrainS-1050.0/43) > 1e-9 {
		t.Errorf("m3_p4 backlog %v, drain %v s", m3.Backlog, m3.DrainS)
	}
	// m2_p8 has no N-1 point measured: it cannot be judged, so not recommended.
	if ch := byName["m2_p8"].Check("n-1"); ch == nil || ch.OK != nil || ch.Case != sweep.CaseNotMeasured {
		t.Errorf("m2_p8 n-1 check %+v, want unknown", ch)
	}
	// The knees: 4 partitions stop at 4 members (the partition count);
	// 8 partitions at 4 members (the hot partition: 98 / 0.4 = 245).
	for _, s := range c.Series {
		switch s.Partitions {
		case 4:
			if s.Knee == nil || s.Knee.Row.Members != 4 || s.Bound != sweep.BoundPartitions {
				t.Errorf("4 partitions: knee %v, bound %q", s.Knee, s.Bound)
			}
		case 8:
			if s.Knee == nil || s.Knee.Row.Members != 4 || s.Bound != sweep.BoundHottestPartition {
				t.Errorf("8 partitions: knee %v, bound %q", s.Knee, s.Bound)
			}
		}
	}
	// Physics: one member 98 (median of the members' rates 97, 98) against
	// 100; m6_p8 against (1/c)/h = 250.
	if len(c.Physics) == 0 || !c.Physics[0].OK || math.Abs(c.Physics[0].Expected-100) > 1e-9 || c.Physics[0].Against != sweep.PhysicsOneMember {
		t.Errorf("physics %+v", c.Physics)
	}
	// A lag target nobody meets: no recommendation.
	c2 := sweep.Judge(t.TempDir(), tab, spec, workloads.Targets{Rate: 150, MaxLag: 10}, nil)
	if c2.Best != nil {
		t.Errorf("best %s with an impossible lag", c2.Best.Row.Point.Name)
	}
}

// A point's capacity is the median of its iterations' throughputs, and a
// point below the target rate is one the sweep does not run at it.
func TestSustained(t *testing.T) {
	tab, _ := sweeptest.Table(t)
	if s := tab.Rows[2].Sustained(); s.N != 2 || s.Median != 199 || s.Min != 197 || s.Max != 201 {
		t.Errorf("m3_p4 sustained %+v, want 199 [197 – 201]", s)
	}
	if s := (&sweep.Row{}).Sustained(); s.N != 0 {
		t.Errorf("a point without a capacity run sustained %+v", s)
	}
	for _, c := range []struct {
		xs   []float64
		rate float64
		want bool
	}{
		{[]float64{156}, 300, true},
		{[]float64{387}, 300, false},
		{nil, 300, false},
		{[]float64{156}, 0, false},
	} {
		if got := sweep.BelowRate(stat.SpreadOf(c.xs), c.rate); got != c.want {
			t.Errorf("BelowRate(%v, %v) = %v, want %v", c.xs, c.rate, got, c.want)
		}
	}
}

// A hottest partition that moved between members during the capacity
// run leaves the busiest member a smaller share than the partition's; the
// partition, processed one record at a time whoever owns it, still bounds
// the group: the physics check holds the group to (1/c)/h, not to the
// busiest member's share.
func TestPhysicsHottestPartitionMoved(t *testing.T) {
	tab, spec := sweeptest.Table(t)
	last := &tab.Rows[len(tab.Rows)-1] // 6 members, 8 partitions, h = 40%
	for i := range last.Capacity {
		last.Capacity[i].MaxMemberShare = 0.3
	}
	c := sweep.Judge(t.TempDir(), tab, spec, workloads.Targets{Rate: 150}, nil)
	found := false
	for _, p := range c.Physics {
		if p.Config == nil || p.Config.Row != last {
			continue
		}
		found = true
		if math.Abs(p.Expected-250) > 1e-9 || !p.OK || p.Against != sweep.PhysicsHottestMoved {
			t.Errorf("%s: physics %.1f (want 100 / 0.4 = 250), ok %v, against %q", p.Config.Row.Point.Name, p.Expected, p.OK, p.Against)
		}
	}
	if !found {
		t.Error("no physics check of the 6-member point")
	}
}

// With a crash model, n-1 is judged on what the worst crash leaves: the
// member rate (98) over the busiest survivor's share. A survivor left
// with 76% of the traffic sustains 98 / 0.76 = 128.9 < 150: no
// configuration of two or more members meets n-1 any more, and the
// backlog of a crash never drains. With 40% it sustains 245: the drain
// runs at 245 - 150 = 95 records/s spare.
func TestJudgeCrashLeft(t *testing.T) {
	tab, spec := sweeptest.Table(t)
	share := 0.76
	var asked []int
	crash := func(strategy string, members, partitions int, shares []float64) (sweep.CrashLeft, bool) {
		asked = append(asked, members)
		if len(shares) != partitions {
			t.Errorf("%d shares for %d partitions", len(shares), partitions)
		}
		return sweep.CrashLeft{Crashed: "m1", Busiest: "m2", MaxShare: share, FreshMaxShare: 0.51}, true
	}
	targets := workloads.Targets{Rate: 150, MaxCatchUp: time.Minute}
	c := sweep.JudgeCrash(t.TempDir(), tab, spec, targets, nil, crash)
	for _, cf := range c.Configs {
		ch := cf.Check("n-1")
		if cf.Row.Members == 1 {
			if cf.CrashLeft != nil || ch.Case != sweep.CaseNoMemberLeft {
				t.Errorf("%s: crash left %+v, check %+v", cf.Row.Point.Name, cf.CrashLeft, ch)
			}
			continue
		}
		if cf.CrashLeft == nil || math.Abs(cf.CrashLeft.Capacity-98/0.76) > 1e-9 || ch.Case != sweep.CaseCrashModel || ch.OK == nil || *ch.OK {
			t.Errorf("%s: crash left %+v, check %+v", cf.Row.Point.Name, cf.CrashLeft, ch)
		}
		if !math.IsInf(cf.DrainS, 1) {
			t.Errorf("%s: drain %v s, want never", cf.Row.Point.Name, cf.DrainS)
		}
	}
	if c.Best != nil || len(asked) == 0 || slices.Contains(asked, 1) {
		t.Errorf("best %v with every survivor at 76%%; asked for %v", c.Best, asked)
	}
	share = 0.4
	c = sweep.JudgeCrash(t.TempDir(), tab, spec, targets, nil, crash)
	for _, cf := range c.Configs {
		if cf.Row.Point.Name == "m3_p4" && (math.Abs(cf.CrashLeft.Capacity-245) > 1e-9 || math.Abs(cf.DrainS-1050.0/95) > 1e-9 || !*cf.Check("n-1").OK) {
			t.Errorf("m3_p4 at 40%%: %+v, drain %v", cf.CrashLeft, cf.DrainS)
		}
	}
}

// A recommendation that keeps idle members is offered beside the smallest
// configuration without one: when only six members survive a crash at the
// rate, 6 members over 4 partitions (two idle) is the smallest, and 6 over
// 8 the smallest without an idle member.
func TestBestWithoutIdle(t *testing.T) {
	tab, spec := sweeptest.Table(t)
	crash := func(strategy string, members, partitions int, shares []float64) (sweep.CrashLeft, bool) {
		share := 0.76
		if members == 6 {
			share = 0.4
		}
		return sweep.CrashLeft{MaxShare: share, FreshMaxShare: 0.25, Idle: max(members-partitions, 0)}, true
	}
	c := sweep.JudgeCrash(t.TempDir(), tab, spec, workloads.Targets{Rate: 150}, nil, crash)
	if c.Best == nil || c.Best.Row.Point.Name != "m6_p4" || !c.Best.Idle() || c.Best.CrashLeft.Standby() {
		t.Fatalf("best %+v", c.Best)
	}
	if c.BestNoIdle == nil || c.BestNoIdle.Row.Point.Name != "m6_p8" || c.BestNoIdle.Idle() {
		t.Errorf("best without idle members %+v", c.BestNoIdle)
	}
}

// The KEDA ScaledObject suggested for 3 members over 4 partitions with a
// lag target of 100 and crash recoveries of 9 and 10 s.
func TestScaledObject(t *testing.T) {
	tab, spec := sweeptest.Table(t)
	c := sweep.Judge(t.TempDir(), tab, spec, workloads.Targets{Rate: 150, MaxLag: 100, MaxPause: 10 * time.Second, MaxCatchUp: time.Minute}, nil)
	got := map[string]string{}
	for _, k := range c.ScaledObject() {
		if k.From == "" {
			t.Errorf("%s: no source", k.Name)
		}
		got[k.Name] = k.Value
	}
	want := map[string]string{"maxReplicaCount": "3", "minReplicaCount": "2", "lagThreshold": "33", "allowIdleConsumers": "false",
		"ensureEvenDistributionOfPartitions": "false", "scaleDown.stabilizationWindowSeconds": "30", "pollingInterval": "30", "cooldownPeriod": "300"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %v\nwant %v", got, want)
	}
	if c2 := sweep.Judge(t.TempDir(), tab, spec, workloads.Targets{Rate: 150, MaxLag: 10}, nil); c2.ScaledObject() != nil {
		t.Error("a ScaledObject without a recommendation")
	}
}

func TestHighlyComposite(t *testing.T) {
	for n, want := range map[int]int{1: 1, 2: 2, 3: 4, 5: 6, 7: 12, 12: 12, 13: 24, 25: 36, 37: 48, 49: 60, 61: 120, 121: 180} {
		if got := sweep.HighlyComposite(n); got != want {
			t.Errorf("HighlyComposite(%d) = %d, want %d", n, got, want)
		}
	}
}

// The partition count for 150 records/s: one member takes 97.5 (the
// median of the members' rates 97 and 98), one partition at most that
// too; with 25% headroom 187.5 records/s need 1.9 partitions and 1.9
// members: 2, a highly composite count; group sizes 2 (dividing it).
func TestAdvisePartitions(t *testing.T) {
	tab, spec := sweeptest.Table(t)
	c := sweep.Judge(t.TempDir(), tab, spec, workloads.Targets{Rate: 150}, nil)
	a := c.AdvisePartitions()
	if a == nil || a.MemberRate != 97.5 || a.PartitionRate != 97.5 || math.Abs(a.NeedMembers-187.5/97.5) > 1e-9 || a.Partitions != 2 ||
		!slices.Equal(a.DividingCounts(), []int{2}) || a.HottestShare != 0.4 || math.Abs(a.HotBound-243.75) > 1e-9 {
		t.Fatalf("advice %+v", a)
	}
	c = sweep.Judge(t.TempDir(), tab, spec, workloads.Targets{Rate: 900}, nil)
	a = c.AdvisePartitions()
	// 1125 / 97.5 = 11.5: 12 partitions; sizes 12 .. 12 only, dividing.
	if a.Partitions != 12 || len(a.Counts) != 1 || !a.Counts[0].Divides || a.Counts[0].Skew != 1 {
		t.Errorf("900 records/s: %+v", a)
	}
	c = sweep.Judge(t.TempDir(), tab, spec, workloads.Targets{Rate: 500}, nil)
	a = c.AdvisePartitions()
	// 625 / 97.5 = 6.4: 7 members, 12 partitions; 7 gets skew 2/(12/7).
	if a.Partitions != 12 || a.Counts[0].Members != 7 || a.Counts[0].Divides || math.Abs(a.Counts[0].Skew-2/(12.0/7)) > 1e-9 ||
		!slices.Equal(a.DividingCounts(), []int{12}) {
		t.Errorf("500 records/s: %+v", a)
	}
	if sweep.Judge(t.TempDir(), tab, spec, workloads.Targets{}, nil).AdvisePartitions() != nil {
		t.Error("advice without a rate")
	}
}

// How sure: 3 members over 4 partitions meet every target in both
// iterations too, but two iterations are fewer than three; the runner-up,
// 2 members over 8 partitions, could not be judged on a crash.
func TestSure(t *testing.T) {
	tab, spec := sweeptest.Table(t)
	c := sweep.Judge(t.TempDir(), tab, spec, workloads.Targets{Rate: 150, MaxLag: 100, MaxPause: 10 * time.Second, MaxCatchUp: time.Minute}, nil)
	s := c.Sure()
	if s == nil || s.Iterations != 2 || len(s.Weak) != 0 || s.RunnerUp == nil || s.RunnerUp.Row.Point.Name != "m2_p8" ||
		!slices.Equal(s.Decided, []string{"n-1", "max_catch_up"}) || len(s.Sometimes) != 0 || s.Sure {
		t.Fatalf("sure %+v", s)
	}
	// Lag allowed up to 40 only: the median of 40 and 40 meets it, and so
	// does each; a lag target of 39 nobody meets.
	if s := sweep.Judge(t.TempDir(), tab, spec, workloads.Targets{Rate: 150, MaxLag: 39}, nil).Sure(); s != nil {
		t.Errorf("sure without a recommendation: %+v", s)
	}
	// With a crash model at 76% for every group but six members, the
	// runner-up of 6 members over 4 partitions misses n-1 in every
	// iteration (98 / 0.76 = 129 < 150).
	crash := func(strategy string, members, partitions int, shares []float64) (sweep.CrashLeft, bool) {
		share := 0.76
		if members == 6 {
			share = 0.4
		}
		return sweep.CrashLeft{MaxShare: share, FreshMaxShare: 0.25}, true
	}
	s = sweep.JudgeCrash(t.TempDir(), tab, spec, workloads.Targets{Rate: 150}, nil, crash).Sure()
	if s == nil || s.RunnerUp == nil || s.RunnerUp.Row.Point.Name != "m4_p8" || !slices.Equal(s.Decided, []string{"n-1"}) || len(s.Sometimes) != 0 {
		t.Errorf("sure with a crash model: %+v", s)
	}
}

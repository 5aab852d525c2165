package autoscale

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

// poll is one poll of a known-answer series: the lag of each partition,
// and the member count the decision must give.
type poll struct {
	lags []int64
	want int
}

// run feeds the series to an autoscaler, one poll per PollingInterval
// from t = 0, starting at current members, each decision's count becoming
// the next poll's current count, and checks every decision.
func run(t *testing.T, s Settings, current int, series []poll) []Decision {
	t.Helper()
	a, err := New(s)
	if err != nil {
		t.Fatal(err)
	}
	var ds []Decision
	for i, p := range series {
		d := a.Decide(time.Duration(i)*s.PollingInterval, p.lags, current)
		if d.Desired != p.want {
			t.Fatalf("poll %d (t=%v, lags %v, current %d): desired %d (%s), want %d",
				i, d.At, p.lags, current, d.Desired, d.Reason, p.want)
		}
		current = d.Desired
		ds = append(ds, d)
	}
	return ds
}

func base() Settings {
	s := Defaults()
	s.PollingInterval = 15 * time.Second
	s.MinReplicaCount = 1
	s.MaxReplicaCount = 20
	s.ScaleDownStabilization = 0
	return s
}

// Activation: below activationLagThreshold a group at zero stays there;
// above it KEDA takes it to one, and the HPA then scales on the metric,
// at most double or four more (the default policy) per 15 s.
func TestActivation(t *testing.T) {
	s := base()
	s.MinReplicaCount = 0
	s.ActivationLagThreshold = 50
	six := func(total int64) []int64 { l := make([]int64, 6); l[0] = total; return l }
	ds := run(t, s, 0, []poll{
		{six(0), 0},
		{six(50), 0},                         // 50 is not above 50
		{[]int64{10, 10, 10, 10, 10, 11}, 1}, // 61 > 50: activation
		{[]int64{10, 10, 10, 10, 10, 11}, 5}, // ceil(61/10) = 7, limited to 1+4
		{[]int64{10, 10, 10, 10, 10, 11}, 7}, // 61/10 = 6 is not above 6 partitions: the cap lets 7 through
	})
	if ds[2].Raw != -1 || ds[3].Raw != 7 {
		t.Errorf("raw recommendations %d, %d: want -1 (KEDA acted) and 7", ds[2].Raw, ds[3].Raw)
	}
}

// The cap at the partition count, in the scaler's integer division: 100
// records of lag on 3 partitions ask for 3 members, not 10; 35 escape the
// cap (35/10 = 3 is not above 3) and ask for 4, one idle.
func TestCapAtPartitions(t *testing.T) {
	s := base()
	for _, c := range []struct {
		lags       []int64
		metric     int64
		allowIdle  bool
		limitToLag bool
	}{
		{[]int64{100, 0, 0}, 30, false, false},
		{[]int64{12, 12, 11}, 35, false, false},
		{[]int64{100, 0, 0}, 100, true, false},
		{[]int64{100, 0, 0}, 10, false, true},
		{[]int64{19, 0, 0}, 19, false, true}, // 19/10 = 1 is not above 1
		{[]int64{0, 0, 0}, 0, false, true},
	} {
		s.AllowIdleConsumers, s.LimitToPartitionsWithLag = c.allowIdle, c.limitToLag
		if m, _, _ := Metric(s, c.lags); m != c.metric {
			t.Errorf("%v (allowIdle %v, limitToLag %v): metric %d, want %d", c.lags, c.allowIdle, c.limitToLag, m, c.metric)
		}
	}
	s.AllowIdleConsumers, s.LimitToPartitionsWithLag = false, false
	run(t, s, 1, []poll{
		{[]int64{100, 0, 0}, 3},
		{[]int64{12, 12, 11}, 4}, // 35/(10x3) = 1.17: beyond tolerance, ceil 3.5 = 4
		{[]int64{100, 50, 0}, 3}, // capped again: 30/(10x4) = 0.75, ceil 3
		{[]int64{11, 11, 10}, 3}, // 32/30 = 1.07: within tolerance
		{[]int64{20, 0, 0}, 2},   // 20/30 = 0.67: ceil 2
	})
}

// Even distribution: the metric becomes the threshold times the smallest
// divisor of the partition count that covers the lag.
func TestEvenDistribution(t *testing.T) {
	s := base()
	s.EnsureEvenDistributionOfPartitions = true
	lag := func(total int64) []int64 { l := make([]int64, 12); l[3] = total; return l }
	for _, c := range []struct{ total, metric int64 }{
		{0, 10}, {10, 10}, {11, 20}, {41, 60}, {50, 60}, {61, 120}, {130, 120},
	} {
		if m, _, _ := Metric(s, lag(c.total)); m != c.metric {
			t.Errorf("lag %d on 12 partitions: metric %d, want %d", c.total, m, c.metric)
		}
	}
	run(t, s, 1, []poll{
		{lag(50), 5}, // 6 is more than 1+4
		{lag(50), 6},
		{lag(61), 12},
		{lag(25), 3},
		{lag(0), 1},
	})
	if got := Divisors(12); !reflect.DeepEqual(got, []int64{1, 2, 3, 4, 6, 12}) {
		t.Errorf("Divisors(12) = %v", got)
	}
	if got := Divisors(49); !reflect.DeepEqual(got, []int64{1, 7, 49}) {
		t.Errorf("Divisors(49) = %v", got)
	}
}

// Stabilisation: a lag that comes and goes every poll flaps the group
// without a scale-down window, and a 60 s window holds it up until the
// quiet has lasted the window.
func TestStabilisationSuppressesFlap(t *testing.T) {
	s := base()
	busy, quiet := []int64{20, 20, 0, 0}, []int64{1, 0, 0, 0}
	flap := []poll{{busy, 4}, {quiet, 1}, {busy, 4}, {quiet, 1}, {busy, 4}}
	run(t, s, 4, flap)
	s.ScaleDownStabilization = 60 * time.Second
	run(t, s, 4, []poll{
		{busy, 4}, {quiet, 4}, {busy, 4}, {quiet, 4}, {busy, 4}, // t = 0..60
		{quiet, 4}, {quiet, 4}, {quiet, 4}, // the busy poll at 60 s is inside the window until 120 s
		{quiet, 1}, // t = 120: nothing but 1 in (60, 120]
	})
	// A new autoscaler does not shrink the group it finds before the
	// window has passed: the HPA seeds the window with the count.
	run(t, s, 4, []poll{{quiet, 4}, {quiet, 4}, {quiet, 4}, {quiet, 4}, {quiet, 1}})
	// A scale-up window holds a spike the same way.
	s.ScaleDownStabilization = 0
	s.ScaleUpStabilization = 30 * time.Second
	run(t, s, 1, []poll{
		{quiet, 1}, {busy, 1}, {quiet, 1}, {busy, 1}, {busy, 4},
	})
}

// Cooldown: with minReplicaCount 0 an inactive scaler takes the group to
// zero only once more than cooldownPeriod has passed since it was last
// active; meanwhile the HPA keeps at least one member.
func TestCooldownToZero(t *testing.T) {
	s := base()
	s.MinReplicaCount = 0
	s.CooldownPeriod = 60 * time.Second
	none := []int64{0, 0}
	run(t, s, 2, []poll{
		{[]int64{10, 10}, 2},            // t = 0: active
		{none, 1},                       // 15: the HPA's floor is 1
		{none, 1}, {none, 1}, {none, 1}, // 30, 45, 60: 60 s is not more than the cooldown
		{none, 0}, // 75
		{none, 0},
		{[]int64{1, 0}, 1}, // active again (1 > 0)
	})
	// minReplicaCount 2: never below 2, whatever the lag.
	s.MinReplicaCount = 2
	run(t, s, 1, []poll{{none, 2}, {none, 2}, {[]int64{100, 100}, 2}, {none, 2}})
}

func TestTolerance(t *testing.T) {
	for _, c := range []struct {
		metric  int64
		current int
		want    int
	}{
		{43, 4, 4}, {44, 4, 5}, {45, 4, 5}, // 44/40 - 1 is a hair above 0.1 in floating point, as in the HPA
		{36, 4, 4}, {35, 4, 4}, {34, 4, 4}, {0, 4, 0}, {1, 0, 1},
	} {
		if got := Raw(c.metric, 10, c.current); got != c.want {
			t.Errorf("Raw(%d, 10, %d) = %d, want %d", c.metric, c.current, got, c.want)
		}
	}
}

func TestValidate(t *testing.T) {
	for _, c := range []struct {
		field string
		edit  func(*Settings)
	}{
		{"lagThreshold", func(s *Settings) { s.LagThreshold = 0 }},
		{"activationLagThreshold", func(s *Settings) { s.ActivationLagThreshold = -1 }},
		{"maxReplicaCount", func(s *Settings) { s.MinReplicaCount, s.MaxReplicaCount = 5, 4 }},
		{"minReplicaCount", func(s *Settings) { s.MinReplicaCount = -1 }},
		{"pollingInterval", func(s *Settings) { s.PollingInterval = time.Millisecond }},
		{"cooldownPeriod", func(s *Settings) { s.CooldownPeriod = -time.Second }},
		{"scaleDownStabilizationWindow", func(s *Settings) { s.ScaleDownStabilization = 2 * time.Hour }},
		{"limitToPartitionsWithLag", func(s *Settings) { s.AllowIdleConsumers, s.LimitToPartitionsWithLag = true, true }},
		{"ensureEvenDistributionOfPartitions", func(s *Settings) {
			s.LimitToPartitionsWithLag, s.EnsureEvenDistributionOfPartitions = true, true
		}},
	} {
		s := Defaults()
		c.edit(&s)
		err := s.Validate()
		if err == nil || !strings.HasPrefix(err.Error(), c.field+":") {
			t.Errorf("%s: got %v", c.field, err)
		}
	}
	if err := Defaults().Validate(); err != nil {
		t.Errorf("defaults: %v", err)
	}
}

// Package autoscale decides a consumer group's size from its lag as KEDA's
// Kafka scaler and the Kubernetes Horizontal Pod Autoscaler decide a
// Deployment's replica count: pure, one decision per poll, so that a lag
// series gives its replica counts exactly.
//
// The decision has three parts, each as its owner makes it.
//
// KEDA's Kafka scaler turns the lag into a metric (Metric). Every
// partition lags by its log end offset minus the group's committed offset
// (a partition without a commit by its whole log: the members start from
// the earliest offset). The metric is the total lag, capped when idle
// consumers are not allowed: if total lag / lagThreshold, in integer
// division, exceeds the partition count (or, with limitToPartitionsWithLag,
// the count of partitions with lag), the metric becomes that count times
// lagThreshold. With ensureEvenDistributionOfPartitions the metric first
// becomes lagThreshold times the smallest divisor of the partition count
// whose threshold covers the lag. The scaler is active when the total lag
// exceeds activationLagThreshold.
//
// The HPA turns the metric into a desired replica count (Recommend): the
// metric is an AverageValue target of lagThreshold per replica, so the
// desired count is ceil(metric / lagThreshold), unless the usage ratio
// metric / (lagThreshold x current) is within the HPA's tolerance (0.1) of
// 1, when the count stays. Its stabilisation windows then bound the
// change: a scale-up goes no higher than the lowest recommendation of the
// scale-up window, a scale-down no lower than the highest of the
// scale-down window (defaults 0 and 300 s; the HPA's first decision finds
// the windows seeded with the count it found). The default scale-up policy
// (at most double or four more, whichever is more, per 15 s) limits the
// step; the count is clamped to [max(minReplicaCount, 1), maxReplicaCount].
//
// KEDA's scale loop owns zero (Autoscaler.Decide): an inactive scaler
// with minReplicaCount 0 takes the group to zero replicas once
// more than cooldownPeriod has passed since the scaler was last active
// (at once if it never was); an active one takes a group of zero to
// max(minReplicaCount, 1); the HPA does not act on a group of zero.
//
// One difference from a cluster is stated here rather than hidden: the
// HPA asks for the metric on its own clock (15 s) and KEDA polls for
// activity on pollingInterval; here both act on every poll.
package autoscale

import (
	"fmt"
	"math"
	"sort"
	"time"
)

// Tolerance is the HPA's default tolerance
// (--horizontal-pod-autoscaler-tolerance): a usage ratio within it of 1
// leaves the replica count as it is.
const Tolerance = 0.1

// ScaleUpPeriod is the period of the HPA's default scale-up policies: at
// most 100% more, or 4 more replicas, whichever is more, per period.
const ScaleUpPeriod = 15 * time.Second

// Bounds of the settings, named in the errors that refuse them.
const (
	MaxLagThreshold  = int64(1) << 40
	MaxReplicas      = 1000
	MinPolling       = 100 * time.Millisecond
	MaxPolling       = time.Hour
	MaxCooldown      = 24 * time.Hour
	MaxStabilization = time.Hour // the HPA's own bound on stabilizationWindowSeconds
)

// Settings are KEDA's settings of a ScaledObject with one Kafka trigger,
// by their KEDA names in the comments.
type Settings struct {
	LagThreshold                       int64         // lagThreshold (default 10)
	ActivationLagThreshold             int64         // activationLagThreshold (default 0)
	MinReplicaCount                    int           // minReplicaCount (default 0)
	MaxReplicaCount                    int           // maxReplicaCount (default 100)
	PollingInterval                    time.Duration // pollingInterval (default 30 s)
	CooldownPeriod                     time.Duration // cooldownPeriod (default 300 s)
	ScaleUpStabilization               time.Duration // advanced.horizontalPodAutoscalerConfig.behavior.scaleUp.stabilizationWindowSeconds (default 0)
	ScaleDownStabilization             time.Duration // ...behavior.scaleDown.stabilizationWindowSeconds (default 300 s)
	AllowIdleConsumers                 bool          // allowIdleConsumers
	LimitToPartitionsWithLag           bool          // limitToPartitionsWithLag
	EnsureEvenDistributionOfPartitions bool          // ensureEvenDistributionOfPartitions
}

// Defaults are KEDA's and the HPA's defaults.
func Defaults() Settings {
	return Settings{
		LagThreshold:           10,
		MaxReplicaCount:        100,
		PollingInterval:        30 * time.Second,
		CooldownPeriod:         300 * time.Second,
		ScaleDownStabilization: 300 * time.Second,
	}
}

// Error is a setting refused, by its KEDA name.
type Error struct {
	Field, Msg string
}

func (e *Error) Error() string { return e.Field + ": " + e.Msg }

// Validate refuses what KEDA refuses (a lagThreshold of 0 or less, a
// negative activationLagThreshold, allowIdleConsumers with
// limitToPartitionsWithLag, limitToPartitionsWithLag with
// ensureEvenDistributionOfPartitions) and what is beyond this package's
// bounds. The first problem is returned.
func (s Settings) Validate() error {
	switch {
	case s.LagThreshold <= 0 || s.LagThreshold > MaxLagThreshold:
		return &Error{"lagThreshold", fmt.Sprintf("%d: expected a lag in records from 1 to %d", s.LagThreshold, MaxLagThreshold)}
	case s.ActivationLagThreshold < 0 || s.ActivationLagThreshold > MaxLagThreshold:
		return &Error{"activationLagThreshold", fmt.Sprintf("%d: expected a lag in records from 0 to %d", s.ActivationLagThreshold, MaxLagThreshold)}
	case s.MinReplicaCount < 0 || s.MinReplicaCount > MaxReplicas:
		return &Error{"minReplicaCount", fmt.Sprintf("%d: expected 0 to %d", s.MinReplicaCount, MaxReplicas)}
	case s.MaxReplicaCount < 1 || s.MaxReplicaCount > MaxReplicas:
		return &Error{"maxReplicaCount", fmt.Sprintf("%d: expected 1 to %d", s.MaxReplicaCount, MaxReplicas)}
	case s.MaxReplicaCount < s.MinReplicaCount:
		return &Error{"maxReplicaCount", fmt.Sprintf("%d: expected at least minReplicaCount (%d)", s.MaxReplicaCount, s.MinReplicaCount)}
	case s.PollingInterval < MinPolling || s.PollingInterval > MaxPolling:
		return &Error{"pollingInterval", fmt.Sprintf("%v: expected %v to %v", s.PollingInterval, MinPolling, MaxPolling)}
	case s.CooldownPeriod < 0 || s.CooldownPeriod > MaxCooldown:
		return &Error{"cooldownPeriod", fmt.Sprintf("%v: expected 0 to %v", s.CooldownPeriod, MaxCooldown)}
	case s.ScaleUpStabilization < 0 || s.ScaleUpStabilization > MaxStabilization:
		return &Error{"scaleUpStabilizationWindow", fmt.Sprintf("%v: expected 0 to %v", s.ScaleUpStabilization, MaxStabilization)}
	case s.ScaleDownStabilization < 0 || s.ScaleDownStabilization > MaxStabilization:
		return &Error{"scaleDownStabilizationWindow", fmt.Sprintf("%v: expected 0 to %v", s.ScaleDownStabilization, MaxStabilization)}
	case s.AllowIdleConsumers && s.LimitToPartitionsWithLag:
		return &Error{"limitToPartitionsWithLag", "cannot be set with allowIdleConsumers (KEDA refuses the pair)"}
	case s.LimitToPartitionsWithLag && s.EnsureEvenDistributionOfPartitions:
		return &Error{"ensureEvenDistributionOfPartitions", "cannot be set with limitToPartitionsWithLag (KEDA refuses the pair)"}
	}
	return nil
}

// Metric is what KEDA's Kafka scaler reports for the lag of each
// partition (negative lags count as 0): the metric the HPA scales on and
// whether the scaler is active, with the total lag it came from.
func Metric(s Settings, lags []int64) (metric, total int64, active bool) {
	var withLag int64
	for _, l := range lags {
		if l > 0 {
			total += l
			withLag++
		}
	}
	metric = total
	if !s.AllowIdleConsumers || s.LimitToPartitionsWithLag || s.EnsureEvenDistributionOfPartitions {
		bound := int64(len(lags))
		if s.EnsureEvenDistributionOfPartitions {
			metric = evenFactor(metric, bound, s.LagThreshold) * s.LagThreshold
		}
		if s.LimitToPartitionsWithLag {
			bound = withLag
		}
		// Integer division, as the scaler does: a metric up to one
		// threshold short of (bound+1) thresholds escapes the cap.
		if metric/s.LagThreshold > bound {
			metric = bound * s.LagThreshold
		}
	}
	return metric, total, total > s.ActivationLagThreshold
}

// evenFactor is the smallest divisor f of partitions with f x threshold
// covering lag; partitions if none does.
func evenFactor(lag, partitions, threshold int64) int64 {
	for _, f := range Divisors(partitions) {
		if f*threshold >= lag {
			return f
		}
	}
	return partitions
}

// Divisors returns the divisors of n (n >= 1) in increasing order; none
// for n < 1.
func Divisors(n int64) []int64 {
	var lo, hi []int64
	for f := int64(1); f*f <= n; f++ {
		if n%f == 0 {
			lo = append(lo, f)
			if f != n/f {
				hi = append(hi, n/f)
			}
		}
	}
	sort.Slice(hi, func(i, j int) bool { return hi[i] < hi[j] })
	return append(lo, hi...)
}

// Raw is the HPA's replica count for an AverageValue target of threshold
// per replica, before stabilisation: ceil(metric / threshold), or current
// when the usage ratio is within Tolerance of 1.
func Raw(metric, threshold int64, current int) int {
	if current > 0 {
		ratio := float64(metric) / (float64(threshold) * float64(current))
		if math.Abs(1-ratio) <= Tolerance {
			return current
		}
	}
	return int(math.Ceil(float64(metric) / float64(threshold)))
}

// Decision is one poll's decision.
type Decision struct {
	At      time.Duration `json:"at"`     // the poll's time
	Lag     int64         `json:"lag"`    // total lag
	Metric  int64         `json:"metric"` // the scaler's metric
	Active  bool          `json:"active"`
	Current int           `json:"current"` // members before the decision
	Raw     int           `json:"raw"`     // the HPA's recommendation before stabilisation (-1: the HPA did not act)
	Desired int           `json:"desired"` // members after it
	Reason  string        `json:"reason"`
}

// Autoscaler holds what the decisions remember: the HPA's recent
// recommendations and scale events, and when KEDA's scaler was last active.
type Autoscaler struct {
	s          Settings
	recs       []rec
	ups        []rec // scale-ups: when, and how many replicas were added
	lastActive time.Duration
	everActive bool
	seeded     bool // the windows have their first recommendation
}

type rec struct {
	at time.Duration
	n  int
}

// New returns an autoscaler with valid settings (see Validate).
func New(s Settings) (*Autoscaler, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	return &Autoscaler{s: s}, nil
}

// Decide takes the poll at time at (polls in increasing time), the lag of
// every partition, and the current member count, and returns the decision.
func (a *Autoscaler) Decide(at time.Duration, lags []int64, current int) Decision {
	s := a.s
	metric, total, active := Metric(s, lags)
	d := Decision{At: at, Lag: total, Metric: metric, Active: active, Current: current, Raw: -1, Desired: current}
	if active {
		a.lastActive, a.everActive = at, true
	}
	switch {
	case current == 0 && active:
		d.Desired = max(s.MinReplicaCount, 1)
		d.Reason = "activation: the lag exceeds activationLagThreshold"
		return d
	case current == 0:
		d.Reason = "inactive at zero"
		return d
	case !active && s.MinReplicaCount == 0:
		if !a.everActive || at-a.lastActive > s.CooldownPeriod {
			d.Desired = 0
			d.Reason = "inactive for cooldownPeriod: to zero"
			return d
		}
	case !active && current < s.MinReplicaCount:
		d.Desired = s.MinReplicaCount
		d.Reason = "inactive below minReplicaCount"
		return d
	}
	d.Raw = Raw(metric, s.LagThreshold, current)
	d.Desired, d.Reason = a.hpa(at, d.Raw, current)
	return d
}

// hpa stabilises the recommendation, limits a scale-up by the default
// policy and clamps to the replica bounds.
func (a *Autoscaler) hpa(at time.Duration, raw, current int) (int, string) {
	s := a.s
	// The HPA's first recommendation is the replica count it found
	// (recordInitialRecommendation): within the windows it holds a new
	// autoscaler from moving the group it has just taken on.
	if !a.seeded {
		a.seeded = true
		a.recs = append(a.recs, rec{at, current})
	}
	up, down := raw, raw
	keep := a.recs[:0]
	for _, r := range a.recs {
		inUp := at-r.at < s.ScaleUpStabilization
		inDown := at-r.at < s.ScaleDownStabilization
		if inUp {
			up = min(up, r.n)
		}
		if inDown {
			down = max(down, r.n)
		}
		if inUp || inDown {
			keep = append(keep, r)
		}
	}
	a.recs = append(keep, rec{at, raw})
	want, reason := current, "within tolerance"
	if raw != current {
		reason = "the metric's recommendation"
	}
	if want < up {
		want = up
	}
	if want > down {
		want = down
	}
	if want != raw {
		if raw > current {
			reason = "scale-up limited by the scale-up stabilisation window"
		} else {
			reason = "scale-down limited by the scale-down stabilisation window"
		}
	}
	if want > current {
		added := 0
		kept := a.ups[:0]
		for _, u := range a.ups {
			if at-u.at < ScaleUpPeriod {
				added += u.n
				kept = append(kept, u)
			}
		}
		a.ups = kept
		start := current - added
		limit := max(2*start, start+4)
		if want > limit {
			want, reason = limit, "scale-up limited by the default policy (100% or 4 per 15 s)"
		}
	}
	lo := max(s.MinReplicaCount, 1)
	if want < lo {
		want, reason = lo, "clamped to minReplicaCount"
	}
	if want > s.MaxReplicaCount {
		want, reason = s.MaxReplicaCount, "clamped to maxReplicaCount"
	}
	if want > current {
		a.upEvent(at, want-current)
	}
	return want, reason
}

func (a *Autoscaler) upEvent(at time.Duration, n int) {
	a.ups = append(a.ups, rec{at, n})
}

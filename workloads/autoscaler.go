package workloads

import (
	"errors"
	"fmt"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/chaosbench/chaosbench/internal/autoscale"
	"github.com/chaosbench/chaosbench/internal/vocab"
)

// Autoscaler sizes the group from its lag during the run, as KEDA's Kafka
// scaler and the Kubernetes HPA size a Deployment: its fields are KEDA's
// settings by their KEDA names (internal/autoscale holds the decision).
// KEDA writes its periods in seconds; here they are durations.
type Autoscaler struct {
	// LagThreshold is the lag per member the HPA aims at (lagThreshold).
	LagThreshold int64 `json:"lagThreshold"`
	// ActivationLagThreshold is the total lag above which the scaler is
	// active (activationLagThreshold).
	ActivationLagThreshold int64 `json:"activationLagThreshold"`
	// MinReplicaCount and MaxReplicaCount bound the group's size.
	MinReplicaCount int `json:"minReplicaCount"`
	MaxReplicaCount int `json:"maxReplicaCount"`
	// PollingInterval is the time between two reads of the lag and two
	// decisions (pollingInterval).
	PollingInterval time.Duration `json:"pollingInterval"`
	// CooldownPeriod is how long the scaler must have been inactive before
	// a group with minReplicaCount 0 goes to zero (cooldownPeriod).
	CooldownPeriod time.Duration `json:"cooldownPeriod"`
	// ScaleUpStabilizationWindow and ScaleDownStabilizationWindow are the
	// HPA's behavior.scaleUp/scaleDown.stabilizationWindowSeconds.
	ScaleUpStabilizationWindow   time.Duration `json:"scaleUpStabilizationWindow"`
	ScaleDownStabilizationWindow time.Duration `json:"scaleDownStabilizationWindow"`
	// AllowIdleConsumers lets the group grow beyond the partition count.
	AllowIdleConsumers bool `json:"allowIdleConsumers"`
	// LimitToPartitionsWithLag caps the group at the partitions with lag.
	LimitToPartitionsWithLag bool `json:"limitToPartitionsWithLag"`
	// EnsureEvenDistributionOfPartitions keeps the size a divisor of the
	// partition count.
	EnsureEvenDistributionOfPartitions bool `json:"ensureEvenDistributionOfPartitions"`
}

// Settings returns the autoscaler's settings as internal/autoscale takes
// them.
func (a *Autoscaler) Settings() autoscale.Settings {
	return autoscale.Settings{
		LagThreshold:                       a.LagThreshold,
		ActivationLagThreshold:             a.ActivationLagThreshold,
		MinReplicaCount:                    a.MinReplicaCount,
		MaxReplicaCount:                    a.MaxReplicaCount,
		PollingInterval:                    a.PollingInterval,
		CooldownPeriod:                     a.CooldownPeriod,
		ScaleUpStabilization:               a.ScaleUpStabilizationWindow,
		ScaleDownStabilization:             a.ScaleDownStabilizationWindow,
		AllowIdleConsumers:                 a.AllowIdleConsumers,
		LimitToPartitionsWithLag:           a.LimitToPartitionsWithLag,
		EnsureEvenDistributionOfPartitions: a.EnsureEvenDistributionOfPartitions,
	}
}

// defaultAutoscaler is KEDA's and the HPA's defaults.
func defaultAutoscaler() *Autoscaler {
	d := autoscale.Defaults()
	return &Autoscaler{
		LagThreshold:                 d.LagThreshold,
		MinReplicaCount:              d.MinReplicaCount,
		MaxReplicaCount:              d.MaxReplicaCount,
		PollingInterval:              d.PollingInterval,
		CooldownPeriod:               d.CooldownPeriod,
		ScaleDownStabilizationWindow: d.ScaleDownStabilization,
	}
}

// autoscaler reads the autoscaler section; fields not written keep KEDA's
// defaults.
func (d *decoder) autoscaler(n *yaml.Node, field string, out **Autoscaler) {
	a := defaultAutoscaler()
	*out = a
	count := func(p *int) func(v *yaml.Node, f string) {
		return func(v *yaml.Node, f string) {
			n, _ := d.integer(v, f, "a number of members (an integer)")
			*p = int(n)
		}
	}
	d.mapping(n, field, fieldFuncs{
		"lagThreshold": func(v *yaml.Node, f string) {
			a.LagThreshold, _ = d.integer(v, f, "a lag in records (an integer >= 1)")
		},
		"activationLagThreshold": func(v *yaml.Node, f string) {
			a.ActivationLagThreshold, _ = d.integer(v, f, "a lag in records (an integer >= 0)")
		},
		"minReplicaCount":              count(&a.MinReplicaCount),
		"maxReplicaCount":              count(&a.MaxReplicaCount),
		"pollingInterval":              func(v *yaml.Node, f string) { a.PollingInterval, _ = d.duration(v, f) },
		"cooldownPeriod":               func(v *yaml.Node, f string) { a.CooldownPeriod, _ = d.duration(v, f) },
		"scaleUpStabilizationWindow":   func(v *yaml.Node, f string) { a.ScaleUpStabilizationWindow, _ = d.duration(v, f) },
		"scaleDownStabilizationWindow": func(v *yaml.Node, f string) { a.ScaleDownStabilizationWindow, _ = d.duration(v, f) },
		"allowIdleConsumers":           func(v *yaml.Node, f string) { a.AllowIdleConsumers, _ = d.boolean(v, f) },
		"limitToPartitionsWithLag":     func(v *yaml.Node, f string) { a.LimitToPartitionsWithLag, _ = d.boolean(v, f) },
		"ensureEvenDistributionOfPartitions": func(v *yaml.Node, f string) {
			a.EnsureEvenDistributionOfPartitions, _ = d.boolean(v, f)
		},
	})
}

// autoscaler checks the autoscaler section: KEDA's own rules and bounds
// (autoscale.Settings.Validate), a group size the schema allows, an
// initial group within the replica bounds, and no chaos step that acts on
// members: the autoscaler owns the group's membership.
func (v *validator) autoscaler() {
	a := v.s.Autoscaler
	if a == nil {
		return
	}
	var ae *autoscale.Error
	if err := a.Settings().Validate(); errors.As(err, &ae) {
		v.errf("autoscaler."+ae.Field, "%s", ae.Msg)
		return
	}
	if a.MaxReplicaCount > MaxMembers {
		v.errf("autoscaler.maxReplicaCount", "%d: expected at most %d (the most members a workload may run)", a.MaxReplicaCount, MaxMembers)
	}
	if m := v.s.Consumer.Members; v.ok("consumer.members") && (m < a.MinReplicaCount || m > a.MaxReplicaCount) {
		v.errf("consumer.members", "%d: with an autoscaler, expected the initial group within minReplicaCount and maxReplicaCount (%d to %d)",
			m, a.MinReplicaCount, a.MaxReplicaCount)
	}
	if a.PollingInterval > v.s.Chaos.DrainTimeout && v.ok("chaos.drain_timeout") {
		v.warnf("autoscaler.pollingInterval", "%v is longer than chaos.drain_timeout (%v): the autoscaler acts at most once in the drain",
			a.PollingInterval, v.s.Chaos.DrainTimeout)
	}
	for i, st := range v.s.Chaos.Steps {
		switch st.Action {
		case vocab.ActionAddPartitions, vocab.ActionBrokerKill, vocab.ActionBrokerRestart:
		default:
			f := fmt.Sprintf("chaos.steps[%d].action", i)
			if v.ok(f) {
				v.errf(f, "%s with an autoscaler: the autoscaler owns the group's members; expected add_partitions, broker_kill or broker_restart", st.Action)
			}
		}
	}
}

package workloads

import (
	"time"

	"go.yaml.in/yaml/v3"
)

// Targets are what a team needs of its consumer group: the peak rate it
// must keep up with and its tolerance for lag and for what a crash or a
// deploy costs. They change nothing in a run; a capacity sweep (`chaos
// sweep`, docs/capacity.md) judges every configuration it measured
// against them and names the smallest one that meets them all. A target
// left out (zero) is not checked.
type Targets struct {
	// Rate is the peak rate the group must sustain (records/s), also with
	// one member crashed. Default: the producer's peak rate, when it is
	// limited. A sweep's target cells run at this rate.
	Rate float64 `json:"rate,omitempty"`
	// MaxLag is the most records the group may be behind at the target
	// rate, outside disruptions.
	MaxLag int64 `json:"max_lag,omitempty"`
	// MaxPause is the longest a partition may go without processing after
	// a crash or during a rolling deploy.
	MaxPause time.Duration `json:"max_pause,omitempty"`
	// MaxCatchUp is the longest the group may take to drain the backlog a
	// crash leaves, at its capacity with one member fewer.
	MaxCatchUp time.Duration `json:"max_catch_up,omitempty"`
	// Production is the size of the real group, when it is larger than a
	// test cluster can hold: the report models its rebalances and
	// extrapolates the measured capacity to it, marked as a model.
	Production *Production `json:"production,omitempty"`
}

// Production is the size of the group in production.
type Production struct {
	Members    int `json:"members"`
	Partitions int `json:"partitions"`
}

// Limits of the production group the models are run on: the sizes
// `make bench-assign` times them on.
const (
	MaxProductionMembers    = 10_000
	MaxProductionPartitions = 100_000
)

func (d *decoder) targets(n *yaml.Node, field string, t *Targets) {
	dur := func(dst *time.Duration) func(v *yaml.Node, f string) {
		return func(v *yaml.Node, f string) { *dst, _ = d.duration(v, f) }
	}
	d.mapping(n, field, fieldFuncs{
		"rate": func(v *yaml.Node, f string) {
			t.Rate, _ = d.number(v, f, "a rate in records/s (a number > 0)")
		},
		"max_lag": func(v *yaml.Node, f string) {
			t.MaxLag, _ = d.integer(v, f, "a number of records (an integer >= 1)")
		},
		"max_pause":    dur(&t.MaxPause),
		"max_catch_up": dur(&t.MaxCatchUp),
		"production": func(v *yaml.Node, f string) {
			t.Production = &Production{}
			d.mapping(v, f, fieldFuncs{
				"members": func(v *yaml.Node, f string) {
					m, _ := d.integer(v, f, "a number of members (an integer >= 1)")
					t.Production.Members = int(m)
				},
				"partitions": func(v *yaml.Node, f string) {
					p, _ := d.integer(v, f, "a partition count (an integer >= 1)")
					t.Production.Partitions = int(p)
				},
			})
		},
	})
}

// applyTargetDefaults gives the target rate the producer's peak rate when
// the file sets none.
func (s *Spec) applyTargetDefaults() {
	if !s.set("targets.rate") {
		s.Targets.Rate = s.PeakRate()
	}
}

// PeakRate is the producer's highest target rate over the schedule (its
// constant rate, the end of its ramp, its steps); 0 when some stretch is
// unlimited.
func (s *Spec) PeakRate() float64 {
	p := s.Producer
	if p.Rate == 0 {
		return 0
	}
	peak := p.Rate
	for _, st := range p.Steps {
		if st.Rate == 0 {
			return 0
		}
		peak = max(peak, st.Rate)
	}
	return peak
}

func (v *validator) targets() {
	t := v.s.Targets
	if v.s.set("targets.rate") && !(t.Rate > 0 && t.Rate <= MaxRate) {
		v.errf("targets.rate", "got %v, expected a rate in records/s > 0 and at most %d", t.Rate, MaxRate)
	}
	if v.s.set("targets.max_lag") && (t.MaxLag < 1 || t.MaxLag > MaxRecords) {
		v.errf("targets.max_lag", "got %d, expected a number of records from 1 to %d", t.MaxLag, int64(MaxRecords))
	}
	for _, f := range []struct {
		field string
		d     time.Duration
	}{{"targets.max_pause", t.MaxPause}, {"targets.max_catch_up", t.MaxCatchUp}} {
		if v.s.set(f.field) && (f.d <= 0 || f.d > MaxDuration) {
			v.errf(f.field, "got %v, expected a duration > 0 and at most %v", f.d, MaxDuration)
		}
	}
	if pr := t.Production; pr != nil {
		if !v.s.set("targets.production.members") || !v.s.set("targets.production.partitions") {
			v.errf("targets.production", "expected both members and partitions")
		}
		if v.s.set("targets.production.members") && (pr.Members < 1 || pr.Members > MaxProductionMembers) {
			v.errf("targets.production.members", "got %d, expected a number of members from 1 to %d", pr.Members, MaxProductionMembers)
		}
		if v.s.set("targets.production.partitions") && (pr.Partitions < 1 || pr.Partitions > MaxProductionPartitions) {
			v.errf("targets.production.partitions", "got %d, expected a partition count from 1 to %d", pr.Partitions, MaxProductionPartitions)
		}
	}
}

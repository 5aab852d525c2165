package sweep

import (
	"fmt"
	"math"
	"time"

	"github.com/chaosbench/chaosbench/workloads"
)

// Each point runs the workload twice, as two kinds of run (KindCapacity,
// KindTarget), each from the workload file with the point's settings.

// Point returns the workload with the point's settings, validated again:
// a chaos step may target a member a smaller group does not have.
func (p Point) Spec(file string, data []byte) (*workloads.Spec, error) {
	s, err := workloads.Parse(file, data)
	if err != nil {
		return nil, err
	}
	if err := s.Vary(p.Variation()); err != nil {
		return nil, fmt.Errorf("point %s: %w", p.Label(), err)
	}
	return s, nil
}

// Saturation sizing: the backlog of a capacity run holds what the model
// rate drains in Record.Saturate, within these bounds; at zero processing
// cost (no model) it holds DefaultSaturationRecords.
const (
	minSaturationRecords     = 1_000
	maxSaturationRecords     = 10_000_000
	DefaultSaturationRecords = 200_000
	// DefaultSaturate is how long a capacity run's backlog is sized to
	// take to drain.
	DefaultSaturate = 20 * time.Second
)

// ModelCapacity is the rate (records/s) the workload's group would
// sustain if each member took 1/cost records a second, one record in
// flight, and nothing else limited it: the members that get partitions,
// min(members, partitions), each at 1/cost, and never more than one
// member's rate over the hottest partition's predicted share (a partition
// is consumed by one member). It sizes the capacity runs and is the
// physics the measurements are checked against; it is a model, never
// reported as a measurement. 0 when the cost is 0.
func ModelCapacity(s *workloads.Spec) float64 {
	cost := s.Consumer.Processing.Cost.Seconds()
	if cost <= 0 {
		return 0
	}
	perMember := 1 / cost
	c := float64(min(s.Consumer.Members, s.Topic.Partitions)) * perMember
	if l, err := s.PredictLoad(int32(s.Topic.Partitions)); err == nil {
		if _, h := l.Hottest(); h > 0 {
			c = math.Min(c, perMember/h)
		}
	}
	return c
}

// CapacitySpec is the point's capacity run: the producer as fast as it
// goes (far ahead of any group with a processing cost) with a backlog of
// records the model drains in saturate, no chaos steps, and a drain
// timeout that leaves the group three times that to drain it.
func (p Point) CapacitySpec(file string, data []byte, saturate time.Duration) (*workloads.Spec, error) {
	s, err := p.Spec(file, data)
	if err != nil {
		return nil, err
	}
	n := int64(DefaultSaturationRecords)
	if c := ModelCapacity(s); c > 0 {
		n = int64(math.Ceil(c * saturate.Seconds()))
	}
	n = min(max(n, minSaturationRecords), maxSaturationRecords)
	unlimited := 0.0
	if err := s.Override(workloads.Overrides{Records: &n, Rate: &unlimited, ProducerOnly: true}); err != nil {
		return nil, fmt.Errorf("point %s, capacity run: %w", p.Label(), err)
	}
	s.Chaos.DrainTimeout = max(s.Chaos.DrainTimeout, 3*saturate+time.Minute)
	return s, nil
}

// TargetSpec is the point's target run: the workload as written, its
// producer at the target rate (a constant rate, the ramp and steps
// dropped) when there is one, with its chaos steps.
func (p Point) TargetSpec(file string, data []byte, t workloads.Targets) (*workloads.Spec, error) {
	s, err := p.Spec(file, data)
	if err != nil {
		return nil, err
	}
	pr := s.Producer
	if t.Rate > 0 && (pr.Rate != t.Rate || pr.Ramp != nil || len(pr.Steps) > 0) {
		rate := t.Rate
		if err := s.Override(workloads.Overrides{Rate: &rate}); err != nil {
			return nil, fmt.Errorf("point %s, target run at %v records/s: %w", p.Label(), rate, err)
		}
	}
	return s, nil
}

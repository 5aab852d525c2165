package workloads

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"
)

// Processing is the simulated cost of processing one record: what a
// member spends on each record between taking it from its batch and
// writing its processed event. A workload's consumer section gives it;
// every member of a cell draws its records' costs from it, each member
// from its own seed.
type Processing struct {
	// Cost is the fixed cost, the mean (exponential) or the centre
	// (uniform).
	Cost time.Duration `json:"cost"`
	// Distribution is fixed (Cost), uniform (Cost +- Jitter) or
	// exponential (mean Cost).
	Distribution string `json:"distribution"`
	// Jitter is the half-width of the uniform distribution.
	Jitter time.Duration `json:"jitter,omitempty"`
}

// Processing cost distributions.
const (
	CostFixed       = "fixed"
	CostUniform     = "uniform"
	CostExponential = "exponential"
)

func (p Processing) String() string {
	switch p.Distribution {
	case CostUniform:
		return fmt.Sprintf("uniform %s +- %s", p.Cost, p.Jitter)
	case CostExponential:
		return fmt.Sprintf("exponential, mean %s", p.Cost)
	}
	return fmt.Sprintf("fixed %s", p.Cost)
}

// Sample draws one record's cost.
func (p Processing) Sample(r *rand.Rand) time.Duration {
	switch p.Distribution {
	case CostUniform:
		d := p.Cost - p.Jitter + time.Duration(r.Int64N(int64(2*p.Jitter)+1))
		return max(d, 0)
	case CostExponential:
		return time.Duration(math.Round(r.ExpFloat64() * float64(p.Cost)))
	}
	return p.Cost
}

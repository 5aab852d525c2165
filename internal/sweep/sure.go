package sweep

import "math"

// How sure the recommendation is (docs/capacity.md, "How sure"). The
// judgement takes medians over a point's iterations; a recommendation
// holds run after run when it meets every target in its worst iteration
// too, and the configuration just smaller (the runner-up) misses the
// target that decided against it in every iteration. With one iteration
// nothing says either, and the recommendation is not sure.

// Sureness is how sure the recommendation is.
type Sureness struct {
	// Iterations is the fewest iterations behind the recommendation's
	// figures (its capacity and target runs).
	Iterations int
	// Weak are the targets the recommendation misses in some iteration
	// (met by the median).
	Weak []string
	// RunnerUp is the smallest configuration smaller than the
	// recommendation (fewer members, or as many and fewer partitions);
	// Decided the targets it misses by the median or that could not be
	// judged, and Sometimes those it misses by the median but meets in
	// some iteration.
	RunnerUp           *Config
	Decided, Sometimes []string
	// Sure: at least three iterations, no weak target, and the
	// runner-up (if any) never meets what decided against it.
	Sure bool
}

// MinSureIterations is the fewest iterations a sure recommendation rests on.
const MinSureIterations = 3

// Sure says how sure the recommendation is; nil without one.
func (j *Judgement) Sure() *Sureness {
	b := j.Best
	if b == nil {
		return nil
	}
	s := &Sureness{Iterations: len(b.Row.Capacity)}
	if b.Target {
		s.Iterations = min(s.Iterations, len(b.Row.Target))
	}
	for _, ch := range b.Checks {
		if ch.OK != nil && *ch.OK && !j.meetsAt(b, ch.Target, false) {
			s.Weak = append(s.Weak, ch.Target)
		}
	}
	for _, cf := range j.Configs {
		if cf == b || cf.Meets || !(cf.Row.Members < b.Row.Members || cf.Row.Members == b.Row.Members && cf.Row.Partitions < b.Row.Partitions) {
			continue
		}
		if r := s.RunnerUp; r == nil || cf.Row.Members > r.Row.Members || cf.Row.Members == r.Row.Members && cf.Row.Partitions > r.Row.Partitions {
			s.RunnerUp = cf
		}
	}
	if r := s.RunnerUp; r != nil {
		for _, ch := range r.Checks {
			if ch.OK == nil || !*ch.OK {
				s.Decided = append(s.Decided, ch.Target)
				if ch.OK != nil && j.meetsAt(r, ch.Target, true) {
					s.Sometimes = append(s.Sometimes, ch.Target)
				}
			}
		}
	}
	s.Sure = s.Iterations >= MinSureIterations && len(s.Weak) == 0 && len(s.Sometimes) == 0
	return s
}

// meetsAt reports whether a configuration meets a target in its best
// iteration (best) or its worst one, by the extremes of its spreads.
func (j *Judgement) meetsAt(cf *Config, target string, best bool) bool {
	t := j.Targets
	pick := func(lo, hi float64, higherIsBetter bool) float64 {
		if best == higherIsBetter {
			return hi
		}
		return lo
	}
	switch target {
	case "rate":
		return pick(cf.Capacity.Min, cf.Capacity.Max, true) >= t.Rate
	case "n-1":
		if cl := cf.CrashLeft; cl != nil {
			return pick(cf.MemberRate.Min, cf.MemberRate.Max, true)/cl.MaxShare >= t.Rate
		}
		if cf.NMinus1 != nil && cf.NMinus1.Capacity.N > 0 {
			return pick(cf.NMinus1.Capacity.Min, cf.NMinus1.Capacity.Max, true) >= t.Rate
		}
		return false
	case "max_lag":
		return pick(cf.LagSteady.Min, cf.LagSteady.Max, false) <= float64(t.MaxLag)
	case "max_pause":
		worst := math.Max(nanZero(pick(cf.CrashPause.Min, cf.CrashPause.Max, false)), nanZero(pick(cf.DeployPause.Min, cf.DeployPause.Max, false)))
		return worst <= float64(t.MaxPause.Milliseconds())
	}
	// valid and max_catch_up are judged on the whole of the runs: their
	// verdict stands for every iteration.
	ch := cf.Check(target)
	return ch != nil && ch.OK != nil && *ch.OK
}

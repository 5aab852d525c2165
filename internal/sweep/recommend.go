package sweep

import "math"

// recommend picks the smallest configuration that meets every target:
// fewest members, then fewest partitions, then the shortest crash pause;
// and the smallest of each strategy.
func (j *Judgement) recommend() {
	smaller := func(a, b *Config) bool {
		if a.Row.Members != b.Row.Members {
			return a.Row.Members < b.Row.Members
		}
		if a.Row.Partitions != b.Row.Partitions {
			return a.Row.Partitions < b.Row.Partitions
		}
		return nanInf(a.CrashPause.Median) < nanInf(b.CrashPause.Median)
	}
	for _, cf := range j.Configs {
		if !cf.Meets {
			continue
		}
		if b := j.BestBy[cf.Row.Strategy]; b == nil || smaller(cf, b) {
			j.BestBy[cf.Row.Strategy] = cf
		}
		if j.Best == nil || smaller(cf, j.Best) {
			j.Best = cf
		}
	}
}

// Closest is the configuration that fails the fewest targets (the
// smallest among equals): what the report names when none meets them
// all; nil when no target was judged.
func (j *Judgement) Closest() *Config {
	var best *Config
	bestFailed := math.MaxInt
	for _, cf := range j.Configs {
		failed := 0
		for _, ch := range cf.Checks {
			if ch.OK == nil || !*ch.OK {
				failed++
			}
		}
		if len(cf.Checks) > 0 && failed < bestFailed {
			best, bestFailed = cf, failed
		}
	}
	return best
}

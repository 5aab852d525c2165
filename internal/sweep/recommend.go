package sweep

import "math"

// recommend picks the smallest configuration that meets every target:
// fewest members, then fewest partitions, then the shortest crash pause;
// the smallest of each strategy; and the smallest without idle members
// (no more members than partitions), to offer beside a recommendation
// that keeps some idle.
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
		if cf.Row.Members <= cf.Row.Partitions && (j.BestNoIdle == nil || smaller(cf, j.BestNoIdle)) {
			j.BestNoIdle = cf
		}
	}
}

// Idle reports whether a configuration keeps members without a
// partition: more members than partitions.
func (cf *Config) Idle() bool { return cf.Row.Members > cf.Row.Partitions }

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

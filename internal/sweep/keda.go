package sweep

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/chaosbench/chaosbench/internal/autoscale"
)

// A KEDA ScaledObject for the recommended configuration (docs/capacity.md,
// "A KEDA ScaledObject, derived"): the settings of KEDA's Kafka scaler a
// team autoscaling the group on Kubernetes would start from, each derived
// from the sweep's measurements and targets, with where it comes from.
// Derived, not measured: no run of the sweep autoscaled (a workload's
// autoscaler section measures what such settings cost).

// KEDASetting is one suggested setting: its KEDA name, its value as a
// ScaledObject writes it, and where the value comes from.
type KEDASetting struct {
	Name, Value, From string
}

// ScaledObject suggests KEDA settings for the recommended configuration;
// nil when there is none.
func (j *Judgement) ScaledObject() []KEDASetting {
	b := j.Best
	if b == nil {
		return nil
	}
	var out []KEDASetting
	add := func(name, value, from string, args ...any) {
		out = append(out, KEDASetting{name, value, fmt.Sprintf(from, args...)})
	}
	n, p := b.Row.Members, b.Row.Partitions
	add("maxReplicaCount", strconv.Itoa(n), "the recommended %d members, which meet every target at the target rate", n)
	minN := 1
	if n > 1 && j.Targets.Rate > 0 {
		minN = 2
	}
	if minN == 2 {
		add("minReplicaCount", "2", "a crash must leave a member: one alone leaves nobody to take its partitions")
	} else {
		add("minReplicaCount", "1", "KEDA's floor for a group that must always consume; the sweep has no crash target")
	}
	rate := b.MemberRate.Median
	switch {
	case j.Targets.MaxLag > 0:
		th := max(j.Targets.MaxLag/int64(n), 1)
		add("lagThreshold", strconv.FormatInt(th, 10), "the lag target (%d records) over the %d members: the group grows before its lag reaches the target", j.Targets.MaxLag, n)
	case rate > 0:
		th := max(int64(math.Round(rate*10)), 1)
		add("lagThreshold", strconv.FormatInt(th, 10), "10 s of one member's measured rate (%.0f records/s): without a lag target, a member's backlog it clears in 10 s", rate)
	}
	idle := b.Idle()
	add("allowIdleConsumers", strconv.FormatBool(idle), "%s", map[bool]string{
		true:  fmt.Sprintf("the recommendation keeps %d members on %d partitions: the idle ones are the standby a crash needs", n, p),
		false: fmt.Sprintf("%d members on %d partitions: KEDA's cap at the partition count loses nothing", n, p),
	}[idle])
	even := !idle && p%n == 0
	add("ensureEvenDistributionOfPartitions", strconv.FormatBool(even), "%s", map[bool]string{
		true:  fmt.Sprintf("%d divides %d: every member carries as many partitions; counts that do not divide it give some members more", n, p),
		false: "the recommended count does not divide the partition count (or keeps idle members): even distribution would skip it",
	}[even])
	rec := math.Max(nanZero(b.CrashRecovery.Max), nanZero(b.DeployRecovery.Max))
	if rec > 0 {
		w := time.Duration(math.Ceil(2*rec/1000)) * time.Second
		w = min(max(w, 30*time.Second), autoscale.MaxStabilization)
		add("scaleDown.stabilizationWindowSeconds", strconv.Itoa(int(w.Seconds())), "twice the longest recovery measured after a crash or in a deploy (%.1f s), at least 30 s: a window shorter than a step's recovery lets the group flap", rec/1000)
	} else {
		add("scaleDown.stabilizationWindowSeconds", "300", "the HPA's default: no recovery was measured")
	}
	add("pollingInterval", "30", "KEDA's default: nothing in the sweep bears on it")
	add("cooldownPeriod", "300", "KEDA's default: it only matters with minReplicaCount 0")
	return out
}

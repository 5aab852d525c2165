package summary

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// The results of the checkers, one type per check, as summary.json holds
// them (docs/summary.md gives every field).

// Stats summarises a set of durations, in milliseconds. Percentiles are
// nearest-rank: the p-th percentile of n sorted values is the value at
// rank ceil(p/100*n).
type Stats struct {
	Count int     `json:"count"`
	P50   float64 `json:"p50_ms"`
	P95   float64 `json:"p95_ms"`
	Max   float64 `json:"max_ms"`
	Sum   float64 `json:"sum_ms"`
}

// Disruption is a chaos step or a membership change, and the window until
// every partition it affected was live again (docs/summary.md explains
// how they are derived).
type Disruption struct {
	ID int `json:"id"` // 1-based, in order of start
	// Cause is "chaos" (a chaos step) or "rebalance" (a membership change
	// no chaos step caused: a member joining, a session timeout).
	Cause  string          `json:"cause"`
	Action string          `json:"action,omitempty"`
	Target string          `json:"target,omitempty"`
	Step   int             `json:"step,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Err    string          `json:"err,omitempty"`
	// PartitionsFrom and PartitionsTo are an add_partitions step's
	// partition counts before and after; NewPartitions counts those it
	// created and TakeOnMs is the time the group took to take them all on
	// (the last one's first assignment; absent while one never was).
	PartitionsFrom int      `json:"partitions_from,omitempty"`
	PartitionsTo   int      `json:"partitions_to,omitempty"`
	NewPartitions  int      `json:"new_partitions,omitempty"`
	TakeOnMs       *float64 `json:"take_on_ms,omitempty"`
	// Trigger describes an unplanned disruption: "lost by m3.0",
	// "join m4.0", "revoked by m2.0", "exit m2.0".
	Trigger string `json:"trigger,omitempty"`
	Phase   string `json:"phase,omitempty"` // the phase it started in
	StartT  int64  `json:"start_t"`
	// EndT is the end of the window; 0 when it never ended (Unfinished).
	EndT       int64    `json:"end_t,omitempty"`
	WindowMs   *float64 `json:"window_ms"`
	Unfinished bool     `json:"unfinished,omitempty"`

	// Partitions affected: ownership ended while this disruption was the
	// cause. IdlePartitions had nothing to consume and were measured to
	// their assignment; UnfinishedPartitions were never live again.
	Partitions           int   `json:"partitions"`
	IdlePartitions       int   `json:"idle_partitions,omitempty"`
	UnfinishedPartitions int   `json:"unfinished_partitions,omitempty"`
	Pause                Stats `json:"pause"`
	// TargetPause and OtherPause split Pause into its two populations
	// (docs/summary.md): the pauses of the disruption's own partitions
	// (its subject's, or those it created) and of the others.
	TargetPause      Stats   `json:"target_pause"`
	OtherPause       Stats   `json:"other_pause"`
	PartitionSeconds float64 `json:"partition_seconds"`
	GroupStopMs      float64 `json:"group_stop_ms"`
	// KeptStallMs is the longest a partition that kept its owner through
	// the disruption waited to be processed (docs/summary.md);
	// KeptStallPartition is that partition.
	KeptStallMs        float64  `json:"kept_stall_ms"`
	KeptStallPartition *int32   `json:"kept_stall_partition,omitempty"`
	RecoveryMs         *float64 `json:"recovery_ms"`
	RecoveryNote       string   `json:"recovery_note,omitempty"`
	// RateBefore (records per second) and LagBefore are the steady state
	// the recovery compares with (docs/summary.md).
	RateBefore float64 `json:"rate_before,omitempty"`
	LagBefore  int64   `json:"lag_before,omitempty"`
	Duplicates int64   `json:"duplicates"`
	// UncommittedBound is the cross-check's bound: the records the failed
	// owners had processed at or above the group's committed offset.
	UncommittedBound int64 `json:"uncommitted_bound"`
	// Moved counts partitions whose owner at the end of the window
	// differs from the one at its start; MinMoves the fewest any balanced
	// assignment of the members at the end needed; Reassignments every
	// time a partition went to a member other than its last owner.
	Moved         int `json:"moved"`
	MinMoves      int `json:"min_moves"`
	Reassignments int `json:"reassignments"`
	// Generations counts the distinct group generations (or member
	// epochs) of the assignment events attributed to it.
	Generations int `json:"generations"`
	// MovementKnown is false when the window never closed.
	MovementKnown bool `json:"movement_known"`
	// MovementIn is set when this window overlapped an earlier one: the
	// movement of both is counted once, on disruption MovementIn.
	MovementIn int `json:"movement_in,omitempty"`
}

// PartitionPause is one partition's pause.
type PartitionPause struct {
	Disruption int     `json:"disruption"`
	Partition  int32   `json:"partition"`
	From       string  `json:"from,omitempty"` // the owner that stopped, "m1.0"
	To         string  `json:"to,omitempty"`   // the owner that took over
	StartT     int64   `json:"start_t"`
	Ms         float64 `json:"ms"`
	// Idle: the partition had nothing to consume; measured to the
	// assignment (or resume) instead of the first processed record.
	Idle bool `json:"idle,omitempty"`
	// Unfinished: never live again before the history ended; Ms runs to
	// the end of the history.
	Unfinished bool `json:"unfinished,omitempty"`
	// Target: the partition was the disruption's own (its subject's, or
	// created by it); otherwise the rebalance took it from another member.
	Target bool `json:"target,omitempty"`
}

// PauseResult is the partition pause (docs/design.md, "Partition pause").
type PauseResult struct {
	Check
	// Headline statistics, over the pauses of every disruption that did
	// not start before the steady phase (start, warmup), finished ones
	// only.
	Stats Stats `json:"stats"`
	// TargetStats and OtherStats split Stats into the pauses of the
	// disruptions' own partitions and of the others (docs/summary.md).
	TargetStats      Stats   `json:"target_stats"`
	OtherStats       Stats   `json:"other_stats"`
	PartitionSeconds float64 `json:"partition_seconds"`
	Idle             int     `json:"idle"`
	Unfinished       int     `json:"unfinished"`
	// Pauses lists every pause (bounded by partitions x disruptions).
	Pauses []PartitionPause `json:"pauses"`
}

// GroupStopResult is the group stop (docs/design.md, "Group stop").
type GroupStopResult struct {
	Check
	// MaxMs is the longest stop over the counted disruptions.
	MaxMs float64 `json:"max_ms"`
	// Disruptions counts those with a stop longer than zero.
	Disruptions int `json:"disruptions"`
	// KeptStallMaxMs is the longest stall of a kept partition over the
	// counted disruptions: the stop of the partitions an incremental
	// rebalance did not move. Always set by Analyze; nil in summaries
	// written before it was measured.
	KeptStallMaxMs *float64 `json:"kept_stall_max_ms,omitempty"`
}

// RecoveryResult is the recovery time (docs/design.md, "Recovery time").
type RecoveryResult struct {
	Check
	// MaxMs is the longest recovery over the counted disruptions that
	// recovered; NotRecovered counts those that did not.
	MaxMs        float64 `json:"max_ms"`
	Recovered    int     `json:"recovered"`
	NotRecovered int     `json:"not_recovered"`
	// RateWindowMs and BaselineMs are the windows used (docs/summary.md).
	RateWindowMs float64 `json:"rate_window_ms"`
	BaselineMs   float64 `json:"baseline_ms"`
}

// DuplicatesResult is the duplicate check (docs/design.md, "Duplicate").
type DuplicatesResult struct {
	Check
	Count int64 `json:"count"`
	// Unattributed counts duplicates of partitions that had no ownership
	// change before them.
	Unattributed int64 `json:"unattributed"`
	// ByDisruption maps disruption id to its duplicates.
	ByDisruption map[int]int64 `json:"by_disruption,omitempty"`
	// BeyondUncommitted counts handovers where the duplicates exceeded the
	// records the failed owner had processed above the committed offset
	// (the cross-check).
	BeyondUncommitted int `json:"beyond_uncommitted"`
}

// LossResult is the loss check (docs/design.md, "Loss").
type LossResult struct {
	Check
	Acknowledged int64 `json:"acknowledged"`
	// Lost counts acknowledged records never processed: Skipped (below a
	// processed offset of their partition: the group moved past them) and
	// Tail (above every processed offset: never reached).
	Lost    int64 `json:"lost"`
	Skipped int64 `json:"skipped"`
	Tail    int64 `json:"tail"`
	// Late counts records first processed after the drain phase ended.
	Late int64 `json:"late"`
	// Unacknowledged counts records processed whose produced event has no
	// acknowledgement (an ambiguous or failed send that landed anyway).
	Unacknowledged int64 `json:"unacknowledged_processed"`
	// CommittedAhead counts lost records a commit covered before they
	// were processed (commitahead.go); Unexplained the lost records no
	// commit covered. AheadCommits lists those commits (at most 100, in
	// time order; AheadCommitsTotal counts them all).
	CommittedAhead    int64         `json:"committed_ahead"`
	Unexplained       int64         `json:"unexplained"`
	AheadCommits      []AheadCommit `json:"ahead_commits,omitempty"`
	AheadCommitsTotal int           `json:"ahead_commits_total,omitempty"`
}

// AheadCommit is a commit that covered records before they were
// processed, and lost them: they were never processed.
type AheadCommit struct {
	Member    string `json:"member"` // the committing incarnation, "m2.0"
	Partition int32  `json:"partition"`
	Offset    int64  `json:"offset"` // the committed offset
	T         int64  `json:"t"`
	Auto      bool   `json:"auto,omitempty"`
	// Lost counts the records it lost; Offsets are the first few runs of
	// them ("15-19").
	Lost    int64    `json:"lost"`
	Offsets []string `json:"offsets,omitempty"`
}

// OrderingResult is the per-key ordering check (docs/design.md, "Ordering
// violation").
type OrderingResult struct {
	Check
	Keys int64 `json:"keys"`
	// Reorders counts every reorder; by cause: PartitionChange (the key's
	// records moved partition: partitions were added), Zombie (processed by
	// a member that no longer owned the partition) and SamePartition (the
	// log itself is out of order: a producer without idempotence, or a bug).
	Reorders        int64 `json:"reorders"`
	PartitionChange int64 `json:"partition_change"`
	Zombie          int64 `json:"zombie"`
	SamePartition   int64 `json:"same_partition"`
	// ProducerDuplicates counts records whose producer, key and seq were
	// processed before at another offset: written twice by the producer.
	ProducerDuplicates int64 `json:"producer_duplicates"`
}

// OverlapResult is the zombie check (docs/design.md, "Overlap").
type OverlapResult struct {
	Check
	Events    int64 `json:"events"`
	Incidents int   `json:"incidents"` // distinct (A, p, B)
	// Unowned counts processed events for a partition no member owned.
	Unowned int64 `json:"unowned"`
	// InFlight counts records the target of a chaos step that stops its
	// member processed after the step, before the step reached it (the
	// record in hand: pause.go): neither zombie nor unowned processing.
	InFlight int64 `json:"in_flight"`
}

// NetworkResult follows the members that network steps cut off
// (disconnect, reset): what each did after the step, whether the group
// evicted it, what it processed and committed as a zombie and when it
// learned it had lost its partitions (docs/summary.md, `network`).
type NetworkResult struct {
	// Steps are the network steps on a member that stop it, in step
	// order.
	Steps []NetworkStep `json:"steps"`
	// ZombieRecords, ZombieDuplicates and FailedCommits are the steps'
	// sums.
	ZombieRecords    int64 `json:"zombie_records"`
	ZombieDuplicates int64 `json:"zombie_duplicates"`
	FailedCommits    int64 `json:"failed_commits"`
	// LearnedMaxMs is the longest time, over the steps whose target was
	// evicted and learned it, from the heal to its learning; nil when
	// none was.
	LearnedMaxMs *float64 `json:"learned_max_ms,omitempty"`
}

// NetworkStep is one network step's target, followed.
type NetworkStep struct {
	Step   int    `json:"step"`
	Action string `json:"action"`
	Target string `json:"target"` // the incarnation, m2.0
	StartT int64  `json:"start_t"`
	// HealT is when the fault ended (0: no heal recorded).
	HealT int64 `json:"heal_t,omitempty"`
	// EvictedT is when another member was first assigned a partition the
	// target owned at the step (0: never).
	EvictedT int64 `json:"evicted_t,omitempty"`
	// LearnedT is when the target learned it lost its partitions: it was
	// told so (revoked or lost, of a partition it owned at the step), or
	// given an assignment after its eviction (0: never).
	LearnedT int64 `json:"learned_t,omitempty"`
	// LearnedAfterHealMs is LearnedT - HealT, at least 0, when both are
	// known.
	LearnedAfterHealMs *float64 `json:"learned_after_heal_ms,omitempty"`
	// ZombieRecords are the records the target processed from the step
	// on while another member held their partition under a newer
	// assignment; ZombieDuplicates those of them another member
	// processed too (before or after).
	ZombieRecords    int64 `json:"zombie_records"`
	ZombieDuplicates int64 `json:"zombie_duplicates"`
	// FailedCommits are the target's commits that failed from the step
	// until it learned (until the end when it never did); ZombieCommits
	// its successful commits of partitions another member held then.
	FailedCommits int64 `json:"failed_commits"`
	ZombieCommits int64 `json:"zombie_commits"`
}

// SkewResult is the load skew (docs/design.md, "Skew").
type SkewResult struct {
	Check
	// RecordsPerPartition counts acknowledged records per partition (first
	// processings when the history has no produced events).
	RecordsPerPartition []int64 `json:"records_per_partition"`
	MaxOverMean         float64 `json:"max_over_mean"`
	CV                  float64 `json:"cv"`
	HottestShare        float64 `json:"hottest_share"`
	HottestPartition    int32   `json:"hottest_partition"`
	// Members: records processed per second of ownership, per member
	// (by name, across incarnations).
	Members []MemberLoad `json:"members"`
	// PartitionsPerMember is the assignment at the end of traffic;
	// MaxSpread the largest max-min over the settled assignments.
	PartitionsPerMember map[string]int `json:"partitions_per_member"`
	Spread              int            `json:"spread"`
	MaxSpread           int            `json:"max_spread"`
	// The load each member carried (load.go): LoadMaxOverMean over the
	// run (records per owned second, members owning for at least a
	// second), PartitionsMaxOverMean at the end of traffic, and Load per
	// settled interval (after each disruption).
	LoadMaxOverMean       float64        `json:"load_max_over_mean"`
	PartitionsMaxOverMean float64        `json:"partitions_max_over_mean"`
	Load                  []LoadInterval `json:"load"`
}

// LoadInterval is the load per member in one settled interval: from the
// steady state or a disruption's end to the next pause or the end of
// traffic.
type LoadInterval struct {
	// After is the disruption it follows (0: before the first).
	After   int   `json:"after"`
	StartT  int64 `json:"start_t"`
	EndT    int64 `json:"end_t"`
	Members int   `json:"members"`
	// Records processed in it (redeliveries included); max over mean per
	// member, and partitions per member at its start, max over mean.
	Records               int64   `json:"records"`
	RecordsMaxOverMean    float64 `json:"records_max_over_mean"`
	PartitionsMaxOverMean float64 `json:"partitions_max_over_mean"`
}

// MemberLoad is one member's share of the work.
type MemberLoad struct {
	Member        string  `json:"member"`
	Processed     int64   `json:"processed"`
	OwnedSeconds  float64 `json:"owned_seconds"`
	RecordsPerSec float64 `json:"records_per_owned_second"`
}

// MovementResult is the movement check (docs/design.md, "Movement").
type MovementResult struct {
	Check
	Moved         int `json:"moved"`
	MinMoves      int `json:"min_moves"`
	Reassignments int `json:"reassignments"`
	// Stickiness is MinMoves / Moved over the counted disruptions (1 when
	// nothing moved): 1 is as sticky as a balanced assignment can be.
	Stickiness float64 `json:"stickiness"`
}

// LatencyResult is the produce-to-process latency (docs/design.md, "Latency").
type LatencyResult struct {
	Check
	Steady     LatencySummary `json:"steady"`
	Disruption LatencySummary `json:"disruption"`
	// Overall is both together: every record's first processing after
	// the warmup.
	Overall LatencySummary `json:"overall"`
	// Negative counts records processed before their intended send time
	// (clock skew between hosts); they are recorded as 0.
	Negative int64 `json:"negative"`
	// Overflow counts records whose latency exceeded the histograms' hour;
	// they are recorded as one hour.
	Overflow int64 `json:"overflow"`
}

// LatencySummary summarises one HdrHistogram.
type LatencySummary struct {
	Count int64   `json:"count"`
	Mean  float64 `json:"mean_ms"`
	P50   float64 `json:"p50_ms"`
	P90   float64 `json:"p90_ms"`
	P99   float64 `json:"p99_ms"`
	P999  float64 `json:"p999_ms"`
	Max   float64 `json:"max_ms"`
	// Percentiles is the distribution, for plots.
	Percentiles []Percentile `json:"percentiles,omitempty"`
}

// Percentile is one point of a latency distribution.
type Percentile struct {
	P  float64 `json:"p"`
	Ms float64 `json:"ms"`
}

// Timeline is the group's processing over time in fixed bins, for the
// throughput and lag plots and the recovery time.
type Timeline struct {
	StartT int64   `json:"start_t"`
	BinMs  float64 `json:"bin_ms"`
	// Processed counts processed events per bin (duplicates included);
	// Acked acknowledged produced records; Lag is the group's lag at the
	// end of each bin: the sum over partitions of the highest acknowledged
	// offset minus the highest processed offset (at least 0).
	Processed []int64 `json:"processed"`
	Acked     []int64 `json:"acked"`
	Lag       []int64 `json:"lag"`
	// Marks are the chaos steps and phases, for plots.
	Marks []Mark `json:"marks,omitempty"`
}

// Mark is a labelled instant on the timeline.
type Mark struct {
	T     int64  `json:"t"`
	Label string `json:"label"`
	Kind  string `json:"kind"` // "chaos" or "phase"
}

// HostResult is the host check (docs/summary.md, `host`): whether the
// machine, not the group, set the cell's timings. Figures are over the
// measured time (the steady phase to the end of the drain); a figure the
// history has nothing for is absent.
type HostResult struct {
	Check
	// Measured: the history has probe events or send times; Saturated:
	// a signal passed its threshold, and the timing checks are unknown.
	Measured  bool `json:"measured"`
	Saturated bool `json:"saturated"`
	// Probes counts the probe events read (a process's second each).
	Probes int `json:"probes"`
	// The host's CPU, from the driver's probe: seconds sampled, seconds at
	// or above the busy threshold, the busy share's median and 90th
	// percentile, the stolen share's median, and the cores counted.
	CPUSeconds          int     `json:"cpu_seconds"`
	CPUSaturatedSeconds int     `json:"cpu_saturated_seconds"`
	CPUBusyP50          float64 `json:"cpu_busy_p50"`
	CPUBusyP90          float64 `json:"cpu_busy_p90"`
	CPUStealP50         float64 `json:"cpu_steal_p50"`
	// CPUHarnessP50 is the median share of the host's CPU the harness
	// used (the driver and its descendants: producer, members, a local
	// cluster's brokers); the rest of cpu_busy was other work's.
	CPUHarnessP50 float64 `json:"cpu_harness_p50"`
	// CPUByProcess is each kind of harness process's median share of the
	// host's CPU: driver (with the producer it runs), broker, member_<client>,
	// other.
	CPUByProcess map[string]float64 `json:"cpu_by_process,omitempty"`
	CPUs         int                `json:"cpus,omitempty"`
	// The producer's lag behind its schedule (send minus intended time).
	ProducerLagP99Ms *float64 `json:"producer_lag_p99_ms,omitempty"`
	ProducerLagMaxMs *float64 `json:"producer_lag_max_ms,omitempty"`
	// The harness processes' timer drift, over their per-second maxima.
	DriftP99Ms *float64 `json:"drift_p99_ms,omitempty"`
	DriftMaxMs *float64 `json:"drift_max_ms,omitempty"`
	// The harness processes' scheduling latency: the 99th percentile, each
	// second, of their goroutines' wait to run (Go's runtime), over those
	// per-second figures; reported, not deciding (docs/host-check.md).
	SchedP99Ms *float64 `json:"sched_p99_ms,omitempty"`
	SchedMaxMs *float64 `json:"sched_max_ms,omitempty"`
	// Members' poll-loop overruns no chaos step explains, over their
	// per-second maxima, and the member with the longest.
	OverrunP99Ms  *float64 `json:"overrun_p99_ms,omitempty"`
	OverrunMaxMs  *float64 `json:"overrun_max_ms,omitempty"`
	OverrunMember string   `json:"overrun_member,omitempty"`
	// ExplainedSeconds counts members' seconds left out because a chaos
	// step acted on the member then.
	ExplainedSeconds int `json:"explained_seconds"`
	// GCPauseMaxMs is the longest GC pause any probe saw.
	GCPauseMaxMs float64 `json:"gc_pause_max_ms"`
	// Thresholds are the ones applied (HostOptions).
	Thresholds HostOptions `json:"thresholds"`
}

// HostOptions are the host check's thresholds (docs/summary.md, `host`).
type HostOptions struct {
	// CPUBusy and CPUSeconds: saturated when the host's CPU was at least
	// CPUBusy busy in at least CPUSeconds of the measured seconds.
	// Defaults 0.95 and 0.5.
	CPUBusy, CPUSeconds float64
	// ProducerLag: saturated when the producer's p99 lag behind its
	// schedule exceeds it (ms). Default 100.
	ProducerLag float64
	// Drift: saturated when the harness processes' p99 timer drift
	// exceeds it (ms). Default 50.
	Drift float64
	// Overrun: saturated when a member's poll loop overran by more than
	// this (ms) in a second no chaos step explains. Default 1000.
	Overrun float64
}

// CPUUsers says who used the host's CPU, the heaviest first: "broker 41%,
// member_java 30%, driver 12%"; "" without figures.
func (h HostResult) CPUUsers() string {
	roles := make([]string, 0, len(h.CPUByProcess))
	for r, v := range h.CPUByProcess {
		if v > 0 {
			roles = append(roles, r)
		}
	}
	sort.Slice(roles, func(i, j int) bool {
		a, b := h.CPUByProcess[roles[i]], h.CPUByProcess[roles[j]]
		return a > b || a == b && roles[i] < roles[j]
	})
	parts := make([]string, len(roles))
	for i, r := range roles {
		parts[i] = fmt.Sprintf("%s %.0f%%", r, 100*h.CPUByProcess[r])
	}
	return strings.Join(parts, ", ")
}

// ExactlyOnceResult is what the transactional policy's output showed
// (docs/summary.md, `exactly_once`): the output topic as the verifier
// read it, against the acknowledged input and the members' transactions.
type ExactlyOnceResult struct {
	Check
	// Verified: the verifier read the output topic (its `verified`
	// phase); Settled: every transaction had ended before it did;
	// Complete: both its reads reached every partition's end.
	Verified bool `json:"verified"`
	Settled  bool `json:"settled"`
	Complete bool `json:"complete"`
	// ReadCommitted and ReadUncommitted count the output records read
	// with each isolation level.
	ReadCommitted   int64 `json:"read_committed"`
	ReadUncommitted int64 `json:"read_uncommitted"`
	// OutputDuplicates: committed output records beyond the first of
	// their input record.
	OutputDuplicates int64 `json:"output_duplicates"`
	// LostOutputs: acknowledged input records with no committed output.
	LostOutputs int64 `json:"lost_outputs"`
	// AbortedReads: committed output records written by a transaction
	// that aborted or was never committed; AbortedReadsByCause splits
	// them by the transaction's end.
	AbortedReads        int64            `json:"aborted_reads"`
	AbortedReadsByCause map[string]int64 `json:"aborted_reads_by_cause,omitempty"`
	// Reordered: committed output records of a key whose input sequence
	// number is below one the key's committed output already showed.
	Reordered int64 `json:"reordered"`
	// InvisibleCommits: transactions a member saw commit whose outputs
	// the committed read does not all show.
	InvisibleCommits int64 `json:"invisible_commits"`
	// Transactions begun; Committed and Aborted as their members
	// recorded; Unended: open when their member's history ended (a
	// crash), of which UnendedVisible had their output committed.
	Transactions   int64 `json:"transactions"`
	Committed      int64 `json:"committed"`
	Aborted        int64 `json:"aborted"`
	Unended        int64 `json:"unended"`
	UnendedVisible int64 `json:"unended_visible"`
	// AbortsByCause counts the transactions that did not commit by cause:
	// rebalance, fenced, timeout, shutdown, produce, error, crash.
	AbortsByCause map[string]int64 `json:"aborts_by_cause,omitempty"`
	// WorkRedone counts the records processed in transactions that did
	// not commit: work the group did again, a cost, not a duplicate.
	WorkRedone int64 `json:"work_redone"`
	// CommitLatency is from a transaction's committing event to its
	// committed event: the offsets sent to it and EndTxn.
	CommitLatency Stats `json:"commit_latency"`
	// VisibleLatency is end-to-end: from a record's intended send time
	// to the commit of a transaction that processed it, when its output
	// became visible to a read_committed reader (after the warmup).
	VisibleLatency LatencySummary `json:"visible_latency"`
	// Violations are the kinds of broken promise found, in the order of
	// ViolationKinds, each with its count and its first example.
	Violations []Violation `json:"violations,omitempty"`
}

// The kinds of violation of the exactly-once promise.
const (
	OutputDuplicate = "output_duplicate"
	LostOutput      = "lost_output"
	AbortedRead     = "aborted_read"
	ReorderedOutput = "reordered_output"
	InvisibleCommit = "invisible_commit"
)

// ViolationKinds are the kinds of violation, in the order they are
// listed.
var ViolationKinds = []string{OutputDuplicate, LostOutput, AbortedRead, ReorderedOutput, InvisibleCommit}

// Violation is one kind of broken exactly-once promise: how many, and
// the first instance found, with the transactions involved.
type Violation struct {
	Kind    string  `json:"kind"`
	Count   int64   `json:"count"`
	Example Example `json:"example"`
}

// ThroughputResult is the rate at which the group processed the input
// (docs/summary.md, `throughput`): the distinct records processed over
// the time from the first processing to the last (redone work and
// redeliveries included in the time, counted once in the records).
type ThroughputResult struct {
	Records   int64   `json:"records"`
	SpanMs    float64 `json:"span_ms"`
	PerSecond float64 `json:"records_per_second"`
}

// AutoscaleResult is what the autoscaler's scale steps cost
// (docs/summary.md, `autoscale`): absent (nil) when no scale step was
// recorded. A scale step is one decision of the autoscaler: its chaos
// events (an `add` or `stop` per member, with "autoscaler" in their
// params) share its step number, and its disruptions are theirs.
type AutoscaleResult struct {
	// Steps counts the decisions; Ups and Downs by direction.
	Steps int `json:"steps"`
	Ups   int `json:"ups"`
	Downs int `json:"downs"`
	// Flaps counts the decisions whose direction differs from the
	// previous decision's: an up after a down, or a down after an up.
	Flaps int `json:"flaps"`
	// MinMembers and MaxMembers are the smallest and largest group the
	// decisions left (their "to").
	MinMembers int `json:"min_members"`
	MaxMembers int `json:"max_members"`
	// StepPause is, over the decisions, each one's longest partition
	// pause (0 when it paused nothing): count, p50, p95, max (nearest
	// rank), sum.
	StepPause Stats `json:"step_pause"`
	// GroupStopMaxMs is the longest group stop of a scale step's
	// disruption; Duplicates the duplicates attributed to them; Moved the
	// partitions they moved.
	GroupStopMaxMs float64 `json:"group_stop_max_ms"`
	Duplicates     int64   `json:"duplicates"`
	Moved          int     `json:"moved"`
	// LagThreshold is the autoscaler's lagThreshold (from the steps'
	// params); MaxLagPerMember is the highest lag of the timeline over the
	// members the autoscaler had asked for then, and MaxLagOverThreshold
	// that over LagThreshold: above 1, the group fell behind the target
	// the autoscaler aims at.
	LagThreshold        int64   `json:"lag_threshold"`
	MaxLagPerMember     float64 `json:"max_lag_per_member"`
	MaxLagOverThreshold float64 `json:"max_lag_over_threshold"`
	// Decisions lists each decision: when, from and to, its reason, and
	// its cost.
	Decisions []ScaleStep `json:"decisions"`
}

// ScaleStep is one decision of the autoscaler and what it cost.
type ScaleStep struct {
	Step        int     `json:"step"`
	T           int64   `json:"t"`
	Action      string  `json:"action"`
	From        int     `json:"from"`
	To          int     `json:"to"`
	Lag         int64   `json:"lag"`
	Reason      string  `json:"reason,omitempty"`
	PauseMaxMs  float64 `json:"pause_max_ms"`
	GroupStopMs float64 `json:"group_stop_ms"`
	Duplicates  int64   `json:"duplicates"`
	Moved       int     `json:"moved"`
}

// Package summary is summary.json: the types of what the checkers found
// in one cell's history (docs/summary.md), its verdicts, and its reader.
// The analysis (package check) writes it; the reports, the comparisons
// and the capacity sweep read it through this package alone, so that
// nothing that renders a result can run the analysis.
package summary

import (
	"encoding/json"
	"fmt"
)

// SchemaVersion is the version of summary.json (docs/summary.md). It grows
// by one whenever a field changes meaning or is removed; adding a field
// does not change it (readers ignore unknown fields).
const SchemaVersion = 1

// Verdict is a check's answer, as Jepsen's checkers give it.
type Verdict string

// The verdicts, from best to worst.
const (
	// Valid: the history shows none of the anomalies the cell's commit
	// policy forbids.
	Valid Verdict = "valid"
	// Unknown: the history cannot tell (a partial run, unreadable lines,
	// a record still unconsumed when the drain gave up, an inconsistency
	// between commits and redeliveries).
	Unknown Verdict = "unknown"
	// Invalid: an anomaly the cell's commit policy forbids.
	Invalid Verdict = "invalid"
)

func (v Verdict) rank() int {
	switch v {
	case Valid:
		return 0
	case Unknown:
		return 1
	case Invalid:
		return 2
	}
	return 1
}

// Known reports whether v is one of the three verdicts: a verdict this
// build does not know would pass every gate as if it were none.
func (v Verdict) Known() bool { return v == Valid || v == Invalid || v == Unknown }

// Worst returns the worse of two verdicts (invalid > unknown > valid).
func Worst(a, b Verdict) Verdict {
	if a == "" {
		return b
	}
	if b == "" || a.rank() >= b.rank() {
		return a
	}
	return b
}

// Summary is summary.json: everything the checkers found in one cell's
// history. Durations are milliseconds (fields ending in _ms), instants are
// Unix nanoseconds (fields ending in _t), as in the history.
type Summary struct {
	SchemaVersion int      `json:"schema_version"`
	Cell          CellInfo `json:"cell"`
	// Guarantee is what the cell's commit policy promises: at-least-once,
	// at-most-once, none, or unknown (an unrecognised policy).
	Guarantee string  `json:"guarantee"`
	Verdict   Verdict `json:"verdict"`
	// VerdictReasons says, one line per check that is not valid, why.
	VerdictReasons []string `json:"verdict_reasons,omitempty"`

	History     HistoryStats     `json:"history"`
	Disruptions []Disruption     `json:"disruptions"`
	Pause       PauseResult      `json:"pause"`
	GroupStop   GroupStopResult  `json:"group_stop"`
	Recovery    RecoveryResult   `json:"recovery"`
	Duplicates  DuplicatesResult `json:"duplicates"`
	Loss        LossResult       `json:"loss"`
	Ordering    OrderingResult   `json:"ordering"`
	Overlap     OverlapResult    `json:"overlap"`
	Skew        SkewResult       `json:"skew"`
	Movement    MovementResult   `json:"movement"`
	Latency     LatencyResult    `json:"latency"`
	Host        HostResult       `json:"host"`
	Timeline    Timeline         `json:"timeline"`
	// Findings are anomalies worth a reader's attention, from these
	// checkers and from others (the assignment oracle): each names its
	// checker and kind, and says what it does to the verdict.
	Findings []Finding `json:"findings"`
}

// CellInfo identifies the cell and its run (from cell.json and the
// history's phase events).
type CellInfo struct {
	Cell         string `json:"cell"`
	Strategy     string `json:"strategy"`
	CommitPolicy string `json:"commit_policy"`
	Client       string `json:"client"`
	Iteration    int    `json:"iteration"`
	Topic        string `json:"topic,omitempty"`
	Partitions   int    `json:"partitions"` // at the start
	Members      int    `json:"members"`    // at the start
	// IdempotentProducer is the producer's enable.idempotence, when the
	// cell records it.
	IdempotentProducer *bool  `json:"idempotent_producer,omitempty"`
	Complete           bool   `json:"complete"`
	PartialReason      string `json:"partial_reason,omitempty"`
	DrainComplete      bool   `json:"drain_complete"`
	StartT             int64  `json:"start_t,omitempty"`
	TrafficEndT        int64  `json:"traffic_end_t,omitempty"`
	DrainEndT          int64  `json:"drain_end_t,omitempty"`
}

// HistoryStats counts what the history held.
type HistoryStats struct {
	Files  int              `json:"files"`
	Events int64            `json:"events"`
	ByKind map[string]int64 `json:"by_kind"`
	FirstT int64            `json:"first_t"`
	LastT  int64            `json:"last_t"`
	Acked  int64            `json:"acknowledged"`
	// AckedNoOffset counts produced events acknowledged without their
	// offset (-1): not in Acked, which counts offsets.
	AckedNoOffset int64 `json:"acknowledged_without_offset"`
	Errors        int64 `json:"produce_errors"`
	Ambig         int64 `json:"produce_ambiguous"`
	Commits       int64 `json:"commits"`
	// CommitErrors counts committed events with an error.
	CommitErrors int64 `json:"commit_errors"`
	// BadLines counts lines that could not be read; BadLineExamples holds
	// the first few, with file and line.
	BadLines        int64    `json:"bad_lines"`
	BadLineExamples []string `json:"bad_line_examples,omitempty"`
	// Phases are the driver's phase marks, in order.
	Phases []PhaseMark `json:"phases,omitempty"`
}

// PhaseMark is a phase event.
type PhaseMark struct {
	Phase string `json:"phase"`
	T     int64  `json:"t"`
}

// Check is what every checked property carries: its verdict, what the
// cell's guarantee expects of it, and a few examples.
type Check struct {
	Verdict Verdict `json:"verdict"`
	// Expect says what the cell's commit policy expects, e.g. "no loss
	// (at-least-once)" or "duplicates allowed (at-least-once)".
	Expect string `json:"expect"`
	// Reason says why the verdict is not valid.
	Reason   string    `json:"reason,omitempty"`
	Examples []Example `json:"examples,omitempty"`
}

// Example is one instance of an anomaly; which fields are set depends on
// the anomaly.
type Example struct {
	T          int64    `json:"t,omitempty"`
	Proc       string   `json:"proc,omitempty"`
	Inc        *int     `json:"inc,omitempty"`
	Partition  *int32   `json:"partition,omitempty"`
	Offset     *int64   `json:"offset,omitempty"`
	Offsets    string   `json:"offsets,omitempty"` // a range, "120-134"
	Key        string   `json:"key,omitempty"`
	Seq        *int64   `json:"seq,omitempty"`
	Producer   string   `json:"producer,omitempty"`
	Other      string   `json:"other,omitempty"` // the other member (overlap), "m2.0"
	Disruption int      `json:"disruption,omitempty"`
	Generation *int32   `json:"generation,omitempty"`
	Members    []string `json:"members,omitempty"`
	Partitions []int32  `json:"partitions,omitempty"`
	Detail     string   `json:"detail,omitempty"`
}

// Finding is a named anomaly with a count: from these checkers (kinds
// listed in docs/summary.md) or from another checker, such as the
// assignment oracle of package assign.
type Finding struct {
	Checker string `json:"checker"`
	Kind    string `json:"kind"`
	// Verdict is what the finding does to the cell: invalid, unknown, or
	// valid for a finding that is informative only.
	Verdict  Verdict   `json:"verdict"`
	Count    int64     `json:"count"`
	Message  string    `json:"message"`
	Examples []Example `json:"examples,omitempty"`
}

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
	CPUs          int     `json:"cpus,omitempty"`
	// The producer's lag behind its schedule (send minus intended time).
	ProducerLagP99Ms *float64 `json:"producer_lag_p99_ms,omitempty"`
	ProducerLagMaxMs *float64 `json:"producer_lag_max_ms,omitempty"`
	// The harness processes' timer drift, over their per-second maxima.
	DriftP99Ms *float64 `json:"drift_p99_ms,omitempty"`
	DriftMaxMs *float64 `json:"drift_max_ms,omitempty"`
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

// AddFindings adds findings to a summary and folds their verdicts into the
// cell's. It is the way in for other checkers (the assignment oracle):
// a finding with verdict invalid makes the cell invalid.
func (s *Summary) AddFindings(fs ...Finding) {
	for _, f := range fs {
		if f.Verdict == "" {
			f.Verdict = Valid
		}
		s.Findings = append(s.Findings, f)
		if f.Verdict != Valid {
			s.Verdict = Worst(s.Verdict, f.Verdict)
			s.VerdictReasons = append(s.VerdictReasons, fmt.Sprintf("%s: %s: %s: %s", f.Checker, f.Verdict, f.Kind, f.Message))
		}
	}
}

// RunVerdict is the worst of the cells' verdicts.
func RunVerdict(cells []*Summary) Verdict {
	v := Valid
	for _, c := range cells {
		v = Worst(v, c.Verdict)
	}
	return v
}

// PreSteady reports whether a phase comes before the steady state: the
// driver's start (members joining) and warmup. Disruptions that begin
// then are listed but left out of the headline figures, and latency is
// not recorded then.
func PreSteady(phase string) bool { return phase == "start" || phase == "warmup" }

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

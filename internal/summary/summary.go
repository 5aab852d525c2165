// Package summary is summary.json: the types of what the checkers found
// in one cell's history (docs/summary.md), its verdicts, and its reader.
// The analysis (package check) writes it; the reports, the comparisons
// and the capacity sweep read it through this package alone, so that
// nothing that renders a result can run the analysis.
package summary

import (
	"fmt"
	"strings"
)

// SchemaVersion is the version of summary.json (docs/summary.md). It grows
// by one whenever a field changes meaning or is removed; adding a field
// does not change it (readers ignore unknown fields).
const SchemaVersion = 1

// Revision is the analysis's revision. It grows by one whenever a metric
// is added or a metric's definition changes (docs/summary.md,
// "Revisions"), so that a comparison knows whether two summaries measured
// the same things the same way. A summary of revision 0 was written
// before revisions were recorded.
const Revision = 3

// Analysis says which analysis wrote a summary.
type Analysis struct {
	Revision int `json:"revision"`
	// Chaosbench is the version of the build that analysed.
	Chaosbench string `json:"chaosbench,omitempty"`
}

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
	Analysis      Analysis `json:"analysis"`
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
	Network     NetworkResult    `json:"network"`
	Skew        SkewResult       `json:"skew"`
	Movement    MovementResult   `json:"movement"`
	Latency     LatencyResult    `json:"latency"`
	Throughput  ThroughputResult `json:"throughput"`
	Host        HostResult       `json:"host"`
	// ExactlyOnce is the transactional policy's promise judged on its
	// output topic; absent for the other policies.
	ExactlyOnce *ExactlyOnceResult `json:"exactly_once,omitempty"`
	Timeline    Timeline           `json:"timeline"`
	// Autoscale is what the autoscaler's scale steps cost; nil without
	// an autoscaler.
	Autoscale *AutoscaleResult `json:"autoscale,omitempty"`
	// Findings are anomalies worth a reader's attention, from these
	// checkers and from others (the assignment oracle): each names its
	// checker and kind, and says what it does to the verdict.
	Findings []Finding `json:"findings"`

	// present holds the fields a summary of an older revision has, read
	// from its file (ReadSummary); nil when it has every field of this
	// revision's.
	present map[string]bool
}

// Has reports whether the summary holds a field, by its path in
// summary.json ("pause.other_stats", "group_stop.kept_stall_max_ms"). A
// summary of this revision, or built in code, holds every field; one an
// older analysis wrote may lack a field added since, which unmarshals as
// zero: a reader asks Has before taking that zero for a measurement.
func (s *Summary) Has(path string) bool {
	return s.present == nil || path == "" || s.present[path]
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
	// Transactions are the transactions involved (exactly_once): each
	// that processed the input record, in the order they processed it,
	// or the one the example is about, as "m1.0 #3 committed"
	// (incarnation, transaction number, how it ended).
	Transactions []string `json:"transactions,omitempty"`
	Detail       string   `json:"detail,omitempty"`
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

// WithFields returns a copy of s that holds only the fields of those paths
// (and their parents), as a summary an older analysis wrote would: for
// tests of the readers of old summaries.
func WithFields(s *Summary, paths ...string) *Summary {
	c := *s
	c.present = map[string]bool{}
	for _, p := range paths {
		for {
			c.present[p] = true
			i := strings.LastIndexByte(p, '.')
			if i < 0 {
				break
			}
			p = p[:i]
		}
	}
	return &c
}

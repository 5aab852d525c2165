// Package history is the record of a chaosbench run: what every process
// (producer, member, chaos driver) saw, one JSON object per line, one file
// per process. Runs only append to histories; checkers read them afterwards
// (docs/history.md documents the format field by field).
package history

// Kind names an event kind.
type Kind string

// The event kinds.
const (
	// Produced: the producer got a delivery report for a record.
	Produced Kind = "produced"
	// Assigned, Revoked and Lost change a member's partitions. They are
	// always deltas: partitions added (assigned) or removed (revoked:
	// gracefully, with a chance to commit; lost: without one).
	Assigned Kind = "assigned"
	Revoked  Kind = "revoked"
	Lost     Kind = "lost"
	// Processed: a member finished processing a record. The event's write
	// is the definition of "processed".
	Processed Kind = "processed"
	// Committed: an offset commit for one partition completed (or failed).
	Committed Kind = "committed"
	// Chaos: the chaos driver acted (kill, stop, pause, ...).
	Chaos Kind = "chaos"
	// Member: a member's life: started, stopping (written by the member),
	// spawned, exited (written by the driver, which sees it from outside).
	Member Kind = "member"
	// Phase: the driver marks the run's phases: warmup, steady, chaos,
	// drain, done.
	Phase Kind = "phase"
	// Probe: once a second, how the writing process and its host fared
	// (timer drift, GC pauses, host CPU): its measurements are its params
	// (internal/probe).
	Probe Kind = "probe"
	// Txn: a transactional member's producer transaction began, is being
	// committed, committed, or aborted (State, with the cause in Err; its
	// number in the incarnation in Step).
	Txn Kind = "txn"
	// Output: the verifier read an output record of a transactional cell
	// (State: the isolation level it read with); Partition, Offset, Key,
	// Seq and Producer are the input record's, Target, TargetInc and Step
	// the writing member's incarnation and transaction.
	Output Kind = "output"
	// Clock: the writer measured its clock against the driver's
	// (clock_offset, clock_error), at its start and at its end; the
	// merge corrects the file's times by it (clock.go).
	Clock Kind = "clock"
)

// Transaction states (Txn events) and isolation levels (Output events).
const (
	TxnBegin      = "begin"      // the transaction began: the batch's outputs follow
	TxnCommitting = "committing" // the batch's offsets and the commit are about to be sent
	TxnCommitted  = "committed"  // the commit succeeded
	TxnAborted    = "aborted"    // the transaction ended without a commit; Err says why

	ReadCommitted   = "read_committed"
	ReadUncommitted = "read_uncommitted"
)

// Member states.
const (
	StateSpawned  = "spawned"  // the driver started the process
	StateStarted  = "started"  // the member program is up (it joins next)
	StateJoining  = "joining"  // the member is about to send its first join request
	StateStopping = "stopping" // the member got SIGTERM and is closing
	StateExited   = "exited"   // the driver saw the process exit
)

// Event is one line of a history. Which fields are meaningful depends on
// Kind (docs/history.md); the others are zero and not written.
//
// The fields of produced and processed events, nearly every event, come
// first, in the struct's first 152 bytes: reading an event touches two or
// three cache lines of its 400-odd bytes (the Merger hands events from
// one core to another, where each line read is a transfer). Lines are
// written in the order of fieldSpecs, not of the struct.
type Event struct {
	Kind Kind   `json:"kind"`
	T    int64  `json:"t"`    // Unix time, nanoseconds, of the writer's clock
	Proc string `json:"proc"` // the writing process's name in the run: "producer-0", "m3", "chaos"
	Inc  int    `json:"inc"`  // the writer's incarnation: 0, then +1 per restart

	Partition int32  `json:"partition"`
	Offset    int64  `json:"offset"`
	Key       string `json:"key,omitempty"`
	Seq       int64  `json:"seq"`
	Producer  string `json:"producer,omitempty"`
	IntendedT int64  `json:"intended_t,omitempty"`
	SentT     int64  `json:"sent_t,omitempty"`
	RecordT   int64  `json:"record_t,omitempty"`
	Err       string `json:"err,omitempty"`
	Ambiguous bool   `json:"ambiguous,omitempty"`
	Auto      bool   `json:"auto,omitempty"`
	Gen       int32  `json:"gen,omitempty"`

	Topic      string  `json:"topic,omitempty"`
	Partitions []int32 `json:"partitions,omitempty"`
	MemberID   string  `json:"member_id,omitempty"`

	Action    string `json:"action,omitempty"`
	Target    string `json:"target,omitempty"`
	TargetInc int    `json:"target_inc,omitempty"`
	Step      int    `json:"step,omitempty"`
	// Params holds a chaos step's parameters, or a probe's measurements,
	// as a JSON object, verbatim.
	Params string `json:"params,omitempty"`

	State       string `json:"state,omitempty"`
	Phase       string `json:"phase,omitempty"`
	Strategy    string `json:"strategy,omitempty"`
	Client      string `json:"client,omitempty"`
	Policy      string `json:"policy,omitempty"`
	Group       string `json:"group,omitempty"`
	Host        string `json:"host,omitempty"`
	PID         int    `json:"pid,omitempty"`
	ExitStatus  int    `json:"exit_status,omitempty"`
	Signal      string `json:"signal,omitempty"`
	ClockOffset int64  `json:"clock_offset,omitempty"`
	// ClockError bounds a clock event's ClockOffset: half the round trip
	// of the measurement, ns.
	ClockError int64 `json:"clock_error,omitempty"`
}

// Reset zeroes e, keeping the capacity of its Partitions slice, so that a
// reader can reuse one Event for every line.
func (e *Event) Reset() {
	parts := e.Partitions[:0]
	*e = Event{}
	e.Partitions = parts
}

// hasPartition reports whether the kind carries a partition and offset.
func (k Kind) hasPartition() bool {
	return k == Produced || k == Processed || k == Committed || k == Output
}

// Known reports whether k is one of the documented kinds.
func (k Kind) Known() bool {
	switch k {
	case Produced, Assigned, Revoked, Lost, Processed, Committed, Chaos, Member, Phase, Probe, Txn, Output,
		Clock:
		return true
	}
	return false
}

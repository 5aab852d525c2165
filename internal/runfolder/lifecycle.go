package runfolder

import "time"

// Lifecycle is what every record of a run (run.json, cell.json,
// sweep.json) says of how the thing it records went: when it began, when
// it ended, whether it completed and, when it did not, why. A record is
// written partial when its work begins (Begin) and again when the work
// ends (Finish), so that a driver killed in between leaves a record that
// says so.
type Lifecycle struct {
	Start    time.Time `json:"start"`
	End      time.Time `json:"end,omitzero"`
	Complete bool      `json:"complete"`
	// PartialReason says why the work did not complete: Unfinished until
	// it ends, then the error it ended with.
	PartialReason string `json:"partial_reason,omitempty"`
}

// Unfinished is the reason a record gives while its work runs: read
// afterwards, the work ended without finishing (the driver was killed).
const Unfinished = "incomplete: running, or ended without finishing (killed)"

// Begin marks the work begun at now: partial, with no end, until Finish.
// A record whose work begins again (a resumed sweep) keeps its first
// start.
func (l *Lifecycle) Begin(now time.Time) {
	if l.Start.IsZero() {
		l.Start = now.UTC()
	}
	l.End, l.Complete, l.PartialReason = time.Time{}, false, Unfinished
}

// Finish marks the work ended at now: complete when err is nil, else
// partial with err as the reason.
func (l *Lifecycle) Finish(now time.Time, err error) {
	l.End = now.UTC()
	l.Complete = err == nil
	l.PartialReason = ""
	if err != nil {
		l.PartialReason = err.Error()
	}
}

// Finished reports whether Finish was called since the last Begin.
func (l *Lifecycle) Finished() bool { return !l.End.IsZero() }

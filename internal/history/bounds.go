package history

import "fmt"

// The bounds of a history's values. A value beyond its bound is none a
// chaosbench process writes, and a reader that took it would keep state
// for it: a partition numbered two billion is an array of two billion
// partitions, an incarnation numbered two billion a walk over every one
// before it. Such a line is a LineError, as a line that does not parse
// is: counted by the analysis (the verdict unknown), never a reason to
// allocate (docs/history.md, "Bounds").
const (
	// MaxPartitions bounds partition numbers: 0 to MaxPartitions-1, and
	// -1 where a produced event does not know its partition.
	MaxPartitions = 100_000
	// MaxOffset bounds offsets and per-key sequence numbers (-1: none):
	// 2^40 is years of records in one partition at a million a second,
	// and keeps any sum over partitions within an int64.
	MaxOffset = 1 << 40
	// MaxIncarnation bounds inc and target_inc.
	MaxIncarnation = 1 << 20
	// MaxStep bounds a chaos event's step.
	MaxStep = 1 << 20
	// MaxTime bounds t, intended_t and sent_t (Unix nanoseconds): 2^62
	// is the year 2116, and below it the difference of any two times is
	// an int64 duration. A time beyond it is none a clock gave.
	MaxTime = 1 << 62
	// MaxClockOffset bounds a clock event's clock_offset (either way)
	// and clock_error: 2^50 ns is thirteen days, beyond any clock that
	// runs a benchmark, and keeps a corrected time within an int64.
	MaxClockOffset = 1 << 50
	// MaxLineBytes bounds a line: events are a few hundred bytes; a longer
	// line is read past, not gathered.
	MaxLineBytes = 1 << 20
)

// checkBounds refuses an event with a value beyond its bound.
func checkBounds(e *Event) error {
	out := func(field string, v, lo, hi int64) error {
		return fmt.Errorf("field %q: %d out of range (expected %d to %d)", field, v, lo, hi)
	}
	switch {
	case e.T < 0 || e.T >= MaxTime:
		return fmt.Errorf("field \"t\": %d, expected a time from 1970 to 2116 (Unix nanoseconds below %d)", e.T, int64(MaxTime))
	case e.Inc < 0 || e.Inc >= MaxIncarnation:
		return out("inc", int64(e.Inc), 0, MaxIncarnation-1)
	case e.TargetInc < 0 || e.TargetInc >= MaxIncarnation:
		return out("target_inc", int64(e.TargetInc), 0, MaxIncarnation-1)
	case e.Partition < -1 || e.Partition >= MaxPartitions:
		return out("partition", int64(e.Partition), -1, MaxPartitions-1)
	case e.Offset < -1 || e.Offset >= MaxOffset:
		return out("offset", e.Offset, -1, MaxOffset-1)
	case e.Seq < -1 || e.Seq >= MaxOffset:
		return out("seq", e.Seq, -1, MaxOffset-1)
	case e.Gen < -1:
		return out("gen", int64(e.Gen), -1, 1<<31-1)
	case e.Step < 0 || e.Step >= MaxStep:
		return out("step", int64(e.Step), 0, MaxStep-1)
	case e.IntendedT < 0 || e.IntendedT >= MaxTime:
		return fmt.Errorf("field \"intended_t\": %d, expected a time from 1970 to 2116 (Unix nanoseconds below %d)", e.IntendedT, int64(MaxTime))
	case e.SentT < 0 || e.SentT >= MaxTime:
		return fmt.Errorf("field \"sent_t\": %d, expected a time from 1970 to 2116 (Unix nanoseconds below %d)", e.SentT, int64(MaxTime))
	case e.ClockOffset <= -MaxClockOffset || e.ClockOffset >= MaxClockOffset:
		return out("clock_offset", e.ClockOffset, -MaxClockOffset+1, MaxClockOffset-1)
	case e.ClockError < 0 || e.ClockError >= MaxClockOffset:
		return out("clock_error", e.ClockError, 0, MaxClockOffset-1)
	case len(e.Partitions) > MaxPartitions:
		return fmt.Errorf("field \"partitions\": %d partitions, expected at most %d", len(e.Partitions), MaxPartitions)
	}
	for _, p := range e.Partitions {
		if p < 0 || p >= MaxPartitions {
			return out("partitions", int64(p), 0, MaxPartitions-1)
		}
	}
	return nil
}

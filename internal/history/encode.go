package history

import (
	"strconv"
	"unicode/utf8"
)

// AppendJSON appends e as one JSON object (no newline) to b. Fields are
// written in a fixed order; zero-valued optional fields are left out, but
// partition, offset and seq are always written for the kinds that carry
// them (partition 0 and offset 0 are real values).
func AppendJSON(b []byte, e *Event) []byte {
	b = append(b, `{"kind":`...)
	b = appendString(b, string(e.Kind))
	b = append(b, `,"t":`...)
	b = strconv.AppendInt(b, e.T, 10)
	b = append(b, `,"proc":`...)
	b = appendString(b, e.Proc)
	b = append(b, `,"inc":`...)
	b = strconv.AppendInt(b, int64(e.Inc), 10)
	b = optString(b, "topic", e.Topic)
	if e.Kind.hasPartition() {
		b = append(b, `,"partition":`...)
		b = strconv.AppendInt(b, int64(e.Partition), 10)
		b = append(b, `,"offset":`...)
		b = strconv.AppendInt(b, e.Offset, 10)
	}
	b = optString(b, "key", e.Key)
	if e.Kind == Produced || e.Kind == Processed {
		b = append(b, `,"seq":`...)
		b = strconv.AppendInt(b, e.Seq, 10)
	}
	b = optString(b, "producer", e.Producer)
	b = optInt(b, "intended_t", e.IntendedT)
	b = optInt(b, "sent_t", e.SentT)
	b = optInt(b, "record_t", e.RecordT)
	if e.Kind == Assigned || e.Kind == Revoked || e.Kind == Lost {
		b = append(b, `,"partitions":[`...)
		for i, p := range e.Partitions {
			if i > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendInt(b, int64(p), 10)
		}
		b = append(b, ']')
	}
	b = optInt(b, "gen", int64(e.Gen))
	b = optString(b, "member_id", e.MemberID)
	b = optString(b, "err", e.Err)
	b = optBool(b, "ambiguous", e.Ambiguous)
	b = optBool(b, "auto", e.Auto)
	b = optString(b, "action", e.Action)
	b = optString(b, "target", e.Target)
	b = optInt(b, "target_inc", int64(e.TargetInc))
	b = optInt(b, "step", int64(e.Step))
	if e.Params != "" {
		b = append(b, `,"params":`...)
		b = append(b, e.Params...)
	}
	b = optString(b, "state", e.State)
	b = optString(b, "phase", e.Phase)
	b = optString(b, "strategy", e.Strategy)
	b = optString(b, "client", e.Client)
	b = optString(b, "policy", e.Policy)
	b = optString(b, "group", e.Group)
	b = optString(b, "host", e.Host)
	b = optInt(b, "pid", int64(e.PID))
	b = optInt(b, "exit_status", int64(e.ExitStatus))
	b = optString(b, "signal", e.Signal)
	b = optInt(b, "clock_offset", e.ClockOffset)
	return append(b, '}')
}

func optString(b []byte, key, v string) []byte {
	if v == "" {
		return b
	}
	b = append(b, ',', '"')
	b = append(b, key...)
	b = append(b, '"', ':')
	return appendString(b, v)
}

func optInt(b []byte, key string, v int64) []byte {
	if v == 0 {
		return b
	}
	b = append(b, ',', '"')
	b = append(b, key...)
	b = append(b, '"', ':')
	return strconv.AppendInt(b, v, 10)
}

func optBool(b []byte, key string, v bool) []byte {
	if !v {
		return b
	}
	b = append(b, ',', '"')
	b = append(b, key...)
	return append(b, `":true`...)
}

const hexDigits = "0123456789abcdef"

// appendString appends s as a JSON string: quotes, backslashes and control
// characters escaped, invalid UTF-8 replaced by U+FFFD. The replacement
// is written as its UTF-8 bytes, as a valid U+FFFD is, so that a line read
// and written again is the same bytes.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, "\uFFFD"...)
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

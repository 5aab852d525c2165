package check

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/chaosbench/chaosbench/internal/history"
)

// The known-answer histories are written by hand in a compact notation,
// testdata/<case>/history.txt, one event (or a run of events) per line:
//
//	T[+STEP xN] PROC[.INC] KIND [field=value ...]
//
// T is milliseconds from the case's origin; "+STEP xN" repeats the line N
// times, STEP ms apart, and every value written "V+" (or "V+K") grows by
// 1 (or K) per repetition. Fields are the history's (docs/history.md),
// with short names p=partition, o=offset, k=key, s=seq,
// parts=partitions (comma-separated), and lat=L for a processed record's
// latency: intended_t is L ms before the event, or it=V[+K] for an
// intended_t of V ms from the origin (growing by K per repetition), st=V[+K]
// likewise for a produced record's sent_t, rt=V[+K] for a processed
// record's record_t (its Kafka timestamp). A key may contain {r},
// the repetition's number. "T PROC raw TEXT" writes TEXT as a line of
// PROC's file verbatim (a malformed line); "T PROC rawtail TEXT" writes it
// as the file's last line, without a newline (a writer cut off). `go test -run TestKnownAnswers -update` writes the
// history/*.jsonl files the checkers read; the test fails if they are
// stale.

// origin is the notation's time zero, in Unix nanoseconds.
const origin = int64(1_700_000_000_000) * 1e6

func parseNotation(path string) ([]history.Event, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var evs []history.Event
	sc := bufio.NewScanner(f)
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if i := strings.Index(text, "#"); i >= 0 {
			text = strings.TrimSpace(text[:i])
		}
		if text == "" {
			continue
		}
		out, err := expandLine(text)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %v", path, line, err)
		}
		evs = append(evs, out...)
	}
	return evs, sc.Err()
}

func expandLine(text string) ([]history.Event, error) {
	w := strings.Fields(text)
	t, err := strconv.ParseFloat(w[0], 64)
	if err != nil {
		return nil, fmt.Errorf("time %q: %v", w[0], err)
	}
	w = w[1:]
	step, n := 0.0, 1
	if len(w) >= 2 && strings.HasPrefix(w[0], "+") && strings.HasPrefix(w[1], "x") {
		if step, err = strconv.ParseFloat(w[0][1:], 64); err != nil {
			return nil, fmt.Errorf("step %q: %v", w[0], err)
		}
		if n, err = strconv.Atoi(w[1][1:]); err != nil {
			return nil, fmt.Errorf("count %q: %v", w[1], err)
		}
		w = w[2:]
	}
	if len(w) < 2 {
		return nil, fmt.Errorf("expected PROC KIND after the time")
	}
	proc, inc := w[0], 0
	if i := strings.LastIndex(proc, "."); i > 0 {
		if inc, err = strconv.Atoi(proc[i+1:]); err != nil {
			return nil, fmt.Errorf("incarnation in %q: %v", proc, err)
		}
		proc = proc[:i]
	}
	kind := history.Kind(w[1])
	if kind == "raw" || kind == "rawtail" {
		// A line written verbatim: a malformed one, or (rawtail) the
		// file's last, cut off before its newline.
		rest := strings.TrimSpace(text[strings.Index(text, " "+string(kind))+len(kind)+1:])
		return []history.Event{{Kind: kind, T: origin + int64(t*1e6), Proc: proc, Inc: inc, Params: rest}}, nil
	}
	if !kind.Known() {
		return nil, fmt.Errorf("unknown kind %q", w[1])
	}
	var out []history.Event
	for r := 0; r < n; r++ {
		tr := t + float64(r)*step
		e := history.Event{Kind: kind, T: origin + int64(tr*1e6), Proc: proc, Inc: inc}
		for _, kv := range w[2:] {
			k, v, ok := strings.Cut(kv, "=")
			if !ok {
				return nil, fmt.Errorf("field %q: expected name=value", kv)
			}
			if err := setField(&e, k, v, r, tr); err != nil {
				return nil, fmt.Errorf("field %q: %v", k, err)
			}
		}
		out = append(out, e)
	}
	return out, nil
}

// grow evaluates "V", "V+" or "V+K" for repetition r.
func grow(v string, r int) (int64, error) {
	base, inc := v, int64(0)
	if i := strings.Index(v[1:], "+"); i >= 0 {
		base = v[:i+1]
		inc = 1
		if rest := v[i+2:]; rest != "" {
			k, err := strconv.ParseInt(rest, 10, 64)
			if err != nil {
				return 0, err
			}
			inc = k
		}
	}
	b, err := strconv.ParseInt(base, 10, 64)
	if err != nil {
		return 0, err
	}
	return b + inc*int64(r), nil
}

func setField(e *history.Event, k, v string, r int, t float64) error {
	num := func() (int64, error) { return grow(v, r) }
	var err error
	var x int64
	switch k {
	case "p", "partition":
		x, err = num()
		e.Partition = int32(x)
	case "o", "offset":
		e.Offset, err = num()
	case "s", "seq":
		e.Seq, err = num()
	case "k", "key":
		e.Key = strings.ReplaceAll(v, "{r}", strconv.Itoa(r))
	case "it":
		x, err = grow(v, r)
		e.IntendedT = origin + x*1e6
	case "st":
		x, err = grow(v, r)
		e.SentT = origin + x*1e6
	case "rt":
		x, err = grow(v, r)
		e.RecordT = origin + x*1e6
	case "lat":
		var f float64
		f, err = strconv.ParseFloat(v, 64)
		e.IntendedT = origin + int64((t-f)*1e6)
	case "parts", "partitions":
		e.Partitions = []int32{}
		for _, s := range strings.Split(v, ",") {
			if s == "" {
				continue
			}
			x, err = strconv.ParseInt(s, 10, 32)
			if err != nil {
				return err
			}
			e.Partitions = append(e.Partitions, int32(x))
		}
	case "gen":
		x, err = num()
		e.Gen = int32(x)
	case "topic":
		e.Topic = v
	case "producer":
		e.Producer = v
	case "err":
		e.Err = strings.ReplaceAll(v, "_", " ")
	case "ambiguous":
		e.Ambiguous = v == "true"
	case "auto":
		e.Auto = v == "true"
	case "action":
		e.Action = v
	case "target":
		if i := strings.LastIndex(v, "."); i > 0 {
			if n, err2 := strconv.Atoi(v[i+1:]); err2 == nil {
				e.Target, e.TargetInc = v[:i], n
				break
			}
		}
		e.Target = v
	case "step":
		x, err = num()
		e.Step = int(x)
	case "params":
		e.Params = v
	case "state":
		e.State = v
	case "phase":
		e.Phase = v
	case "member_id":
		e.MemberID = v
	default:
		return fmt.Errorf("unknown field")
	}
	return err
}

// writeHistories writes events as history files, one per process
// incarnation, into dir (which is emptied of *.jsonl first).
func writeHistories(dir string, evs []history.Event) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	old, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	for _, p := range old {
		os.Remove(p)
	}
	byFile := map[string][]history.Event{}
	for _, e := range evs {
		name := history.FileName(e.Proc, e.Inc)
		byFile[name] = append(byFile[name], e)
	}
	names := make([]string, 0, len(byFile))
	for n := range byFile {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		es := byFile[n]
		sort.SliceStable(es, func(i, j int) bool { return es[i].T < es[j].T })
		var b []byte
		for i := range es {
			switch es[i].Kind {
			case "raw":
				b = append(b, es[i].Params...)
			case "rawtail":
				if i != len(es)-1 {
					return fmt.Errorf("%s: a rawtail line must be the file's last", n)
				}
				b = append(b, es[i].Params...)
				continue // no newline: the writer was cut off
			default:
				b = history.AppendJSON(b, &es[i])
			}
			b = append(b, '\n')
		}
		if err := os.WriteFile(filepath.Join(dir, n), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

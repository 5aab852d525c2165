package check

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/chaosbench/chaosbench/internal/history"
	"github.com/chaosbench/chaosbench/internal/runfolder"
)

// skewClock is the clock of one process of a replayed history: offset
// o(d) = at + (d - from) / per (ns) at driver time d, per 0 for no drift.
type skewClock struct {
	at, per int64
	from    int64
}

func (c skewClock) offset(d int64) int64 {
	if c.per == 0 || d == 0 {
		return c.at
	}
	return c.at + (d-c.from)/c.per
}

// local returns driver time d on this clock; 0 (no time) stays 0.
func (c skewClock) local(d int64) int64 {
	if d == 0 {
		return 0
	}
	return d + c.offset(d)
}

// clocksFor gives each process of a cell a clock: the driver's own
// (chaos) none; the producer 1.5 s behind; members, by file, 2 s ahead,
// drifting by 100 ppm from 0.5 s behind, 0.75 s ahead, 3 s behind, in
// turn (a restarted member gets the next, as if on another host).
func clocksFor(files []string, first map[string]int64) map[string]skewClock {
	out := map[string]skewClock{}
	members := 0
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".jsonl")
		switch {
		case strings.HasPrefix(name, "chaos."):
		case strings.HasPrefix(name, "producer-"):
			out[name] = skewClock{at: -1_500_000_000}
		default:
			switch members % 4 {
			case 0:
				out[name] = skewClock{at: 2_000_000_000}
			case 1:
				// 100 ppm: exact on the histories' times, which are whole
				// milliseconds apart (multiples of the 10 us per ns).
				out[name] = skewClock{at: -500_000_000, per: 10_000, from: first[name]}
			case 2:
				out[name] = skewClock{at: 750_000_000}
			case 3:
				out[name] = skewClock{at: -3_000_000_000}
			}
			members++
		}
	}
	return out
}

// skewCell copies a known-answer cell to a new folder with its history
// replayed on the clocks: every time of each file as that process's clock
// read it, a producer's times copied into processed events as the
// producer's clock read them. With marks, each skewed file gets a clock
// event at its first and last event (its offsets there, error 0), as a
// process that measured its clock writes them. Lines that do not parse
// are copied as they are.
func skewCell(t *testing.T, dir string, marks bool) string {
	t.Helper()
	out := t.TempDir()
	for _, f := range []string{"cell.json", "want.json"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(out, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	hin, hout := runfolder.HistoryDir(dir), runfolder.HistoryDir(out)
	if err := os.MkdirAll(hout, 0o755); err != nil {
		t.Fatal(err)
	}
	files, err := history.Files(hin)
	if err != nil {
		t.Fatal(err)
	}
	// Each file's lines, and its first event's time (the drift's origin).
	lines := map[string][][]byte{}
	first := map[string]int64{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		name := strings.TrimSuffix(filepath.Base(f), ".jsonl")
		lines[name] = bytes.SplitAfter(b, []byte("\n"))
		if n := len(lines[name]); n > 0 && len(lines[name][n-1]) == 0 {
			lines[name] = lines[name][:n-1]
		}
		r, err := history.OpenFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for {
			e, err := r.Next()
			if err == io.EOF {
				break
			}
			if err == nil {
				first[name] = e.T
				break
			}
		}
		r.Close()
	}
	clocks := clocksFor(files, first)
	producers := map[string]skewClock{}
	for name, c := range clocks {
		if strings.HasPrefix(name, "producer-") {
			producers[strings.TrimSuffix(name, ".0")] = c
		}
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".jsonl")
		c, skewed := clocks[name]
		raw := lines[name]
		r, err := history.OpenFile(f)
		if err != nil {
			t.Fatal(err)
		}
		type good struct{ line, local int64 }
		var goods []good
		for {
			e, err := r.Next()
			if err == io.EOF {
				break
			}
			var le *history.LineError
			if errors.As(err, &le) {
				continue
			} else if err != nil {
				t.Fatal(err)
			}
			ev := *e
			ev.T = c.local(ev.T)
			switch ev.Kind {
			case history.Produced:
				ev.IntendedT, ev.SentT = c.local(ev.IntendedT), c.local(ev.SentT)
			case history.Processed:
				if pc, ok := producers[ev.Producer]; ok {
					ev.IntendedT = pc.local(ev.IntendedT)
				}
			}
			if skewed {
				nl := bytes.HasSuffix(raw[r.Line()-1], []byte("\n"))
				b := history.AppendJSON(nil, &ev)
				if nl {
					b = append(b, '\n')
				}
				raw[r.Line()-1] = b
			}
			goods = append(goods, good{int64(r.Line()), ev.T})
		}
		r.Close()
		var b []byte
		mark := func(local int64) {
			ev := history.Event{Kind: history.Clock, T: local, Proc: strings.Split(name, ".")[0], ClockOffset: local - c.driverOf(local)}
			ev.Inc = incOf(name)
			b = append(history.AppendJSON(b, &ev), '\n')
		}
		for i, l := range raw {
			if marks && skewed && len(goods) > 0 && int64(i+1) == goods[0].line {
				mark(goods[0].local)
			}
			b = append(b, l...)
			if marks && skewed && len(goods) > 0 && int64(i+1) == goods[len(goods)-1].line {
				mark(goods[len(goods)-1].local)
			}
		}
		if err := os.WriteFile(filepath.Join(hout, filepath.Base(f)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// driverOf inverts local: the driver time at which this clock read l
// (exact for the test's clocks at the times they are asked about).
func (c skewClock) driverOf(l int64) int64 {
	if c.per == 0 {
		return l - c.at
	}
	// l = d + at + (d - from)/per  =>  d = (l - at + from/per) * per/(per+1)
	return c.from + (l-c.at-c.from)*c.per/(c.per+1)
}

var badLineAt = regexp.MustCompile(`^.*\.jsonl:[0-9]+: `)

func incOf(name string) int {
	i := strings.LastIndexByte(name, '.')
	n := 0
	for _, ch := range name[i+1:] {
		n = n*10 + int(ch-'0')
	}
	return n
}

// comparableSummary returns a summary as generic JSON without what clock
// events add to the history's counts, and with a bad line's example
// quoted without its file and line (the clock events shift the lines).
func comparableSummary(t *testing.T, s *Analysis) map[string]any {
	t.Helper()
	g, err := toGeneric(s)
	if err != nil {
		t.Fatal(err)
	}
	m := g.(map[string]any)
	if h, ok := m["history"].(map[string]any); ok {
		if bk, ok := h["by_kind"].(map[string]any); ok {
			if n, ok := bk["clock"].(float64); ok {
				delete(bk, "clock")
				h["events"] = h["events"].(float64) - n
			}
		}
		if ex, ok := h["bad_line_examples"].([]any); ok {
			for i, x := range ex {
				ex[i] = badLineAt.ReplaceAllString(x.(string), "")
			}
		}
	}
	return m
}

// Every known-answer history, replayed with each process on a clock of
// its own (a member 2 s ahead, one drifting, a producer 1.5 s behind,
// ...) and its clock events written, analyses to exactly the summary of
// the history on one clock. The same replay without its clock events
// (the correction has nothing to go by) gives other metrics: the
// comparison can fail.
func TestKnownAnswersUnderClockOffsets(t *testing.T) {
	cases, err := filepath.Glob("testdata/*/history.txt")
	if err != nil || len(cases) == 0 {
		t.Fatalf("no known-answer cases under testdata (%v)", err)
	}
	sort.Strings(cases)
	wrong := 0
	for _, notation := range cases {
		dir := filepath.Dir(notation)
		base, err := AnalyzeCell(dir, Options{})
		if err != nil {
			t.Fatal(err)
		}
		want := comparableSummary(t, base)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			s, err := AnalyzeCell(skewCell(t, dir, true), Options{})
			if err != nil {
				t.Fatal(err)
			}
			got := comparableSummary(t, s)
			var diffs []string
			matchPartial("", want, got, &diffs)
			if len(diffs) > 0 || !reflect.DeepEqual(want, got) {
				t.Errorf("corrected for the clocks, the summary differs from the one-clock history's: %s", strings.Join(diffs, "\n"))
			}
			raw, err := AnalyzeCell(skewCell(t, dir, false), Options{})
			if err == nil && !reflect.DeepEqual(want, comparableSummary(t, raw)) {
				wrong++
			}
		})
	}
	// Nearly every case measures something across processes; without the
	// correction its numbers move.
	if wrong < len(cases)*3/4 {
		t.Errorf("uncorrected, only %d of %d cases analysed differently: the offsets do not reach the metrics", wrong, len(cases))
	}
	t.Logf("uncorrected, %d of %d cases analyse differently", wrong, len(cases))
}

// The correction is what makes the metrics right: kill-eager's known
// answers, replayed on skewed clocks without clock events, are wrong.
func TestClockOffsetsWithoutCorrectionAreWrong(t *testing.T) {
	dir := "testdata/kill-eager"
	s, err := AnalyzeCell(skewCell(t, dir, false), Options{})
	if err != nil {
		// Reordered beyond what the checkers accept is wrong too.
		return
	}
	got, err := toGeneric(s)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "want.json"))
	if err != nil {
		t.Fatal(err)
	}
	var want any
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	var diffs []string
	matchPartial("", want, got, &diffs)
	if len(diffs) == 0 {
		t.Fatalf("skewed clocks without clock events still give kill-eager's known answers")
	}
	t.Logf("%d known answers differ, e.g. %s", len(diffs), diffs[0])
}

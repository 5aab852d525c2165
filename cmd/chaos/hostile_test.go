package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Hostile input: malformed workloads, histories, run folders and flags,
// given to the commands as a user would give them. Whatever the input,
// a command ends within a bound of time and memory, bad input exits 2
// before anything is written, an echoed value is cut short, and nothing
// is skipped silently. The cases are grouped by what they hold the
// commands to:
//
//  1. every number from a file or a flag has a bound, and arithmetic on
//     durations and counts does not overflow;
//  2. what a client or the broker would refuse later is refused before
//     anything starts;
//  3. every input is checked before the first write, writes never
//     overwrite, and a failed run leaves a record of why;
//  4. an entry of a history folder that is not a readable file is an
//     error naming it, never skipped;
//  5. flags and messages: a zero or negative override is refused, the
//     root mistake comes first, with its line, and values are quoted cut
//     short.
type hostile struct {
	name  string
	setup func(t *testing.T, dir string)
	// bin is "chaos" (the default) or "loadgen"; args run in the case's
	// folder.
	bin  string
	args []string
	// argsFn, when set, gives the arguments at run time.
	argsFn func() []string
	status int
	// stderr must match (multi-line mode: ^ is any line's start); not
	// must not.
	stderr, not string
	// writes: the command may write into its folder (by default only when
	// it exits 0 or 1).
	writes *bool
	check  func(t *testing.T, dir string)
	// limit overrides the case's time limit.
	limit time.Duration
}

const (
	// hostileTime bounds every case: a loop that never ends, or an
	// allocation that grows for minutes, fails it.
	hostileTime = 20 * time.Second
	// hostileMemKB is the address space a case's process may reserve; an
	// unbounded allocation fails there instead of exhausting the machine.
	hostileMemKB = 3 << 20
	// hostileRSS is the resident memory a case may peak at.
	hostileRSS = 600 << 20
	// hostileStderr bounds what a case may print as its error.
	hostileStderr = 64 << 10
)

// hostileBase is a small valid workload the cases take apart.
const hostileBase = `name: probe
seed: 1
duration: 60s
topic: {name: probe, partitions: 4}
consumer:
  members: 3
  session_timeout: 10s
  heartbeat_interval: 1s
  max_poll_interval: 30s
strategies: [range]
chaos:
  warmup: 10s
  drain_timeout: 30s
  steps:
    - {at: 20s, action: kill, target: m2}
`

// big is a value longer than any message should quote.
var big = strings.Repeat("x", 4<<20)

// workload writes w.yaml: hostileBase with each old replaced by new.
func workload(repl ...string) func(t *testing.T, dir string) {
	return func(t *testing.T, dir string) {
		w := hostileBase
		for i := 0; i+1 < len(repl); i += 2 {
			if !strings.Contains(w, repl[i]) {
				t.Fatalf("the base workload has no %q", repl[i])
			}
			w = strings.Replace(w, repl[i], repl[i+1], 1)
		}
		writeFile(t, filepath.Join(dir, "w.yaml"), w)
	}
}

// steps is hostileBase with its chaos steps replaced.
func steps(s string) func(t *testing.T, dir string) {
	return workload("    - {at: 20s, action: kill, target: m2}\n", s)
}

// seedPlus is hostileBase with sections added after its seed.
func seedPlus(s string) func(t *testing.T, dir string) {
	return workload("seed: 1\n", "seed: 1\n"+s+"\n")
}

func writeFile(t *testing.T, path, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// hostileCell copies a known-answer cell into dir/run/name and applies
// edits to its cell.json and its history folder.
func hostileCell(t *testing.T, dir, name, src string, cell func(map[string]any), hist func(t *testing.T, h string)) {
	t.Helper()
	run := filepath.Join(dir, "run")
	c := copyCell(t, src, run)
	if err := os.Rename(c, filepath.Join(run, name)); err != nil {
		t.Fatal(err)
	}
	c = filepath.Join(run, name)
	if cell != nil {
		var m map[string]any
		b, err := os.ReadFile(filepath.Join(c, "cell.json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		cell(m)
		b, _ = json.Marshal(m)
		writeFile(t, filepath.Join(c, "cell.json"), string(b))
	}
	if hist != nil {
		hist(t, filepath.Join(c, "history"))
	}
}

func oneCell(cell func(map[string]any), hist func(t *testing.T, h string)) func(t *testing.T, dir string) {
	return func(t *testing.T, dir string) { hostileCell(t, dir, "c1", "kill-eager", cell, hist) }
}

// twoCells: a good cell first, then one spoilt by hist.
func twoCells(hist func(t *testing.T, h string)) func(t *testing.T, dir string) {
	return func(t *testing.T, dir string) {
		hostileCell(t, dir, "c1", "kill-eager", nil, nil)
		hostileCell(t, dir, "c2", "clean-cooperative", nil, hist)
	}
}

// event is a processed event of kill-eager's m2, in the middle of the
// run, with fields replaced.
func event(fields map[string]any) string {
	e := map[string]any{"kind": "processed", "t": int64(1700000006000000000), "proc": "m2", "inc": 0,
		"partition": 2, "offset": 50, "key": "c", "seq": 50, "producer": "producer-0", "intended_t": int64(1700000005990000000)}
	for k, v := range fields {
		e[k] = v
	}
	b, _ := json.Marshal(e)
	return string(b)
}

// extraFile adds a history file holding lines.
func extraFile(lines ...string) func(t *testing.T, h string) {
	return func(t *testing.T, h string) {
		writeFile(t, filepath.Join(h, "zz.0.jsonl"), strings.Join(lines, "\n")+"\n")
	}
}

// dangling adds a history file that cannot be opened.
func dangling(t *testing.T, h string) {
	if err := os.Symlink(filepath.Join(h, "nothing-here"), filepath.Join(h, "m9.0.jsonl")); err != nil {
		t.Fatal(err)
	}
}

// summaryOf reads a cell's summary.json as a map.
func summaryOf(t *testing.T, cell string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(cell, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// badLineCounted: the analysis counted the hostile line as unreadable and
// the verdict unknown, and the summary is of a bounded size.
func badLineCounted(t *testing.T, dir string) {
	t.Helper()
	c := filepath.Join(dir, "run", "c1")
	if st, err := os.Stat(filepath.Join(c, "summary.json")); err != nil || st.Size() > 1<<20 {
		t.Fatalf("summary.json: %v (size %v)", err, st)
	}
	s := summaryOf(t, c)
	h, _ := s["history"].(map[string]any)
	if n, _ := h["bad_lines"].(float64); n < 1 {
		t.Errorf("bad_lines %v, want the hostile line counted", h["bad_lines"])
	}
	if s["verdict"] != "unknown" && s["verdict"] != "invalid" {
		t.Errorf("verdict %v, want unknown (or invalid for its own reasons)", s["verdict"])
	}
}

// analyzed runs chaos analyze on dir/run first, for cases about what
// report and compare do with existing summaries.
func analyzed(t *testing.T, dir string, edit func(map[string]any)) {
	t.Helper()
	hostileCell(t, dir, "c1", "kill-eager", nil, nil)
	chaos, _ := testBinaries(t)
	if out, err := exec.Command(chaos, "analyze", "-q", filepath.Join(dir, "run")).CombinedOutput(); err != nil {
		t.Fatalf("analyze: %v\n%s", err, out)
	}
	p := filepath.Join(dir, "run", "c1", "summary.json")
	s := summaryOf(t, filepath.Join(dir, "run", "c1"))
	edit(s)
	b, _ := json.Marshal(s)
	writeFile(t, p, string(b))
	// Older than the command's writes would be, whatever the clock's grain.
	old := time.Now().Add(-time.Hour)
	os.Chtimes(p, old, old)
}

func yes() *bool { v := true; return &v }

func hostileCases() []hostile {
	dry := func(a ...string) []string { return append([]string{"run", "--dry-run"}, a...) }
	maxInt := "9223372036854775807"
	var cs []hostile
	add := func(c ...hostile) { cs = append(cs, c...) }

	// 1. Numbers without bounds.
	for _, n := range []string{maxInt, "2147483648", "-9223372036854775808"} {
		add(hostile{name: "add-count-" + n, setup: steps("    - {at: 20s, action: add, count: " + n + "}\n"),
			args: dry("w.yaml"), status: 2, stderr: `chaos\.steps\[0\]\.count: got ` + regexp.QuoteMeta(n)},
			hostile{name: "add-count-" + n + "-plan", setup: steps("    - {at: 20s, action: add, count: " + n + "}\n"),
				bin: "loadgen", args: []string{"plan", "w.yaml"}, status: 2, stderr: `count`})
	}
	add(
		hostile{name: "after-chain", setup: steps("    - {at: 20s, action: kill, target: m2}\n    - {after: 2562047h, action: kill, target: m1}\n    - {after: 2562047h, action: kill, target: m3}\n"),
			args: dry("w.yaml"), status: 2, stderr: `steps\[1\]\.after`, not: `-\d+h`},
		hostile{name: "duration-1000h", setup: workload("duration: 60s", "duration: 1000h"), args: dry("w.yaml"), status: 2, stderr: `:3: duration: got 1000h0m0s, expected at most 24h`},
		hostile{name: "records-maxint", setup: workload("duration: 60s", "records: "+maxInt), args: dry("w.yaml"), status: 2, stderr: `records`},
		hostile{name: "records-maxint-plan", setup: workload("duration: 60s", "records: "+maxInt), bin: "loadgen", args: []string{"plan", "w.yaml"}, status: 2, stderr: `records`},
		hostile{name: "records-at-rate-beyond-a-day", setup: workload("duration: 60s", "records: 1000000000"), args: dry("w.yaml"), status: 2, stderr: `records: 1000000000 records at the producer's rate`},
		hostile{name: "records-unlimited-huge", setup: workload("duration: 60s", "records: 9000000000000000000\nproducer: {rate: unlimited}"), args: dry("w.yaml"), status: 2, stderr: `records`},
		hostile{name: "rolling-interval", setup: steps("    - {at: 20s, action: rolling_restart, interval: 2562047h}\n"), args: dry("w.yaml"), status: 2, stderr: `interval`},
		hostile{name: "processing-cost", setup: workload("  members: 3", "  members: 3\n  processing: {cost: 2562047h, distribution: exponential}"), args: dry("w.yaml"), status: 2, stderr: `cost`},
		hostile{name: "rate-1e300", setup: seedPlus("producer: {rate: 1e300}"), args: dry("w.yaml"), status: 2, stderr: `producer\.rate`},
		hostile{name: "rate-1e300-plan", setup: seedPlus("producer: {rate: 1e300}"), bin: "loadgen", args: []string{"plan", "w.yaml"}, status: 2, stderr: `producer\.rate`},
		hostile{name: "drain-timeout", setup: workload("drain_timeout: 30s", "drain_timeout: 2562047h"), args: dry("w.yaml"), status: 2, stderr: `drain_timeout`},
		hostile{name: "explicit-keys", setup: seedPlus("keys:\n  count: 10\n  distribution: explicit\n  explicit:\n" + strings.Repeat("    - {key: x, share: 0.00001}\n", 20000)), args: dry("w.yaml"), status: 2, stderr: `keys\.explicit: 20000 keys, expected at most`},
		hostile{name: "key-format-width", setup: seedPlus(`keys: {format: "k%99999999999999999999d"}`), args: dry("w.yaml"), status: 2, stderr: `keys\.format`},
		hostile{name: "file-size", setup: func(t *testing.T, dir string) {
			workload()(t, dir)
			writeFile(t, filepath.Join(dir, "w.yaml"), hostileBase+"# "+big+big+"\n")
		},
			args: dry("w.yaml"), status: 2, stderr: `bytes`},
		hostile{name: "cell-partitions-2e9", setup: oneCell(func(c map[string]any) { c["partitions"] = 2000000000 }, nil), args: []string{"analyze", "run"}, status: 2, stderr: `"partitions"`},
		hostile{name: "cell-partitions-2e9-report", setup: oneCell(func(c map[string]any) { c["partitions"] = 2000000000 }, nil), args: []string{"report", "run"}, status: 2, stderr: `"partitions"`},
		hostile{name: "cell-partitions-negative", setup: oneCell(func(c map[string]any) { c["partitions"] = -5 }, nil), args: []string{"analyze", "run"}, status: 2, stderr: `"partitions"`},
		hostile{name: "cell-members-negative", setup: oneCell(func(c map[string]any) { c["members"] = -1 }, nil), args: []string{"analyze", "run"}, status: 2, stderr: `"members"`},
		hostile{name: "cell-iteration-negative", setup: oneCell(func(c map[string]any) { c["iteration"] = -3 }, nil), args: []string{"analyze", "run"}, status: 2, stderr: `"iteration"`},
		hostile{name: "assign-2e9", setup: func(t *testing.T, dir string) {
			writeFile(t, filepath.Join(dir, "g.json"), `{"topics": {"t0": 2000000000}, "members": [{"id": "c0", "topics": ["t0"]}]}`)
		}, args: []string{"assign", "--strategy", "range", "--input", "g.json"}, status: 2, stderr: `partition`},
		hostile{name: "assign-many-topics", setup: func(t *testing.T, dir string) {
			var b strings.Builder
			b.WriteString(`{"topics": {`)
			for i := range 2000 {
				fmt.Fprintf(&b, `"t%d": 1000000,`, i)
			}
			b.WriteString(`"t": 1}, "members": [{"id": "c0", "topics": ["t0"]}]}`)
			writeFile(t, filepath.Join(dir, "g.json"), b.String())
		}, args: []string{"assign", "--strategy", "range", "--input", "g.json"}, status: 2, stderr: `partitions`},
		hostile{name: "churn-topic-2e9", setup: func(t *testing.T, dir string) {
			writeFile(t, filepath.Join(dir, "s.txt"), "topic t0 2000000000\njoin c0 t0\n")
		},
			args: []string{"assign", "--strategy", "range", "--churn", "s.txt"}, status: 2, stderr: `s\.txt:1: .*partition`},
		hostile{name: "churn-all-1e9", setup: func(t *testing.T, dir string) {
			writeFile(t, filepath.Join(dir, "s.txt"), "topic t0 1000000000\njoin c0..c9 t0\n")
		},
			args: []string{"assign", "--strategy", "all", "--churn", "s.txt"}, status: 2, stderr: `partition`},
	)
	for name, line := range map[string]string{
		"partition-2e9":      event(map[string]any{"partition": 2000000000}),
		"partition-beyond":   event(map[string]any{"partition": int64(4000000001)}),
		"partition-negative": event(map[string]any{"partition": -7}),
		"assigned-2e9":       `{"kind":"assigned","t":1700000006000000000,"proc":"m2","inc":0,"partitions":[0,2000000000],"gen":3}`,
		"assigned-negative":  `{"kind":"assigned","t":1700000006000000000,"proc":"m2","inc":0,"partitions":[-3],"gen":3}`,
		"inc-2e9":            `{"kind":"assigned","t":1700000006000000000,"proc":"m2","inc":2000000000,"partitions":[0],"gen":3}`,
		"inc-negative":       event(map[string]any{"inc": -1}),
		"target-inc-huge":    `{"kind":"chaos","t":1700000006000000000,"proc":"chaos","inc":0,"action":"kill","target":"m2","target_inc":9000000000000000000,"step":1}`,
		"offset-negative":    event(map[string]any{"offset": int64(-9000000000000000000)}),
		"offset-huge":        event(map[string]any{"offset": int64(9000000000000000000)}),
		"seq-negative":       event(map[string]any{"seq": int64(-9000000000000000000), "offset": 51}),
		"intended-negative":  event(map[string]any{"intended_t": int64(-9000000000000000000), "offset": 51}),
		"gen-beyond-int32":   `{"kind":"assigned","t":1700000006000000000,"proc":"m2","inc":0,"partitions":[0],"gen":9000000000000}`,
		"step-huge":          `{"kind":"chaos","t":1700000006000000000,"proc":"chaos","inc":0,"action":"kill","target":"m1","target_inc":0,"step":9000000000000000000}`,
		"long-line":          event(map[string]any{"key": strings.Repeat("k", 4<<20)}),
		"many-partitions":    `{"kind":"assigned","t":1700000006000000000,"proc":"m2","inc":0,"gen":3,"partitions":[` + strings.Repeat("1,", 400000) + `1]}`,
	} {
		add(hostile{name: "history-" + name, setup: oneCell(nil, extraFile(line)), args: []string{"analyze", "-fail-on", "never", "run"}, status: 0, check: badLineCounted})
	}

	// 2. Refused by a client or the broker later.
	add(
		hostile{name: "session-2h", setup: workload("session_timeout: 10s", "session_timeout: 2h"), args: dry("w.yaml"), status: 2, stderr: `consumer\.session_timeout: got 2h0m0s, expected at most 1h`},
		hostile{name: "session-600h", setup: workload("session_timeout: 10s", "session_timeout: 600h"), args: dry("w.yaml"), status: 2, stderr: `consumer\.session_timeout`},
		hostile{name: "heartbeat-2h", setup: workload("heartbeat_interval: 1s", "heartbeat_interval: 2h"), args: dry("w.yaml"), status: 2, stderr: `consumer\.heartbeat_interval: got 2h0m0s`},
		hostile{name: "max-poll-25h", setup: workload("max_poll_interval: 30s", "max_poll_interval: 25h"), args: dry("w.yaml"), status: 2, stderr: `consumer\.max_poll_interval`},
		hostile{name: "auto-commit-25h", setup: workload("  max_poll_interval: 30s", "  max_poll_interval: 30s\n  auto_commit_interval: 25h"), args: dry("w.yaml"), status: 2, stderr: `consumer\.auto_commit_interval`},
		hostile{name: "broker-int-abc", setup: seedPlus("broker: {config: {group.initial.rebalance.delay.ms: abc}}"), args: dry("w.yaml"), status: 2, stderr: `broker\.config\.group\.initial\.rebalance\.delay\.ms: got "abc", expected an int`},
		hostile{name: "broker-int-fraction", setup: seedPlus(`broker: {config: {num.partitions: "1.5"}}`), args: dry("w.yaml"), status: 2, stderr: `broker\.config\.num\.partitions`},
		hostile{name: "broker-int-overflow", setup: seedPlus(`broker: {config: {group.initial.rebalance.delay.ms: "3000000000"}}`), args: dry("w.yaml"), status: 2, stderr: `group\.initial\.rebalance\.delay\.ms`},
		hostile{name: "broker-long-overflow", setup: seedPlus(`broker: {config: {log.retention.ms: "99999999999999999999"}}`), args: dry("w.yaml"), status: 2, stderr: `log\.retention\.ms`},
		hostile{name: "broker-boolean", setup: seedPlus("broker: {config: {auto.create.topics.enable: maybe}}"), args: dry("w.yaml"), status: 2, stderr: `auto\.create\.topics\.enable`},
		hostile{name: "broker-misspelt", setup: seedPlus(`broker: {config: {group.initial.rebalance.delay.mz: "0"}}`), args: dry("w.yaml"), status: 2, stderr: `group\.initial\.rebalance\.delay\.mz: .*did you mean group\.initial\.rebalance\.delay\.ms`},
		hostile{name: "broker-good", setup: seedPlus(`broker: {config: {group.initial.rebalance.delay.ms: "0", auto.create.topics.enable: "false", log.retention.ms: "-1"}}`), args: dry("w.yaml"), status: 0},
		hostile{name: "confluent-property-misspelt", setup: workload("  max_poll_interval: 30s", "  max_poll_interval: 30s\n  properties: {fetch.wait.max.mz: \"100\"}"), args: dry("w.yaml"), status: 2, stderr: `fetch\.wait\.max\.mz`},
		hostile{name: "confluent-property-value", setup: workload("  max_poll_interval: 30s", "  max_poll_interval: 30s\n  properties: {fetch.wait.max.ms: abc}"), args: dry("w.yaml"), status: 2, stderr: `fetch\.wait\.max\.ms`},
		hostile{name: "confluent-property-range", setup: workload("  max_poll_interval: 30s", "  max_poll_interval: 30s\n  properties: {fetch.wait.max.ms: \"999999999999\"}"), args: dry("w.yaml"), status: 2, stderr: `fetch\.wait\.max\.ms`},
		hostile{name: "confluent-X-misspelt", setup: workload(), args: dry("-X", "fetch.wait.max.mz=5", "w.yaml"), status: 2, stderr: `fetch\.wait\.max\.mz`},
		hostile{name: "confluent-poll-below-session", setup: workload("max_poll_interval: 30s", "max_poll_interval: 5s"), args: dry("w.yaml"), status: 2, stderr: `max\.poll\.interval\.ms|max_poll_interval`},
		hostile{name: "pause-outlasts-traffic", setup: steps("    - {at: 20s, action: pause, target: m1, duration: 23h}\n"), args: dry("w.yaml"), status: 0, stderr: `warning: .*chaos\.steps\[0\]\.duration: the pause lasts until 23h0m20s, 22h59m20s after the end of traffic`},
		hostile{name: "pause-48h", setup: steps("    - {at: 20s, action: pause, target: m1, duration: 48h}\n"), args: dry("w.yaml"), status: 2, stderr: `chaos\.steps\[0\]\.duration: got 48h0m0s, expected at most 24h`},
		hostile{name: "slow-48h", setup: steps("    - {at: 20s, action: slow, target: m1, duration: 48h}\n"), args: dry("w.yaml"), status: 2, stderr: `chaos\.steps\[0\]\.duration`},
		hostile{name: "run-refuses-before-connecting", setup: workload("  max_poll_interval: 30s", "  max_poll_interval: 30s\n  properties: {fetch.wait.max.mz: \"100\"}"),
			args: []string{"run", "--bootstrap", "127.0.0.1:1", "--results", "res", "w.yaml"}, status: 2, stderr: `fetch\.wait\.max\.mz`},
		hostile{name: "loadgen-refuses-before-connecting", setup: seedPlus("producer: {client: confluent}"), bin: "loadgen",
			args: []string{"run", "--bootstrap", "127.0.0.1:1", "-X", "linger.mz=1", "--out", "o", "w.yaml"}, status: 2, stderr: `linger\.mz`},
	)

	// 3. Written before everything was checked.
	add(
		hostile{name: "analyze-later-cell-unreadable", setup: twoCells(dangling), args: []string{"analyze", "run"}, status: 2, stderr: `run/c2/history/m9\.0\.jsonl`},
		hostile{name: "analyze-later-cell-no-history", setup: twoCells(func(t *testing.T, h string) { os.RemoveAll(h) }), args: []string{"analyze", "run"}, status: 2, stderr: `run/c2/history`},
		hostile{name: "analyze-later-cell-empty-history", setup: twoCells(func(t *testing.T, h string) {
			files, _ := filepath.Glob(filepath.Join(h, "*"))
			for _, f := range files {
				os.Remove(f)
			}
		}), args: []string{"analyze", "run"}, status: 2, stderr: `run/c2/history`},
		hostile{name: "report-later-cell-unreadable", setup: twoCells(dangling), args: []string{"report", "run"}, status: 2, stderr: `run/c2`},
		hostile{name: "report-later-cell-no-history", setup: twoCells(func(t *testing.T, h string) { os.RemoveAll(h) }), args: []string{"report", "run"}, status: 2, stderr: `run/c2/history`},
		hostile{name: "compare-later-side-backwards", setup: func(t *testing.T, dir string) {
			copyCell(t, "kill-eager", filepath.Join(dir, "base"))
			copyCell(t, "kill-eager", filepath.Join(dir, "cand"))
			os.RemoveAll(filepath.Join(dir, "cand", "kill-eager", "history"))
		}, args: []string{"compare", "base", "cand"}, status: 2, stderr: `candidate`},
		hostile{name: "compare-o-exists", setup: func(t *testing.T, dir string) {
			copyCell(t, "kill-eager", filepath.Join(dir, "base"))
			writeFile(t, filepath.Join(dir, "out.md"), "keep me\n")
		}, args: []string{"compare", "-o", "out.md", "base", "base"}, status: 2, stderr: `out\.md`},
		hostile{name: "compare-o-cell-json", setup: func(t *testing.T, dir string) { copyCell(t, "kill-eager", filepath.Join(dir, "base")) },
			args: []string{"compare", "-o", "base/kill-eager/cell.json", "base", "base"}, status: 2, stderr: `cell\.json`},
		hostile{name: "compare-o-no-folder", setup: func(t *testing.T, dir string) { copyCell(t, "kill-eager", filepath.Join(dir, "base")) },
			args: []string{"compare", "-o", "nofolder/x.md", "base", "base"}, status: 2, stderr: `nofolder`},
		hostile{name: "report-schema-99", setup: func(t *testing.T, dir string) { analyzed(t, dir, func(s map[string]any) { s["schema_version"] = 99 }) },
			args: []string{"report", "run"}, status: 2, stderr: `schema_version.*chaos analyze`},
		hostile{name: "compare-schema-99", setup: func(t *testing.T, dir string) { analyzed(t, dir, func(s map[string]any) { s["schema_version"] = 99 }) },
			args: []string{"compare", "run", "run"}, status: 2, stderr: `schema_version`},
		hostile{name: "report-schema-missing", setup: func(t *testing.T, dir string) {
			analyzed(t, dir, func(s map[string]any) { delete(s, "schema_version") })
		},
			args: []string{"report", "run"}, status: 2, stderr: `schema_version`},
		hostile{name: "report-verdict-unknown-word", setup: func(t *testing.T, dir string) { analyzed(t, dir, func(s map[string]any) { s["verdict"] = "bogus" }) },
			args: []string{"report", "-fail-on", "unknown", "run"}, status: 2, stderr: `verdict.*"bogus"`},
		hostile{name: "compare-verdict-unknown-word", setup: func(t *testing.T, dir string) { analyzed(t, dir, func(s map[string]any) { s["verdict"] = "bogus" }) },
			args: []string{"compare", "run", "run"}, status: 2, stderr: `verdict`},
		hostile{name: "report-summary-corrupt", setup: func(t *testing.T, dir string) {
			analyzed(t, dir, func(map[string]any) {})
			writeFile(t, filepath.Join(dir, "run", "c1", "summary.json"), "{not json")
		}, args: []string{"report", "run"}, status: 2, stderr: `summary\.json`},
		hostile{name: "loadgen-failure-recorded", setup: workload(), bin: "loadgen",
			args: []string{"run", "--bootstrap", "127.0.0.1:1", "--out", "o", "--duration", "2s", "w.yaml"}, status: 1, writes: yes(),
			check: func(t *testing.T, dir string) {
				b, err := os.ReadFile(filepath.Join(dir, "o", "summary.json"))
				if err != nil {
					t.Fatalf("a failed loadgen run left no record: %v", err)
				}
				var s struct {
					Complete bool   `json:"complete"`
					Reason   string `json:"partial_reason"`
				}
				if err := json.Unmarshal(b, &s); err != nil || s.Complete || !strings.Contains(s.Reason, "127.0.0.1:1") {
					t.Errorf("summary.json of a failed run: %s (%v), want complete false and the reason", b, err)
				}
			}},
	)

	// 4. Skipped silently.
	entries := map[string]func(t *testing.T, h string){
		"directory": func(t *testing.T, h string) { os.Mkdir(filepath.Join(h, "m9.0.jsonl"), 0o755) },
		"dangling-symlink": func(t *testing.T, h string) {
			os.Symlink(filepath.Join(h, "nothing-here"), filepath.Join(h, "m9.0.jsonl"))
		},
		"fifo":         func(t *testing.T, h string) { syscall.Mkfifo(filepath.Join(h, "m9.0.jsonl"), 0o644) },
		"socket":       func(t *testing.T, h string) { socketAt(t, filepath.Join(h, "m9.0.jsonl")) },
		"symlink-dir":  func(t *testing.T, h string) { os.Symlink(".", filepath.Join(h, "m9.0.jsonl")) },
		"folder":       func(t *testing.T, h string) { os.Mkdir(filepath.Join(h, "old"), 0o755) },
		"lost-members": func(t *testing.T, h string) { moveIntoDir(t, h, "m2.0.jsonl") },
	}
	for name, fn := range entries {
		entry := `m9\.0\.jsonl`
		switch name {
		case "folder":
			entry = `old`
		case "lost-members":
			entry = `m2\.0\.jsonl`
		}
		add(hostile{name: "history-entry-" + name, setup: oneCell(nil, fn), args: []string{"analyze", "run"}, status: 2, stderr: `history/` + entry},
			hostile{name: "history-entry-" + name + "-report", setup: oneCell(nil, fn), args: []string{"report", "run"}, status: 2, stderr: `history/` + entry})
	}

	// 5. Flags and messages.
	for _, a := range [][]string{{"--duration", "-5s"}, {"--duration", "0s"}, {"--records", "-1"}, {"--records", "0"}, {"--repeat", "0"}, {"--repeat", "1000000000"}} {
		add(hostile{name: "run" + strings.Join(a, ""), setup: workload(), args: dry(append(a, "w.yaml")...), status: 2, stderr: regexp.QuoteMeta(a[0])})
	}
	add(hostile{name: "bench--duration-5s", setup: workload(), args: []string{"bench", "--dry-run", "--duration", "-5s", "w.yaml"}, status: 2, stderr: `--duration`})
	for _, a := range [][]string{{"--duration", "-5s"}, {"--records", "0"}, {"--records", "-1"}, {"--rate", "-1"}, {"--rate", "1e300"}, {"--rate", "NaN"}} {
		add(hostile{name: "loadgen" + strings.Join(a, ""), setup: workload(), bin: "loadgen",
			args: append([]string{"run", "--bootstrap", "127.0.0.1:1", "--out", "o"}, append(a, "w.yaml")...), status: 2, stderr: regexp.QuoteMeta(a[0])})
	}
	for _, a := range [][]string{{"-examples", "2000000000"}, {"-grace", "2562047h"}, {"-baseline", "-1s"}, {"-rate-window", "1000h"}} {
		add(hostile{name: "analyze" + strings.Join(a, ""), setup: oneCell(nil, nil), args: append([]string{"analyze"}, append(a, "run")...), status: 2, stderr: regexp.QuoteMeta(a[0])})
	}
	add(
		hostile{name: "records-1-is-valid", setup: func(t *testing.T, dir string) {
			writeFile(t, filepath.Join(dir, "w.yaml"), "records: 1\nstrategies: [range]\n")
		}, args: dry("w.yaml"), status: 0},
		hostile{name: "records-1-is-valid-plan", setup: func(t *testing.T, dir string) {
			writeFile(t, filepath.Join(dir, "w.yaml"), "records: 1\nstrategies: [range]\n")
		}, bin: "loadgen", args: []string{"plan", "w.yaml"}, status: 0},
		hostile{name: "root-brokers", setup: func(t *testing.T, dir string) {
			writeFile(t, filepath.Join(dir, "w.yaml"), "duration: 10s\ntopic: {replication: 3}\nstrategies: [range]\nbroker: {brokers: 2}\n")
		}, args: dry("w.yaml"), status: 2, stderr: `\A[^\n]*w\.yaml:4: broker\.brokers`, not: `replication`},
		hostile{name: "root-duration", setup: workload("duration: 60s", "duration: -1s"), args: dry("w.yaml"), status: 2, stderr: `\A[^\n]*w\.yaml:3: duration`, not: `end of traffic`},
		hostile{name: "root-members", setup: workload("  members: 3", "  members: 0"), args: dry("w.yaml"), status: 2, stderr: `\A[^\n]*consumer\.members`, not: `no member`},
		hostile{name: "root-keys-count", setup: seedPlus("keys: {count: 0, distribution: hotspot, hotspot: {share: 0.5, hot_keys: 3}}"), args: dry("w.yaml"), status: 2, stderr: `\A[^\n]*keys\.count`, not: `hot_keys`},
		hostile{name: "root-partitions", setup: workload("partitions: 4}", "partitions: 0}", "target: m2", `target: "owner:1"`), args: dry("w.yaml"), status: 2, stderr: `\A[^\n]*topic\.partitions`, not: `owner:1`},
		hostile{name: "root-strategy", setup: workload("strategies: [range]", "strategies: [rangee]"), args: dry("w.yaml"), status: 2, stderr: `\A[^\n]*strategies`, not: `topic\.name`},
		hostile{name: "root-session", setup: workload("session_timeout: 10s", "session_timeout: -1s"), args: dry("w.yaml"), status: 2, stderr: `\A[^\n]*session_timeout`, not: `heartbeat`},
	)
	for name, setup := range map[string]func(t *testing.T, dir string){
		"name":       workload("name: probe", "name: "+big),
		"field":      workload("seed: 1\n", "seed: 1\n? "+big+"\n: 1\n"),
		"strategy":   workload("strategies: [range]", "strategies: ["+big+"]"),
		"target":     workload("target: m2", "target: "+big),
		"member":     workload("target: m2", "target: m"+strings.Repeat("9", 4<<20)),
		"key-format": seedPlus(`keys: {format: "` + big + `"}`),
		"property":   workload("  max_poll_interval: 30s", "  max_poll_interval: 30s\n  properties:\n    ? "+big+"\n    : \"1\""),
		"broker":     seedPlus(`broker: {config: {group.initial.rebalance.delay.ms: "` + big + `"}}`),
		"yaml-error": func(t *testing.T, dir string) {
			writeFile(t, filepath.Join(dir, "w.yaml"), "duration: 10s\nname: \""+big+"\n")
		},
		"duration": workload("duration: 60s", "duration: "+strings.Repeat("9", 4<<20)),
		"explicit": seedPlus("keys:\n  count: 10\n  distribution: explicit\n  explicit:\n    - {key: " + big + ", share: 0.1}\n    - {key: " + big + ", share: 0.1}"),
		"many-errors": func(t *testing.T, dir string) {
			var b strings.Builder
			for i := range 5000 {
				fmt.Fprintf(&b, "field%d: 1\n", i)
			}
			writeFile(t, filepath.Join(dir, "w.yaml"), b.String())
		},
	} {
		add(hostile{name: "echo-" + name, setup: setup, args: dry("w.yaml"), status: 2})
	}
	long := strings.Repeat("y", 120000)
	add(
		hostile{name: "echo-flag-strategies", setup: workload(), args: dry("--strategies", long, "w.yaml"), status: 2},
		hostile{name: "echo-flag-X", setup: workload(), args: dry("-X", long+"=1", "w.yaml"), status: 2},
		hostile{name: "echo-flag-X-value", setup: workload(), args: dry("-X", "enable.partition.eof="+long, "w.yaml"), status: 2},
		hostile{name: "echo-flag-threshold", args: []string{"compare", "-threshold", long, "a", "b"}, status: 2},
		hostile{name: "echo-flag-assign-strategy", args: []string{"assign", "--strategy", long, "--input", "x"}, status: 2},
		hostile{name: "echo-flag-fail-on", args: []string{"analyze", "-fail-on", long, "x"}, status: 2},
		hostile{name: "echo-flag-loadgen-rate", setup: workload(), bin: "loadgen", args: []string{"run", "--rate", long, "w.yaml"}, status: 2},
		hostile{name: "echo-cell-strategy", setup: oneCell(func(c map[string]any) { c["strategy"] = big }, nil), args: []string{"analyze", "run"}, status: 2, stderr: `"strategy"`},
		hostile{name: "echo-findings", setup: oneCell(nil, func(t *testing.T, h string) {
			writeFile(t, filepath.Join(filepath.Dir(h), "findings", "x.json"), `[{"checker":"x","kind":"y","verdict":"`+big+`"}]`)
		}), args: []string{"analyze", "run"}, status: 2, stderr: `verdict`},
		hostile{name: "echo-history-line", setup: oneCell(nil, extraFile(`{"kind":"processed","t":1700000006000000000,"proc":"`+big[:900000]+`","x":`+big[:900000]+`}`)),
			args: []string{"analyze", "-fail-on", "never", "run"}, status: 0, check: badLineCounted},
		hostile{name: "echo-assign-member", setup: func(t *testing.T, dir string) {
			writeFile(t, filepath.Join(dir, "g.json"), `{"topics": {"t0": 1}, "members": [{"id": "`+big+`", "topics": ["t0"]}, {"id": "`+big+`", "topics": ["t0"]}]}`)
		}, args: []string{"assign", "--strategy", "range", "--input", "g.json"}, status: 2},
		hostile{name: "echo-churn", setup: func(t *testing.T, dir string) {
			writeFile(t, filepath.Join(dir, "s.txt"), "frobnicate "+big[:100000]+"\n")
		},
			args: []string{"assign", "--strategy", "range", "--churn", "s.txt"}, status: 2},
		hostile{name: "silent-broker-status", argsFn: func() []string { return []string{"cluster", "status", "--bootstrap", silentBroker()} },
			status: 1, stderr: `127\.0\.0\.1:\d+: no answer to ApiVersions within 15s`, limit: 40 * time.Second},
		hostile{name: "silent-broker-loadgen", setup: workload(), bin: "loadgen", argsFn: func() []string {
			return []string{"run", "--bootstrap", silentBroker(), "--out", "o", "w.yaml"}
		}, status: 1, writes: yes(), stderr: `127\.0\.0\.1:\d+: no answer to ApiVersions within 15s`, limit: 40 * time.Second},
	)
	return cs
}

// moveIntoDir puts a history file into a folder of its own name, where
// a reader that skips folders would not see it.
func moveIntoDir(t *testing.T, h, name string) {
	t.Helper()
	p := filepath.Join(h, name)
	tmp := filepath.Join(h, "tmp")
	if err := os.Rename(p, tmp); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(p, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(p, name)); err != nil {
		t.Fatal(err)
	}
}

func socketAt(t *testing.T, path string) {
	t.Helper()
	l, err := net.Listen("unix", path)
	if err != nil {
		t.Skipf("a unix socket: %v", err)
	}
	t.Cleanup(func() { l.Close() })
}

var silent struct {
	l    net.Listener
	addr string
}

// silentBroker is an address that accepts connections and never answers.
func silentBroker() string {
	if silent.l == nil {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			panic(err)
		}
		silent.l, silent.addr = l, l.Addr().String()
		go func() {
			var held []net.Conn
			for {
				c, err := l.Accept()
				if err != nil {
					return
				}
				held = append(held, c)
			}
		}()
	}
	return silent.addr
}

// snapshot lists what a folder holds: path, size, mode and time.
func snapshot(dir string) map[string]string {
	out := map[string]string{}
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil {
			out[p] = fmt.Sprintf("%d %v %d", fi.Size(), fi.Mode(), fi.ModTime().UnixNano())
		}
		return nil
	})
	return out
}

func TestHostileInput(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the commands")
	}
	chaos, loadgen := testBinaries(t)
	for _, c := range hostileCases() {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if c.setup != nil {
				c.setup(t, dir)
			}
			bin := chaos
			if c.bin == "loadgen" {
				bin = loadgen
			}
			args := c.args
			if c.argsFn != nil {
				args = c.argsFn()
			}
			limit := hostileTime
			if c.limit > 0 {
				limit = c.limit
			}
			before := snapshot(dir)
			// The case's process gets a bounded address space (the shell's
			// ulimit, inherited through exec) and is killed past its time.
			cmd := exec.Command("/bin/sh", append([]string{"-c", fmt.Sprintf(`ulimit -v %d && exec "$@"`, hostileMemKB), "sh", bin}, args...)...)
			cmd.Dir = dir
			var errb bytes.Buffer
			cmd.Stderr = &errb
			start := time.Now()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			timer := time.AfterFunc(limit, func() { cmd.Process.Kill() })
			err := cmd.Wait()
			timer.Stop()
			elapsed := time.Since(start)
			status := 0
			if ee, ok := err.(*exec.ExitError); ok {
				status = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			stderr := errb.String()
			head := stderr
			if len(head) > 600 {
				head = head[:600] + "..."
			}
			if elapsed >= limit {
				t.Fatalf("still running after %v (killed); stderr: %s", limit, head)
			}
			if strings.Contains(stderr, "fatal error:") || strings.Contains(stderr, "panic:") {
				t.Fatalf("crashed: %s", head)
			}
			if status != c.status {
				t.Errorf("exit status %d, want %d; stderr: %s", status, c.status, head)
			}
			if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok && ru.Maxrss*1024 > hostileRSS {
				t.Errorf("peak resident memory %d MiB, want at most %d", ru.Maxrss>>10, hostileRSS>>20)
			}
			if len(stderr) > hostileStderr {
				t.Errorf("%d bytes of standard error, want at most %d: %s", len(stderr), hostileStderr, head)
			}
			if c.stderr != "" && !regexp.MustCompile(`(?m)`+c.stderr).MatchString(stderr) {
				t.Errorf("standard error does not match %q: %s", c.stderr, head)
			}
			if c.not != "" && regexp.MustCompile(`(?m)`+c.not).MatchString(stderr) {
				t.Errorf("standard error matches %q, which follows from the root mistake: %s", c.not, head)
			}
			mayWrite := c.status != 2
			if c.writes != nil {
				mayWrite = *c.writes
			}
			if after := snapshot(dir); !mayWrite {
				var wrote []string
				for p, s := range after {
					if before[p] != s {
						wrote = append(wrote, p)
					}
				}
				if len(wrote) > 0 {
					sort.Strings(wrote)
					t.Errorf("wrote %d files: %s", len(wrote), strings.Join(wrote[:min(len(wrote), 4)], ", "))
				}
			}
			if c.check != nil {
				c.check(t, dir)
			}
		})
	}
}

package workloads

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// Hostile workloads: every number has a bound named in its error, and
// arithmetic on durations and counts cannot overflow; what a client would
// refuse later is refused here; the root mistake comes alone, with its
// line; a value is quoted cut short. Each case must fail within a second.

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

// edit returns hostileBase with each old replaced by new.
func edit(t *testing.T, repl ...string) string {
	t.Helper()
	w := hostileBase
	for i := 0; i+1 < len(repl); i += 2 {
		if !strings.Contains(w, repl[i]) {
			t.Fatalf("no %q in the base workload", repl[i])
		}
		w = strings.Replace(w, repl[i], repl[i+1], 1)
	}
	return w
}

const baseStep = "    - {at: 20s, action: kill, target: m2}\n"

// parseWithin parses src, failing the test if it takes a second or more
// (the unbounded cases looped forever).
func parseWithin(t *testing.T, src string) (*Spec, error) {
	t.Helper()
	type result struct {
		s   *Spec
		err error
	}
	done := make(chan result, 1)
	go func() {
		s, err := Parse("w.yaml", []byte(src))
		done <- result{s, err}
	}()
	select {
	case r := <-done:
		return r.s, r.err
	case <-time.After(5 * time.Second):
		t.Fatalf("Parse still running after 5s")
		return nil, nil
	}
}

// refused parses src and wants an error containing want (and none of
// not, a consequence of the root mistake).
func refused(t *testing.T, src, want string, not ...string) {
	t.Helper()
	_, err := parseWithin(t, src)
	if err == nil {
		t.Fatalf("accepted, want an error with %q", want)
	}
	msg := err.Error()
	if !strings.Contains(msg, want) {
		t.Errorf("error:\n%.600s\nwant it to contain %q", msg, want)
	}
	for _, n := range not {
		if strings.Contains(msg, n) {
			t.Errorf("error:\n%.600s\nhas %q, which follows from the root mistake", msg, n)
		}
	}
}

func TestEveryNumberBounded(t *testing.T) {
	for name, c := range map[string]struct{ src, want string }{
		"add count 2^63-1":   {edit(t, baseStep, "    - {at: 20s, action: add, count: 9223372036854775807}\n"), "w.yaml:15: chaos.steps[0].count: got 9223372036854775807, expected a number of members >= 1 (the group may have at most 1000"},
		"add count -2^63":    {edit(t, baseStep, "    - {at: 20s, action: add, count: -9223372036854775808}\n"), "chaos.steps[0].count: got -9223372036854775808"},
		"after chain":        {edit(t, baseStep, baseStep+"    - {after: 2562047h, action: kill, target: m1}\n    - {after: 2562047h, action: kill, target: m3}\n"), "chaos.steps[1].after: got 2562047h0m0s, expected at most 24h0m0s"},
		"duration":           {edit(t, "duration: 60s", "duration: 1000h"), "w.yaml:3: duration: got 1000h0m0s, expected at most 24h0m0s"},
		"records":            {edit(t, "duration: 60s", "records: 9223372036854775807"), "records: got 9223372036854775807, expected a number of records from 1 to 10000000000"},
		"records past a day": {edit(t, "duration: 60s", "records: 1000000000"), "records: 1000000000 records at the producer's rate: the last is due at 277h46m39.999s, expected traffic of at most 24h0m0s"},
		"rate":               {edit(t, "seed: 1\n", "seed: 1\nproducer: {rate: 1e300}\n"), "producer.rate: got 1e+300"},
		"ramp from":          {edit(t, "seed: 1\n", "seed: 1\nproducer: {rate: 10, ramp: {from: 1e300, over: 1s}}\n"), "producer.ramp.from: got 1e+300"},
		"rate step":          {edit(t, "seed: 1\n", "seed: 1\nproducer: {steps: [{at: 1s, rate: 1e300}]}\n"), "producer.steps[0].rate: got 1e+300"},
		"warmup":             {edit(t, "warmup: 10s", "warmup: 2562047h"), "chaos.warmup: got 2562047h0m0s, expected at most 24h0m0s"},
		"drain timeout":      {edit(t, "drain_timeout: 30s", "drain_timeout: 2562047h"), "chaos.drain_timeout: got 2562047h0m0s, expected at most 24h0m0s"},
		"processing cost":    {edit(t, "  members: 3", "  members: 3\n  processing: {cost: 2562047h}"), "consumer.processing.cost: got 2562047h0m0s, expected at most 24h0m0s"},
		"rolling interval":   {edit(t, baseStep, "    - {at: 20s, action: rolling_restart, interval: 2562047h}\n"), "chaos.steps[0].interval: got 2562047h0m0s"},
		"pause":              {edit(t, baseStep, "    - {at: 20s, action: pause, target: m1, duration: 48h}\n"), "chaos.steps[0].duration: got 48h0m0s, expected at most 24h0m0s"},
		"key format width":   {edit(t, "seed: 1\n", "seed: 1\nkeys: {format: \"k%99999999999999999999d\"}\n"), "keys.format"},
		"explicit keys":      {edit(t, "seed: 1\n", "seed: 1\nkeys:\n  count: 10\n  distribution: explicit\n  explicit:\n"+strings.Repeat("    - {key: x, share: 0.00001}\n", MaxExplicitKeys+1)), "keys.explicit: 10001 keys, expected at most 10000"},
		"chaos steps":        {edit(t, baseStep, strings.Repeat("    - {at: 20s, action: pause, target: m1, duration: 1s}\n", MaxSteps+1)), "chaos.steps: 1001 steps, expected at most 1000"},
		"expect min":         {hostileBase + "expect:\n  - {metric: lost, min: -1e300, why: x}\n", "expect[0].min: got -1e+300, expected a number from -1e+12 to 1e+12"},
		"expect max":         {hostileBase + "expect:\n  - {metric: lost, max: 1e13, why: x}\n", "expect[0].max: got 1e+13"},
		"expect count":       {hostileBase + "expect:\n" + strings.Repeat("  - {metric: lost, max: 0, why: x}\n", MaxExpectations+1), "expect: 1001 expectations, expected at most 1000"},
		"expect metric":      {hostileBase + "expect:\n  - {metric: " + strings.Repeat("m", 65) + ", max: 0, why: x}\n", "expect[0].metric: got"},
		"expect why":         {hostileBase + "expect:\n  - {metric: lost, max: 0, why: " + strings.Repeat("x", MaxWhy+1) + "}\n", "expect[0].why: 4001 bytes, expected at most 4000"},
		"expect strategies":  {hostileBase + "expect:\n  - {metric: lost, max: 0, strategies: [" + strings.Repeat("range, ", 100000) + "range], why: x}\n", "expect[0].strategies[1]: \"range\" is listed twice"},
		"expect twice":       {hostileBase + "expect:\n  - {metric: lost, max: 0, strategies: [range, range], why: x}\n", "expect[0].strategies[1]: \"range\" is listed twice"},
		"file size":          {hostileBase + "# " + strings.Repeat("x", MaxFileSize) + "\n", "more than 4194304 bytes"},
	} {
		t.Run(name, func(t *testing.T) { refused(t, c.src, c.want, "-2") })
	}
}

// Kafka's timings are librdkafka's ranges for every client, and the
// broker's settings parse as the broker's types.
func TestClientAndBrokerRules(t *testing.T) {
	for name, c := range map[string]struct{ src, want string }{
		"session":     {edit(t, "session_timeout: 10s", "session_timeout: 2h"), "consumer.session_timeout: got 2h0m0s, expected at most 1h0m0s (librdkafka's session.timeout.ms: 1 to 3600000 ms)"},
		"heartbeat":   {edit(t, "heartbeat_interval: 1s", "heartbeat_interval: 2h"), "consumer.heartbeat_interval: got 2h0m0s, expected at most 1h0m0s"},
		"max poll":    {edit(t, "max_poll_interval: 30s", "max_poll_interval: 25h"), "consumer.max_poll_interval: got 25h0m0s, expected at most 24h0m0s"},
		"auto commit": {edit(t, "  max_poll_interval: 30s", "  max_poll_interval: 30s\n  auto_commit_interval: 25h"), "consumer.auto_commit_interval: got 25h0m0s"},
	} {
		t.Run(name, func(t *testing.T) { refused(t, c.src, c.want) })
	}
}

// A step that outlasts the traffic holds every cell that long: a
// warning, in the plan that --dry-run prints.
func TestStepOutlastingTrafficWarns(t *testing.T) {
	s, err := parseWithin(t, edit(t, baseStep, "    - {at: 20s, action: pause, target: m1, duration: 23h}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0], "w.yaml:15: chaos.steps[0].duration: the pause lasts until 23h0m20s, 22h59m20s after the end of traffic (1m0s)") {
		t.Errorf("warnings %q", s.Warnings)
	}
}

// The root mistake comes alone, with its line: what follows from it is
// not reported.
func TestRootMistakeFirst(t *testing.T) {
	for name, c := range map[string]struct {
		src, want string
		not       []string
	}{
		"brokers":    {"duration: 10s\ntopic: {replication: 3}\nstrategies: [range]\nbroker: {brokers: 2}\n", "w.yaml:4: broker.brokers: got 2", []string{"replication"}},
		"duration":   {edit(t, "duration: 60s", "duration: -1s"), "w.yaml:3: duration: got -1s", []string{"end of traffic", "warmup"}},
		"members":    {edit(t, "  members: 3", "  members: 0"), "w.yaml:6: consumer.members: got 0", []string{"no member", "target"}},
		"keys count": {edit(t, "seed: 1\n", "seed: 1\nkeys: {count: 0, distribution: hotspot, hotspot: {share: 0.5, hot_keys: 3}}\n"), "keys.count: got 0", []string{"hot_keys"}},
		"partitions": {edit(t, "partitions: 4}", "partitions: 0}", "target: m2", `target: "owner:1"`), "topic.partitions: got 0", []string{"owner:1"}},
		"strategy":   {edit(t, "strategies: [range]", "strategies: [rangee]"), "strategies[0]: got \"rangee\"", []string{"topic.name"}},
		"session":    {edit(t, "session_timeout: 10s", "session_timeout: -1s"), "consumer.session_timeout: got -1s", []string{"heartbeat"}},
		"rate":       {edit(t, "seed: 1\n", "seed: 1\nproducer: {rate: -5}\n"), "producer.rate: got -5", []string{"end of traffic", "cannot be checked"}},
	} {
		t.Run(name, func(t *testing.T) {
			refused(t, c.src, c.want, c.not...)
			_, err := Parse("w.yaml", []byte(c.src))
			if first, _, _ := strings.Cut(err.Error(), "\n"); !strings.Contains(first, c.want) {
				t.Errorf("first error %q, want the root mistake %q", first, c.want)
			}
		})
	}
}

// A field never set is not the subject of an error: records: 1 is valid.
func TestRecordsOne(t *testing.T) {
	for _, src := range []string{"records: 1\n", "records: 1\nstrategies: [range]\n", "records: 2\n"} {
		if _, err := parseWithin(t, src); err != nil {
			t.Errorf("%q: %v", src, err)
		}
	}
}

// Zero or negative overrides are refused, never taken for "not given".
func TestOverridesRefusedNotIgnored(t *testing.T) {
	for name, o := range map[string]Overrides{
		"--duration -5s": {Duration: ref(-5 * time.Second)},
		"--duration 0":   {Duration: ref(time.Duration(0))},
		"--duration":     {Duration: ref(1000 * time.Hour)},
		"--records 0":    {Records: ref(int64(0))},
		"--records -1":   {Records: ref(int64(-1))},
		"--rate -1":      {Rate: ref(-1.0)},
		"--members 0":    {Members: ref(0)},
		"--members":      {Members: ref(MaxMembers + 1)},
	} {
		s := parse(t, hostileBase)
		err := s.Override(o)
		if err == nil || !strings.Contains(err.Error(), strings.Fields(name)[0]) {
			t.Errorf("%s: %v, want an error naming the flag", name, err)
		}
	}
}

// Values are quoted cut short, and a file with an error on every line
// gets a bounded message.
func TestEchoesBounded(t *testing.T) {
	big := strings.Repeat("x", 4<<20)
	var many strings.Builder
	for i := range 5000 {
		fmt.Fprintf(&many, "field%d: 1\n", i)
	}
	for name, src := range map[string]string{
		"name":       edit(t, "name: probe", "name: "+big),
		"field":      edit(t, "seed: 1\n", "seed: 1\n? "+big+"\n: 1\n"),
		"strategy":   edit(t, "strategies: [range]", "strategies: ["+big+"]"),
		"target":     edit(t, "target: m2", "target: "+big),
		"member":     edit(t, "target: m2", "target: m"+strings.Repeat("9", 1<<20)),
		"key format": edit(t, "seed: 1\n", "seed: 1\nkeys: {format: \""+big+"\"}\n"),
		"number":     edit(t, "duration: 60s", "duration: "+strings.Repeat("9", 1<<20)),
		"property":   edit(t, "  max_poll_interval: 30s", "  max_poll_interval: 30s\n  properties:\n    ? "+big+"\n    : \"1\""),
		"many":       many.String(),
	} {
		t.Run(name, func(t *testing.T) {
			_, err := parseWithin(t, src)
			if err == nil {
				t.Fatal("accepted")
			}
			if n := len(err.Error()); n > 64<<10 {
				t.Errorf("a message of %d bytes: %.300s", n, err.Error())
			}
		})
	}
}

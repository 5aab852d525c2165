package workloads

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/chaosbench/chaosbench/internal/clip"
	"github.com/chaosbench/chaosbench/internal/pace"
	"github.com/chaosbench/chaosbench/internal/partitioner"
	"github.com/chaosbench/chaosbench/internal/vocab"
)

var (
	nameRe  = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)
	topicRe = regexp.MustCompile(`^[a-zA-Z0-9._-]+$`)
	// memberRe matches member names: m1, m2, ...
	memberRe = regexp.MustCompile(`^m([1-9][0-9]*)$`)
)

// Validate checks the spec (as read, defaults applied) and computes its
// chaos plan. It is called by Load and Parse, and again after Override.
func (s *Spec) Validate() error {
	p := &problems{file: s.File}
	s.Warnings = nil
	v := &validator{s: s, p: p}
	v.top()
	v.topic()
	v.keys()
	v.value()
	v.producer()
	v.consumer()
	v.matrix()
	v.broker()
	v.chaos()
	v.autoscaler()
	v.targets()
	v.expect()
	return p.err()
}

// expect checks each expectation: a metric of the reports (by the
// vocabulary's list), a bound, strategies the workload runs, and the
// physics in words, each within its limit.
func (v *validator) expect() {
	if len(v.s.Expect) > MaxExpectations {
		v.errf("expect", "%d expectations, expected at most %d", len(v.s.Expect), MaxExpectations)
		return
	}
	for i, x := range v.s.Expect {
		f := fmt.Sprintf("expect[%d]", i)
		v.enum(f+".metric", x.Metric, vocab.MetricNames())
		for _, b := range []struct {
			field string
			n     *float64
		}{{f + ".min", x.Min}, {f + ".max", x.Max}} {
			if b.n != nil && math.Abs(*b.n) > MaxExpectBound {
				v.errf(b.field, "got %v, expected a number from %g to %g", *b.n, -MaxExpectBound, MaxExpectBound)
			}
		}
		switch {
		case x.Min == nil && x.Max == nil:
			v.errf(f, "no bound: expected min, max or both")
		case x.Min != nil && x.Max != nil && *x.Min > *x.Max && v.ok(f+".min", f+".max"):
			v.errf(f+".min", "%v is above max %v", *x.Min, *x.Max)
		}
		// Distinct names of the workload's strategies are at most as
		// many as it has; the first that is not ends the list's check
		// (a list of a million copies gets one error, not a million).
		seen := map[string]int{}
		for j, st := range x.Strategies {
			sf := fmt.Sprintf("%s.strategies[%d]", f, j)
			if k, dup := seen[st]; dup {
				v.errf(sf, "%s is listed twice (also %s.strategies[%d])", clip.Quote(st), f, k)
				break
			}
			if v.ok("strategies") && !slices.Contains(v.s.Strategies, st) {
				v.errf(sf, "%s is not one of the workload's strategies (%s)", clip.Quote(st), strings.Join(v.s.Strategies, ", "))
				break
			}
			seen[st] = j
		}
		switch {
		case strings.TrimSpace(x.Why) == "":
			v.errf(f+".why", "empty: expected the physics, in words: why the prediction must hold")
		case len(x.Why) > MaxWhy:
			v.errf(f+".why", "%d bytes, expected at most %d", len(x.Why), MaxWhy)
		}
	}
}

// validator checks a spec. A field found wrong is noted (bad), and a
// check that compares other fields with it is skipped: its error would
// follow from the first and bury it (a group of 0 members, then "no
// member m2" at every step), so the root mistake stands alone, with its
// line.
type validator struct {
	s   *Spec
	p   *problems
	bad map[string]bool
}

func (v *validator) errf(field, format string, args ...any) {
	if v.bad == nil {
		v.bad = map[string]bool{}
	}
	v.bad[field] = true
	v.p.add(v.s.Line(field), field, format, args...)
}

// ok reports whether none of the fields was found wrong.
func (v *validator) ok(fields ...string) bool {
	for _, f := range fields {
		if v.bad[f] {
			return false
		}
	}
	return true
}

func (v *validator) warnf(field, format string, args ...any) {
	v.s.Warnings = append(v.s.Warnings, fmt.Sprintf("%s:%d: %s: %s", v.s.File, v.s.Line(field), field, fmt.Sprintf(format, args...)))
}

func oneOf(names []string) string {
	if len(names) == 1 {
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// enum checks a name against the list that defines it (the vocabulary's
// strategies, policies, clients, actions, the reports' metrics), and
// says which it could have meant.
func (v *validator) enum(field, got string, allowed []string) bool {
	if slices.Contains(allowed, got) {
		return true
	}
	if s := closest(got, allowed); s != "" {
		v.errf(field, "got %s, did you mean %s? (expected %s)", clip.Quote(got), s, oneOf(allowed))
		return false
	}
	v.errf(field, "got %s, expected %s", clip.Quote(got), oneOf(allowed))
	return false
}

// positive checks a duration that must be > 0 (and at most
// MaxDuration).
func (v *validator) positive(field string, d time.Duration) {
	if d <= 0 {
		v.errf(field, "got %v, expected a duration > 0", d)
		return
	}
	v.bounded(field, d)
}

// bounded checks a duration against MaxDuration; false if beyond it.
func (v *validator) bounded(field string, d time.Duration) bool {
	if d > MaxDuration {
		v.errf(field, "got %v, expected at most %v (the longest duration of a workload, librdkafka's longest timing)", d, MaxDuration)
		return false
	}
	return true
}

// TrafficEnd returns when traffic ends, as time since its start: the
// duration, or for a record count the time the last record is due, when
// the rate is limited throughout (otherwise ok is false).
func (s *Spec) TrafficEnd() (end time.Duration, ok bool) {
	if s.Duration > 0 {
		return s.Duration, true
	}
	sched, err := s.RateSchedule()
	if err != nil {
		return 0, false
	}
	return sched.End(s.Records)
}

// RateSchedule returns the producer's rate over time.
func (s *Spec) RateSchedule() (pace.Schedule, error) {
	p := s.Producer
	var from float64
	var over time.Duration
	if p.Ramp != nil {
		from, over = p.Ramp.From, p.Ramp.Over
	}
	steps := make([]pace.Step, len(p.Steps))
	for i, st := range p.Steps {
		steps[i] = pace.Step{At: st.At, Rate: st.Rate, Over: st.Over}
	}
	return pace.New(p.Rate, from, over, steps)
}

func (v *validator) top() {
	s := v.s
	if !nameRe.MatchString(s.Name) || len(s.Name) > 64 {
		field := "name"
		if !s.set("name") {
			v.p.add(0, "name", "the file's base name %s is not a valid workload name: set name: to lower-case letters, digits and '-' (at most 64)", clip.Quote(s.Name))
			return
		}
		v.errf(field, "got %s, expected lower-case letters, digits and '-', starting with a letter or digit (at most 64)", clip.Quote(s.Name))
	}
	durSet, recSet := s.set("duration"), s.set("records")
	switch {
	case durSet && recSet:
		v.errf("records", "both duration (line %d) and records are set: expected exactly one of the two", s.Line("duration"))
	case !durSet && !recSet:
		v.p.add(0, "duration", "neither duration nor records is set: expected exactly one (e.g. duration: 2m or records: 100000)")
	case durSet && s.Duration <= 0:
		v.errf("duration", "got %v, expected a duration > 0 (e.g. 2m)", s.Duration)
	case durSet:
		v.bounded("duration", s.Duration)
	case recSet && (s.Records < 1 || s.Records > MaxRecords):
		v.errf("records", "got %d, expected a number of records from 1 to %d", s.Records, int64(MaxRecords))
	}
}

func (v *validator) topic() {
	t := v.s.Topic
	if !topicRe.MatchString(t.Name) {
		v.errf("topic.name", "got %s, expected a Kafka topic name: letters, digits, '.', '_' and '-'", clip.Quote(t.Name))
	} else {
		// Cells of unknown names are matrix()'s errors, not a long topic.
		longest := 0
		for _, c := range v.s.Cells() {
			if slices.Contains(vocab.StrategyNames(), c.Strategy) && slices.Contains(vocab.PolicyNames(), c.CommitPolicy) && slices.Contains(vocab.ClientNames(), c.Client) {
				n := len(c.Name)
				if vocab.IsTransactional(c.CommitPolicy) {
					n += len(OutputSuffix) // its output topic
				}
				longest = max(longest, n)
			}
		}
		if n := len(t.Name) + 1 + longest; n > maxTopicName {
			v.errf("topic.name", "%s is too long: cell topics <name>-<cell> would have %d characters, Kafka allows %d", clip.Quote(t.Name), n, maxTopicName)
		}
	}
	if t.Partitions < 1 || t.Partitions > MaxPartitions {
		v.errf("topic.partitions", "got %d, expected a partition count from 1 to %d", t.Partitions, MaxPartitions)
	}
	if t.Replication < 1 {
		v.errf("topic.replication", "got %d, expected a replication factor >= 1", t.Replication)
	} else if b := v.s.Broker.Brokers; (b == 1 || b == 3) && t.Replication > b {
		v.errf("topic.replication", "got %d, but broker.brokers is %d: a replication factor at most the number of brokers", t.Replication, v.s.Broker.Brokers)
	}
}

func (v *validator) value() {
	if sz := v.s.Value.Size; sz < 0 || sz > MaxValueSize {
		v.errf("value.size", "got %d, expected a size in bytes from 0 to %d", sz, MaxValueSize)
	}
}

func (v *validator) producer() {
	p := v.s.Producer
	v.enum("producer.client", p.Client, vocab.ProducerClientNames())
	v.rate("producer.rate", p.Rate)
	if p.Ramp != nil {
		if !v.s.set("producer.ramp.from") || !v.s.set("producer.ramp.over") {
			v.errf("producer.ramp", "expected both from (records/s) and over (a duration)")
		} else {
			if !(p.Ramp.From > 0) || p.Ramp.From > MaxRate {
				v.errf("producer.ramp.from", "got %v, expected a rate in records/s > 0 and at most %d", p.Ramp.From, MaxRate)
			}
			v.positive("producer.ramp.over", p.Ramp.Over)
			if p.Rate == 0 {
				v.errf("producer.ramp", "a ramp to an unlimited rate: expected producer.rate > 0")
			}
			if end, ok := v.s.TrafficEnd(); ok && v.s.Duration > 0 && v.ok("duration", "producer.ramp.over") && p.Ramp.Over > end {
				v.errf("producer.ramp.over", "%v is longer than the traffic (%v)", p.Ramp.Over, end)
			}
		}
	}
	var prev time.Duration
	if p.Ramp != nil {
		prev = p.Ramp.Over
	}
	if len(p.Steps) > MaxSteps {
		v.errf("producer.steps", "%d steps, expected at most %d", len(p.Steps), MaxSteps)
		return
	}
	for i, st := range p.Steps {
		f := fmt.Sprintf("producer.steps[%d]", i)
		switch {
		case !v.s.set(f + ".at"):
			v.errf(f, "no at: expected at: the time since traffic start")
		case st.At <= 0:
			v.errf(f+".at", "got %v, expected a time > 0 (producer.rate applies from the start)", st.At)
		case p.Ramp != nil && i == 0 && st.At < p.Ramp.Over:
			v.errf(f+".at", "%v falls within the ramp (0 to %v): expected a step at or after the ramp's end", st.At, p.Ramp.Over)
		case i > 0 && p.Steps[i-1].Over > 0 && st.At < prev:
			v.errf(f+".at", "%v falls within the previous step's ramp (to %v): expected a step at or after its end", st.At, prev)
		case i > 0 && p.Steps[i-1].Over == 0 && st.At <= prev:
			v.errf(f+".at", "%v is not after the previous step (%v): expected steps in increasing time order", st.At, prev)
		case v.s.Duration > 0 && v.ok("duration") && st.At >= v.s.Duration:
			v.errf(f+".at", "%v is at or after the end of traffic (duration %v)", st.At, v.s.Duration)
		default:
			v.bounded(f+".at", st.At)
		}
		if !v.s.set(f + ".rate") {
			v.errf(f, "no rate: expected rate: records/s (0: unlimited)")
		} else {
			v.rate(f+".rate", st.Rate)
		}
		switch before := p.Rate; {
		case st.Over < 0:
			v.errf(f+".over", "got %v, expected a duration >= 0 (0: the rate changes at once)", st.Over)
		case st.Over > 0 && !v.bounded(f+".over", st.Over):
		case st.Over > 0 && i > 0 && p.Steps[i-1].Rate == 0, st.Over > 0 && i == 0 && before == 0, st.Over > 0 && st.Rate == 0:
			v.errf(f+".over", "a ramp from or to an unlimited rate (0) has no shape: expected limited rates on both sides")
		case st.Over > 0 && v.s.Duration > 0 && v.ok("duration") && st.At+st.Over > v.s.Duration:
			v.errf(f+".over", "the ramp ends at %v, after the end of traffic (duration %v)", st.At+st.Over, v.s.Duration)
		}
		prev = st.At + max(st.Over, 0)
	}
	if v.enum("producer.acks", p.Acks, []string{"all", "1", "0"}) && p.Idempotence && p.Acks != "all" {
		how := "idempotence: true"
		if !v.s.set("producer.idempotence") {
			how = "idempotence (true by default)"
		}
		v.errf("producer.acks", "acks %s with %s: Kafka's idempotent producer needs acks all; set idempotence: false", p.Acks, how)
	}
	switch {
	case p.MaxInFlight < 1 || p.MaxInFlight > 1000:
		v.errf("producer.max_in_flight", "got %d, expected a number of requests from 1 to 1000", p.MaxInFlight)
	case p.Idempotence && p.MaxInFlight > 5:
		v.errf("producer.max_in_flight", "got %d with idempotence: Kafka's idempotent producer allows at most 5", p.MaxInFlight)
	}
	if p.Linger < 0 || p.Linger > 900*time.Second {
		v.errf("producer.linger", "got %v, expected a duration from 0 to 900s", p.Linger)
	} else if p.Linger%time.Millisecond != 0 {
		v.errf("producer.linger", "got %v, expected whole milliseconds (linger.ms)", p.Linger)
	}
	if p.BatchSize < 1 || p.BatchSize > 1<<30 {
		v.errf("producer.batch_size", "got %d, expected a size in bytes from 1 to %d", p.BatchSize, 1<<30)
	}
	v.enum("producer.compression", p.Compression, []string{"none", "gzip", "snappy", "lz4", "zstd"})
	v.enum("producer.partitioner", p.Partitioner, partitioner.Names())
}

// rate checks a rate in records/s: 0 (unlimited) to MaxRate.
func (v *validator) rate(field string, r float64) {
	if r < 0 || r > MaxRate {
		v.errf(field, "got %v, expected %s, at most %d", r, rateExpected, MaxRate)
	}
}

// managedProperties are consumer properties the schema sets itself.
var managedProperties = map[string]string{
	"session.timeout.ms":                "consumer.session_timeout",
	"heartbeat.interval.ms":             "consumer.heartbeat_interval",
	"max.poll.interval.ms":              "consumer.max_poll_interval",
	"auto.commit.interval.ms":           "consumer.auto_commit_interval",
	"max.poll.records":                  "consumer.max_poll_records",
	"group.instance.id":                 "consumer.static_membership",
	"enable.auto.commit":                "commit_policies",
	"enable.auto.offset.store":          "commit_policies",
	"partition.assignment.strategy":     "strategies",
	"group.protocol":                    "strategies",
	"group.remote.assignor":             "strategies",
	"group.id":                          "the harness (one group per cell)",
	"bootstrap.servers":                 "--bootstrap",
	"group.consumer.session.timeout.ms": "consumer.session_timeout",
}

func (v *validator) consumer() {
	c := v.s.Consumer
	if c.Members < 1 || c.Members > MaxMembers {
		v.errf("consumer.members", "got %d, expected a group size from 1 to %d", c.Members, MaxMembers)
	}
	pr := c.Processing
	if pr.Cost < 0 {
		v.errf("consumer.processing.cost", "got %v, expected a duration >= 0", pr.Cost)
	} else {
		v.bounded("consumer.processing.cost", pr.Cost)
	}
	if v.enum("consumer.processing.distribution", pr.Distribution, []string{CostFixed, CostUniform, CostExponential}) {
		if v.s.set("consumer.processing.jitter") && pr.Distribution != CostUniform {
			v.errf("consumer.processing.jitter", "set, but the distribution is %s: jitter applies to uniform only", pr.Distribution)
		}
		if pr.Distribution == CostUniform && v.ok("consumer.processing.cost") && (pr.Jitter < 0 || pr.Jitter > pr.Cost) {
			v.errf("consumer.processing.jitter", "got %v, expected from 0 to the cost (%v): costs are cost +- jitter", pr.Jitter, pr.Cost)
		}
	}
	if c.MaxPollRecords < 1 || c.MaxPollRecords > 1_000_000 {
		v.errf("consumer.max_poll_records", "got %d, expected a number of records from 1 to 1000000", c.MaxPollRecords)
	}
	// Kafka's timings are whole milliseconds, each with librdkafka's
	// range (CONFIGURATION.md), which every client is held to so that the
	// cells of a workload compare like for like.
	ms := func(field, property string, d, most time.Duration) {
		switch {
		case d <= 0:
			v.errf(field, "got %v, expected a duration > 0", d)
		case d%time.Millisecond != 0:
			v.errf(field, "got %v, expected whole milliseconds", d)
		case d > most:
			v.errf(field, "got %v, expected at most %v (librdkafka's %s: 1 to %d ms)", d, most, property, most.Milliseconds())
		}
	}
	ms("consumer.session_timeout", "session.timeout.ms", c.SessionTimeout, MaxSessionTimeout)
	ms("consumer.heartbeat_interval", "heartbeat.interval.ms", c.HeartbeatInterval, MaxSessionTimeout)
	ms("consumer.max_poll_interval", "max.poll.interval.ms", c.MaxPollInterval, MaxDuration)
	ms("consumer.auto_commit_interval", "auto.commit.interval.ms", c.AutoCommitInterval, MaxDuration)
	if v.ok("consumer.session_timeout", "consumer.heartbeat_interval") && c.HeartbeatInterval >= c.SessionTimeout {
		v.errf("consumer.heartbeat_interval", "%v is not below session_timeout %v: Kafka requires heartbeat.interval.ms < session.timeout.ms (a third of it is usual)", c.HeartbeatInterval, c.SessionTimeout)
	}
	v.transaction()
	for _, k := range sortedKeys(c.Properties) {
		if by, ok := managedProperties[k]; ok {
			v.errf("consumer.properties."+k, "set by %s: expected it there, not as a property", by)
		}
	}
}

// transaction checks consumer.transaction, the transactional policy's
// producer transaction, with Kafka's bounds.
func (v *validator) transaction() {
	t := v.s.Consumer.Transaction
	switch t.TransactionalID {
	case TxnIDPerMember, TxnIDPerIncarnation:
	default:
		v.errf("consumer.transaction.transactional_id", "got %s, expected %s (<group>.<member>: a restart fences its previous incarnation) or %s (<group>.<member>.<inc>: fenced by the group generation, KIP-447)",
			clip.Quote(t.TransactionalID), TxnIDPerMember, TxnIDPerIncarnation)
	}
	switch {
	case t.Timeout <= 0:
		v.errf("consumer.transaction.timeout", "got %v, expected a duration > 0 (transaction.timeout.ms)", t.Timeout)
	case t.Timeout%time.Millisecond != 0:
		v.errf("consumer.transaction.timeout", "got %v, expected whole milliseconds (transaction.timeout.ms)", t.Timeout)
	case t.Timeout > MaxTransactionTimeout:
		v.errf("consumer.transaction.timeout", "got %v, expected at most %v: the broker's transaction.max.timeout.ms (default 900000 ms) refuses a longer transaction.timeout.ms", t.Timeout, MaxTransactionTimeout)
	}
	if t.CommitRecords < 0 || t.CommitRecords > MaxCommitRecords {
		v.errf("consumer.transaction.commit_records", "got %d, expected a number of records from 0 (not by count) to %d", t.CommitRecords, MaxCommitRecords)
	}
	switch {
	case t.CommitInterval < 0:
		v.errf("consumer.transaction.commit_interval", "got %v, expected a duration >= 0 (0: not by time)", t.CommitInterval)
	case t.CommitInterval%time.Millisecond != 0:
		v.errf("consumer.transaction.commit_interval", "got %v, expected whole milliseconds", t.CommitInterval)
	case v.ok("consumer.transaction.timeout") && t.Timeout > 0 && t.CommitInterval >= t.Timeout:
		v.errf("consumer.transaction.commit_interval", "%v is not below transaction timeout %v: the coordinator would abort every transaction before it commits", t.CommitInterval, t.Timeout)
	}
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// names checks a list of names: known, no repeats, not empty.
func (v *validator) names(field string, got, allowed []string) {
	if len(got) == 0 {
		v.errf(field, "empty: expected one or more of %s", oneOf(allowed))
	}
	seen := map[string]bool{}
	for i, n := range got {
		f := fmt.Sprintf("%s[%d]", field, i)
		if !v.s.set(f) {
			f = field
		}
		if seen[n] {
			v.errf(f, "%s is listed twice", clip.Quote(n))
		}
		seen[n] = true
		v.enum(f, n, allowed)
	}
}

func (v *validator) matrix() {
	s := v.s
	v.names("strategies", s.Strategies, vocab.StrategyNames())
	v.names("commit_policies", s.CommitPolicies, vocab.PolicyNames())
	// A commit policy a cell's client does not implement.
	refused := map[string]bool{}
	for _, c := range s.Cells() {
		if ok, why := vocab.SupportsPolicy(c.Client, c.CommitPolicy); !ok && why != "" && !refused[c.Client+" "+c.CommitPolicy] {
			refused[c.Client+" "+c.CommitPolicy] = true
			v.errf("commit_policies", "%s on %s (cell %s): %s", c.CommitPolicy, c.Client, c.Name, why)
		}
	}
	if s.set("clients") {
		v.names("clients", s.Clients, vocab.ClientNames())
		// A strategy runs on each listed client that has it (Cells); one
		// that none of them has would not run at all.
		for _, st := range s.Strategies {
			var whys []string
			for _, cl := range s.Clients {
				ok, why := vocab.Supports(cl, st)
				if ok || why == "" {
					whys = nil
					break
				}
				whys = append(whys, fmt.Sprintf("%s on %s: %s", st, cl, why))
			}
			if len(whys) > 0 {
				v.errf("clients", "%s; or leave clients out (%s then runs on %s)", strings.Join(whys, "; "), st, vocab.DefaultClient(st))
			}
		}
	}
}

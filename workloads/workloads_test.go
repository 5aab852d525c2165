package workloads

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/chaosbench/chaosbench/internal/vocab"
)

// shipped are the workload files of the repository: the top-level ones
// and the scenario catalogue.
func shipped() []string {
	files, _ := filepath.Glob("*.yaml")
	more, _ := filepath.Glob("scenarios/*.yaml")
	regressions, _ := filepath.Glob("nightly-regressions/*.yaml")
	return append(append(files, more...), regressions...)
}

func TestShippedWorkloads(t *testing.T) {
	files := shipped()
	if len(files) < 3 {
		t.Fatalf("found %d workload files, want at least default, hot-keys, partition-growth", len(files))
	}
	for _, f := range files {
		s, err := Load(f)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		if len(s.Warnings) > 0 {
			t.Errorf("%s: warnings: %v", f, s.Warnings)
		}
		if want := strings.TrimSuffix(filepath.Base(f), ".yaml"); s.Name != want {
			t.Errorf("%s: name %q, want %q", f, s.Name, want)
		}
	}
}

// The default workload runs all six strategies in about ten minutes: six
// cells of a minute of traffic, plus the drain and set-up of each.
func TestDefaultWorkloadIsSmall(t *testing.T) {
	s, err := Load("default.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cells := s.Cells()
	if len(cells) != 6 {
		t.Fatalf("default: %d cells, want the six strategies", len(cells))
	}
	perCell := s.Duration + s.Chaos.DrainTimeout/2 + 15*time.Second // traffic, typical drain, set-up
	if total := time.Duration(len(cells)) * perCell; total > 11*time.Minute {
		t.Errorf("default: about %v for all cells, want about ten minutes", total)
	}
}

func parse(t *testing.T, src string) *Spec {
	t.Helper()
	s, err := Parse("w.yaml", []byte(src))
	if err != nil {
		t.Fatalf("Parse:\n%s\nerror: %v", src, err)
	}
	return s
}

func TestDefaults(t *testing.T) {
	s := parse(t, "duration: 1m\n")
	want := Spec{
		Name: "w", Seed: 1, Duration: time.Minute,
		Topic: Topic{Name: "w", Partitions: 12, Replication: 1},
		Keys:  Keys{Count: 1000, Format: "k%06d", Distribution: "uniform"},
		Value: Value{Size: 100},
		Producer: Producer{Client: "franz", Rate: 1000, Acks: "all", Idempotence: true, MaxInFlight: 5,
			Linger: 5 * time.Millisecond, BatchSize: 1000000, Compression: "none", Partitioner: "murmur2"},
		Consumer: Consumer{Members: 3, Processing: Processing{Cost: time.Millisecond, Distribution: "fixed"},
			MaxPollRecords: 500, SessionTimeout: 45 * time.Second, HeartbeatInterval: 3 * time.Second,
			MaxPollInterval: 300 * time.Second, AutoCommitInterval: 5 * time.Second, Properties: map[string]string{},
			Transaction: Transaction{TransactionalID: "per-member", Timeout: time.Minute}},
		Strategies:     vocab.StrategyNames(),
		CommitPolicies: []string{"sync-batch"},
		Broker:         Broker{Brokers: 1, Config: map[string]string{}},
		Chaos:          Chaos{DrainTimeout: 60 * time.Second},
		Targets:        Targets{Rate: 1000},
	}
	got := *s
	got.File, got.pos, got.plan = "", nil, nil
	if !reflect.DeepEqual(got, want) {
		t.Errorf("defaults:\n got %+v\nwant %+v", got, want)
	}
}

// Every kind of mistake gets an error naming the file, the line, the field
// and what was expected.
func TestMalformedWorkloads(t *testing.T) {
	cases := []struct {
		name, src string
		want      []string // substrings of the error
	}{
		{"unknown top-level field", "duration: 1m\nduraton: 2m\n",
			[]string{"w.yaml:2: duraton: unknown field, did you mean duration?"}},
		{"unknown nested field", "duration: 1m\nproducer:\n  rate: 10\n  lingr: 5ms\n",
			[]string{"w.yaml:4: producer.lingr: unknown field, did you mean linger?"}},
		{"unknown field in a chaos step", "duration: 1m\nchaos:\n  steps:\n    - at: 10s\n      action: kill\n      target: m1\n      signal: 9\n",
			[]string{"w.yaml:7: chaos.steps[0].signal: unknown field"}},
		{"field given twice", "duration: 1m\nseed: 1\nseed: 2\n",
			[]string{"w.yaml:3: seed: given twice (first on line 2)"}},
		{"not YAML", "duration: 1m\n  - oops: [\n",
			[]string{"w.yaml:", "not valid YAML"}},
		{"empty file", "", []string{"w.yaml: empty workload"}},
		{"tab indentation", "duration: 1m\nkeys:\n\tcount: 10\n", []string{"w.yaml:3: not valid YAML", "the line has a tab: YAML indents with spaces"}},
		{"a list at the top", "- duration: 1m\n", []string{"w.yaml:1: got a list, expected a mapping of workload fields"}},
		{"wrong type: string for an int", "duration: 1m\ntopic: {partitions: twelve}\n",
			[]string{`w.yaml:2: topic.partitions: got "twelve", expected a partition count`}},
		{"wrong type: bare number duration", "duration: 60\n",
			[]string{"w.yaml:1: duration: got number 60, expected a duration with a unit, e.g. 60s"}},
		{"wrong type: bool", "duration: 1m\nproducer: {idempotence: yes}\n",
			[]string{`w.yaml:2: producer.idempotence: got "yes", expected true or false`}},
		{"wrong type: mapping for a list", "duration: 1m\nstrategies: {range: 1}\n",
			[]string{"w.yaml:2: strategies: got a mapping, expected a list of strategy names"}},
		{"wrong type: scalar for a section", "duration: 1m\nconsumer: 3\n",
			[]string{"w.yaml:2: consumer: got number 3, expected a mapping of"}},
		{"fractional integer", "duration: 1m\nkeys: {count: 10.5}\n",
			[]string{"w.yaml:2: keys.count: got number 10.5, expected a number of keys"}},
		{"neither duration nor records", "seed: 3\n",
			[]string{"w.yaml: duration: neither duration nor records is set"}},
		{"an expectation without a bound", "duration: 1m\nstrategies: [range]\nexpect:\n  - {metric: moved, why: nothing moves}\n",
			[]string{"w.yaml:4: expect[0]: no bound: expected min, max or both"}},
		{"an expectation of another strategy", "duration: 1m\nstrategies: [range]\nexpect:\n  - {metric: moved, max: 0, strategies: [sticky], why: x}\n",
			[]string{`expect[0].strategies[0]: "sticky" is not one of the workload's strategies (range)`}},
		{"an expectation's bounds crossed", "duration: 1m\nexpect:\n  - {metric: lost, min: 2, max: 1, why: x}\n",
			[]string{"expect[0].min: 2 is above max 1"}},
		{"an expectation without its physics", "duration: 1m\nexpect:\n  - {metric: lost, max: 0, why: \" \"}\n",
			[]string{"expect[0].why: empty: expected the physics"}},
		{"an expectation's metric misspelt", "duration: 1m\nexpect:\n  - {metric: Moved-Partitions, max: 0, why: x}\n",
			[]string{`expect[0].metric: got "Moved-Partitions", expected pause_p50_ms, `}},
		{"an expectation's metric a typo away", "duration: 1m\nexpect:\n  - {metric: other_pause, max: 0, why: x}\n",
			[]string{`w.yaml:3: expect[0].metric: got "other_pause", did you mean other_pauses? (expected pause_p50_ms`}},
		{"a chaos action a typo away", "duration: 1m\nchaos:\n  steps:\n    - {at: 10s, action: kil, target: m1}\n",
			[]string{`chaos.steps[0].action: got "kil", did you mean kill?`}},
		{"a commit policy a typo away", "duration: 1m\ncommit_policies: [sync_batch]\n",
			[]string{`commit_policies[0]: got "sync_batch", did you mean sync-batch?`}},
		{"a client a typo away", "duration: 1m\nclients: [frans]\n",
			[]string{`clients[0]: got "frans", did you mean franz?`}},
		{"both duration and records", "duration: 1m\nrecords: 1000\n",
			[]string{"w.yaml:2: records: both duration (line 1) and records are set"}},
		{"zero duration", "duration: 0s\n", []string{"w.yaml:1: duration: got 0s, expected a duration > 0"}},
		{"negative duration", "duration: -5s\n", []string{"w.yaml:1: duration: got -5s, expected a duration > 0"}},
		{"bad name", "name: My_Workload\nduration: 1m\n", []string{`w.yaml:1: name: got "My_Workload", expected lower-case letters`}},
		{"zero partitions", "duration: 1m\ntopic:\n  partitions: 0\n", []string{"w.yaml:3: topic.partitions: got 0, expected a partition count from 1 to 10000"}},
		{"replication above brokers", "duration: 1m\ntopic: {replication: 3}\n", []string{"w.yaml:2: topic.replication: got 3, but broker.brokers is 1"}},
		{"bad topic name", "duration: 1m\ntopic: {name: \"a b\"}\n", []string{`w.yaml:2: topic.name: got "a b", expected a Kafka topic name`}},
		{"unknown distribution", "duration: 1m\nkeys: {distribution: pareto}\n", []string{`w.yaml:2: keys.distribution: got "pareto", expected uniform, zipf, hotspot or explicit`}},
		{"key format without a verb", "duration: 1m\nkeys:\n  format: key\n", []string{`w.yaml:3: keys.format: "key": no %d verb`}},
		{"key format with two verbs", "duration: 1m\nkeys:\n  format: \"k%d-%d\"\n", []string{`w.yaml:3: keys.format: "k%d-%d": more than one %d verb`}},
		{"zipf without its section", "duration: 1m\nkeys:\n  distribution: zipf\n", []string{"w.yaml:3: keys.distribution: zipf needs a keys.zipf section"}},
		{"section of another distribution", "duration: 1m\nkeys:\n  distribution: uniform\n  zipf: {exponent: 1.1}\n", []string{"w.yaml:4: keys.zipf: set, but keys.distribution is uniform"}},
		{"zipf exponent 0", "duration: 1m\nkeys:\n  distribution: zipf\n  zipf:\n    exponent: 0\n", []string{"w.yaml:5: keys.zipf.exponent: got 0, expected a number > 0"}},
		{"hotspot share above 1", "duration: 1m\nkeys:\n  distribution: hotspot\n  hotspot: {share: 1.5, hot_keys: 10}\n", []string{"w.yaml:4: keys.hotspot.share: got 1.5, expected a fraction strictly between 0 and 1"}},
		{"hotspot all keys hot", "duration: 1m\nkeys:\n  count: 10\n  distribution: hotspot\n  hotspot:\n    share: 0.5\n    hot_keys: 10\n", []string{"w.yaml:7: keys.hotspot.hot_keys: got 10, expected from 1 to keys.count - 1 (9)"}},
		{"explicit shares over 1", "duration: 1m\nkeys:\n  distribution: explicit\n  explicit:\n    - {key: a, share: 0.7}\n    - {key: b, share: 0.6}\n", []string{"w.yaml:4: keys.explicit: the shares sum to 1.3: expected at most 1"}},
		{"explicit key twice", "duration: 1m\nkeys:\n  distribution: explicit\n  explicit:\n    - {key: a, share: 0.1}\n    - {key: a, share: 0.1}\n", []string{`w.yaml:6: keys.explicit[1].key: "a" is listed twice`}},
		{"explicit key that is a formatted key", "duration: 1m\nkeys:\n  distribution: explicit\n  explicit:\n    - {key: k000007, share: 0.1}\n", []string{`w.yaml:5: keys.explicit[0].key: "k000007" is also formatted key 7`}},
		{"negative value size", "duration: 1m\nvalue: {size: -1}\n", []string{"w.yaml:2: value.size: got -1, expected a size in bytes from 0 to 1000000"}},
		{"negative rate", "duration: 1m\nproducer: {rate: -10}\n", []string{"w.yaml:2: producer.rate: got -10, expected a rate in records/s"}},
		{"rate as a word", "duration: 1m\nproducer: {rate: fast}\n", []string{`w.yaml:2: producer.rate: got "fast", expected a rate in records/s`}},
		{"ramp to unlimited", "duration: 1m\nproducer:\n  rate: 0\n  ramp: {from: 10, over: 10s}\n", []string{"w.yaml:4: producer.ramp: a ramp to an unlimited rate"}},
		{"rate step in the ramp", "duration: 1m\nproducer:\n  ramp: {from: 10, over: 30s}\n  steps:\n    - {at: 10s, rate: 50}\n", []string{"w.yaml:5: producer.steps[0].at: 10s falls within the ramp"}},
		{"rate step after the end", "duration: 1m\nproducer:\n  steps:\n    - {at: 90s, rate: 50}\n", []string{"w.yaml:4: producer.steps[0].at: 1m30s is at or after the end of traffic"}},
		{"unknown acks", "duration: 1m\nproducer: {acks: 2}\n", []string{`w.yaml:2: producer.acks: got "2", expected all, 1 or 0`}},
		{"acks 1 with idempotence", "duration: 1m\nproducer: {acks: 1}\n", []string{"w.yaml:2: producer.acks: acks 1 with idempotence (true by default): Kafka's idempotent producer needs acks all"}},
		{"too many in flight", "duration: 1m\nproducer: {max_in_flight: 10}\n", []string{"w.yaml:2: producer.max_in_flight: got 10 with idempotence"}},
		{"unknown compression", "duration: 1m\nproducer: {compression: brotli}\n", []string{`w.yaml:2: producer.compression: got "brotli", expected none, gzip, snappy, lz4 or zstd`}},
		{"unknown partitioner", "duration: 1m\nproducer: {partitioner: random}\n", []string{`w.yaml:2: producer.partitioner: got "random", expected consistent, fnv1a, jump or murmur2`}},
		{"unknown client", "duration: 1m\nproducer: {client: sarama}\n", []string{`w.yaml:2: producer.client: got "sarama", expected confluent or franz`}},
		{"zero members", "duration: 1m\nconsumer: {members: 0}\n", []string{"w.yaml:2: consumer.members: got 0, expected a group size"}},
		{"heartbeat not below session", "duration: 1m\nconsumer:\n  session_timeout: 10s\n  heartbeat_interval: 10s\n", []string{"w.yaml:4: consumer.heartbeat_interval: 10s is not below session_timeout 10s"}},
		{"jitter on a fixed cost", "duration: 1m\nconsumer:\n  processing: {cost: 1ms, jitter: 1ms}\n", []string{"w.yaml:3: consumer.processing.jitter: set, but the distribution is fixed"}},
		{"managed consumer property", "duration: 1m\nconsumer:\n  properties:\n    session.timeout.ms: 6000\n", []string{"w.yaml:4: consumer.properties.session.timeout.ms: set by consumer.session_timeout"}},
		{"unknown strategy", "duration: 1m\nstrategies: [range, stickee]\n", []string{`w.yaml:2: strategies[1]: got "stickee", did you mean sticky? (expected range, roundrobin, sticky`}},
		{"unknown commit policy", "duration: 1m\ncommit_policies: sync\n", []string{`w.yaml:2: commit_policies: got "sync", expected auto, auto-after-process, sync-batch`}},
		{"strategy twice", "duration: 1m\nstrategies: [range, range]\n", []string{`w.yaml:2: strategies[1]: "range" is listed twice`}},
		{"sticky on confluent", "duration: 1m\nstrategies: [sticky]\nclients: [confluent]\n", []string{"w.yaml:3: clients: sticky on confluent: librdkafka has no eager sticky assignor"}},
		{"two brokers", "duration: 1m\nbroker: {brokers: 2}\n", []string{"w.yaml:2: broker.brokers: got 2, expected 1 or 3"}},
		{"broker bound excludes the session timeout", "duration: 1m\nstrategies: [range]\nconsumer: {session_timeout: 5s, heartbeat_interval: 1s}\nbroker:\n  config:\n    group.min.session.timeout.ms: 6000\n", []string{"w.yaml:6: broker.config.group.min.session.timeout.ms: 6000 ms does not allow consumer.session_timeout 5s"}},
		{"consumer protocol timing in broker config", "duration: 1m\nstrategies: [consumer-range]\nbroker:\n  config: {group.consumer.session.timeout.ms: 45000}\n", []string{"w.yaml:4: broker.config.group.consumer.session.timeout.ms: set from consumer.session_timeout"}},
		{"unknown chaos action", "duration: 1m\nchaos:\n  steps:\n    - at: 10s\n      action: explode\n", []string{`w.yaml:5: chaos.steps[0].action: got "explode", expected kill, stop, add`}},
		{"step without a time", "duration: 1m\nchaos:\n  steps:\n    - action: kill\n      target: m1\n", []string{"w.yaml:4: chaos.steps[0]: no at or after"}},
		{"step with at and after", "duration: 1m\nchaos:\n  steps:\n    - at: 10s\n      after: 5s\n      action: add\n", []string{"w.yaml:5: chaos.steps[0].after: both at and after are set"}},
		{"step at the end of traffic", "duration: 1m\nchaos:\n  steps:\n    - at: 60s\n      action: add\n", []string{"w.yaml:4: chaos.steps[0].at: the step comes at 1m0s, at or after the end of traffic (1m0s)"}},
		{"step after the end by after", "duration: 1m\nchaos:\n  steps:\n    - at: 40s\n      action: add\n    - after: 30s\n      action: add\n", []string{"w.yaml:6: chaos.steps[1].after: the step comes at 1m10s, at or after the end of traffic"}},
		{"step in the warmup", "duration: 1m\nchaos:\n  warmup: 15s\n  steps:\n    - at: 10s\n      action: kill\n      target: m1\n", []string{"w.yaml:5: chaos.steps[0].at: the step comes at 10s, not after the warmup (chaos.warmup 15s)"}},
		{"steps out of order", "duration: 1m\nchaos:\n  steps:\n    - at: 30s\n      action: add\n    - at: 20s\n      action: add\n", []string{"w.yaml:6: chaos.steps[1].at: 20s is before the previous step (30s)"}},
		{"target that does not exist", "duration: 1m\nchaos:\n  steps:\n    - at: 10s\n      action: kill\n      target: m4\n", []string{"w.yaml:6: chaos.steps[0].target: no member m4 at this point: the group has m1, m2, m3"}},
		{"killing a killed member", "duration: 1m\nchaos:\n  steps:\n    - at: 10s\n      action: kill\n      target: m2\n    - at: 20s\n      action: stop\n      target: m2\n", []string{"w.yaml:9: chaos.steps[1].target: m2 was already killed or stopped by an earlier step"}},
		{"bad target", "duration: 1m\nchaos:\n  steps:\n    - at: 10s\n      action: pause\n      target: everyone\n      duration: 5s\n", []string{`w.yaml:6: chaos.steps[0].target: got "everyone", expected a member name`}},
		{"owner of a partition that does not exist", "duration: 1m\ntopic: {partitions: 6}\nchaos:\n  steps:\n    - at: 10s\n      action: kill\n      target: owner:6\n", []string{`w.yaml:7: chaos.steps[0].target: got "owner:6", expected owner:<partition> with a partition from 0 to 5`}},
		{"pause without a duration", "duration: 1m\nchaos:\n  steps:\n    - at: 10s\n      action: pause\n      target: m1\n", []string{"w.yaml:4: chaos.steps[0]: no duration"}},
		{"zero pause", "duration: 1m\nchaos:\n  steps:\n    - at: 10s\n      action: pause\n      target: m1\n      duration: 0s\n", []string{"w.yaml:7: chaos.steps[0].duration: got 0s, expected a duration > 0"}},
		{"parameter the action does not take", "duration: 1m\nchaos:\n  steps:\n    - at: 10s\n      action: kill\n      target: m1\n      duration: 5s\n", []string{"w.yaml:7: chaos.steps[0].duration: not used by kill (which takes target)"}},
		{"add_partitions not increasing", "duration: 1m\ntopic: {partitions: 12}\nchaos:\n  steps:\n    - at: 10s\n      action: add_partitions\n      partitions: 12\n", []string{"w.yaml:7: chaos.steps[0].partitions: got 12, expected a new total above the current 12"}},
		{"second add_partitions not increasing", "duration: 1m\ntopic: {partitions: 6}\nchaos:\n  steps:\n    - at: 10s\n      action: add_partitions\n      partitions: 12\n    - at: 20s\n      action: add_partitions\n      partitions: 8\n", []string{"w.yaml:10: chaos.steps[1].partitions: got 8, expected a new total above the current 12"}},
		{"broker step on one broker", "duration: 1m\nchaos:\n  steps:\n    - at: 10s\n      action: broker_kill\n", []string{"w.yaml:5: chaos.steps[0].action: broker_kill needs a cluster of 3 brokers"}},
		{"killing a killed broker", "duration: 1m\nbroker: {brokers: 3}\nchaos:\n  steps:\n    - {at: 10s, action: broker_kill, broker: 2}\n    - {at: 20s, action: broker_kill, broker: 2}\n", []string{"w.yaml:6: chaos.steps[1].broker: broker 2 was already killed"}},
		{"transaction coordinator of a member that does not exist", "duration: 1m\nbroker: {brokers: 3}\nchaos:\n  steps:\n    - {at: 10s, action: broker_kill, broker: \"txn-coordinator:m4\"}\n", []string{"w.yaml:5: chaos.steps[0].broker: no member m4 at this point: the group has m1, m2, m3"}},
		{"transaction coordinator of no member", "duration: 1m\nbroker: {brokers: 3}\nchaos:\n  steps:\n    - {at: 10s, action: broker_kill, broker: \"txn-coordinator:all\"}\n", []string{`w.yaml:5: chaos.steps[0].broker: got "txn-coordinator:all", expected txn-coordinator:<member> with a member name`}},
		{"transaction coordinator restarted by name", "duration: 1m\nbroker: {brokers: 3}\nchaos:\n  steps:\n    - {at: 10s, action: broker_restart, broker: \"txn-coordinator:m1\"}\n", []string{`w.yaml:5: chaos.steps[0].broker: "txn-coordinator:m1" with broker_restart: expected a broker node id or random`}},
		{"transaction coordinator on one broker", "duration: 1m\nchaos:\n  steps:\n    - {at: 10s, action: broker_kill, broker: \"txn-coordinator:m1\"}\n", []string{"w.yaml:4: chaos.steps[0].action: broker_kill needs a cluster of 3 brokers"}},
		{"unknown broker", "duration: 1m\nbroker: {brokers: 3}\nchaos:\n  steps:\n    - {at: 10s, action: broker_kill, broker: leader}\n", []string{`w.yaml:5: chaos.steps[0].broker: got "leader", expected a broker node id from 1 to 3, random, or (broker_kill) txn-coordinator:<member>`}},
		{"rolling restart of some", "duration: 1m\nchaos:\n  steps:\n    - {at: 10s, action: rolling_restart, target: m1, interval: 5s}\n", []string{`w.yaml:4: chaos.steps[0].target: got "m1", expected all`}},
		{"zero drain timeout", "duration: 1m\nchaos: {drain_timeout: 0s}\n", []string{"w.yaml:2: chaos.drain_timeout: got 0s, expected a duration > 0"}},
		{"unknown transactional id scheme", "duration: 1m\nconsumer:\n  transaction: {transactional_id: random}\n", []string{`w.yaml:3: consumer.transaction.transactional_id: got "random", expected per-member`}},
		{"transaction timeout beyond the broker's", "duration: 1m\nconsumer:\n  transaction: {timeout: 16m}\n", []string{"w.yaml:3: consumer.transaction.timeout: got 16m0s, expected at most 15m0s: the broker's transaction.max.timeout.ms"}},
		{"transaction timeout not in milliseconds", "duration: 1m\nconsumer:\n  transaction: {timeout: 1500us}\n", []string{"w.yaml:3: consumer.transaction.timeout: got 1.5ms, expected whole milliseconds"}},
		{"negative commit records", "duration: 1m\nconsumer:\n  transaction: {commit_records: -1}\n", []string{"w.yaml:3: consumer.transaction.commit_records: got -1, expected a number of records from 0"}},
		{"commit interval not below the timeout", "duration: 1m\nconsumer:\n  transaction: {timeout: 10s, commit_interval: 10s}\n", []string{"w.yaml:3: consumer.transaction.commit_interval: 10s is not below transaction timeout 10s"}},
		{"autoscaler lag threshold 0", "duration: 1m\nautoscaler:\n  lagThreshold: 0\n", []string{"w.yaml:3: autoscaler.lagThreshold: 0: expected a lag in records from 1 to"}},
		{"autoscaler typo", "duration: 1m\nautoscaler:\n  lagTreshold: 10\n", []string{"w.yaml:3: autoscaler.lagTreshold: unknown field, did you mean lagThreshold?"}},
		{"autoscaler period without unit", "duration: 1m\nautoscaler:\n  pollingInterval: 30\n", []string{"w.yaml:3: autoscaler.pollingInterval: got number 30, expected a duration with a unit"}},
		{"autoscaler bounds reversed", "duration: 1m\nautoscaler: {minReplicaCount: 4, maxReplicaCount: 2}\n", []string{"w.yaml:2: autoscaler.maxReplicaCount: 2: expected at least minReplicaCount (4)"}},
		{"autoscaler pair KEDA refuses", "duration: 1m\nautoscaler: {allowIdleConsumers: true, limitToPartitionsWithLag: true}\n", []string{"autoscaler.limitToPartitionsWithLag: cannot be set with allowIdleConsumers"}},
		{"initial group outside the bounds", "duration: 1m\nconsumer: {members: 3}\nautoscaler: {minReplicaCount: 1, maxReplicaCount: 2}\n", []string{"w.yaml:2: consumer.members: 3: with an autoscaler, expected the initial group within minReplicaCount and maxReplicaCount (1 to 2)"}},
		{"member step with an autoscaler", "duration: 1m\nautoscaler: {minReplicaCount: 1, maxReplicaCount: 4}\nchaos:\n  steps:\n    - {at: 10s, action: kill, target: m1}\n", []string{"w.yaml:5: chaos.steps[0].action: kill with an autoscaler: the autoscaler owns the group's members"}},
		{"rate step ramp from unlimited", "duration: 1m\nproducer:\n  rate: 0\n  steps:\n    - {at: 10s, rate: 50, over: 10s}\n", []string{"w.yaml:5: producer.steps[0].over: a ramp from or to an unlimited rate (0) has no shape"}},
		{"rate step inside a ramp", "duration: 1m\nproducer:\n  rate: 10\n  steps:\n    - {at: 10s, rate: 50, over: 20s}\n    - {at: 20s, rate: 5}\n", []string{"w.yaml:6: producer.steps[1].at: 20s falls within the previous step's ramp (to 30s)"}},
		{"rate ramp past the traffic", "duration: 1m\nproducer:\n  rate: 10\n  steps:\n    - {at: 50s, rate: 50, over: 20s}\n", []string{"w.yaml:5: producer.steps[0].over: the ramp ends at 1m10s, after the end of traffic (duration 1m0s)"}},
	}
	if len(cases) < 15 {
		t.Fatalf("only %d kinds of mistakes", len(cases))
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := Parse("w.yaml", []byte(c.src))
			if err == nil {
				t.Fatalf("no error for:\n%s\nplan: %+v", c.src, s.ChaosPlan())
			}
			var we *Error
			if !errors.As(err, &we) || len(we.Errs) == 0 {
				t.Fatalf("error %T %v, want *workloads.Error", err, err)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error:\n%v\nwant it to contain:\n%s", err, w)
				}
			}
		})
	}
}

// All the problems of a file are reported at once, in line order.
func TestAllProblemsReported(t *testing.T) {
	_, err := Parse("w.yaml", []byte("duration: 1m\ntopic: {partitions: 0}\nproducer: {acks: 7}\nconsumer: {members: -1}\n"))
	var we *Error
	if !errors.As(err, &we) || len(we.Errs) != 3 {
		t.Fatalf("got %v, want 3 problems", err)
	}
	for i, line := range []int{2, 3, 4} {
		if we.Errs[i].Line != line {
			t.Errorf("problem %d on line %d, want %d", i, we.Errs[i].Line, line)
		}
	}
	var fe *FieldError
	if !errors.As(err, &fe) || fe.Field != "topic.partitions" {
		t.Errorf("errors.As found %+v, want the topic.partitions problem", fe)
	}
}

func TestLoadMissingFile(t *testing.T) {
	_, err := Load(filepath.Join(t.TempDir(), "nope.yaml"))
	if err == nil || !strings.Contains(err.Error(), "nope.yaml") {
		t.Errorf("got %v", err)
	}
}

func TestCells(t *testing.T) {
	s := parse(t, "duration: 1m\nstrategies: [range, sticky, consumer-uniform]\ncommit_policies: [sync-batch, auto]\n")
	var names []string
	for _, c := range s.Cells() {
		names = append(names, c.Name)
	}
	want := []string{
		"range.sync-batch.confluent", "range.auto.confluent",
		"sticky.sync-batch.franz", "sticky.auto.franz",
		"consumer-uniform.sync-batch.confluent", "consumer-uniform.auto.confluent",
	}
	if !reflect.DeepEqual(names, want) {
		t.Errorf("cells %v, want %v", names, want)
	}
	s = parse(t, "duration: 1m\nstrategies: cooperative-sticky\nclients: [confluent, franz]\n")
	if got := s.Cells(); len(got) != 2 || got[1].Name != "cooperative-sticky.sync-batch.franz" || got[1].Client != "franz" {
		t.Errorf("cells %+v", got)
	}
	if topic := s.TopicFor(s.Cells()[0]); topic != "w-cooperative-sticky.sync-batch.confluent" {
		t.Errorf("TopicFor = %q", topic)
	}
}

func TestChaosPlan(t *testing.T) {
	src := `duration: 2m
seed: 5
consumer: {members: 3, max_poll_interval: 10s}
broker: {brokers: 3}
topic: {replication: 3}
chaos:
  warmup: 5s
  steps:
    - {at: 10s, action: kill, target: m2}
    - {after: 5s, action: add, count: 2}
    - {after: 5s, action: pause, target: random, duration: 3s}
    - {at: 30s, action: restart, target: m2}
    - {at: 40s, action: kill, target: m5}
    - {at: 50s, action: rolling_restart, interval: 2s}
    - {at: 60s, action: add_partitions, partitions: 16}
    - {at: 70s, action: broker_kill}
    - {at: 80s, action: broker_restart}
    - {at: 90s, action: slow, target: owner:15, duration: 20s}
`
	s := parse(t, src)
	plan := s.ChaosPlan()
	if len(plan) != 10 {
		t.Fatalf("%d steps planned", len(plan))
	}
	check := func(i int, at time.Duration, action, target string) {
		t.Helper()
		if p := plan[i]; p.At != at || p.Action != action || p.Target != target || p.Step != i+1 {
			t.Errorf("step %d: %+v, want at %v %s %s", i+1, p, at, action, target)
		}
	}
	check(0, 10*time.Second, "kill", "m2")
	check(1, 15*time.Second, "add", "")
	if !reflect.DeepEqual(plan[1].Members, []string{"m4", "m5"}) {
		t.Errorf("add: members %v, want [m4 m5]", plan[1].Members)
	}
	if p := plan[2]; p.At != 20*time.Second || !p.Random || p.Target == "m2" || p.Duration != 3*time.Second {
		t.Errorf("random pause: %+v (m2 is dead at that point)", p)
	}
	check(3, 30*time.Second, "restart", "m2")
	check(4, 40*time.Second, "kill", "m5")
	if p := plan[5]; !reflect.DeepEqual(p.Members, []string{"m1", "m2", "m3", "m4"}) || p.Interval != 2*time.Second {
		t.Errorf("rolling_restart: %+v", p)
	}
	check(6, 60*time.Second, "add_partitions", "w")
	if plan[6].Partitions != 16 {
		t.Errorf("add_partitions: %+v", plan[6])
	}
	// broker_restart random picks the broker that is down.
	if plan[7].Broker < 1 || plan[7].Broker > 3 || plan[8].Broker != plan[7].Broker || plan[8].Target != plan[7].Target {
		t.Errorf("broker steps: %+v then %+v", plan[7], plan[8])
	}
	check(9, 90*time.Second, "slow", "owner:15")
	if plan[9].Line != 18 {
		t.Errorf("line of the last step: %d, want 18", plan[9].Line)
	}
	if len(s.Warnings) != 0 {
		t.Errorf("warnings: %v", s.Warnings)
	}
	// The same seed gives the same plan; the plan does not depend on the
	// order of anything but the file.
	if again := parse(t, src).ChaosPlan(); !reflect.DeepEqual(again, plan) {
		t.Errorf("plan differs between two parses")
	}
	// Another seed may draw another random target, never a dead one.
	for seed := 0; seed < 20; seed++ {
		p := parse(t, strings.Replace(src, "seed: 5", fmt.Sprintf("seed: %d", seed), 1)).ChaosPlan()
		if p[2].Target == "m2" || !strings.HasPrefix(p[2].Target, "m") {
			t.Errorf("seed %d: random target %q", seed, p[2].Target)
		}
	}
}

// A broker_kill of txn-coordinator:<member> is resolved by the run, not
// the plan: the plan names it, and a random broker_restart after it
// restarts the broker that step killed, whichever it turns out to be.
func TestChaosPlanTxnCoordinator(t *testing.T) {
	src := `duration: 1m
broker: {brokers: 3}
topic: {replication: 3}
commit_policies: [transactional]
chaos:
  steps:
    - {at: 10s, action: broker_kill, broker: "txn-coordinator:m2"}
    - {at: 20s, action: broker_restart}
    - {at: 30s, action: broker_kill, broker: "txn-coordinator:m1"}
    - {at: 40s, action: broker_restart, broker: random}
`
	s := parse(t, src)
	plan := s.ChaosPlan()
	if len(plan) != 4 {
		t.Fatalf("%d steps planned", len(plan))
	}
	if p := plan[0]; p.Broker != 0 || p.Target != "txn-coordinator:m2" || p.KilledBy != 0 {
		t.Errorf("kill of the coordinator: %+v", p)
	}
	if p := plan[1]; p.Broker != 0 || p.KilledBy != 1 || p.Target != "broker-of-step-1" {
		t.Errorf("restart after it: %+v, want the broker step 1 killed", p)
	}
	if p := plan[3]; p.Broker != 0 || p.KilledBy != 3 {
		t.Errorf("second restart: %+v, want the broker step 3 killed", p)
	}
	if len(s.Warnings) != 0 {
		t.Errorf("warnings: %v", s.Warnings)
	}
	// A kill by node id while the coordinator is down may hit a dead
	// broker, and leaves two of three down: both are said.
	s = parse(t, strings.Replace(src, "    - {at: 20s, action: broker_restart}\n", "    - {at: 20s, action: broker_kill, broker: 3}\n", 1))
	if len(s.Warnings) < 2 || !strings.Contains(s.Warnings[0], "w.yaml:8: chaos.steps[1].broker: broker 3 may already be down: step 1 killed a broker the run resolves") ||
		!strings.Contains(s.Warnings[1], "2 of 3 brokers down") {
		t.Errorf("warnings %q", s.Warnings)
	}
	// With every broker down, there is no coordinator to kill.
	_, err := Parse("w.yaml", []byte(strings.Replace(src, "    - {at: 20s, action: broker_restart}\n", "    - {at: 20s, action: broker_kill}\n    - {at: 25s, action: broker_kill}\n", 1)))
	if err == nil || !strings.Contains(err.Error(), "w.yaml:10: chaos.steps[3].broker: every broker is down at this point") {
		t.Errorf("a coordinator killed with every broker down: %v", err)
	}
}

func TestWarnings(t *testing.T) {
	s := parse(t, "duration: 1m\nconsumer: {max_poll_interval: 30s}\nchaos:\n  steps:\n    - {at: 10s, action: slow, target: m1, duration: 20s}\n")
	if len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0], "w.yaml:5: chaos.steps[0].duration: slow for 20s does not exceed consumer.max_poll_interval (30s)") {
		t.Errorf("warnings %q", s.Warnings)
	}
}

func TestRecordsModeChecksStepsAgainstTheRate(t *testing.T) {
	// 10,000 records at 1000/s end after 10 s: a step at 12 s is too late.
	_, err := Parse("w.yaml", []byte("records: 10000\nproducer: {rate: 1000}\nchaos:\n  steps:\n    - {at: 12s, action: add}\n"))
	if err == nil || !strings.Contains(err.Error(), "w.yaml:5: chaos.steps[0].at: the step comes at 12s, at or after the end of traffic (9.999s)") {
		t.Errorf("got %v", err)
	}
	s := parse(t, "records: 10000\nproducer: {rate: unlimited}\nchaos:\n  steps:\n    - {at: 12s, action: add}\n")
	if len(s.Warnings) != 1 {
		t.Errorf("unlimited rate: warnings %q, want one about unchecked step times", s.Warnings)
	}
}

func TestBrokerSettings(t *testing.T) {
	s := parse(t, "duration: 1m\nconsumer: {session_timeout: 10s, heartbeat_interval: 1s}\nbroker:\n  config: {group.initial.rebalance.delay.ms: 0}\n")
	got := s.BrokerSettings()
	want := map[string]string{
		"group.initial.rebalance.delay.ms":         "0",
		"group.consumer.session.timeout.ms":        "10000",
		"group.consumer.heartbeat.interval.ms":     "1000",
		"group.consumer.min.session.timeout.ms":    "10000",
		"group.consumer.min.heartbeat.interval.ms": "1000",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("BrokerSettings:\n got %v\nwant %v", got, want)
	}
	// Classic strategies only, with a session below the broker's default minimum.
	s = parse(t, "duration: 1m\nstrategies: [range]\nconsumer: {session_timeout: 3s, heartbeat_interval: 1s}\n")
	if got := s.BrokerSettings(); !reflect.DeepEqual(got, map[string]string{"group.min.session.timeout.ms": "3000"}) {
		t.Errorf("BrokerSettings: %v", got)
	}
}

func TestOverride(t *testing.T) {
	s := parse(t, "duration: 2m\nproducer:\n  rate: 100\n  ramp: {from: 10, over: 10s}\nchaos:\n  steps:\n    - {at: 90s, action: add}\n")
	rate := 0.0
	if err := s.Override(Overrides{Records: ref(int64(5000)), Rate: &rate}); err != nil {
		t.Fatal(err)
	}
	if s.Records != 5000 || s.Duration != 0 || s.Producer.Rate != 0 || s.Producer.Ramp != nil {
		t.Errorf("after override: %+v", s)
	}
	err := s.Override(Overrides{Duration: ref(30 * time.Second)})
	if err == nil || !strings.Contains(err.Error(), "w.yaml:7: chaos.steps[0].at: the step comes at 1m30s, at or after the end of traffic (30s)") {
		t.Errorf("shortened duration: %v", err)
	}
}

func ref[T any](v T) *T { return &v }

func TestOverrideProducerOnly(t *testing.T) {
	s := parse(t, "duration: 2m\nchaos:\n  warmup: 20s\n  steps:\n    - {at: 90s, action: add}\n")
	if err := s.Override(Overrides{Duration: ref(10 * time.Second), ProducerOnly: true}); err != nil {
		t.Fatal(err)
	}
	if len(s.ChaosPlan()) != 0 || s.Chaos.Warmup != 0 || s.Duration != 10*time.Second {
		t.Errorf("after a producer-only override: %+v", s)
	}
}

func TestRandIsPerPurpose(t *testing.T) {
	s := parse(t, "duration: 1m\nseed: 9\n")
	a, b := s.Rand("keys").Uint64(), s.Rand("keys").Uint64()
	c := s.Rand("chaos").Uint64()
	if a != b || a == c {
		t.Errorf("Rand: keys %d and %d, chaos %d", a, b, c)
	}
}

func TestReadmeDocumentsEveryField(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	// Every field the decoder accepts appears in README.md as `field`.
	fields := []string{"name", "seed", "duration", "records", "topic.name", "topic.partitions", "topic.replication",
		"keys.count", "keys.format", "keys.distribution", "keys.zipf.exponent", "keys.hotspot.share", "keys.hotspot.hot_keys",
		"keys.explicit", "value.size", "producer.client", "producer.rate", "producer.ramp.from", "producer.ramp.over",
		"producer.steps", "producer.acks", "producer.idempotence", "producer.max_in_flight", "producer.linger",
		"producer.batch_size", "producer.compression", "producer.partitioner", "consumer.members",
		"consumer.processing.cost", "consumer.processing.distribution", "consumer.processing.jitter",
		"consumer.max_poll_records", "consumer.session_timeout", "consumer.heartbeat_interval", "consumer.max_poll_interval",
		"consumer.auto_commit_interval", "consumer.static_membership", "consumer.properties", "strategies",
		"commit_policies", "clients", "broker.brokers", "broker.config", "chaos.warmup", "chaos.drain_timeout",
		"chaos.steps", "expect", "producer.steps[].over", "autoscaler.lagThreshold", "autoscaler.activationLagThreshold",
		"autoscaler.minReplicaCount", "autoscaler.maxReplicaCount", "autoscaler.pollingInterval", "autoscaler.cooldownPeriod",
		"autoscaler.scaleUpStabilizationWindow", "autoscaler.scaleDownStabilizationWindow", "autoscaler.allowIdleConsumers",
		"autoscaler.limitToPartitionsWithLag", "autoscaler.ensureEvenDistributionOfPartitions"}
	for _, f := range fields {
		if !strings.Contains(string(readme), "`"+f+"`") {
			t.Errorf("README.md does not document `%s`", f)
		}
	}
	for _, a := range vocab.ActionNames() {
		if !strings.Contains(string(readme), "`"+a+"`") {
			t.Errorf("README.md does not document action `%s`", a)
		}
	}
}

// The example in README.md is a valid workload.
func TestReadmeExampleParses(t *testing.T) {
	readme, _ := os.ReadFile("README.md")
	_, rest, ok := strings.Cut(string(readme), "## Example\n\n```yaml\n")
	example, _, ok2 := strings.Cut(rest, "```")
	if !ok || !ok2 {
		t.Fatal("README.md has no ## Example yaml block")
	}
	s := parse(t, example)
	if len(s.Cells()) != 6 || len(s.ChaosPlan()) != 3 || len(s.Warnings) != 0 {
		t.Errorf("example: %d cells, plan %+v, warnings %v", len(s.Cells()), s.ChaosPlan(), s.Warnings)
	}
}

// Two runs with the same seed draw the same keys in the same order.
func TestKeyStreamIsReproducible(t *testing.T) {
	for _, f := range []string{"default.yaml", "hot-keys.yaml", "partition-growth.yaml"} {
		a, _ := Load(f)
		b, _ := Load(f)
		ksA, genA, err := a.KeyStream()
		if err != nil {
			t.Fatal(err)
		}
		ksB, genB, _ := b.KeyStream()
		for i := 0; i < 50000; i++ {
			ka, sa := genA.Next()
			kb, sb := genB.Next()
			if ksA.Key(ka) != ksB.Key(kb) || sa != sb {
				t.Fatalf("%s: record %d: (%s, %d) vs (%s, %d)", f, i, ksA.Key(ka), sa, ksB.Key(kb), sb)
			}
		}
	}
}

// The nightly's regressions are the nightly suite with one setting made
// worse, and nothing else: the calibration compares them with it cell by
// cell (docs/nightly.md).
func TestNightlyRegressionsChangeOneSetting(t *testing.T) {
	nightly, err := Load("nightly.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for file, change := range map[string]func(s *Spec){
		"nightly-regressions/slower-crash-detection.yaml":  func(s *Spec) { s.Consumer.SessionTimeout = nightly.Consumer.SessionTimeout },
		"nightly-regressions/doubled-processing-cost.yaml": func(s *Spec) { s.Consumer.Processing = nightly.Consumer.Processing },
	} {
		s, err := Load(file)
		if err != nil {
			t.Fatal(err)
		}
		if reflect.DeepEqual(s.Consumer, nightly.Consumer) {
			t.Errorf("%s: the same consumer section as nightly.yaml: no regression", file)
		}
		change(s)
		a, b := s, nightly
		// A step's line differs with the file's header, nothing else.
		plan := func(s *Spec) []PlannedStep {
			p := s.ChaosPlan()
			for i := range p {
				p[i].Line = 0
			}
			return p
		}
		if !reflect.DeepEqual(a.Consumer, b.Consumer) || !reflect.DeepEqual(a.Cells(), b.Cells()) || !reflect.DeepEqual(plan(a), plan(b)) ||
			a.Duration != b.Duration || !reflect.DeepEqual(a.Producer, b.Producer) || !reflect.DeepEqual(a.Topic, b.Topic) || !reflect.DeepEqual(a.Keys, b.Keys) {
			t.Errorf("%s: differs from nightly.yaml in more than its one setting", file)
		}
	}
}

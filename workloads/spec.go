// Package workloads reads chaosbench workload files: the YAML that
// describes a whole run (topic, keys, value, producer, consumer group,
// strategies, commit policies, clients, broker, chaos schedule, seed),
// validates every field, and expands it into the run's plan: the cell
// matrix (strategy x commit policy x client) and the seeded chaos schedule.
//
// README.md in this folder documents every field, its unit and its default.
package workloads

import (
	"hash/fnv"
	"math/rand/v2"
	"time"
)

// Spec is a validated workload. Every field holds its effective value
// (defaults applied); durations are Go durations, rates records/s.
type Spec struct {
	// File is the path the workload was read from.
	File string `json:"file"`
	// Name names the workload in results; default: the file's base name.
	Name string `json:"name"`
	// Seed is the origin of every random choice of the run (see Rand).
	Seed int64 `json:"seed"`
	// Duration is the traffic time of each cell; 0 when Records is set.
	Duration time.Duration `json:"duration"`
	// Records is the number of records of each cell; 0 when Duration is set.
	Records int64 `json:"records"`

	Topic    Topic    `json:"topic"`
	Keys     Keys     `json:"keys"`
	Value    Value    `json:"value"`
	Producer Producer `json:"producer"`
	Consumer Consumer `json:"consumer"`
	// Strategies are the partition assignment strategies to compare.
	Strategies []string `json:"strategies"`
	// CommitPolicies are the offset commit policies to compare.
	CommitPolicies []string `json:"commit_policies"`
	// Clients are the consumer client libraries to run each strategy on;
	// empty: each strategy's default client (vocab.DefaultClient).
	Clients []string `json:"clients,omitempty"`
	Broker  Broker   `json:"broker"`
	Chaos   Chaos    `json:"chaos"`
	// Autoscaler, when set, sizes the group from its lag as KEDA would
	// (autoscaler.go); the chaos plan then leaves the members alone.
	Autoscaler *Autoscaler `json:"autoscaler,omitempty"`
	// Targets are what the group must achieve, for capacity sweeps
	// (targets.go).
	Targets Targets `json:"targets"`
	// Expect states what physics predicts of the run, metric by metric,
	// for the scenario reports to check (`chaos scenarios`).
	Expect []Expectation `json:"expect,omitempty"`

	// Warnings are things the workload allows but that are probably not
	// what was meant (e.g. a slow step shorter than max_poll_interval).
	Warnings []string `json:"warnings,omitempty"`

	plan     []PlannedStep
	netPaths []string // network.go
	// brokerNet: a network step cuts a broker off (network.go).
	brokerNet bool
	pos       map[string]int // field path -> line
}

// Topic is the topic every cell produces to and consumes from. Each cell
// gets a fresh topic named <Name>-<cell>.
type Topic struct {
	Name        string `json:"name"`
	Partitions  int    `json:"partitions"`
	Replication int    `json:"replication"`
}

// Key distributions.
const (
	DistUniform  = "uniform"
	DistZipf     = "zipf"
	DistHotspot  = "hotspot"
	DistExplicit = "explicit"
)

// Keys describes the key space and how traffic is spread over it.
type Keys struct {
	// Count is the number of formatted keys: Format applied to 0..Count-1.
	Count int `json:"count"`
	// Format is the stable key format, with one %d verb (e.g. "k%06d").
	Format string `json:"format"`
	// Distribution is uniform, zipf, hotspot or explicit.
	Distribution string        `json:"distribution"`
	Zipf         *Zipf         `json:"zipf,omitempty"`
	Hotspot      *Hotspot      `json:"hotspot,omitempty"`
	Explicit     []ExplicitKey `json:"explicit,omitempty"`
}

// Zipf parameters: key of rank k gets traffic proportional to 1/k^Exponent.
type Zipf struct {
	Exponent float64 `json:"exponent"`
}

// Hotspot parameters: Share of the traffic goes to HotKeys hot keys.
type Hotspot struct {
	Share   float64 `json:"share"`
	HotKeys int     `json:"hot_keys"`
}

// ExplicitKey is a named key and its share of the traffic.
type ExplicitKey struct {
	Key   string  `json:"key"`
	Share float64 `json:"share"`
}

// Value describes record values.
type Value struct {
	// Size is the value size in bytes.
	Size int `json:"size"`
}

// Producer describes the producer side of every cell.
type Producer struct {
	Client string `json:"client"`
	// Rate is the target rate in records/s; 0 is unlimited.
	Rate float64 `json:"rate"`
	// Ramp, if set, raises the rate linearly from Ramp.From to Rate over
	// Ramp.Over from the start of traffic.
	Ramp *Ramp `json:"ramp,omitempty"`
	// Steps change the rate at given times.
	Steps []RateStep `json:"steps,omitempty"`
	// Acks is all, 1 or 0 (acks).
	Acks string `json:"acks"`
	// Idempotence is enable.idempotence.
	Idempotence bool `json:"idempotence"`
	// MaxInFlight is max.in.flight.requests.per.connection.
	MaxInFlight int `json:"max_in_flight"`
	// Linger is linger.ms.
	Linger time.Duration `json:"linger"`
	// BatchSize is batch.size, bytes.
	BatchSize int `json:"batch_size"`
	// Compression is compression.type: none, gzip, snappy, lz4, zstd.
	Compression string `json:"compression"`
	// Partitioner picks each record's partition (internal/partitioner).
	Partitioner string `json:"partitioner"`
}

// Ramp is a linear rise of the rate at the start of traffic.
type Ramp struct {
	From float64       `json:"from"`
	Over time.Duration `json:"over"`
}

// RateStep sets the rate from a time since traffic start on: at once, or,
// with Over, linearly from the rate before it to Rate over that time.
type RateStep struct {
	At   time.Duration `json:"at"`
	Rate float64       `json:"rate"`
	// Over, when set, ramps from the previous rate to Rate from At to
	// At + Over; the next step comes at or after the ramp's end.
	Over time.Duration `json:"over,omitempty"`
}

// Consumer describes the consumer group of every cell.
type Consumer struct {
	// Members is the initial group size; members are m1..mN.
	Members    int        `json:"members"`
	Processing Processing `json:"processing"`
	// MaxPollRecords is the processing batch size (max.poll.records).
	MaxPollRecords int `json:"max_poll_records"`
	// SessionTimeout is session.timeout.ms (classic protocol) and the
	// broker's group.consumer.session.timeout.ms (consumer protocol).
	SessionTimeout time.Duration `json:"session_timeout"`
	// HeartbeatInterval is heartbeat.interval.ms (classic) and the broker's
	// group.consumer.heartbeat.interval.ms (consumer protocol).
	HeartbeatInterval time.Duration `json:"heartbeat_interval"`
	// MaxPollInterval is max.poll.interval.ms.
	MaxPollInterval time.Duration `json:"max_poll_interval"`
	// AutoCommitInterval is auto.commit.interval.ms (auto policies).
	AutoCommitInterval time.Duration `json:"auto_commit_interval"`
	// StaticMembership sets group.instance.id to the member's name.
	StaticMembership bool `json:"static_membership"`
	// Properties are extra client properties, by their Kafka names.
	Properties map[string]string `json:"properties,omitempty"`
	// Transaction is the transactional commit policy's producer
	// transaction: only cells of that policy use it.
	Transaction Transaction `json:"transaction"`
}

// Transactional id schemes (Transaction.TransactionalID).
const (
	// TxnIDPerMember: transactional.id is <group>.<member>, the same in
	// every incarnation of a member, so that a restarted member's
	// InitProducerId fences its previous incarnation (the pre-KIP-447
	// scheme).
	TxnIDPerMember = "per-member"
	// TxnIDPerIncarnation: transactional.id is <group>.<member>.<inc>,
	// new in every incarnation; a zombie is fenced by the group's
	// generation alone (KIP-447).
	TxnIDPerIncarnation = "per-incarnation"
)

// Transaction is the producer transaction of the transactional commit
// policy: one transaction holds a batch's output records and its input
// offsets. With neither CommitRecords nor CommitInterval, a transaction
// commits after every processed batch.
type Transaction struct {
	// TransactionalID is the transactional.id scheme: per-member (the
	// default) or per-incarnation.
	TransactionalID string `json:"transactional_id"`
	// Timeout is transaction.timeout.ms: how long the transaction
	// coordinator lets a transaction stay open before aborting it
	// (default 60s, Kafka's; at most the broker's
	// transaction.max.timeout.ms, 15 minutes by default).
	Timeout time.Duration `json:"timeout"`
	// CommitRecords commits the open transaction after the batch at
	// which it holds at least this many input records (0: not by count).
	CommitRecords int `json:"commit_records,omitempty"`
	// CommitInterval commits the open transaction once it has been open
	// this long (0: not by time); below Timeout.
	CommitInterval time.Duration `json:"commit_interval,omitempty"`
}

// Broker describes the local cluster a workload needs.
type Broker struct {
	// Brokers is 1 or 3.
	Brokers int `json:"brokers"`
	// Config holds broker properties by their Kafka names.
	Config map[string]string `json:"config,omitempty"`
}

// Chaos is the fault schedule, identical for every cell.
type Chaos struct {
	// Warmup is the traffic time before steady state is measured; the
	// first step comes after it.
	Warmup time.Duration `json:"warmup"`
	// DrainTimeout bounds the wait, after traffic ends, for every
	// acknowledged record to be processed.
	DrainTimeout time.Duration `json:"drain_timeout"`
	Steps        []Step        `json:"steps,omitempty"`
}

// Step is a chaos step as written in the workload.
type Step struct {
	// At is the step's time since traffic start (from `at`, or computed
	// from `after`).
	At time.Duration `json:"at"`
	// After is the time since the previous step, when given as `after`.
	After  time.Duration `json:"after,omitempty"`
	Action string        `json:"action"`
	// Target is a member name, random, owner:<partition> or all.
	Target string `json:"target,omitempty"`
	// Count is the number of members to add (add).
	Count int `json:"count,omitempty"`
	// Duration is the pause (pause), the processing stall (slow) or how
	// long a network fault lasts (disconnect, reset, latency, bandwidth).
	Duration time.Duration `json:"duration,omitempty"`
	// Interval is the time between members (rolling_restart).
	Interval time.Duration `json:"interval,omitempty"`
	// Partitions is the new partition count (add_partitions).
	Partitions int `json:"partitions,omitempty"`
	// Broker is a node id or random (broker_kill, broker_restart, and
	// network steps on a broker's links to the others), coordinator
	// (network steps: the group coordinator's broker when the step acts),
	// or txn-coordinator:<member> (broker_kill: TxnCoordinatorPrefix).
	Broker string `json:"broker,omitempty"`
	// Delay is added to the target's traffic each way, and Jitter is the
	// spread around it (latency).
	Delay  time.Duration `json:"delay,omitempty"`
	Jitter time.Duration `json:"jitter,omitempty"`
	// BytesPerSecond limits each direction of each of the target's
	// connections (bandwidth).
	BytesPerSecond int64 `json:"bytes_per_second,omitempty"`
}

// Rand returns a random source for one purpose of the run, derived from
// the seed and the purpose's name, so that adding a random choice for one
// purpose never changes another's. Purposes used: "keys" (the producer's
// key stream), "value" (the record value bytes), "chaos" (random targets
// of the chaos plan), "processing" (processing cost draws; members derive
// their own with their name, e.g. "processing/m3").
func (s *Spec) Rand(purpose string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(purpose))
	return rand.New(rand.NewPCG(uint64(s.Seed), h.Sum64()))
}

// Line returns the line of a field in the workload file (e.g.
// "chaos.steps[2].target"), or of its closest enclosing field that was
// written; 0 if none.
func (s *Spec) Line(field string) int {
	for f := field; f != ""; f = parentField(f) {
		if l, ok := s.pos[f]; ok {
			return l
		}
	}
	return 0
}

// parentField returns "a.b" for "a.b.c" and "a.b" for "a.b[3]".
func parentField(f string) string {
	for i := len(f) - 1; i >= 0; i-- {
		if f[i] == '.' || f[i] == '[' {
			return f[:i]
		}
	}
	return ""
}

// Expectation is one prediction of a workload: a metric of the reports
// (by its name in chaos report and chaos compare, e.g. moved or
// other_pause_p95_ms) stays within [Min, Max] for the given strategies
// (all of the workload's when empty). The workloads package checks its
// form; the report, which knows the metrics, checks the name and judges
// it against a run.
type Expectation struct {
	Metric     string   `json:"metric"`
	Strategies []string `json:"strategies,omitempty"`
	Min        *float64 `json:"min,omitempty"`
	Max        *float64 `json:"max,omitempty"`
	// Why is the physics: the reason the prediction must hold.
	Why string `json:"why"`
}

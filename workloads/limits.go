package workloads

import "time"

// The limits of the schema. Every count, size, rate and duration a
// workload gives has one, named in the error that refuses it: a number
// without a bound is a loop that never ends or an allocation that never
// fits (an add step of 2^63 members), or a run that holds every cell for
// days. Each bound is the client's or Kafka's own where there is one, and
// otherwise far beyond what a benchmark of one host can use.
const (
	// MaxPartitions bounds the topic's partitions, at the start and after
	// add_partitions steps.
	MaxPartitions = 10000
	// MaxKeys bounds keys.count.
	MaxKeys = 10_000_000
	// MaxExplicitKeys bounds the named keys of an explicit distribution.
	MaxExplicitKeys = 10000
	// MaxValueSize is below the broker's default message.max.bytes
	// (1048588).
	MaxValueSize = 1_000_000
	// MaxMembers bounds the group at any point of the schedule: the
	// initial members and every add step.
	MaxMembers = 1000
	// MaxRecords bounds records: ten billion, hours of traffic at the
	// producer's peak.
	MaxRecords = 10_000_000_000
	// MaxRate bounds every rate (producer.rate, a ramp's from, a step's
	// rate) in records/s: ten times the producer's peak on one host.
	MaxRate = 10_000_000
	// MaxSteps bounds chaos.steps and producer.steps.
	MaxSteps = 1000
	// MaxExpectations bounds the expect section.
	MaxExpectations = 1000
	// MaxExpectBound bounds an expectation's min and max: beyond every
	// figure a report prints (a day in ms is 8.64e7, MaxRecords 1e10).
	MaxExpectBound = 1e12
	// MaxWhy bounds an expectation's why, the physics in words.
	MaxWhy = 4000
	// MaxFileSize bounds the workload file itself.
	MaxFileSize = 4 << 20

	// MaxDuration bounds every duration of a workload: the traffic, the
	// warmup, the drain timeout, every step's time, pause, stall and
	// interval, the processing cost. It is librdkafka's largest timing
	// (max.poll.interval.ms and auto.commit.interval.ms, 86400000 ms);
	// a longer step holds every cell of the run that long.
	MaxDuration = 24 * time.Hour
	// MaxTransactionTimeout bounds consumer.transaction.timeout: the
	// broker's transaction.max.timeout.ms by default (15 minutes), above
	// which InitProducerId is refused.
	MaxTransactionTimeout = 15 * time.Minute
	// MaxCommitRecords bounds consumer.transaction.commit_records.
	MaxCommitRecords = 1_000_000
	// MaxSessionTimeout bounds consumer.session_timeout and
	// consumer.heartbeat_interval: librdkafka's session.timeout.ms and
	// heartbeat.interval.ms (1 to 3600000 ms).
	MaxSessionTimeout = time.Hour

	maxTopicName = 249
	// maxErrors is how many problems an Error lists; the rest are
	// counted. A file with an error on every line is not made clearer by
	// a message per line.
	maxErrors = 100
)

// Package layers holds no code: its test is the rule of the project's
// import graph. Every package has a layer, and imports only from layers
// below its own, so nothing low can come to depend on something high:
//
//	4  cmd/chaos, cmd/loadgen, the benchmark commands
//	3  internal/runner (the chaos driver), report, internal/kafkatest,
//	   internal/sweep/groupmodel, internal/sweep/sweeptest
//	2  internal/check, internal/cluster, internal/member, internal/loadgen, internal/cli,
//	   internal/sweep
//	1  workloads, assign, internal/kafkaconf, internal/launcher, internal/probe,
//	   internal/summary
//	0  internal/vocab, internal/history, internal/runfolder, internal/pace,
//	   internal/partitioner, internal/keygen, internal/version, internal/procutil,
//	   internal/testcert, internal/schema, internal/kafkarelease, internal/clip,
//	   internal/stamp, internal/stat
//
// And the pure core (the vocabulary, the history format, the run folder's
// records, pacing, partitioners and key generators, medians and spreads,
// workloads, the
// assignment models, the checkers, the sweeps' measurements and their
// judgement, and the reports) imports nothing that
// can reach a Kafka client, a Docker engine or the network, not even
// through another package: a result can be analysed and reported on a
// machine with none of them, years later.
package layers

// Package layers holds no code: its tests are the rules of the project's
// import graph, which docs/design.md's layer table states (and the tests
// hold the table to them). Every package has a layer, and imports only
// from layers below its own, so nothing low can come to depend on
// something high. The pure core (the vocabulary, the history format, the
// run folder's records, pacing, partitioners and key generators,
// workloads, the assignment models, the summaries, the checkers, the
// sweeps' measurements and the reports) imports nothing that can reach a
// Kafka client, a Docker engine or the network, not even through another
// package: a result can be analysed and reported on a machine with none
// of them, years later. And package report renders only: it reaches no
// package that runs the analysis and reads run folders only in its
// loaders. Its tests also hold the design's recipes to the vocabulary,
// and its file map to the tree: every file listed under its package.
package layers

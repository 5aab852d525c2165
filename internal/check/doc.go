// Package check is the analysis: the checkers, pure functions of a cell's
// history. One streaming pass over the merged history (history.Merger)
// feeds a group model (who owns each partition, which partitions are
// live, the disruptions and their windows, the pauses) and every checker,
// a metric a file with its definition at the top, and gives the cell's
// summary (package summary: summary.json) and its latency histograms
// (latency.hlog). The same history always gives the same summary. What
// each number means is in docs/design.md and docs/summary.md; the parts
// and how to add a checker are in this folder's README.md.
package check

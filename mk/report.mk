# Analysis and reports of saved runs (report/README.md).

# The analyser's benchmark: a generated history of BENCH_ANALYZE_EVENTS
# events (kept under BENCH_ANALYZE_DIR and reused), decoded alone, merged,
# and analysed on two cores and on one, each measurement in its own
# process: events/s, events per CPU-second, peak RSS, peak heap.
# BENCH_ANALYZE_PROFILE=cpu.prof writes each measurement's CPU profile
# (cpu.prof.1 ... cpu.prof.4; go tool pprof reads them).
BENCH_ANALYZE_EVENTS  ?= 10000000
BENCH_ANALYZE_DIR     ?= .chaosbench/bench-analyze
BENCH_ANALYZE_PROFILE ?=

.PHONY: bench-analyze bench-analyze-go analyze report

bench-analyze:
	$(GO) run ./internal/check/synth/benchanalyze -events $(BENCH_ANALYZE_EVENTS) -dir $(BENCH_ANALYZE_DIR) \
		$(if $(BENCH_ANALYZE_PROFILE),-cpuprofile $(BENCH_ANALYZE_PROFILE))

# The same parts as Go benchmarks, on small generated histories: decoding
# one line of each event kind, reading one file, merging, the ordering
# check's key table, the checks alone and the full analysis of a cell.
# Each reports CPU time per event next to wall time.
bench-analyze-go:
	$(GO) test -run '^$$' -bench 'Decode|Read|Merger|KeyTable|Analyze' -benchtime 2s ./internal/history/ ./internal/check/

# Analyse or report a results folder again: make report RUN=results/<run>
analyze report: build
	@test -n "$(RUN)" || { echo "usage: make $@ RUN=results/<run>" >&2; exit 2; }
	$(CHAOS) $@ $(RUN)

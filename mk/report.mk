# Analysis and reports of saved runs (report/README.md).

# The analyser's benchmark: a generated history of BENCH_ANALYZE_EVENTS
# events (kept under BENCH_ANALYZE_DIR and reused), read alone and analysed,
# each measurement in its own process: events/s, peak RSS, peak heap.
BENCH_ANALYZE_EVENTS ?= 10000000
BENCH_ANALYZE_DIR    ?= .chaosbench/bench-analyze

.PHONY: bench-analyze analyze report

bench-analyze:
	$(GO) run ./internal/check/synth/benchanalyze -events $(BENCH_ANALYZE_EVENTS) -dir $(BENCH_ANALYZE_DIR)

# Analyse or report a results folder again: make report RUN=results/<run>
analyze report: build
	@test -n "$(RUN)" || { echo "usage: make $@ RUN=results/<run>" >&2; exit 2; }
	$(CHAOS) $@ $(RUN)

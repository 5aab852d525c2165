# Analysis and reports of saved runs (report/README.md).

# The analyser's benchmark: a generated history of BENCH_ANALYZE_EVENTS
# events (kept under BENCH_ANALYZE_DIR and reused), decoded alone, merged,
# and analysed on two cores and on one, each measurement in its own
# process: events/s, events per CPU-second, peak RSS, peak heap, the
# median of BENCH_ANALYZE_ROUNDS rounds with their spread.
# BENCH_ANALYZE_BEFORE=main (any git revision) builds that revision's
# benchanalyze too and measures both side by side in the same rounds,
# alternating, with the ratio of each figure; both must compute the same
# summary. BENCH_ANALYZE_PROFILE=cpu.prof writes the first round's CPU
# profiles (cpu.prof.1 ... cpu.prof.4; with a before, cpu.prof.before.1
# and cpu.prof.after.1 ...; go tool pprof reads them).
BENCH_ANALYZE_EVENTS  ?= 10000000
BENCH_ANALYZE_DIR     ?= .chaosbench/bench-analyze
BENCH_ANALYZE_BEFORE  ?=
BENCH_ANALYZE_ROUNDS  ?= $(if $(BENCH_ANALYZE_BEFORE),5,1)
BENCH_ANALYZE_PROFILE ?=

bench_analyze_bin = $(BENCH_ANALYZE_DIR)/bin

.PHONY: bench-analyze bench-analyze-go analyze report

bench-analyze:
	@mkdir -p $(bench_analyze_bin)
	$(GO) build -o $(bench_analyze_bin)/benchanalyze ./internal/check/synth/benchanalyze
ifneq ($(BENCH_ANALYZE_BEFORE),)
	rm -rf $(bench_analyze_bin)/before-src && mkdir -p $(bench_analyze_bin)/before-src
	git archive $(BENCH_ANALYZE_BEFORE) | tar -x -C $(bench_analyze_bin)/before-src
	cd $(bench_analyze_bin)/before-src && $(GO) build -o ../benchanalyze-before ./internal/check/synth/benchanalyze
	rm -rf $(bench_analyze_bin)/before-src
endif
	$(bench_analyze_bin)/benchanalyze -events $(BENCH_ANALYZE_EVENTS) -dir $(BENCH_ANALYZE_DIR) -rounds $(BENCH_ANALYZE_ROUNDS) \
		$(if $(BENCH_ANALYZE_BEFORE),-before $(bench_analyze_bin)/benchanalyze-before) \
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

# The main job: every strategy of a workload on a local Kafka the harness
# starts itself (or an existing cluster: BOOTSTRAP=host:port).
WORKLOAD  ?= workloads/default.yaml
BOOTSTRAP ?=
RUN_FLAGS ?=

bench_cluster = $(if $(BOOTSTRAP),--bootstrap $(BOOTSTRAP))
# An existing cluster or a Docker one needs no Kafka jars (nor Maven).
bench_needs = $(if $(BOOTSTRAP)$(findstring docker,$(RUN_FLAGS)),build,kafka-fetch)

.PHONY: bench

bench: $(bench_needs)
	$(CHAOS) bench $(bench_cluster) $(RUN_FLAGS) $(WORKLOAD)

# bench-STRATEGY: one strategy (bench-sticky, bench-consumer-uniform, ...).
# The names are chaos's own (`chaos bench -h` lists them), so a strategy
# added to the vocabulary has its target at once, and a misspelt one gets
# chaos's error. Explicit targets (bench-producer, bench-assign, ...) take
# precedence over this pattern.
bench-%: $(bench_needs)
	$(CHAOS) bench $(bench_cluster) --strategies $* $(RUN_FLAGS) $(WORKLOAD)

# The nightly suite: repeated cells, compared with the baseline kept under
# results/baselines/ (exit status 1 on a regression), by the thresholds
# calibrated for it (its thresholds.json). Eight candidate iterations
# against the baseline's ten: enough for a fully separated metric to pass
# Holm's correction over every metric of every group (docs/nightly.md).
NIGHTLY_WORKLOAD        ?= workloads/nightly.yaml
NIGHTLY_REPEAT          ?= 8
NIGHTLY_BASELINE_REPEAT ?= 10
NIGHTLY_BASELINE        ?= results/baselines/nightly
NIGHTLY_FLAGS           ?=

.PHONY: nightly nightly-baseline nightly-calibrate

nightly: $(bench_needs)
	$(CHAOS) bench $(bench_cluster) --repeat $(NIGHTLY_REPEAT) --compare $(NIGHTLY_BASELINE) $(NIGHTLY_FLAGS) $(NIGHTLY_WORKLOAD)

# A new baseline from a fresh nightly run: NIGHTLY_BASELINE must not exist
# (move the old one away first; baselines are never overwritten). Then
# calibrate the thresholds for it (nightly-calibrate).
nightly-baseline: $(bench_needs)
	$(CHAOS) bench $(bench_cluster) --repeat $(NIGHTLY_BASELINE_REPEAT) --save-baseline $(NIGHTLY_BASELINE) $(NIGHTLY_FLAGS) $(NIGHTLY_WORKLOAD)

# How often the nightly is red on unchanged code and on regressions of
# the size users care about, and the thresholds that keep the first rare
# and the second certain: NIGHTLY_CALIBRATE_REPEAT iterations of
# unchanged code (resampled into baseline/candidate nights), and three
# regressions (a session timeout 6 s to 9 s, a processing cost doubled,
# range's cells in cooperative-sticky's place). Writes calibration.md and
# thresholds.json into CALIBRATE_DIR/calibration. When NIGHTLY_BASELINE
# does not exist, it becomes the first NIGHTLY_BASELINE_REPEAT unchanged
# iterations of each group with those thresholds (chaos calibrate
# --save-baseline); when it exists without thresholds.json, the thresholds
# are put into it. About an hour and a half on two cores (docs/nightly.md).
NIGHTLY_CALIBRATE_REPEAT ?= 18
NIGHTLY_REGRESSIONS      ?= range,cooperative-sticky
ifeq ($(CALIBRATE_DIR),)
CALIBRATE_DIR := results/nightly-calibration-$(shell date -u +%Y%m%dT%H%M%SZ)
endif

nightly-calibrate: $(bench_needs)
	$(CHAOS) run --results $(CALIBRATE_DIR)/unchanged --repeat $(NIGHTLY_CALIBRATE_REPEAT) $(bench_cluster) $(NIGHTLY_FLAGS) $(NIGHTLY_WORKLOAD)
	$(CHAOS) run --results $(CALIBRATE_DIR)/slower-crash-detection --repeat $(NIGHTLY_REPEAT) --strategies $(NIGHTLY_REGRESSIONS) $(bench_cluster) workloads/nightly-regressions/slower-crash-detection.yaml
	$(CHAOS) run --results $(CALIBRATE_DIR)/doubled-processing-cost --repeat $(NIGHTLY_REPEAT) --strategies $(NIGHTLY_REGRESSIONS) $(bench_cluster) workloads/nightly-regressions/doubled-processing-cost.yaml
	$(CHAOS) calibrate -o $(CALIBRATE_DIR)/calibration $(if $(wildcard $(NIGHTLY_BASELINE)),,--save-baseline $(NIGHTLY_BASELINE)) \
		--baseline-iterations $(NIGHTLY_BASELINE_REPEAT) --candidate-iterations $(NIGHTLY_REPEAT) \
		--regression "slower crash detection (session timeout 6 s to 9 s)=$(CALIBRATE_DIR)/slower-crash-detection" \
		--regression "processing cost doubled (1 ms to 2 ms)=$(CALIBRATE_DIR)/doubled-processing-cost" \
		--regression "an eager strategy in place of an incremental one (range in cooperative-sticky's place)=$(CALIBRATE_DIR)/unchanged,range->cooperative-sticky" \
		$(CALIBRATE_DIR)/unchanged
	@if [ -d $(NIGHTLY_BASELINE) ] && [ ! -e $(NIGHTLY_BASELINE)/thresholds.json ]; then \
		cp $(CALIBRATE_DIR)/calibration/thresholds.json $(NIGHTLY_BASELINE)/ && echo "thresholds: $(NIGHTLY_BASELINE)/thresholds.json"; fi

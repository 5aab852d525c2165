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
# results/baselines/ (exit status 1 on a regression).
NIGHTLY_WORKLOAD ?= workloads/nightly.yaml
NIGHTLY_REPEAT   ?= 5
NIGHTLY_BASELINE ?= results/baselines/nightly
NIGHTLY_FLAGS    ?=

.PHONY: nightly nightly-baseline

nightly: $(bench_needs)
	$(CHAOS) bench $(bench_cluster) --repeat $(NIGHTLY_REPEAT) --compare $(NIGHTLY_BASELINE) $(NIGHTLY_FLAGS) $(NIGHTLY_WORKLOAD)

# A new baseline from a fresh nightly run: NIGHTLY_BASELINE must not exist
# (move the old one away first; baselines are never overwritten).
nightly-baseline: $(bench_needs)
	$(CHAOS) bench $(bench_cluster) --repeat $(NIGHTLY_REPEAT) --save-baseline $(NIGHTLY_BASELINE) $(NIGHTLY_FLAGS) $(NIGHTLY_WORKLOAD)

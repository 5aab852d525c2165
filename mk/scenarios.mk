# The scenario catalogue (workloads/scenarios/*.yaml, workloads/README.md):
# every scenario, one after another, on a local Kafka the harness starts
# itself for each (or BOOTSTRAP=host:port; broker-failover and
# broker-partition need the local provider's three brokers), each run and its report into one folder;
# then chaos scenarios puts them side by side, scenarios by strategies,
# and judges every scenario's predictions (SCENARIOS_DIR/scenarios.md;
# exit status 1 when one did not hold). About an hour on two cores.
# SCENARIOS=workloads/scenarios/crash.yaml runs a subset.
SCENARIOS       ?= $(sort $(wildcard workloads/scenarios/*.yaml))
SCENARIOS_FLAGS ?=
ifeq ($(SCENARIOS_DIR),)
SCENARIOS_DIR := results/scenarios-$(shell date -u +%Y%m%dT%H%M%SZ)
endif

.PHONY: scenarios scenarios-report

scenarios: $(bench_needs)
	@mkdir -p $(SCENARIOS_DIR)
	@for w in $(SCENARIOS); do \
		echo "== scenario $$w"; \
		$(CHAOS) bench --results $(SCENARIOS_DIR) $(bench_cluster) $(RUN_FLAGS) $(SCENARIOS_FLAGS) $$w || echo "== scenario $$w: the run reported a failure (its report says which)"; \
	done
	$(CHAOS) scenarios $(SCENARIOS_DIR)

# The catalogue's side-by-side report of a folder of runs again:
# make scenarios-report SCENARIOS_DIR=results/scenarios-<time>
scenarios-report: build
	$(CHAOS) scenarios $(SCENARIOS_DIR)

# How many members this machine hosts before the host check trips: the
# host-capacity workload (or HOST_CAPACITY_WORKLOAD) at each group size,
# on the clients it names (docs/host-capacity.md). About two and a half
# minutes per size on two cores.
HOST_CAPACITY_SIZES    ?= 3 6 12 18 24
HOST_CAPACITY_WORKLOAD ?= workloads/host-capacity.yaml
ifeq ($(HOST_CAPACITY_DIR),)
HOST_CAPACITY_DIR := results/host-capacity-$(shell date -u +%Y%m%dT%H%M%SZ)
endif

.PHONY: host-capacity

host-capacity: $(bench_needs)
	@mkdir -p $(HOST_CAPACITY_DIR)
	@for n in $(HOST_CAPACITY_SIZES); do \
		echo "== $$n members"; \
		$(CHAOS) run --results $(HOST_CAPACITY_DIR) --members $$n $(bench_cluster) $(RUN_FLAGS) $(HOST_CAPACITY_WORKLOAD) || true; \
	done
	$(CHAOS) analyze -fail-on never $(HOST_CAPACITY_DIR)

# Where the host check's signals start to move the figures they protect
# (docs/host-check.md): the host-check workload quiet, then beside CPU
# hogs (HOST_CHECK_HOGS: hogs:nice, busy loops outside the harness), each
# HOST_CHECK_REPEAT times, and the table of signals and figures. About
# half an hour on two cores.
HOST_CHECK_WORKLOAD ?= workloads/host-check.yaml
HOST_CHECK_REPEAT   ?= 3
HOST_CHECK_HOGS     ?= 1:0 2:0 4:0 4:19
ifeq ($(HOST_CHECK_DIR),)
HOST_CHECK_DIR := results/host-check-$(shell date -u +%Y%m%dT%H%M%SZ)
endif

.PHONY: host-check-experiment

host-check-experiment: $(bench_needs)
	$(CHAOS) bench --results $(HOST_CHECK_DIR)/quiet --repeat $(HOST_CHECK_REPEAT) $(bench_cluster) $(RUN_FLAGS) $(HOST_CHECK_WORKLOAD)
	@pids=""; trap 'kill $$pids 2>/dev/null' EXIT INT TERM; \
	for c in $(HOST_CHECK_HOGS); do \
		n=$${c%%:*}; nice=$${c##*:}; pids=""; \
		for i in $$(seq 1 $$n); do nice -n $$nice sh -c 'while :; do :; done' & pids="$$pids $$!"; done; \
		echo "== $$n CPU hog(s) at nice $$nice:$$pids"; \
		$(CHAOS) bench --results $(HOST_CHECK_DIR)/hogs-$$n-nice-$$nice --repeat $(HOST_CHECK_REPEAT) $(bench_cluster) $(RUN_FLAGS) $(HOST_CHECK_WORKLOAD) || true; \
		kill $$pids 2>/dev/null; wait $$pids 2>/dev/null || true; \
	done
	$(GO) run ./internal/check/hostexp $(HOST_CHECK_DIR)

# The main job: every strategy of a workload on a local Kafka the harness
# starts itself (or an existing cluster: BOOTSTRAP=host:port).
WORKLOAD  ?= workloads/default.yaml
BOOTSTRAP ?=
RUN_FLAGS ?=
STRATEGIES := range roundrobin sticky cooperative-sticky consumer-uniform consumer-range

bench_cluster = $(if $(BOOTSTRAP),--bootstrap $(BOOTSTRAP))

.PHONY: bench $(addprefix bench-,$(STRATEGIES))

bench: kafka-fetch
	$(CHAOS) bench $(bench_cluster) $(RUN_FLAGS) $(WORKLOAD)

$(addprefix bench-,$(STRATEGIES)): bench-%: kafka-fetch
	$(CHAOS) bench $(bench_cluster) --strategies $* $(RUN_FLAGS) $(WORKLOAD)

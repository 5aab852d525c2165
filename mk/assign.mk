# The assignor models against Kafka's own Java assignors (kafka-clients and
# kafka-group-coordinator at cluster.KafkaVersion, built with Maven): a
# cross-check on random groups, then times and ratios side by side.
# ASSIGN_BENCH_FLAGS: e.g. -shapes quick, -check 2000, -seed 7,
# -strategies cooperative-sticky, -warmup 10s (see assign/README.md).
ASSIGN_BENCH_FLAGS ?=

.PHONY: bench-assign bench-assign-go
bench-assign:
	$(GO) run ./assign/javabench $(ASSIGN_BENCH_FLAGS)

# The models alone, as Go benchmarks of the same shapes (no Java needed);
# ASSIGN_GO_BENCH selects them, e.g. 'Assign/2125m-3160p/churn/'.
ASSIGN_GO_BENCH ?= .
bench-assign-go:
	$(GO) test -run - -bench '$(ASSIGN_GO_BENCH)' -benchmem ./assign

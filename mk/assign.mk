# The assignor models against Kafka's own Java assignors (kafka-clients and
# kafka-group-coordinator at cluster.KafkaVersion, built with Maven): a
# cross-check on random groups, then times and ratios side by side.
# ASSIGN_BENCH_FLAGS: e.g. -shapes quick, -check 2000, -seed 7.
ASSIGN_BENCH_FLAGS ?=

.PHONY: bench-assign
bench-assign:
	$(GO) run ./assign/javabench $(ASSIGN_BENCH_FLAGS)

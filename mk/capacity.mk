# Capacity planning: what the harness itself costs a consumer, and sweeps
# of a workload over group sizes, partition counts and strategies
# (docs/capacity.md).

BENCH_MEMBER_FLAGS ?=

.PHONY: bench-member

# A member (zero processing cost) against a bare consumer of the same
# client with the same settings, draining one preloaded topic on one local
# broker in alternating rounds: records/s, records per CPU-second, the
# ratio. BENCH_MEMBER_FLAGS: e.g. -rounds 9, -records 500000, -clients franz,
# -policy async-batch.
bench-member: build kafka-fetch
	$(GO) run ./internal/member/benchmember --chaos $(CHAOS) $(BENCH_MEMBER_FLAGS)

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

# The java member's JVM options side by side (docs/host-capacity.md): the
# member and a bare kafka-clients consumer, each with the member's own
# options and with every -jvm variant of BENCH_JAVA_JVMS: records per
# CPU-second and CPU at idle. About ten minutes on two cores.
BENCH_JAVA_JVMS ?= -jvm c1=-XX:TieredStopAtLevel=1 \
	-jvm 'c1-lean=-XX:TieredStopAtLevel=1 -XX:CICompilerCount=1 -XX:ActiveProcessorCount=1 -Xss512k'

.PHONY: bench-member-java
bench-member-java: build kafka-fetch
	$(GO) run ./internal/member/benchmember --chaos $(CHAOS) -clients java $(BENCH_JAVA_JVMS) $(BENCH_MEMBER_FLAGS)

# The worked example of README.md: how many members and partitions a
# 300 records/s hot-keyed stream needs (workloads/capacity.yaml), on a
# local broker (or BOOTSTRAP=host:port): members 1 to 4 over 3 and 6
# partitions, each driven to saturation and run at the target rate with a
# crash and a rolling deploy, then the capacity report (capacity.md,
# capacity.html). About 10 minutes on two cores. CAPACITY_FLAGS: e.g.
# --repeat 3, --rate 250, --resume results/<sweep> (with CAPACITY_VARY=).
CAPACITY_WORKLOAD ?= workloads/capacity.yaml
CAPACITY_VARY     ?= --vary members=1,2,3,4 --vary partitions=3,6
CAPACITY_FLAGS    ?= --saturate 12s

.PHONY: capacity
capacity: $(bench_needs)
	$(CHAOS) sweep $(bench_cluster) $(RUN_FLAGS) $(CAPACITY_VARY) $(CAPACITY_FLAGS) $(CAPACITY_WORKLOAD)

# loadgen: the producer of chaos runs (cmd/loadgen, internal/loadgen).

BENCH_RECORDS    ?= 1000000
BENCH_ROUNDS     ?= 5
BENCH_PARTITIONS ?= 6
BENCH_CLIENTS    ?= confluent,franz
BENCH_BASELINE   ?=
BENCH_FLAGS      ?=

.PHONY: bench-producer FORCE

bench_baseline_bin = $(if $(BENCH_BASELINE),$(BIN)/loadgen-$(subst /,-,$(BENCH_BASELINE)))

# Peak throughput of loadgen against Kafka's ProducerPerformance on one local
# broker: 100-byte values, acks=all, idempotence, rounds in rotating order;
# prints records/s and records per CPU-second of each producing process, and
# the ratios round by round with their spread. BENCH_CLIENTS=confluent
# measures one client only; BENCH_BASELINE=REV (a git revision, e.g. main)
# also runs the loadgen of that revision in the same rounds: before and
# after in one run. BENCH_FLAGS=--client-ceiling adds confluent-kafka-go
# alone (bare, with loadgen's stamp, with the stamp's values in one and in
# three headers), to show what the client library itself allows; BENCH_FLAGS=--profile=DIR keeps Go profiles and the
# CPU of every run by thread.
bench-producer: build kafka-fetch $(bench_baseline_bin)
	$(GO) run ./internal/loadgen/benchproducer --loadgen $(LOADGEN) --records $(BENCH_RECORDS) \
		--rounds $(BENCH_ROUNDS) --partitions $(BENCH_PARTITIONS) --clients $(BENCH_CLIENTS) \
		$(if $(BENCH_BASELINE),--baseline $(bench_baseline_bin)) $(BENCH_FLAGS)

# The loadgen of an earlier revision, built from `git archive` in a
# temporary folder (rebuilt every time: a branch name moves).
$(BIN)/loadgen-%: FORCE
	@mkdir -p $(BIN)
	tmp=$$(mktemp -d) && git archive $(BENCH_BASELINE) | tar -x -C $$tmp && \
		(cd $$tmp && $(GO) build -o $(abspath $@) ./cmd/loadgen); rc=$$?; rm -rf $$tmp; exit $$rc
FORCE:

# loadgen: the producer of chaos runs (cmd/loadgen, internal/loadgen).

BENCH_RECORDS    ?= 1000000
BENCH_ROUNDS     ?= 3
BENCH_PARTITIONS ?= 6
BENCH_CLIENTS    ?= confluent,franz
BENCH_FLAGS      ?=

.PHONY: bench-producer

# Peak throughput of loadgen against Kafka's ProducerPerformance on one local
# broker: 100-byte values, acks=all, idempotence, alternating rounds; prints
# both rates and their ratio. BENCH_CLIENTS=confluent measures one client only;
# BENCH_FLAGS=--client-ceiling adds confluent-kafka-go alone, with and without
# loadgen's three headers, to show what the client library itself allows.
bench-producer: build kafka-fetch
	$(GO) run ./internal/loadgen/benchproducer --loadgen $(LOADGEN) --records $(BENCH_RECORDS) \
		--rounds $(BENCH_ROUNDS) --partitions $(BENCH_PARTITIONS) --clients $(BENCH_CLIENTS) $(BENCH_FLAGS)

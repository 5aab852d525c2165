# chaosbench: see README.md.

GO       ?= go
BROKERS  ?= 1
BIN      := bin
CHAOS    := $(BIN)/chaos
LOADGEN  := $(BIN)/loadgen

.PHONY: all build test vet fmt kafka-fetch kafka-up kafka-down kafka-status clean

all: build

# The version the binaries report (--version, cell.json) when the Go
# toolchain records no version control information (internal/version).
VERSION  ?= $(shell git describe --tags --always --dirty 2>/dev/null)

build:
	$(GO) build -ldflags "-X github.com/chaosbench/chaosbench/internal/version.stamp=$(VERSION)" -o $(BIN)/ ./cmd/...

$(CHAOS): build

# The Kafka jars, fetched once from Maven Central into ~/.cache/chaosbench.
kafka-fetch: build
	$(CHAOS) cluster fetch

# A local Kafka cluster that stays up until kafka-down (BROKERS=1 or 3).
kafka-up: kafka-fetch
	$(CHAOS) cluster up --brokers $(BROKERS)

kafka-down: build
	$(CHAOS) cluster down

kafka-status: build
	$(CHAOS) cluster status

# The tests start and stop their own brokers; without Kafka jars they fail
# rather than skip (CHAOSBENCH_REQUIRE_KAFKA).
test: kafka-fetch
	CHAOSBENCH_REQUIRE_KAFKA=1 $(GO) test -race -timeout 30m ./...

vet:
	$(GO) vet ./...
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); exit 1; }

fmt:
	gofmt -w $$(git ls-files '*.go')

clean:
	rm -rf $(BIN)

# Benchmarks and tools of each part live in mk/*.mk.
include $(wildcard mk/*.mk)

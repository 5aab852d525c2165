# A short fuzzing pass over every fuzz target (FUZZTIME each); CI runs it
# after the tests. A crash, a hang or an allocation beyond a target's
# budget fails it, and the input that did it lands in the package's
# testdata/fuzz, to be committed as a seed once fixed.
FUZZTIME ?= 20s
FUZZ_TARGETS = \
	FuzzParse:./workloads \
	FuzzDecodeLine:./internal/history \
	FuzzReadFile:./internal/history \
	FuzzAnalyze:./internal/check

.PHONY: fuzz
fuzz:
	@set -e; for t in $(FUZZ_TARGETS); do \
		echo "== $${t%%:*} ($(FUZZTIME))"; \
		$(GO) test -run '^$$' -fuzz "^$${t%%:*}\$$" -fuzztime $(FUZZTIME) $${t#*:}; \
	done

# ratebench — see README.md.
#
#   make compare                         generate the default trace and compare on it
#   make compare TRACE=path RULE=100/1m  compare on your own trace (results/<trace name>/)
#   make test                            run the test suite
#   make bench                           run the benchmarks

GO      ?= go
BIN     := bin/ratebench
TRACE   ?=
RULE    ?= 5/30s
ALG     ?=
COUNT   ?= accepted
OUT     ?=

# The default trace: generated, deterministic, not committed.
DEFAULT_TRACE := traces/default.parquet
DEFAULT_GEN   := -scenario poisson -requests 1000000 -keys 10000 -rate 0.15 -seed 1

COMPARE_FLAGS = -rule $(RULE) -count $(COUNT) $(if $(ALG),-alg $(ALG)) $(if $(OUT),-o $(OUT))

.PHONY: all build compare test bench vet fmt clean
all: build

build:
	$(GO) build -o $(BIN) ./cmd/ratebench

ifeq ($(TRACE),)
compare: build $(DEFAULT_TRACE)
	$(BIN) compare -trace $(DEFAULT_TRACE) $(COMPARE_FLAGS) $(if $(OUT),,-o results/default)
else
compare: build
	$(BIN) compare -trace $(TRACE) $(COMPARE_FLAGS)
endif

$(DEFAULT_TRACE): | build
	$(BIN) gen $(DEFAULT_GEN) -o $@

test:
	$(GO) test ./...

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

vet:
	$(GO) vet ./...
	@test -z "$$(gofmt -l .)" || { gofmt -l .; echo "gofmt: files above need formatting"; exit 1; }

clean:
	rm -rf bin $(DEFAULT_TRACE)

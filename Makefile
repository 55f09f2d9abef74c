# ratebench — see README.md.
#
#   make compare                         generate the default trace and compare on it
#   make compare TRACE=path RULE=100/1m  compare on your own trace (results/runs/<trace name>/, ignored by git); more flags in FLAGS='...'
#   make test                            install what the tests need (scripts/deps: redis-server, nginx, haproxy, varnish, the products' libraries, chromium) and run the test suite
#   make race                            the concurrent tests (workers, shards, cancels, Redis clients) under -race
#   make bench                           run the benchmarks (bench.txt) and print them as a table
#   make pgo                             regenerate cmd/ratebench/default.pgo, the profile go build optimizes ratebench with
#   make traces                          write the standard scenario set to traces/
#   make cloudflare                      reproduce Cloudflare's 400M-request experiment (results/cloudflare/)
#   make cloudflare-search               search the mechanism's space at 1/10 of the sources (results/cloudflare/search/, about 20 minutes on two cores) and rewrite results/cloudflare/README.md
#   make cloudflare-full                 replay the search's three closest points at full scale (results/cloudflare/search/full/1, 2, 3, about 15 minutes on two cores) and rewrite results/cloudflare/README.md
#   make results                         regenerate the committed reference results (results/<scenario>/; only this and make cloudflare write them)
#   make report-check                    regenerate every committed report from its summary.json; fail on a diff
#   make screenshots                     the README's screenshots of the report's first screen (make compare's report, in Chromium at 1400 and 800 px)
#   make fuzz                            a short run of every trace reader's fuzzer (FUZZTIME each)
#   make redis-compare                   ratebench live redis:SCRIPT for every Redis script, at 1, 4 and 16 clients (a redis-server started and stopped here)
#   make live-nginx                      ratebench live nginx on a small trace (a real nginx started and stopped here): its agreement with its model
#   make check-gubernator                gubernator's model against the real gubernator module (a module of its own; slow to build the first time)
#   make live                            live-nginx, then the check's trace through every other product's real software (results/live/<target>/)

GO      ?= go
BIN     := bin/ratebench
TRACE   ?=
RULE    ?= 5/30s
ALG     ?=
COUNT   ?= accepted
OUT     ?=

# The default trace: generated, deterministic, not committed. A mix that
# exercises every direction of divergence: steady clients, bursty ones,
# clients clustered early in each window (the counter refuses them) and an
# attacker timing bursts to the window edges (the counter and the fixed
# window let it through).
DEFAULT_TRACE := traces/default.parquet
DEFAULT_GEN   := -scenario mix:poisson=0.7,onoff=0.25,early=0.03,boundary=0.02,early.burst=5,boundary.burst=5 -requests 1000000 -keys 10000 -rate 0.05 -seed 1

# The standard scenario set of make traces: large traces (ignored by git)
# and small samples in traces/samples/ (committed).
SCENARIOS     := poisson onoff zipf pareto diurnal boundary early retry population
TRACE_N       := 1000000
SAMPLE_N      := 2000

FLAGS   ?=

COMPARE_FLAGS = -rule $(RULE) -count $(COUNT) $(if $(ALG),-alg $(ALG)) $(if $(OUT),-o $(OUT)) $(FLAGS)

.PHONY: screenshots all build compare test deps race bench pgo vet fmt clean traces cloudflare cloudflare-search cloudflare-full results report-check fuzz redis-compare live-nginx live check-gubernator
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

traces: build
	@mkdir -p traces/samples
	@for s in $(SCENARIOS); do \
		$(BIN) gen -scenario $$s -requests $(TRACE_N) -keys 10000 -o traces/$$s.parquet || exit 1; \
		$(BIN) gen -scenario $$s -requests $(SAMPLE_N) -keys 20 -o traces/samples/$$s.csv || exit 1; \
	done
	$(BIN) gen $(DEFAULT_GEN) -o traces/mix.parquet
	$(BIN) gen $(DEFAULT_GEN) -requests $(SAMPLE_N) -keys 40 -o traces/samples/mix.csv

# Cloudflare's experiment at full scale: 400M requests from 270,000 sources
# through log and counter, both count policies, both modes.
cloudflare: build
	$(BIN) cloudflare -o results/cloudflare

# When is the counter as accurate as Cloudflare published? The log and the
# counter behind the same mitigation timeout, count all, over a grid of
# populations (rates mostly far below the threshold, the fastest capped at
# up to and past it) and timeouts; every point 40M requests from 27,000
# sources (the full scale's traffic per source from 1/10 of its sources).
# Then the page, from the committed summaries.
CF_SEARCH := rate=0.5;alpha=4,5,6,8;max=2,3,3.33,4;block=0,10m,1h
cloudflare-search: build
	$(BIN) cloudflare -search '$(CF_SEARCH)' -requests 40000000 -sources 27000 -o results/cloudflare/search
	$(BIN) cloudflare -readme -o results/cloudflare

# The three points of the committed search closest to the published
# figures (the page's order), each at the full scale of Cloudflare's
# experiment (400M requests from 270,000 sources) into
# results/cloudflare/search/full/1, 2 and 3, for the page to say which of
# them, if any, gives all four published figures. Each folder keeps its
# summary alone (the page reads it).
cloudflare-full: build
	$(BIN) cloudflare -full -o results/cloudflare
	rm -f results/cloudflare/search/full/*/README.md results/cloudflare/search/full/*/disagreement.svg
	$(BIN) cloudflare -readme -o results/cloudflare

# Reference results for the standard scenario set, committed (but for the
# PNGs, which are not byte-reproducible): each scenario generated in the
# harness (200,000 requests, 2,000 keys), every algorithm, rule 5/30s,
# independent mode; the mix in both modes and both count policies, and a
# sweep of it; the boundary attacker against a single and a layered rule,
# with the leaky bucket, the peer library and closed-loop clients; every
# deployed product beside the log (-alg log,products: in the catalogue's
# order, the order they were added, so that a new product adds its runs
# last).
RESULT_N := 200000
results: build
	@for s in $(SCENARIOS); do \
		$(BIN) compare -gen "$$s:requests=$(RESULT_N),keys=2000" -rule 5/30s -mode independent -force -o results/$$s > /dev/null || exit 1; \
	done
	$(BIN) compare -gen "$(word 2,$(DEFAULT_GEN)),requests=$(RESULT_N),keys=2000,rate=0.05" -rule 5/30s -count accepted,all -force -o results/mix > /dev/null
	$(BIN) compare -gen "$(word 2,$(DEFAULT_GEN)),requests=$(RESULT_N),keys=2000,rate=0.05" -sweep 'L=2,5,20;W=10s,1m' -alg log,counter,fixed,token,buckets:4 -mode independent -force -o results/mix-sweep > /dev/null
	$(BIN) compare -gen "boundary:requests=$(RESULT_N),keys=2000" -rule 10/1m -rule 2/1s+10/1m -alg log,counter,fixed,token,leaky,xrate -mode independent -clients retry:all -force -o results/boundary-layered > /dev/null
	$(BIN) compare -gen "$(word 2,$(DEFAULT_GEN)),requests=$(RESULT_N),keys=2000,rate=0.05" -rule 10/1m -alg log,products -mode independent,shadow -deviations -force -o results/products > /dev/null

# Regenerates every committed report (and the Cloudflare page) from its
# summary.json alone and fails if anything differs from what is committed.
report-check: build
	@for d in results/*/; do \
		[ -f $$d/summary.json ] && [ -f $$d/report.md ] || continue; \
		$(BIN) report $$d > /dev/null || exit 1; \
	done
	@$(BIN) cloudflare -readme -o results/cloudflare > /dev/null
	@changed=$$(git status --porcelain -- results/); \
	if [ -n "$$changed" ]; then echo "reports differ from their committed version:"; echo "$$changed"; git diff --stat -- results/; exit 1; fi

# Replays a trace (TRACE, or a small default mix) through each Redis
# script (ratebench live redis:SCRIPT), in a redis-server that ratebench
# starts on a free loopback port and stops, from 1, 4 and 16 concurrent
# clients (REDIS_CLIENTS): every algorithm as a Lua script, and a
# non-atomic counter (read, then increment), whose race shows as what it
# admits beyond its model. Then the products' own Redis code against
# their models, under REDIS_PRODUCT_RULE (a window Envoy and Kong can
# express), redis_rate and rate-limit-redis's script live on Redis's
# clock at REDIS_SPEED times the trace's pace (the default mix: 5 s).
# Writes results/live/redis:SCRIPT/<name>[-N-clients]/live.md (with OUT,
# OUT/SCRIPT-N-clients/).
REDIS_GEN ?= mix:poisson=0.7,onoff=0.25,early=0.03,boundary=0.02,early.burst=5,boundary.burst=5,requests=20000,keys=200
REDIS_SCRIPTS ?= log counter counter-nonatomic fixed token
REDIS_PRODUCTS ?= upstash upstash-fixed envoy redis_rate kong spring-gateway tyk express-rate-limit:store=redis flask-limiter:strategy=moving:storage=redis
REDIS_CLIENTS ?= 1 4 16
REDIS_PRODUCT_RULE ?= 10/1m
REDIS_SPEED ?= 100
redis-compare: build
	@set -e; for a in $(REDIS_SCRIPTS); do for c in $(REDIS_CLIENTS); do \
		echo "== live redis:$$a -clients $$c"; \
		$(BIN) live redis:$$a $(if $(TRACE),-trace $(TRACE),-gen '$(REDIS_GEN)') -rule $(RULE) -clients $$c $(if $(OUT),-o $(OUT)/$$a-$$c-clients) $(FLAGS); \
	done; done
	@set -e; for a in $(REDIS_PRODUCTS); do for c in $(REDIS_CLIENTS); do \
		echo "== live redis:$$a -clients $$c"; \
		$(BIN) live redis:$$a $(if $(TRACE),-trace $(TRACE),-gen '$(REDIS_GEN)') -rule $(REDIS_PRODUCT_RULE) -speed $(REDIS_SPEED) -clients $$c $(if $(OUT),-o $(OUT)/$$a-$$c-clients) $(FLAGS); \
	done; done

# Replays a trace (TRACE, or a small default mix of 2,000 requests over
# 100 s) through a real nginx that ratebench starts on a free loopback port
# and stops (ratebench live nginx), serially, at LIVE_SPEED times the
# trace's pace (nginx's rate scaled alike), and sets nginx's decisions
# beside its model fed the clock nginx decided on, the model on the
# trace's times and the exact log. Writes results/live/nginx/<name>/live.md.
LIVE_GEN   ?= mix:poisson=0.7,onoff=0.25,early=0.03,boundary=0.02,early.burst=5,boundary.burst=5,requests=2000,keys=20,rate=1
LIVE_RULE  ?= 5/1s
LIVE_SPEED ?= 20
live-nginx: build
	$(BIN) live nginx $(if $(TRACE),-trace $(TRACE),-gen '$(LIVE_GEN)') -rule $(LIVE_RULE) -speed $(LIVE_SPEED) $(if $(OUT),-o $(OUT)) $(FLAGS)

# Replays the check's trace (3 keys in bursts over 12 s, rule 5/1s), or
# TRACE, through each product's real software that ratebench starts and
# stops (servers on a loopback port, libraries in their own runtime with
# the trace's clock, scripts in a redis-server), and prints each one's
# agreement with its model. Writes results/live/<target>/<name>/live.md.
# The checks are each live target's own (ratebench live -list); LIVE_CHECKS
# picks some of them.
LIVE_CHECKS ?=
live: live-nginx
	@set -e; for p in $(if $(LIVE_CHECKS),$(LIVE_CHECKS),$$($(BIN) live -list)); do \
		echo "== live $$p"; $(BIN) live $$p $(if $(TRACE),-trace $(TRACE) -rule $(LIVE_RULE)) $(FLAGS); \
	done

# The README's screenshots: make compare's report, written again from its
# summary (kept beside them), in headless Chromium; a test fails when the
# report code has changed since (docs/screenshots/report.sha256).
screenshots: compare
	scripts/screenshots

FUZZTIME ?= 10s
# Every trace reader's fuzzer: the fuzz tests of traces named Fuzz...Reader.
FUZZERS   = $(shell $(GO) test ./traces -list '^Fuzz.*Reader$$' | grep '^Fuzz')
fuzz:
	@for f in $(FUZZERS); do \
		echo "$$f"; $(GO) test ./traces -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) -fuzzminimizetime 5s || exit 1; \
	done

test: deps
	$(GO) test ./...

# gubernator's model against the real gubernator module, in a module of its
# own (algorithms/products/gubernatorcheck): its dependencies (gRPC, etcd, the
# Kubernetes client) stay out of ratebench's build, and take minutes to
# compile the first time.
check-gubernator:
	cd algorithms/products/gubernatorcheck && $(GO) test ./...

# What the tests need and this machine lacks, installed (silent when all
# is there).
deps:
	@scripts/deps

# The tests that run goroutines side by side, under the race detector:
# parallel workers, shards and their merge, cancelled and interrupted
# reads, progress reporting, and the live replays' concurrent clients
# (their harness and the Redis scripts').
RACE_TESTS := Parallel|Shard|Merge|Cancel|Interrupt|Progress|KeyRefs
race: deps
	$(GO) test -race -run '$(RACE_TESTS)' ./compare ./traces ./cmd/ratebench
	$(GO) test -race ./live ./live/redis

# The benchmarks, as go test prints them (benchstat-compatible, kept in
# bench.txt to compare runs: benchstat old.txt bench.txt), then as a table.
BENCH     ?= .
BENCHTIME ?= 1s
bench:
	$(GO) test -run '^$$' -bench '$(BENCH)' -benchmem -benchtime $(BENCHTIME) ./algorithms ./algorithms/products ./compare ./traces ./generators ./summary ./compare/clients ./compare/distributed ./internal/minheap | tee bench.txt
	@$(GO) run ./cmd/benchtable < bench.txt

# Regenerates cmd/ratebench/default.pgo, the CPU profile the Go compiler
# optimizes ratebench with (profile-guided optimization: go build reads a
# main package's default.pgo): the default set, the products and the log
# beside the counter, each replayed on a generated trace of the floor's
# shape (2M requests over 100,000 keys, about 100 s), their profiles
# merged. Rerun it when the replay's hot code changes much; figures never
# depend on it.
PGO_DIR := bin/pgo
pgo: build
	mkdir -p $(PGO_DIR)
	$(BIN) gen -scenario poisson -requests 2000000 -keys 100000 -rate 0.2 -o $(PGO_DIR)/trace.csv
	$(BIN) compare -rule 100/1m -report=false -force -o $(PGO_DIR)/default -cpuprofile $(PGO_DIR)/default.prof $(PGO_DIR)/trace.csv > /dev/null
	$(BIN) compare -rule 100/1m -alg log,products -report=false -force -o $(PGO_DIR)/products -cpuprofile $(PGO_DIR)/products.prof $(PGO_DIR)/trace.csv > /dev/null
	$(BIN) compare -rule 100/1m -alg log,counter -mode independent -report=false -force -o $(PGO_DIR)/counter -cpuprofile $(PGO_DIR)/counter.prof $(PGO_DIR)/trace.csv > /dev/null
	$(GO) tool pprof -proto $(PGO_DIR)/default.prof $(PGO_DIR)/products.prof $(PGO_DIR)/counter.prof > cmd/ratebench/default.pgo

vet:
	$(GO) vet ./...
	@test -z "$$(gofmt -l .)" || { gofmt -l .; echo "gofmt: files above need formatting"; exit 1; }

clean:
	rm -rf bin $(DEFAULT_TRACE)

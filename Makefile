# The two commands of the README: `make demo` and `make test`. Each sets up what it needs.
.PHONY: setup build test test-native test-wasm test-mutations test-www demo bench

export CHROMEDRIVER ?= /usr/bin/chromedriver

setup:
	bash scripts/setup.sh

build: setup
	bash scripts/build-wasm.sh

test-native: setup
	cargo test

test-wasm: setup
	cargo test --target wasm32-unknown-unknown --test wasm_node --test wasm_browser --test wasm_worker

test-www: build
	node --test www/test/

## Each named mutation of tests/MUTATIONS.md, applied to a scratch copy: its test must turn red.
test-mutations: setup
	bash tests/mutations/run.sh

## Everything: native tests with the conformance runner, the wasm suites in Node, a
## Chromium page and a Chromium worker, the mutations, then the built package's tests.
test: test-native test-wasm test-mutations test-www

demo: build
	node www/serve.mjs

bench: build
	cargo bench --bench ops
	node www/bench/node-bench.mjs

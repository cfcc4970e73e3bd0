#!/usr/bin/env bash
# Builds the wasm package: release build, wasm-bindgen glue (web → pkg/, nodejs →
# pkg-node/) and the npm manifest from pkg.json.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --target wasm32-unknown-unknown
wasm=target/wasm32-unknown-unknown/release/associative_memory.wasm
rm -rf pkg pkg-node
wasm-bindgen --target web --out-dir pkg "$wasm"
wasm-bindgen --target nodejs --out-dir pkg-node "$wasm"
# No wasm-opt yet: Debian's binaryen 108 rewrites wasm-bindgen's externref table into one
# that fails to instantiate ("function-typed object must be null"). Size work is its own issue.
cp pkg.json pkg/package.json
# The nodejs glue is CommonJS; say so, or the repo's "type": "module" makes Node read it as ESM.
echo '{ "type": "commonjs" }' > pkg-node/package.json
cp README.md pkg/ 2>/dev/null || true
echo "built pkg/ ($(wc -c < pkg/associative_memory_bg.wasm) bytes of wasm) and pkg-node/"

#!/usr/bin/env bash
# Builds the npm package in pkg/ (and pkg-node/, the CommonJS glue the benches load):
# release wasm → wasm-opt → wasm-bindgen → tsc (the TypeScript wrapper in www/src)
# → package.json, README and licence. Two modules of the same engine: one built for size,
# which pages, workers and edge runtimes download (associative_memory_bg.wasm), and one
# built for speed, which the Node entry reads from disk (associative_memory_node_bg.wasm);
# each has its own wasm-bindgen glue, since the glue names the module's closure exports.
set -euo pipefail
cd "$(dirname "$0")/.."
# The wasm-release profile (Cargo.toml): release, optimized for size; wasm-node: the
# engine's own code at opt-level 3, with storage 'file' (the cargo feature `file`: the VFS
# over `node:fs`, which browsers have no use for).
cargo build --profile wasm-release --target wasm32-unknown-unknown
cargo build --profile wasm-node --target wasm32-unknown-unknown --features file
target=${CARGO_TARGET_DIR:-target}
raw=$target/wasm32-unknown-unknown/wasm-release/associative_memory.wasm
opt=$target/wasm-opt/wasm-release/associative_memory.wasm   # per profile: never a stale optimized module from another profile
node_raw=$target/wasm32-unknown-unknown/wasm-node/associative_memory.wasm
node_opt=$target/wasm-opt/wasm-node/associative_memory.wasm
# wasm-opt runs before wasm-bindgen: Debian's binaryen 108 breaks wasm-bindgen's externref
# table when it runs after ("function-typed object must be null"); before, it only sees
# rustc's output, and wasm-bindgen's own pass keeps the result small. Skipped when a
# profile's wasm has not changed since the last run (it takes ~40 s).
mkdir -p "$(dirname "$opt")"
# `--low-memory-unused` lets it fold constant offsets into loads and stores, which is exact
# unless an address wraps past 4 GiB into the first KiB (a bug in any case); `--converge`
# repeats the passes while they still shrink the module. BENCHMARKS.md has what each saves.
# `-ocimfs 40`: a function with one caller is inlined into it only when it has at most 40
# instructions (by default, whatever its size). The larger ones are mostly instances of
# generic code (the B-tree's, iterators', serde's): kept apart, their near-identical bodies
# repeat as gzip needs, which they no longer do inlined into callers that number their
# locals each its own way. 100 saved 13 KB of gzip ("Under 700 KB again"), 50 another 8.6 KB
# for 1.4 % more instructions per reconstruct at most (BENCHMARKS-HISTORY.md, "Room for facts
# in time"), 40 another 1.8 KB with facts in time ("Under the budget with facts in time");
# lower bounds save more and cost more (30, 20 and 10: the same sections). The flags are
# kept beside the output, so that changing them runs wasm-opt again on an unchanged module.
# `--merge-similar-functions` first: functions whose bodies differ only in constants (the
# instances of one generic function for types of different sizes, the B-tree's most of all)
# become one that takes the constants as parameters, each caller passing its own. 1.5 KB
# less gzip; run after `-Oz` instead, it adds 1.9 KB (BENCHMARKS-HISTORY.md, "Float
# formatting stays").
oz=(--merge-similar-functions -Oz --low-memory-unused --converge -ocimfs 40)
if ! [ "$opt" -nt "$raw" ] || [ "$(cat "$opt.flags" 2>/dev/null)" != "${oz[*]}" ]; then
  wasm-opt "${oz[@]}" "$raw" -o "$opt"
  echo "${oz[*]}" > "$opt.flags"
fi
# The Node module is optimized for speed (-O3: 2–3 % faster calls than -Oz, about as small).
# `-ocimfs 100` here too, for its start: by default -O3 inlines every function with one
# caller whatever its size, which made `Memory::dispatch` one function of 272 KB (every
# operation inlined into it). V8 compiles a function on its first call (lazily, Liftoff), and
# then again, optimized, once it is hot, so the first call of any operation compiled all of
# them, and every call soon had TurboFan compile 272 KB in the background: 124 ms of a Node
# process's first store, 19 ms without (BENCHMARKS.md, "Package size and cold start").
o3=(-O3 --low-memory-unused -ocimfs 100)
mkdir -p "$(dirname "$node_opt")"
if ! [ "$node_opt" -nt "$node_raw" ] || [ "$(cat "$node_opt.flags" 2>/dev/null)" != "${o3[*]}" ]; then
  wasm-opt "${o3[@]}" "$node_raw" -o "$node_opt"
  echo "${o3[*]}" > "$node_opt.flags"
fi
rm -rf pkg pkg-node
# Without the name section wasm-bindgen writes (its glue's names, "<unknown> externref shim"
# and the like: 3.3 KB) and the producers section.
strip=(--remove-name-section --remove-producers-section)
# `__wbg_reset_state` in the glue: after the engine traps, the next memory of the realm gets
# a new instance, and the old one's objects are refused (www/src/engine.ts, `engine_crashed`).
reset=(--experimental-reset-state-function)
wasm-bindgen --target web "${strip[@]}" "${reset[@]}" --out-dir pkg "$opt"
wasm-bindgen --target web "${strip[@]}" "${reset[@]}" --out-dir pkg --out-name associative_memory_node "$node_opt"
wasm-bindgen --target nodejs "${strip[@]}" --out-dir pkg-node "$node_opt"
# The nodejs glue is CommonJS; say so, or the repo's "type": "module" makes Node read it as ESM.
echo '{ "type": "commonjs" }' > pkg-node/package.json
npx tsc -p tsconfig.json
npx tsc -p www/view/tsconfig.json   # associative-memory/view, the graph view (cytoscape)
cp pkg.json pkg/package.json
# npm shows the package's own README (www/README.md), whose links stay inside the package:
# the edge example it points at ships in it.
cp www/README.md LICENSE pkg/
mkdir -p pkg/examples/edge
cp examples/edge/README.md examples/edge/worker.js examples/edge/wrangler.jsonc examples/edge/package.json pkg/examples/edge/
cp src/wasm/types.d.ts pkg/   # the option and response types the wrapper's .d.ts import
echo "built pkg/ ($(wc -c < pkg/associative_memory_bg.wasm) and $(wc -c < pkg/associative_memory_node_bg.wasm) bytes of wasm) and pkg-node/"

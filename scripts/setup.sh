#!/usr/bin/env bash
# Installs everything the build, the tests and the demo need, by name. Idempotent: a
# second run checks and installs nothing. Needs root (apt-get) on a Debian machine.
set -euo pipefail
cd "$(dirname "$0")/.."

# Debian: clang + lld compile SQLite for wasm32; chromium + driver run the browser suites
# and Playwright; binaryen gives wasm-opt; the IPA font renders Japanese in screenshots;
# sqlite3 reads the rows of exports in package-sync.test.mjs.
packages=(clang lld chromium chromium-driver binaryen fonts-ipafont-gothic sqlite3)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  apt-get update
  DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}"
fi

rustup target add wasm32-unknown-unknown

# wasm-bindgen-cli must match the wasm-bindgen crate in Cargo.lock exactly.
version=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/[^0-9.]/, ""); print; exit }' Cargo.lock)
if ! wasm-bindgen --version 2>/dev/null | grep -qx "wasm-bindgen $version"; then
  echo "setup: installing wasm-bindgen-cli $version (a few minutes)"
  cargo install wasm-bindgen-cli --version "$version"
fi

# npm packages exactly as locked (about a second).
npm ci --no-audit --no-fund

# The reference implementation (PyPI cpersona 2.6.14) in its venv ($CPERSONA_VENV, default
# ~/.cache/cpersona-venv): tests/reference_jsonl.rs runs its import_memories on our export.
bash ../shared/conformance/setup.sh > /dev/null

#!/usr/bin/env bash
# Runs each fuzz target for a set time: fuzz/run.sh SECONDS TARGET...
# cargo-fuzz needs nightly compiler features: the nightly toolchain when rustup has one,
# otherwise the stable one with RUSTC_BOOTSTRAP=1. Installs cargo-fuzz when missing.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-300}
shift || true
targets=("${@:-call normalize fts_query import ops backups}")
command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz
if rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
  fuzz=(cargo +nightly fuzz)
else
  export RUSTC_BOOTSTRAP=1
  fuzz=(cargo fuzz)
fi
for t in ${targets[@]}; do
  mkdir -p "fuzz/corpus/$t"
  echo "fuzz $t for ${seconds}s"
  nice -n 19 "${fuzz[@]}" run -O "$t" "fuzz/corpus/$t" -- -max_total_time="$seconds" -max_len=8192 -print_final_stats=1
done

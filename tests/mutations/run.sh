#!/usr/bin/env bash
# Applies each named mutation of tests/MUTATIONS.md (read by mutations.py, next to this
# script) to a scratch copy of the crate and runs the test that must catch it. Prints one
# line per mutation; exits non-zero if the file disagrees with itself or the tree, or if any
# mutation survives (its test stayed green) or does not compile.
#   MUTATION=<name> bash tests/mutations/run.sh    runs that one alone
#   bash tests/mutations/run.sh --check            only checks tests/MUTATIONS.md
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
list=$(python3 "$here/mutations.py" list "$root")
if [ "${1:-}" = "--check" ]; then
  echo "tests/MUTATIONS.md: $(wc -l <<<"$list") mutations, each applies once"
  exit 0
fi
if [ -n "${MUTATION:-}" ] && ! grep -q "^$MUTATION " <<<"$list"; then
  echo "no mutation named $MUTATION in tests/MUTATIONS.md"; exit 2
fi
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
export CARGO_TARGET_DIR="$root/target/mutations"

survived=0
while read -r name target test <&3; do
  [ -n "${MUTATION:-}" ] && [ "$MUTATION" != "$name" ] && continue
  rm -rf "$scratch/crate" && mkdir -p "$scratch/crate"
  # -p keeps the files' times, so only the mutated file is new to cargo: the build script
  # (SQLite's C, build/sqlite.rs) is not run again for every mutation.
  (cd "$root" && git ls-files -z --cached --others --exclude-standard | xargs -0 cp -p --parents -t "$scratch/crate")
  ln -sfn "$root/../shared" "$scratch/shared"
  python3 "$here/mutations.py" apply "$scratch/crate" "$name"
  # `lib` names the library's own unit tests.
  if [ "$target" = lib ]; then select=(--lib); else select=(--test "$target"); fi
  if ! (cd "$scratch/crate" && cargo test --quiet --no-run "${select[@]}" >/dev/null 2>&1); then
    echo "MUTATION $name: does not compile (fix it in tests/MUTATIONS.md)"; survived=1; continue
  fi
  if (cd "$scratch/crate" && cargo test --quiet "${select[@]}" -- --exact "$test" >/dev/null 2>&1); then
    echo "MUTATION $name: SURVIVED ($target::$test stayed green)"; survived=1
  else
    echo "MUTATION $name: killed by $target::$test"
  fi
done 3<<<"$list"
exit $survived

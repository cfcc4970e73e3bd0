#!/usr/bin/env bash
# Applies each named mutation of tests/MUTATIONS.md to a scratch copy of the crate and
# runs the test that must catch it. Prints one line per mutation; exits non-zero if any
# mutation survives (its test stayed green) or no longer applies.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
export CARGO_TARGET_DIR="$root/target/mutations"

# name ~ file ~ exact text to replace (\n for a newline) ~ replacement ~ test target ~ test name
mutations=(
  "cascade-keeps-anchored-relations~src/schema.rs~     WHERE anchor_ref = 'mem:' || OLD.id~     WHERE 0~declarations~deleting_one_of_two_mentioning_memories_keeps_the_shared_structure"
  "cascade-keeps-episode-mentions~src/schema.rs~    DELETE FROM entity_mentions WHERE ref = 'ep:' || OLD.id;~~declarations~invariant_8_no_declaration_outlives_its_endpoints"
  "entity-delete-keeps-aliases~src/schema.rs~    DELETE FROM entity_aliases WHERE entity_id = OLD.id;~~declarations~invariant_8_no_declaration_outlives_its_endpoints"
  "isolation-drops-agent-axis~src/scope.rs~let mut sql = format!(\"{t}.agent_id = ?\");~let mut sql = format!(\"(? IS NOT NULL)\");~traverse~isolation_agents_never_share_and_projects_read_the_global_pool"
  "isolation-project-never-reads-pool~src/scope.rs~{t}.project_id IN (?, '')~{t}.project_id IN (?)~traverse~isolation_agents_never_share_and_projects_read_the_global_pool"
  "traverse-ignores-recency~src/traverse.rs~reached_by.get(e).map_or(-1, |&p| p as i64)~0~traverse~order_is_hops_then_most_recent_relation_then_id"
  "traverse-follows-one-direction~src/traverse.rs~UNION SELECT id FROM relations WHERE object_kind = 'entity' AND object_id IN~UNION SELECT id FROM relations WHERE 0 AND object_id IN~traverse~relations_are_followed_from_either_end"
  "normalize-skips-nfkc~src/normalize.rs~text.nfkc().flat_map(char::to_lowercase).flat_map(full_fold).collect();\n    let folded: String = folded.nfkc().collect();~text.chars().flat_map(char::to_lowercase).flat_map(full_fold).collect();~declarations~spellings_that_normalize_alike_are_one_entity_across_calls"
  "alias-claimed-twice~src/associations.rs~Some(owner) if owner != id =>~Some(owner) if owner != id && false =>~declarations~an_alias_names_at_most_one_entity"
  "unknown-options-ignored~src/args.rs~obj.keys().find(|k| !accepted.contains(&k.as_str()))~obj.keys().find(|_| false)~bad_input~rejected_calls_name_the_field_and_write_nothing"
  "timestamp-not-validated~src/api.rs~Some(s) => parse_iso(&s).map(|ms| Some(format_iso(ms)))~Some(s) => Some(Some(s.clone()))~bad_input~rejected_calls_name_the_field_and_write_nothing"
)

survived=0
for m in "${mutations[@]}"; do
  IFS='~' read -r name file from to target test <<<"$m"
  rm -rf "$scratch/crate" && mkdir -p "$scratch/crate"
  (cd "$root" && git ls-files -z --cached --others --exclude-standard | xargs -0 cp --parents -t "$scratch/crate")
  ln -sfn "$root/../shared" "$scratch/shared"
  if ! python3 - "$scratch/crate/$file" "$from" "$to" <<'PY'
import sys
path, old, new = sys.argv[1], sys.argv[2].replace("\\n", "\n"), sys.argv[3].replace("\\n", "\n")
src = open(path).read()
if src.count(old) < 1:
    sys.exit(1)
open(path, "w").write(src.replace(old, new, 1))
PY
  then
    echo "MUTATION $name: does not apply any more (update tests/MUTATIONS.md)"; survived=1; continue
  fi
  if ! (cd "$scratch/crate" && cargo test --quiet --no-run --test "$target" >/dev/null 2>&1); then
    echo "MUTATION $name: does not compile (fix it in this script)"; survived=1; continue
  fi
  if (cd "$scratch/crate" && cargo test --quiet --test "$target" -- --exact "$test" >/dev/null 2>&1); then
    echo "MUTATION $name: SURVIVED ($target::$test stayed green)"; survived=1
  else
    echo "MUTATION $name: killed by $target::$test"
  fi
done
exit $survived

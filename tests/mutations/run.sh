#!/usr/bin/env bash
# Applies each named mutation of tests/MUTATIONS.md to a scratch copy of the crate and
# runs the test that must catch it (MUTATION=<name> runs that one alone). Prints one line per mutation; exits non-zero if any
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
  "traverse-follows-one-direction~src/graph.rs~UNION SELECT id FROM relations WHERE object_kind = 'entity' AND object_id IN~UNION SELECT id FROM relations WHERE 0 AND object_id IN~traverse~relations_are_followed_from_either_end"
  "normalize-skips-nfkc~src/normalize.rs~text.nfkc().flat_map(char::to_lowercase).flat_map(full_fold).collect();\n    let folded: String = folded.nfkc().collect();~text.chars().flat_map(char::to_lowercase).flat_map(full_fold).collect();~declarations~spellings_that_normalize_alike_are_one_entity_across_calls"
  "alias-claimed-twice~src/associations.rs~Some(owner) if owner != id =>~Some(owner) if owner != id && false =>~declarations~an_alias_names_at_most_one_entity"
  "unknown-options-ignored~src/api/mod.rs~        #[serde(deny_unknown_fields)]\n~~bad_input~error_messages_tell_the_caller_what_to_do"
  "timestamp-not-validated~src/api/mod.rs~Some(s) if canonical_time(s).is_none() =>~Some(s) if false && canonical_time(s).is_none() =>~bad_input~rejected_calls_name_the_field_and_write_nothing"
  "recall-reads-the-graph~src/recall.rs~    let request = Request::new(&scope, opts.source_id(), &opts.query, opts.query_embedding.as_deref(), depth, opts.deep.unwrap_or(false));~    let request = Request { extra_terms: crate::reconstruct::candidates::cue(conn, &scope, &opts.query)?.normalized_terms, ..Request::new(&scope, opts.source_id(), &opts.query, opts.query_embedding.as_deref(), depth, opts.deep.unwrap_or(false)) };~invariants~invariant_1_recall_is_unchanged_by_the_graph"
  "graph-read-unconditionally~src/reconstruct/load.rs~    Ok(n == 4)~    Ok(n == 4 || n >= 0)~invariants~invariant_2_empty_graph_is_a_noop"
  "reached-record-becomes-an-item~src/reconstruct/mod.rs~                structure::structure(members, walked, self.bounds.max_evidence, &bundled.links)\n            })\n            .collect()~                let extra: Vec<Draft> = walked.iter().map(|w| structure::structure(vec![w.clone()], Vec::new(), self.bounds.max_evidence, &bundled.links)).collect();\n                extra.into_iter().chain([structure::structure(members, walked, self.bounds.max_evidence, &bundled.links)])\n            })\n            .flatten()\n            .collect()~invariants~invariant_3_association_never_creates_or_reorders_an_item"
  "name-stored-normalized~src/entities.rs~scope.channel, name, normalized, declared_by, now]~scope.channel, normalized, normalized, declared_by, now]~invariants~invariant_4_declarations_are_stored_as_written"
  "walk-past-max-hops~src/reconstruct/walk.rs~        for hop in 1..=max_hops {~        for hop in 1..=max_hops + 1 {~invariants~invariant_5_bounded_and_deterministic"
  "walked-row-loses-its-hops~src/reconstruct/structure.rs~hops: (!r.path.is_empty()).then_some(r.path.len() as i64),~hops: None,~invariants~invariant_6_every_element_says_where_it_came_from"
  "bm25-table-wide-statistics~src/recall.rs~WHERE {fts} MATCH ? AND t.agent_id = ?\"~WHERE {fts} MATCH ? AND ? IS NOT NULL\"~recall~another_agents_records_never_reorder_this_agents_results"
  "walk-ignores-project~src/reconstruct/load.rs~    let n = neighbourhood(conn, scope, &mentioned, bounds.max_hops as i64)?;~    let n = neighbourhood(conn, &crate::scope::ReadScope { project_id: None, ..scope.clone() }, &mentioned, bounds.max_hops as i64)?;~invariants~invariant_7_isolation_holds_in_the_walk"
  "walk-one-direction~src/reconstruct/load.rs~in [(edge.subject, edge.object), (edge.object, edge.subject)] {~in [(edge.subject, edge.object)] {~invariants~reading_1_direction_the_walk_follows_a_relation_from_either_end"
  "walk-path-reversed~src/reconstruct/walk.rs~            path.reverse();\n~~invariants~reading_1_direction_the_walk_follows_a_relation_from_either_end"
  "hops-start-at-zero~src/reconstruct/walk.rs~            if hops == 0 {\n                continue;\n            }~~invariants~reading_2_hops_start_at_one"
  "row-in-two-places~src/reconstruct/walk.rs~                if pool.contains(r) || taken.contains(r) {~                if pool.is_empty() {~invariants~reading_3_one_row_one_place"
  "reading-bound-unreported~src/reconstruct/load.rs~        if outside.len() > bound {~        if outside.len() > usize::MAX - 1 {~invariants~reading_4_reading_is_bounded_and_says_so"
  "relation-bundle-mislabelled~src/reconstruct/bundle.rs~            u.union(s, o, &format!(\"relation:{predicate}\"));~            u.union(s, o, \"cluster:adjacent\");~invariants~reading_5_why_and_independence"
  "alias-admits~src/recall.rs~    let gate_scores = if req.extra_terms.is_empty() {~    let gate_scores = if !req.terms.is_empty() {~invariants~reading_6_an_alias_adds_a_vote_not_an_admission"
  "update-keeps-stale-vector~src/data.rs~if opts.embedding.is_none() && conn.changes() > 0 {~if false {~data_tools~update_memory_changes_text_and_search_and_keeps_declarations"
  "agent-delete-spares-entities~src/data.rs~    conn.execute(\"DELETE FROM entities WHERE agent_id = ?\", [agent])?;\n~~data_tools~delete_agent_data_takes_everything_of_one_agent_and_counts_it"
)

survived=0
for m in "${mutations[@]}"; do
  IFS='~' read -r name file from to target test <<<"$m"
  [ -n "${MUTATION:-}" ] && [ "$MUTATION" != "$name" ] && continue
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

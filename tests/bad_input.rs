//! Bad input: every operation names the field it rejects, and a rejected call writes
//! nothing — checked by comparing `export` bytes before and after. Every string and list an
//! operation takes has a limit (`MAX_*` in `src/api/mod.rs`, stated in the generated docs);
//! past it the call fails with `out_of_range` on that field, never with an accident deeper
//! down (a one-megabyte query used to reach SQLite and fail as `sqlite`).
//!
//! No file-system access here: the wasm suites run this file in Node too.

mod common;
use associative_memory::*;
use common::fixture;
use serde_json::{json, Value};
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

fn seeded() -> common::Fixture {
    let mut f = fixture();
    f.ok("store", json!({"agent_id": "a", "content": "seed", "associations": {"entities": [{"name": "Seed"}]}}));
    f
}

/// A string of `n` characters.
fn long(n: usize) -> String {
    "x".repeat(n)
}

/// One rejected call: its name, the tool, its arguments, and the error's code and field.
struct Case {
    name: &'static str,
    tool: &'static str,
    args: Value,
    code: &'static str,
    field: Option<&'static str>,
}

fn case(name: &'static str, tool: &'static str, args: Value, code: &'static str, field: &'static str) -> Case {
    Case { name, tool, args, code, field: Some(field) }
}

fn cases() -> Vec<Case> {
    let a = |extra: Value| {
        let mut args = json!({"agent_id": "a"});
        args.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        args
    };
    let store = |extra: Value| {
        let mut args = a(json!({"content": "x"}));
        args.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        args
    };
    let mut cases = vec![
        // store
        case("store without content", "store", a(json!({})), "missing_field", "content"),
        case("store without agent", "store", json!({"content": "x"}), "missing_field", "agent_id"),
        case("store with a blank agent", "store", json!({"agent_id": " ", "content": "x"}), "invalid_value", "agent_id"),
        case("store with a numeric content", "store", a(json!({"content": 5})), "wrong_type", "content"),
        case("store with a blank content", "store", a(json!({"content": "   "})), "invalid_value", "content"),
        case("store with content past its limit", "store", a(json!({"content": long(MAX_CONTENT + 1)})), "out_of_range", "content"),
        case("store with a NUL in content", "store", a(json!({"content": "before\u{0}after"})), "invalid_value", "content"),
        case(
            "store with an agent past its limit",
            "store",
            json!({"agent_id": long(MAX_ID + 1), "content": "x"}),
            "out_of_range",
            "agent_id",
        ),
        case("store with a NUL in the agent", "store", json!({"agent_id": "a\u{0}", "content": "x"}), "invalid_value", "agent_id"),
        case("store with a project past its limit", "store", store(json!({"project_id": long(MAX_ID + 1)})), "out_of_range", "project_id"),
        case("store with a NUL in the channel", "store", store(json!({"channel": "chat\u{0}"})), "invalid_value", "channel"),
        case("store with a numeric channel", "store", store(json!({"channel": 7})), "wrong_type", "channel"),
        case("store with a prose timestamp", "store", store(json!({"timestamp": "last tuesday"})), "invalid_value", "timestamp"),
        case(
            "store with a timestamp past its limit",
            "store",
            store(json!({"timestamp": long(MAX_TIMESTAMP + 1)})),
            "out_of_range",
            "timestamp",
        ),
        case("store with a numeric source type", "store", store(json!({"source": {"type": 1}})), "wrong_type", "source.type"),
        case("store with an unknown source key", "store", store(json!({"source": {"kind": "User"}})), "unknown_option", "source.kind"),
        case(
            "store with a source name past its limit",
            "store",
            store(json!({"source": {"name": long(MAX_ID + 1)}})),
            "out_of_range",
            "source.name",
        ),
        case("store with a NUL in the source id", "store", store(json!({"source": {"id": "u\u{0}1"}})), "invalid_value", "source.id"),
        case("store with a string in the embedding", "store", store(json!({"embedding": [1.0, "two"]})), "wrong_type", "embedding[1]"),
        case("store with a null in the embedding", "store", store(json!({"embedding": [1.0, null]})), "wrong_type", "embedding[1]"),
        case("store with an infinite embedding value", "store", store(json!({"embedding": [0.5, 1e39]})), "wrong_type", "embedding[1]"),
        case("store with an empty embedding", "store", store(json!({"embedding": []})), "out_of_range", "embedding"),
        case(
            "store with an embedding past its limit",
            "store",
            store(json!({"embedding": vec![0.5; MAX_DIMENSION + 1]})),
            "out_of_range",
            "embedding",
        ),
        case("store with a list as metadata", "store", store(json!({"metadata": [1]})), "wrong_type", "metadata"),
        case(
            "store with metadata past its limit",
            "store",
            store(json!({"metadata": {"blob": long(MAX_METADATA)}})),
            "out_of_range",
            "metadata",
        ),
        case("store with a misspelt option", "store", store(json!({"contnet": "typo"})), "unknown_option", "contnet"),
        case("store with options that are not an object", "store", json!("not an object"), "wrong_type", "options"),
        // archive_episode
        case("episode without summary", "archive_episode", a(json!({})), "missing_field", "summary"),
        case("episode with a blank summary", "archive_episode", a(json!({"summary": "\n"})), "invalid_value", "summary"),
        case(
            "episode with a summary past its limit",
            "archive_episode",
            a(json!({"summary": long(MAX_CONTENT + 1)})),
            "out_of_range",
            "summary",
        ),
        case(
            "episode with keywords past their limit",
            "archive_episode",
            a(json!({"summary": "s", "keywords": long(MAX_CONTENT + 1)})),
            "out_of_range",
            "keywords",
        ),
        case(
            "episode with a NUL in the keywords",
            "archive_episode",
            a(json!({"summary": "s", "keywords": "k\u{0}"})),
            "invalid_value",
            "keywords",
        ),
        case(
            "episode with history that is an object",
            "archive_episode",
            a(json!({"summary": "s", "history": {}})),
            "wrong_type",
            "history",
        ),
        case(
            "episode with a prose turn timestamp",
            "archive_episode",
            a(json!({"summary": "s", "history": [{"role": "user", "content": "x", "timestamp": "nope"}]})),
            "invalid_value",
            "history[0].timestamp",
        ),
        case(
            "episode with an unknown turn key",
            "archive_episode",
            a(json!({"summary": "s", "history": [{"role": "user", "content": "x"}, {"speaker": "user"}]})),
            "unknown_option",
            "history[1].speaker",
        ),
        case(
            "episode with a turn role past its limit",
            "archive_episode",
            a(json!({"summary": "s", "history": [{"role": long(MAX_ID + 1), "content": "x"}]})),
            "out_of_range",
            "history[0].role",
        ),
        case(
            "episode with a NUL in a turn",
            "archive_episode",
            a(json!({"summary": "s", "history": [{"role": "user", "content": "x"}, {"role": "user", "content": "\u{0}"}]})),
            "invalid_value",
            "history[1].content",
        ),
        case(
            "episode with more turns than its limit",
            "archive_episode",
            a(json!({"summary": "s", "history": vec![json!({"role": "user", "content": "hi"}); MAX_TURNS + 1]})),
            "out_of_range",
            "history",
        ),
        case(
            "episode with a history past its total limit",
            "archive_episode",
            a(json!({"summary": "s", "history": vec![json!({"role": "user", "content": long(MAX_CONTENT)}); MAX_HISTORY / MAX_CONTENT]})),
            "out_of_range",
            "history",
        ),
        case(
            "episode with an infinite embedding value",
            "archive_episode",
            a(json!({"summary": "s", "embedding": [-1e39]})),
            "wrong_type",
            "embedding[0]",
        ),
        // declare_associations
        case("declare with a prose anchor", "declare_associations", a(json!({"anchor_ref": "memory-1"})), "bad_ref", "anchor_ref"),
        case(
            "declare with an anchor past its limit",
            "declare_associations",
            a(json!({"anchor_ref": long(MAX_REF + 1)})),
            "out_of_range",
            "anchor_ref",
        ),
        case(
            "declare with a NUL in the anchor",
            "declare_associations",
            a(json!({"anchor_ref": "mem:1\u{0}"})),
            "invalid_value",
            "anchor_ref",
        ),
        case("declare with a numeric anchor", "declare_associations", a(json!({"anchor_ref": 1})), "wrong_type", "anchor_ref"),
        case(
            "declare with associations that are a list",
            "declare_associations",
            a(json!({"associations": []})),
            "wrong_type",
            "associations",
        ),
        case(
            "declare with entities that are an object",
            "declare_associations",
            a(json!({"associations": {"entities": {}}})),
            "wrong_type",
            "associations.entities",
        ),
        case(
            "declare with an unknown associations key",
            "declare_associations",
            a(json!({"associations": {"entity": []}})),
            "unknown_option",
            "associations.entity",
        ),
        case(
            "declare with invalidate not a list",
            "declare_associations",
            a(json!({"invalidate": {"relation_id": 1}})),
            "wrong_type",
            "invalidate",
        ),
        case("declare with predicates not a list", "declare_associations", a(json!({"predicates": "x"})), "wrong_type", "predicates"),
        case(
            "declare with retract relations not a list",
            "declare_associations",
            a(json!({"retract": {"relations": 1}})),
            "wrong_type",
            "retract.relations",
        ),
        case(
            "declare with an unknown retract key",
            "declare_associations",
            a(json!({"retract": {"relation": [1]}})),
            "unknown_option",
            "retract.relation",
        ),
        case("declare by a robot", "declare_associations", a(json!({"declared_by": "robot"})), "invalid_value", "declared_by"),
        case("declare with a misspelt option", "declare_associations", a(json!({"anchor": "mem:1"})), "unknown_option", "anchor"),
        case(
            "declare with a project past its limit",
            "declare_associations",
            a(json!({"project_id": long(MAX_ID + 1)})),
            "out_of_range",
            "project_id",
        ),
        // recall
        case("recall without query", "recall", a(json!({})), "missing_field", "query"),
        case("recall with a blank query", "recall", a(json!({"query": " \t"})), "invalid_value", "query"),
        case("recall with a one-megabyte query", "recall", a(json!({"query": long(1 << 20)})), "out_of_range", "query"),
        case("recall with a query just past its limit", "recall", a(json!({"query": "é".repeat(MAX_QUERY + 1)})), "out_of_range", "query"),
        case("recall with a NUL in the query", "recall", a(json!({"query": "seed\u{0}"})), "invalid_value", "query"),
        case("recall with a limit of 0", "recall", a(json!({"query": "seed", "limit": 0})), "out_of_range", "limit"),
        case("recall with a limit past its cap", "recall", a(json!({"query": "seed", "limit": 101})), "out_of_range", "limit"),
        case("recall with a fractional limit", "recall", a(json!({"query": "seed", "limit": 1.5})), "wrong_type", "limit"),
        case("recall with deep as a string", "recall", a(json!({"query": "seed", "deep": "yes"})), "wrong_type", "deep"),
        case(
            "recall with an empty query embedding",
            "recall",
            a(json!({"query": "seed", "query_embedding": []})),
            "out_of_range",
            "query_embedding",
        ),
        case(
            "recall with an infinite query embedding value",
            "recall",
            a(json!({"query": "seed", "query_embedding": [1.0, 1e300]})),
            "wrong_type",
            "query_embedding[1]",
        ),
        case(
            "recall with a source id past its limit",
            "recall",
            a(json!({"query": "seed", "source_id": long(MAX_ID + 1)})),
            "out_of_range",
            "source_id",
        ),
        case(
            "recall with a channel past its limit",
            "recall",
            a(json!({"query": "seed", "channel": long(MAX_ID + 1)})),
            "out_of_range",
            "channel",
        ),
        case("recall with a misspelt option", "recall", a(json!({"query": "seed", "top_k": 3})), "unknown_option", "top_k"),
        // reconstruct
        case("reconstruct without query", "reconstruct", a(json!({})), "missing_field", "query"),
        case("reconstruct with a one-megabyte query", "reconstruct", a(json!({"query": long(1 << 20)})), "out_of_range", "query"),
        case("reconstruct with a NUL in the query", "reconstruct", a(json!({"query": "\u{0}"})), "invalid_value", "query"),
        case("reconstruct with a budget of 0", "reconstruct", a(json!({"query": "seed", "budget": 0})), "out_of_range", "budget"),
        case("reconstruct with a negative count", "reconstruct", a(json!({"query": "seed", "count": -1})), "out_of_range", "count"),
        case("reconstruct with a top_k of 0", "reconstruct", a(json!({"query": "seed", "top_k": 0})), "out_of_range", "top_k"),
        case(
            "reconstruct with max_hops as a string",
            "reconstruct",
            a(json!({"query": "seed", "max_hops": "2"})),
            "wrong_type",
            "max_hops",
        ),
        case(
            "reconstruct with a query embedding past its limit",
            "reconstruct",
            a(json!({"query": "seed", "query_embedding": vec![0.5; MAX_DIMENSION + 1]})),
            "out_of_range",
            "query_embedding",
        ),
        case(
            "reconstruct with a NUL in the source id",
            "reconstruct",
            a(json!({"query": "seed", "source_id": "\u{0}"})),
            "invalid_value",
            "source_id",
        ),
        case("reconstruct with a misspelt option", "reconstruct", a(json!({"query": "seed", "maxHops": 1})), "unknown_option", "maxHops"),
        // traverse
        case("traverse without entity", "traverse", a(json!({})), "missing_field", "entity"),
        case("traverse past the hop cap", "traverse", a(json!({"entity": "Seed", "max_hops": 9})), "out_of_range", "max_hops"),
        case("traverse with negative hops", "traverse", a(json!({"entity": "Seed", "max_hops": -1})), "out_of_range", "max_hops"),
        case("traverse with a limit of 0", "traverse", a(json!({"entity": "Seed", "limit": 0})), "out_of_range", "limit"),
        case("traverse past the limit cap", "traverse", a(json!({"entity": "Seed", "limit": 101})), "out_of_range", "limit"),
        case("traverse with a fractional limit", "traverse", a(json!({"entity": "Seed", "limit": 2.5})), "wrong_type", "limit"),
        case("traverse with hops as a string", "traverse", a(json!({"entity": "Seed", "max_hops": "2"})), "wrong_type", "max_hops"),
        case("traverse with an entity past its limit", "traverse", a(json!({"entity": long(MAX_NAME + 1)})), "out_of_range", "entity"),
        case(
            "traverse at an instant that is none",
            "traverse",
            a(json!({"entity": "Seed", "as_of": "yesterday"})),
            "invalid_value",
            "as_of",
        ),
        case("history without entity", "history", a(json!({})), "missing_field", "entity"),
        case("history past the page cap", "history", a(json!({"entity": "Seed", "limit": 101})), "out_of_range", "limit"),
        case("history from a negative offset", "history", a(json!({"entity": "Seed", "offset": -1})), "out_of_range", "offset"),
        case("history at an instant", "history", a(json!({"entity": "Seed", "as_of": "all"})), "unknown_option", "as_of"),
        case("history with an entity past its limit", "history", a(json!({"entity": long(MAX_NAME + 1)})), "out_of_range", "entity"),
        case("traverse with a NUL in the entity", "traverse", a(json!({"entity": "Se\u{0}ed"})), "invalid_value", "entity"),
        case(
            "traverse with a source id past its limit",
            "traverse",
            a(json!({"entity": "Seed", "source_id": long(MAX_ID + 1)})),
            "out_of_range",
            "source_id",
        ),
        case("traverse with a misspelt option", "traverse", a(json!({"entity": "Seed", "hops": 1})), "unknown_option", "hops"),
        // get_contents
        case("get_contents without refs", "get_contents", a(json!({})), "missing_field", "refs"),
        case("get_contents with no refs", "get_contents", a(json!({"refs": []})), "out_of_range", "refs"),
        case(
            "get_contents with more refs than its limit",
            "get_contents",
            a(json!({"refs": vec!["mem:1"; GET_CONTENTS_MAX_REFS + 1]})),
            "out_of_range",
            "refs",
        ),
        case("get_contents with a numeric ref", "get_contents", a(json!({"refs": [1]})), "wrong_type", "refs[0]"),
        case(
            "get_contents with a ref past its limit",
            "get_contents",
            a(json!({"refs": ["mem:1", long(MAX_REF + 1)]})),
            "out_of_range",
            "refs[1]",
        ),
        case("get_contents with a NUL in a ref", "get_contents", a(json!({"refs": ["mem:1\u{0}"]})), "invalid_value", "refs[0]"),
        case("get_contents with refs as a string", "get_contents", a(json!({"refs": "mem:1"})), "wrong_type", "refs"),
        case("get_contents without agent", "get_contents", json!({"refs": ["mem:1"]}), "missing_field", "agent_id"),
        case("get_contents with a misspelt option", "get_contents", a(json!({"refs": ["mem:1"], "ref": "mem:1"})), "unknown_option", "ref"),
        // delete_memory, delete_episode, delete_entity
        case("delete a memory that does not exist", "delete_memory", a(json!({"memory_id": 404})), "not_found", "memory_id"),
        case("delete another agent's memory", "delete_memory", json!({"agent_id": "b", "memory_id": 1}), "not_found", "memory_id"),
        case("delete a memory by a string that is no ref", "delete_memory", a(json!({"memory_id": "1"})), "bad_ref", "memory_id"),
        case("delete a memory by a ref without an id", "delete_memory", a(json!({"memory_id": "mem:"})), "bad_ref", "memory_id"),
        case("delete a memory by an episode's ref", "delete_memory", a(json!({"memory_id": "ep:1"})), "invalid_value", "memory_id"),
        case("delete a memory by ref mem:0", "delete_memory", a(json!({"memory_id": "mem:0"})), "out_of_range", "memory_id"),
        case("delete a memory by a ref that names none", "delete_memory", a(json!({"memory_id": "mem:404"})), "not_found", "memory_id"),
        case(
            "delete another agent's memory by its ref",
            "delete_memory",
            json!({"agent_id": "b", "memory_id": "mem:1"}),
            "not_found",
            "memory_id",
        ),
        case(
            "delete a memory by a ref past its limit",
            "delete_memory",
            a(json!({"memory_id": format!("{:>1$}", "mem:1", MAX_REF + 1)})),
            "out_of_range",
            "memory_id",
        ),
        case("delete a memory by a ref with a NUL", "delete_memory", a(json!({"memory_id": "mem:1\u{0}"})), "invalid_value", "memory_id"),
        case("delete a memory by a fractional id", "delete_memory", a(json!({"memory_id": 1.5})), "wrong_type", "memory_id"),
        case("delete a memory by a boolean", "delete_memory", a(json!({"memory_id": true})), "wrong_type", "memory_id"),
        case("delete a memory by a list of ids", "delete_memory", a(json!({"memory_id": [1]})), "wrong_type", "memory_id"),
        case(
            "delete a memory for an agent past its limit",
            "delete_memory",
            json!({"agent_id": long(MAX_ID + 1), "memory_id": 1}),
            "out_of_range",
            "agent_id",
        ),
        case("delete an episode that does not exist", "delete_episode", a(json!({"episode_id": 1})), "not_found", "episode_id"),
        case("delete an episode by a negative id", "delete_episode", a(json!({"episode_id": -1})), "out_of_range", "episode_id"),
        case("delete an episode with a misspelt option", "delete_episode", a(json!({"id": 1})), "unknown_option", "id"),
        case("delete an episode by a memory's ref", "delete_episode", a(json!({"episode_id": "mem:1"})), "invalid_value", "episode_id"),
        case("delete an episode by a ref that is a word", "delete_episode", a(json!({"episode_id": "ep:one"})), "bad_ref", "episode_id"),
        case("delete an episode by a ref that names none", "delete_episode", a(json!({"episode_id": "ep:1"})), "not_found", "episode_id"),
        case("delete an entity by a ref", "delete_entity", a(json!({"entity_id": "mem:1"})), "wrong_type", "entity_id"),
        // update_memory by ref (its other checks: tests/data_tools.rs)
        case(
            "update a memory by an episode's ref",
            "update_memory",
            a(json!({"memory_id": "ep:1", "content": "x"})),
            "invalid_value",
            "memory_id",
        ),
        case(
            "update a memory by a prose ref",
            "update_memory",
            a(json!({"memory_id": "memory 1", "content": "x"})),
            "bad_ref",
            "memory_id",
        ),
        case(
            "update a memory by a ref that names none",
            "update_memory",
            a(json!({"memory_id": "mem:9", "content": "x"})),
            "not_found",
            "memory_id",
        ),
        case(
            "update a memory by a ref past SQLite's integers",
            "update_memory",
            a(json!({"memory_id": "mem:99999999999999999999", "content": "x"})),
            "bad_ref",
            "memory_id",
        ),
        case("delete entity 0", "delete_entity", a(json!({"entity_id": 0})), "out_of_range", "entity_id"),
        case("delete an entity that does not exist", "delete_entity", a(json!({"entity_id": 99})), "not_found", "entity_id"),
        case("delete an entity without its id", "delete_entity", a(json!({})), "missing_field", "entity_id"),
        case(
            "delete an entity for a NUL agent",
            "delete_entity",
            json!({"agent_id": "\u{0}", "entity_id": 1}),
            "invalid_value",
            "agent_id",
        ),
        // list_entities
        case("list entities past the page cap", "list_entities", a(json!({"limit": 501})), "out_of_range", "limit"),
        case("list entities with a page of 0", "list_entities", a(json!({"limit": 0})), "out_of_range", "limit"),
        case("list entities from a negative offset", "list_entities", a(json!({"offset": -1})), "out_of_range", "offset"),
        case(
            "list entities with a query past its limit",
            "list_entities",
            a(json!({"query": long(MAX_NAME + 1)})),
            "out_of_range",
            "query",
        ),
        case("list entities with a NUL in the query", "list_entities", a(json!({"query": "s\u{0}"})), "invalid_value", "query"),
        case("list entities with a misspelt option", "list_entities", a(json!({"page": 2})), "unknown_option", "page"),
        case("list entities without agent", "list_entities", json!({}), "missing_field", "agent_id"),
    ];
    // a ref of every malformed shape, as an anchor
    for (name, anchor) in [
        ("declare with an anchor of no id", "mem:"),
        ("declare with an anchor of a negative id", "mem:-1"),
        ("declare with an anchor of a fractional id", "mem:1.5"),
        ("declare with an anchor of a word id", "ep:x"),
        ("declare with an anchor of another kind", "foo:1"),
        ("declare with an anchor of a capital kind", "MEM:1"),
        ("declare with an anchor of a 20-digit id", "mem:12345678901234567890"),
        ("declare with an anchor of a signed id", "mem:+1"),
        ("declare with an anchor of no kind", "1"),
    ] {
        cases.push(case(name, "declare_associations", a(json!({"anchor_ref": anchor})), "bad_ref", "anchor_ref"));
    }
    cases.push(Case { name: "an unknown tool", tool: "no_such_tool", args: json!({}), code: "unknown_tool", field: None });
    cases
}

#[test]
fn rejected_calls_name_the_field_and_write_nothing() {
    let cases = cases();
    assert!(cases.len() >= 40, "the table holds {} cases", cases.len());
    let mut f = seeded();
    let mut before = f.memory.export().unwrap();
    let mut failures = Vec::new();
    for Case { name, tool, args, code, field } in cases {
        match f.memory.call(tool, &args) {
            Ok(v) => failures.push(format!("{name}: {tool} should fail, returned {}", v.to_string().chars().take(200).collect::<String>())),
            Err(e) if (e.code(), e.field()) != (code, field) => {
                let message: String = e.to_string().chars().take(200).collect();
                failures.push(format!("{name}: expected {code} on {field:?}, got {} on {:?}: {message}", e.code(), e.field()))
            }
            Err(_) => {}
        }
        if f.memory.export().unwrap() != before {
            failures.push(format!("{name}: changed the database"));
            f = seeded();
            before = f.memory.export().unwrap();
        }
    }
    assert!(failures.is_empty(), "{} case(s) failed:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn error_messages_tell_the_caller_what_to_do() {
    let mut f = seeded();
    let e = f.memory.call("traverse", &json!({"agent_id": "a", "entity": "Seed", "max_hops": 9})).unwrap_err();
    assert_eq!(e.to_string(), "`max_hops` must be 0–5, got 9");
    let e = f.memory.call("traverse", &json!({"agent_id": "a", "entity": "Seed", "maxHops": 1})).unwrap_err();
    assert!(e.to_string().contains("max_hops"), "lists the accepted options: {e}");
    let e = f.memory.call("recall", &json!({"agent_id": "a", "query": long(1 << 20)})).unwrap_err();
    assert_eq!(e.to_string(), "`query` must be at most 4096 characters, got 1048576 characters");
    let e = f.memory.call("store", &json!({"agent_id": "a", "content": "a\u{0}b"})).unwrap_err();
    assert_eq!(e.to_string(), "`content` must not contain a NUL character (U+0000)");
}

/// The typed methods run the same checks, for values JSON cannot carry: NaN and infinities.
#[test]
fn nan_and_infinite_vectors_are_refused_at_the_typed_door_too() {
    let mut f = seeded();
    let before = f.memory.export().unwrap();
    for bad in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
        let store = StoreOptions { agent_id: "a".into(), content: "x".into(), embedding: Some(vec![0.1, bad]), ..Default::default() };
        let e = f.memory.store(&store).unwrap_err();
        assert_eq!((e.code(), e.field()), ("wrong_type", Some("embedding[1]")), "{bad}");
        // in the words `f32`'s Display has (the engine writes them out: src/api/mod.rs)
        assert_eq!(e.to_string(), format!("`embedding[1]` must be a finite number, got {bad}"));
        let episode = EpisodeOptions { agent_id: "a".into(), summary: "s".into(), embedding: Some(vec![bad]), ..Default::default() };
        let e = f.memory.archive_episode(&episode).unwrap_err();
        assert_eq!((e.code(), e.field()), ("wrong_type", Some("embedding[0]")), "{bad}");
        let recall = RecallOptions { agent_id: "a".into(), query: "seed".into(), query_embedding: Some(vec![bad]), ..Default::default() };
        let e = f.memory.recall(&recall).unwrap_err();
        assert_eq!((e.code(), e.field()), ("wrong_type", Some("query_embedding[0]")), "{bad}");
        let reconstruct =
            ReconstructOptions { agent_id: "a".into(), query: "seed".into(), query_embedding: Some(vec![bad]), ..Default::default() };
        let e = f.memory.reconstruct(&reconstruct).unwrap_err();
        assert_eq!((e.code(), e.field()), ("wrong_type", Some("query_embedding[0]")), "{bad}");
    }
    let long_query = RecallOptions { agent_id: "a".into(), query: long(MAX_QUERY + 1), ..Default::default() };
    assert_eq!(f.memory.recall(&long_query).unwrap_err().code(), "out_of_range");
    assert!(f.memory.export().unwrap() == before, "nothing was written");
}

/// Every limit is inclusive: a value at it works, end to end.
#[test]
fn values_at_their_limits_are_accepted() {
    let mut f = seeded();
    f.ok(
        "store",
        json!({"agent_id": long(MAX_ID), "project_id": long(MAX_ID), "channel": long(MAX_ID), "content": long(MAX_CONTENT),
        "source": {"type": long(MAX_ID), "id": long(MAX_ID), "name": long(MAX_ID)}, "embedding": vec![0.5; MAX_DIMENSION]}),
    );
    f.ok("store", json!({"agent_id": "a", "content": "meta", "metadata": {"k": long(MAX_METADATA - 12)}}));
    f.ok(
        "archive_episode",
        json!({"agent_id": "b", "summary": long(MAX_CONTENT), "keywords": long(MAX_CONTENT),
        "history": vec![json!({"role": "user", "content": "hi"}); MAX_TURNS]}),
    );
    f.ok("recall", json!({"agent_id": "b", "query": "xxx y", "deep": true}));
    f.ok("reconstruct", json!({"agent_id": long(MAX_ID), "query": "xxx y", "deep": true}));
    f.ok("traverse", json!({"agent_id": "a", "entity": long(MAX_NAME)}));
    f.ok("list_entities", json!({"agent_id": "a", "query": long(MAX_NAME)}));
    f.ok("get_contents", json!({"agent_id": "a", "refs": vec![format!("{:>1$}", "mem:1", MAX_REF); GET_CONTENTS_MAX_REFS]}));
}

/// The worst queries within the limit work: one long word (one long `LIKE` pattern), and as
/// many distinct short words as fit (as many FTS5 terms and `LIKE` patterns as there can be,
/// past SQLite's expression depth if they were joined flat).
#[test]
fn the_longest_queries_work() {
    let mut f = seeded();
    f.ok("store", json!({"agent_id": "a", "content": "a second memory, 00a and 一丁"}));
    let one_word = "é".repeat(MAX_QUERY);
    let words: String = (0..).map(|i| format!("{:03x} ", i)).take(MAX_QUERY / 4).collect();
    let cjk: String = (0..MAX_QUERY as u32).map(|i| char::from_u32(0x4e00 + i).unwrap()).collect();
    let pairs: String = (0..MAX_QUERY as u32 / 2).map(|i| char::from_u32(0x4e00 + i).unwrap()).flat_map(|c| [c, ' ']).collect();
    for query in [one_word, words, cjk, pairs, long(MAX_QUERY)] {
        assert!(query.chars().count() <= MAX_QUERY);
        f.ok("recall", json!({"agent_id": "a", "query": query, "deep": true}));
        f.ok("reconstruct", json!({"agent_id": "a", "query": query, "deep": true}));
    }
}

/// FTS5 syntax in a query is text: each word is quoted, never parsed, so no query is an
/// error and none steers the search.
#[test]
fn search_syntax_in_queries_is_text_never_an_error() {
    let mut f = seeded();
    f.ok("store", json!({"agent_id": "a", "content": "NEAR the OR gate, a half-open \"quote and star* -minus ^caret col:on"}));
    for query in [
        "\"",
        "\"seed",
        "seed\"",
        "*",
        "seed*",
        "NEAR(",
        "NEAR(seed gate, 2)",
        "OR",
        "seed OR",
        "AND NOT",
        "-",
        "-seed",
        "^seed",
        "col:on",
        "content:seed",
        "(",
        ")",
        "{seed}",
        "'",
        "\\",
        "%",
        "_",
        "seed%",
        "+",
        "NOT",
        "\"\"\"",
        "a:b:c",
    ] {
        for tool in ["recall", "reconstruct"] {
            f.memory.call(tool, &json!({"agent_id": "a", "query": query})).unwrap_or_else(|e| panic!("{tool} {query:?}: {e}"));
        }
        f.memory
            .call("list_entities", &json!({"agent_id": "a", "query": query}))
            .unwrap_or_else(|e| panic!("list_entities {query:?}: {e}"));
        f.memory.call("traverse", &json!({"agent_id": "a", "entity": query})).unwrap_or_else(|e| panic!("traverse {query:?}: {e}"));
    }
    let refs =
        |out: Value| -> Vec<String> { out["messages"].as_array().unwrap().iter().map(|m| m["ref"].as_str().unwrap().into()).collect() };
    assert_eq!(refs(f.ok("recall", json!({"agent_id": "a", "query": "\"seed\""}))), vec!["mem:1"], "quotes are not syntax");
    assert_eq!(refs(f.ok("recall", json!({"agent_id": "a", "query": "NEAR(gate"}))), vec!["mem:2"], "NEAR is a word");
    assert_eq!(refs(f.ok("recall", json!({"agent_id": "a", "query": "-seed"}))), vec!["mem:1"], "a minus excludes nothing");
}

/// Refs of every malformed shape: an error as an anchor (above), and where refs are read
/// leniently — get_contents, relation endpoints, retractions — missing or dropped, never an
/// error and never a record invented.
#[test]
fn malformed_refs_are_missing_or_dropped_where_read_leniently() {
    let mut f = seeded();
    let shapes =
        ["mem:", "mem:0", "mem:-1", "mem:1.5", "ep:x", "foo:1", "MEM:1", "mem:12345678901234567890", "mem:+1", "banana", "mem:404"];
    let out = f.ok("get_contents", json!({"agent_id": "a", "refs": shapes}));
    assert_eq!(out["count"], 0);
    assert_eq!(out["missing"], json!(shapes), "every malformed ref comes back as given");
    let out = f.ok("get_contents", json!({"agent_id": "a", "refs": ["mem:1", " mem:1 ", "mem:001"]}));
    assert_eq!(out["count"], 3, "surrounding whitespace and leading zeros are one spelling: {out}");
    assert_eq!(out["items"][1]["ref"], "mem:1");
    let other = f.ok("get_contents", json!({"agent_id": "b", "refs": ["mem:1"]}));
    assert_eq!(other["missing"], json!(["mem:1"]), "another agent's record is missing, never leaked");

    let before = f.ok("list_entities", json!({"agent_id": "a"}))["total"].clone();
    for shape in ["mem:", "mem:0", "mem:-1", "mem:1.5", "mem:12345678901234567890", "ep:+1", "ep:", "mem:404"] {
        let out = f.ok(
            "declare_associations",
            json!({"agent_id": "a", "associations": {"relations": [{"subject": "Seed", "predicate": "p", "object": shape}]}}),
        );
        assert_eq!(out["dropped"][0]["item"], "relations[0].object", "{shape}: {out}");
        assert_eq!(out["relations"], json!([]), "{shape}");
    }
    for shape in ["mem:", "mem:-1", "mem:1.5", "ep:x", "foo:1", "MEM:1", "mem:12345678901234567890", "mem:+1", "banana"] {
        let out = f.ok("declare_associations", json!({"agent_id": "a", "retract": {"mentions": [{"entity": 1, "ref": shape}]}}));
        assert_eq!(out["dropped"][0]["item"], "retract.mentions[0]", "{shape}: {out}");
        assert_eq!(out["retracted"], json!({"relations": 0, "mentions": 0}), "{shape}");
    }
    assert_eq!(f.ok("list_entities", json!({"agent_id": "a"}))["total"], before, "no ref-shaped string became an entity");

    let out =
        f.ok("declare_associations", json!({"agent_id": "a", "anchor_ref": "mem:0", "associations": {"entities": [{"name": "Seed"}]}}));
    assert_eq!(out["dropped"], json!([{"item": "anchor_ref", "reason": "mem:0 is not a record of this agent"}]));
    let out =
        f.ok("declare_associations", json!({"agent_id": "a", "anchor_ref": " mem:1 ", "associations": {"entities": [{"name": "Seed"}]}}));
    assert_eq!((out["dropped"].clone(), out["mentions"].clone()), (json!([]), json!(1)), "an anchor may carry surrounding whitespace");
}

/// NUL is refused in every option (the table above); inside declarations the item carrying
/// it is dropped, and inside metadata — stored as JSON, where it is escaped — it is kept.
#[test]
fn nul_is_dropped_in_declarations_and_kept_in_metadata() {
    let mut f = fixture();
    let out = f.ok(
        "store",
        json!({"agent_id": "a", "content": "x", "metadata": {"raw": "a\u{0}b"},
               "associations": {"entities": [{"name": "Ka\u{0}to"}, {"name": "Kaito", "aliases": ["K\u{0}"]}],
                                "relations": [{"subject": "Kaito", "predicate": "is\u{0}", "object": "Kaito"}]}}),
    );
    let dropped: Vec<&str> = out["associations"]["dropped"].as_array().unwrap().iter().map(|d| d["item"].as_str().unwrap()).collect();
    assert_eq!(dropped, vec!["entities[0].name", "entities[1].aliases[0]", "relations[0].predicate"]);
    let got = f.ok("get_contents", json!({"agent_id": "a", "refs": ["mem:1"]}));
    assert_eq!(got["items"][0]["metadata"], json!({"raw": "a\u{0}b"}));
}

/// Unknown keys are refused at every level the options declare; inside declarations, which
/// are read leniently, they are dropped.
#[test]
fn unknown_keys_inside_declarations_are_dropped() {
    let mut f = fixture();
    let out = f.ok(
        "store",
        json!({"agent_id": "a", "content": "x", "associations": {"entity": [], "entities": [{"name": "K", "alias": []}],
               "relations": [{"subject": "K", "predicate": "p", "object": "K", "weight": 1}]}}),
    );
    let dropped: Vec<&str> = out["associations"]["dropped"].as_array().unwrap().iter().map(|d| d["item"].as_str().unwrap()).collect();
    assert_eq!(dropped, vec!["entity", "entities[0].alias", "relations[0].weight"]);
    let out = f.ok("store", json!({"agent_id": "a", "content": "y", "associations": "K"}));
    assert_eq!(out["associations"]["dropped"][0]["item"], "associations", "a store is never refused for its associations");
}

#[test]
fn timestamps_are_stored_in_one_canonical_utc_spelling() {
    let mut f = fixture();
    f.ok("store", json!({"agent_id": "a", "content": "x", "timestamp": "2026-06-01T12:00:00+02:00"}));
    f.ok("store", json!({"agent_id": "a", "content": "y"}));
    let out = f.ok("get_contents", json!({"agent_id": "a", "refs": ["mem:1", "mem:2"]}));
    assert_eq!(out["items"][0]["timestamp"], "2026-06-01T10:00:00+00:00");
    assert_eq!(out["items"][1]["timestamp"], "2026-01-01T01:00:00+00:00", "defaults to the clock's now");
    assert_eq!(out["items"][1]["source"], json!({"type": "Agent", "id": "a", "name": ""}));
}

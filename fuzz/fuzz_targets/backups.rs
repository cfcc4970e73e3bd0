//! Backups restore after anything (issue 36): an arbitrary sequence of calls over two agents,
//! with values at the edges bugs came through (names that grow under normalization, vectors
//! whose norm overflows, timestamps at the ends of the years a stored stamp can hold, anchors
//! and ends naming another agent's records) and JSONL imports of hostile files. Every call
//! passes `checked_call` (no `sqlite` error, a refused call writes nothing), and after the
//! sequence:
//! - `import(export())` gives a memory whose `export_memories` equals the original's, for
//!   each agent, byte for byte;
//! - each agent's `export_memories`, imported into an empty memory and exported again, is
//!   the same file but for what an import renews (`canonical`).
#![no_main]
use arbitrary::{Result, Unstructured};
use associative_memory::{FixedClock, Memory};
use associative_memory_fuzz::checked_call;
use libfuzzer_sys::fuzz_target;
use serde_json::{json, Map, Value};

#[path = "../../tests/common/backups.rs"]
mod backups;

const AGENTS: &[&str] = &["a", "b"];
const WORDS: &[&str] = &["ledger", "queue", "海斗", "ｶｲﾄ", "kaito", "moved", "straße", "STRASSE"];
const STAMPS: &[&str] = &[
    "2026-01-01T00:00:00Z",
    "9999-12-31T23:59:59.999+23:59",
    "9999-12-31T23:59:59.999-23:59",
    "0000-01-01T00:00:00-23:59",
    "0000-01-01T00:00:00+00:01",
];

fn name(u: &mut Unstructured) -> Result<Value> {
    Ok(match u.int_in_range(0..=9)? {
        0 => json!("\u{FDFA}".repeat(u.int_in_range(1..=300)?)),
        1 => json!("ﬁ".repeat(u.int_in_range(120..=260)?)),
        2 => json!(format!("{}:{}", u.choose(&["mem", "ep"])?, u.int_in_range(0..=9)?)),
        3 => json!(u.arbitrary::<String>()?),
        _ => json!(*u.choose(WORDS)?),
    })
}

fn vector(u: &mut Unstructured) -> Result<Value> {
    Ok(match u.int_in_range(0..=3)? {
        0 => json!([3e38, 3e38]),
        1 => json!([1e19, 0.0]),
        2 => json!([0.0, 0.0]),
        _ => json!([1.0, u.int_in_range(-4..=4)? as f64]),
    })
}

fn associations(u: &mut Unstructured) -> Result<Value> {
    let mut entities = Vec::new();
    for _ in 0..u.int_in_range(0..=2)? {
        let aliases: Vec<Value> = (0..u.int_in_range(0..=3)?).map(|_| name(u)).collect::<Result<_>>()?;
        entities.push(json!({"name": name(u)?, "aliases": aliases}));
    }
    let mut relations = Vec::new();
    for _ in 0..u.int_in_range(0..=2)? {
        relations.push(json!({"subject": name(u)?, "predicate": name(u)?, "object": name(u)?}));
    }
    Ok(json!({"entities": entities, "relations": relations}))
}

/// A JSONL file: one agent's export, sometimes with hostile declarations added, or lines
/// of declarations over small ids alone.
fn jsonl(u: &mut Unstructured, m: &mut Memory) -> Result<String> {
    if u.ratio(1, 2)? {
        return Ok(backups::hostile_jsonl(m));
    }
    let mut lines = vec![json!({"_type": "header", "version": "cpersona-export/1.1"})];
    for i in 0..u.int_in_range(0..=8)? {
        let agent = *u.choose(AGENTS)?;
        lines.push(match u.int_in_range(0..=3)? {
            0 => json!({"_type": "memory", "id": i, "agent_id": agent, "content": *u.choose(WORDS)?, "timestamp": *u.choose(STAMPS)?}),
            1 => json!({"_type": "entity", "id": u.int_in_range(1..=4)?, "agent_id": agent, "project_id": *u.choose(&["", "p"])?,
                        "name": name(u)?, "aliases": [name(u)?]}),
            2 => json!({"_type": "mention", "entity": u.int_in_range(1..=4)?, "ref": format!("mem:{}", u.int_in_range(0..=8)?)}),
            _ => json!({"_type": "relation", "id": i, "agent_id": agent, "subject_kind": *u.choose(&["entity", "mem", "ep"])?,
                        "subject_id": u.int_in_range(1..=4)?, "predicate": name(u)?, "object_kind": *u.choose(&["entity", "mem"])?,
                        "object_id": u.int_in_range(1..=8)?, "anchor_ref": format!("mem:{}", u.int_in_range(0..=8)?)}),
        });
    }
    Ok(lines.iter().map(Value::to_string).collect::<Vec<_>>().join("\n"))
}

fn op(u: &mut Unstructured, m: &mut Memory) -> Result<(&'static str, Value)> {
    let mut args = Map::new();
    args.insert("agent_id".into(), json!(*u.choose(AGENTS)?));
    let scoped = |u: &mut Unstructured, args: &mut Map<String, Value>| -> Result<()> {
        if u.ratio(1, 2)? {
            args.insert("project_id".into(), json!("p"));
        }
        if u.ratio(1, 3)? {
            args.insert("channel".into(), json!("c"));
        }
        Ok(())
    };
    let id = u.int_in_range(1..=9)?;
    let tool = match u.int_in_range(0..=9)? {
        0..=2 => {
            scoped(u, &mut args)?;
            args.insert("content".into(), json!(u.choose(WORDS)?.repeat(u.int_in_range(1..=3)?)));
            if u.ratio(1, 2)? {
                args.insert("timestamp".into(), json!(*u.choose(STAMPS)?));
            }
            if u.ratio(1, 2)? {
                args.insert("embedding".into(), vector(u)?);
            }
            args.insert("associations".into(), associations(u)?);
            "store"
        }
        3 => {
            scoped(u, &mut args)?;
            args.insert("anchor_ref".into(), json!(format!("{}:{id}", u.choose(&["mem", "ep"])?)));
            args.insert("associations".into(), associations(u)?);
            if u.ratio(1, 4)? {
                args.insert("retract".into(), json!({"relations": [id], "mentions": [{"entity": id, "ref": format!("mem:{id}")}]}));
            }
            "declare_associations"
        }
        4 => {
            scoped(u, &mut args)?;
            args.insert("summary".into(), json!(*u.choose(WORDS)?));
            args.insert("embedding".into(), vector(u)?);
            "archive_episode"
        }
        5 => {
            args.insert("memory_id".into(), json!(id));
            args.insert("timestamp".into(), json!(*u.choose(STAMPS)?));
            "update_memory"
        }
        6 => {
            args.insert(if u.ratio(1, 2)? { "memory_id" } else { "entity_id" }.into(), json!(id));
            if args.contains_key("memory_id") {
                "delete_memory"
            } else {
                "delete_entity"
            }
        }
        7 => {
            args.insert("query".into(), json!(format!("{} {}", u.choose(WORDS)?, u.choose(WORDS)?)));
            args.insert("query_embedding".into(), vector(u)?);
            args.insert("trace".into(), json!(true));
            "reconstruct"
        }
        _ => {
            let text = jsonl(u, m)?;
            let mut import = Map::new();
            import.insert("jsonl".into(), json!(text));
            if u.ratio(1, 4)? {
                import.insert("target_agent_id".into(), json!(*u.choose(AGENTS)?));
            }
            return Ok(("import_memories", Value::Object(import)));
        }
    };
    Ok((tool, Value::Object(args)))
}

fn memory() -> Memory {
    Memory::open_in_memory_with_clock(Box::new(FixedClock::new(1_767_225_600_000))).unwrap()
}

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let mut m = memory();
    let mut imports = 0;
    for _ in 0..24 {
        let Ok((tool, args)) = op(&mut u, &mut m) else { break };
        // an agent's export imported into its own memory doubles it: a few suffice, and
        // ten made a sequence of 2,560 memories (17 s a run under AddressSanitizer)
        if tool == "import_memories" {
            imports += 1;
            if imports > 3 {
                continue;
            }
        }
        checked_call(&mut m, tool, &args);
    }
    let bytes = m.export().unwrap();
    let mut copy = memory();
    copy.import(&bytes).unwrap_or_else(|e| panic!("the memory's own export is refused: {e}"));
    for agent in AGENTS {
        let export = json!({"agent_id": agent});
        let theirs = m.call("export_memories", &export).unwrap();
        assert_eq!(copy.call("export_memories", &export).unwrap(), theirs, "import(export()) differs for {agent}");
        let first = theirs["jsonl"].as_str().unwrap();
        let mut again = memory();
        let imported = again.call("import_memories", &json!({"jsonl": first})).unwrap_or_else(|e| panic!("{agent}'s export is refused: {e}"));
        assert_eq!(imported["dropped"], json!([]), "{agent}'s export drops lines:\n{first}");
        let second = again.call("export_memories", &export).unwrap();
        assert_eq!(backups::canonical(second["jsonl"].as_str().unwrap()), backups::canonical(first), "{agent}'s export does not restore");
    }
});

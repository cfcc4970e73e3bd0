//! The TypeScript types and the tool JSON Schemas, generated from the option and response
//! types of this module (their `ts-rs` and `schemars` derives exist in test builds only,
//! so the engine depends on neither). The generated files are checked in; this test fails
//! when what it generates differs from them, and `UPDATE_GENERATED=1 cargo test --lib
//! generated` rewrites them.

use super::*;
use schemars::generate::SchemaSettings;
use serde_json::{json, Value};
use ts_rs::TS;

/// The package's option and response types, in the order the file declares them.
const TYPES_FILE: &str = "src/wasm/types.d.ts";
/// The tool definitions `tools()` returns.
const TOOLS_FILE: &str = "www/src/tool-schemas.ts";
/// The same definitions as JSON, which the native MCP server (`src/bin/`) embeds: the
/// schemas exist only in test builds, so the binary reads them generated.
const TOOLS_JSON: &str = "src/api/tool-definitions.json";

/// The tools offered to function-calling models: name and options type.
fn tools() -> Vec<(&'static str, Value)> {
    vec![
        ("store", schema::<StoreOptions>()),
        ("recall", schema::<RecallOptions>()),
        ("reconstruct", schema::<ReconstructOptions>()),
        ("traverse", schema::<TraverseOptions>()),
        ("declare_associations", schema::<DeclareOptions>()),
        ("get_contents", schema::<GetContentsOptions>()),
        ("delete_memory", schema::<DeleteMemoryOptions>()),
        ("list_memories", schema::<ListMemoriesOptions>()),
        ("update_memory", schema::<UpdateMemoryOptions>()),
        ("delete_agent_data", schema::<DeleteAgentDataOptions>()),
    ]
}

fn declarations() -> Vec<String> {
    fn decl<T: TS>() -> String {
        let docs = T::docs().unwrap_or_default();
        tidy(&format!("{docs}export {}", T::decl()))
    }
    vec![
        decl::<Source>(),
        decl::<EntityDeclaration>(),
        decl::<RelationDeclaration>(),
        decl::<Associations>(),
        decl::<MentionRef>(),
        decl::<Retract>(),
        decl::<DeclaredBy>(),
        decl::<Turn>(),
        decl::<StoreOptions>(),
        decl::<StoreItem>(),
        decl::<StoreManyOptions>(),
        decl::<EpisodeOptions>(),
        decl::<DeclareOptions>(),
        decl::<TraverseOptions>(),
        decl::<GetContentsOptions>(),
        decl::<DeleteMemoryOptions>(),
        decl::<DeleteEpisodeOptions>(),
        decl::<DeleteEntityOptions>(),
        decl::<RecallOptions>(),
        decl::<ReconstructOptions>(),
        decl::<ListEntitiesOptions>(),
        decl::<ListMemoriesOptions>(),
        decl::<UpdateMemoryOptions>(),
        decl::<DeleteAgentDataOptions>(),
        decl::<ExportMemoriesOptions>(),
        decl::<ImportMemoriesOptions>(),
        decl::<EmbeddingBacklogOptions>(),
        decl::<EmbeddingItem>(),
        decl::<SetEmbeddingsOptions>(),
        decl::<Dropped>(),
        decl::<DeclaredEntity>(),
        decl::<DeclareReport>(),
        decl::<Retracted>(),
        decl::<StoreResponse>(),
        decl::<StoredItem>(),
        decl::<StoreManyResponse>(),
        decl::<EpisodeResponse>(),
        decl::<DeclareResponse>(),
        decl::<TraverseEntity>(),
        decl::<TraverseRelation>(),
        decl::<Bounds>(),
        decl::<TraverseResponse>(),
        decl::<ContentItem>(),
        decl::<GetContentsResponse>(),
        decl::<DeleteResponse>(),
        decl::<ListedEntity>(),
        decl::<ListEntitiesResponse>(),
        decl::<ListedMemory>(),
        decl::<ListMemoriesResponse>(),
        decl::<UpdateMemoryResponse>(),
        decl::<DeleteAgentDataResponse>(),
        decl::<ExportMemoriesResponse>(),
        decl::<ImportMemoriesResponse>(),
        decl::<BacklogRecord>(),
        decl::<EmbeddingBacklogResponse>(),
        decl::<SetEmbeddingsResponse>(),
        decl::<MatchReason>(),
        decl::<Message>(),
        decl::<RecallResponse>(),
        decl::<Role>(),
        decl::<Claim>(),
        decl::<Excerpt>(),
        decl::<Item>(),
        decl::<ReconstructBounds>(),
        decl::<Cues>(),
        decl::<Trace>(),
        decl::<ReconstructResponse>(),
    ]
}

/// A declaration as ts-rs writes it (an object's fields on unindented lines, the last one
/// closing the object), with each field indented and the closing brace on its own line;
/// and every integer a `number`: ts-rs spells `i64` `bigint`, but JSON (and the binding's
/// JSON-compatible conversion) gives JavaScript numbers.
fn tidy(decl: &str) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut in_object = false;
    for line in decl.replace("bigint", "number").lines().map(str::trim_end) {
        if in_object {
            match line.strip_suffix(" };") {
                Some(last) => {
                    out.push(format!("  {last}"));
                    out.push("};".into());
                    in_object = false;
                }
                None => out.push(format!("  {line}")),
            }
        } else if line.starts_with("export type ") && line.ends_with("= {") {
            out.push(line.into());
            in_object = true;
        } else {
            out.push(line.into());
        }
    }
    out.join("\n")
}

/// The JSON Schema of an options type as a tool's `input_schema`: self-contained (no
/// `$ref`), draft-07, without the keywords a strict validator rejects (`format` names such
/// as `int64`) or a model does not need (`title`, `$schema`). An optional argument is
/// simply not required: its `null` alternative is left out, since omitting it says the
/// same (the engine reads `null` as absent).
fn schema<T: schemars::JsonSchema>() -> Value {
    let generator = SchemaSettings::draft07()
        .with(|s| {
            s.inline_subschemas = true;
            s.meta_schema = None;
        })
        .into_generator();
    let mut schema = generator.into_root_schema_for::<T>().to_value();
    strip(&mut schema);
    schema
}

/// Removes those keywords and `null` alternatives from a schema and its subschemas.
fn strip(v: &mut Value) {
    match v {
        Value::Object(map) => {
            for keyword in ["format", "title", "$schema"] {
                map.remove(keyword);
            }
            // doc comments wrap at the source's width; a description is one paragraph
            if let Some(Value::String(text)) = map.get_mut("description") {
                *text = text.split('\n').map(str::trim).collect::<Vec<_>>().join(" ");
            }
            if let Some(Value::Array(types)) = map.get_mut("type") {
                types.retain(|t| t != "null");
                if types.len() == 1 {
                    let only = types.remove(0);
                    map.insert("type".into(), only);
                }
            }
            if let Some(Value::Array(alternatives)) = map.get_mut("anyOf") {
                alternatives.retain(|a| a != &json!({"type": "null"}));
                if alternatives.len() == 1 {
                    let Some(Value::Object(only)) = alternatives.pop() else { unreachable!("checked above") };
                    map.remove("anyOf");
                    for (k, v) in only {
                        map.entry(k).or_insert(v);
                    }
                }
            }
            for (key, child) in map.iter_mut() {
                if key == "properties" {
                    // the names under `properties` are arguments, not keywords
                    for property in child.as_object_mut().into_iter().flat_map(|p| p.values_mut()) {
                        strip(property);
                    }
                } else {
                    strip(child);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(strip),
        _ => {}
    }
}

fn tool_definitions() -> Value {
    let tools: Vec<Value> = tools()
        .into_iter()
        .map(|(name, mut schema)| {
            let description = schema.as_object_mut().and_then(|s| s.remove("description")).expect("every options type is documented");
            json!({"name": name, "description": description, "input_schema": schema})
        })
        .collect();
    Value::Array(tools)
}

fn types_file() -> String {
    let header = "// Generated from the Rust option and response types (src/api/) by `cargo test --lib generated`;\n\
                  // do not edit. `UPDATE_GENERATED=1 cargo test --lib generated` rewrites it.\n";
    format!("{header}\n{}\n", declarations().join("\n\n"))
}

fn tools_file() -> String {
    let json = serde_json::to_string_pretty(&tool_definitions()).expect("schemas serialize");
    let names: Vec<String> = tools().iter().map(|(name, _)| format!("'{name}'")).collect();
    format!(
        "// Generated from the Rust option types (src/api/) by `cargo test --lib generated`; do not edit.\n\
         // `UPDATE_GENERATED=1 cargo test --lib generated` rewrites it.\n\n\
         import type {{ ToolDefinition }} from './tools.js';\n\n\
         /** The tools `tools()` describes and `callTool` runs. */\n\
         export type ToolName = {};\n\n\
         /** The tool definitions: each options type's JSON Schema, its doc comment the description. */\n\
         export const TOOL_DEFINITIONS: readonly ToolDefinition[] = {json};\n",
        names.join(" | ")
    )
}

/// Compares `generated` with the checked-in `path` (relative to the crate), or rewrites it.
fn check(path: &str, generated: &str) -> Option<String> {
    let full = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
    if std::env::var_os("UPDATE_GENERATED").is_some() {
        std::fs::write(&full, generated).expect("the generated file is writable");
        return None;
    }
    let current = std::fs::read_to_string(&full).unwrap_or_default();
    (current != generated).then(|| format!("{path} is out of date; run `UPDATE_GENERATED=1 cargo test --lib generated`"))
}

#[test]
fn generated_types_and_tool_schemas_are_checked_in() {
    let tools_json = serde_json::to_string_pretty(&tool_definitions()).expect("schemas serialize") + "\n";
    let stale: Vec<String> = [check(TYPES_FILE, &types_file()), check(TOOLS_FILE, &tools_file()), check(TOOLS_JSON, &tools_json)]
        .into_iter()
        .flatten()
        .collect();
    assert!(stale.is_empty(), "{}", stale.join("\n"));
}

#[test]
fn every_tool_schema_names_what_the_engine_reads() {
    for (name, schema) in tools() {
        assert_eq!(schema["type"], "object", "{name}");
        assert_eq!(schema["additionalProperties"], false, "{name}: unknown arguments are refused");
        assert!(schema["required"].as_array().is_some_and(|r| r.contains(&json!("agent_id"))), "{name}");
        let text = schema.to_string();
        assert!(!text.contains("$ref") && !text.contains("\"format\""), "{name} is self-contained and strict-valid: {text}");
    }
}

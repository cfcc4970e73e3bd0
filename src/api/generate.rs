//! The TypeScript types and the tool JSON Schemas, generated from the option and response
//! types of this module (their `ts-rs` and `schemars` derives exist in test builds only,
//! so the engine depends on neither). The generated files are checked in; this test fails
//! when what it generates differs from them, and `UPDATE_GENERATED=1 cargo test --lib
//! generated` rewrites them.

use super::*;
use schemars::generate::SchemaSettings;
use serde_json::{json, Value};
use ts_rs::{TypeVisitor, TS};

/// The package's option and response types, in the order the file declares them.
const TYPES_FILE: &str = "src/wasm/types.d.ts";
/// The tool definitions `tools()` returns.
const TOOLS_FILE: &str = "www/src/tool-schemas.ts";
/// The same definitions as JSON, which the native MCP server (`src/bin/`) embeds: the
/// schemas exist only in test builds, so the binary reads them generated.
const TOOLS_JSON: &str = "src/api/tool-definitions.json";

/// The package's operations, each with its types (`src/api/operations.rs` reads the table).
const OPERATIONS_FILE: &str = "www/src/operations.ts";

/// An operation's types, as the generated files name and describe them.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Types {
    /// The options type's JSON Schema (a tool's `input_schema`).
    schema: fn() -> Value,
    /// The response type's JSON Schema (a tool's `output_schema`).
    output: fn() -> Value,
    /// The options type's TypeScript name.
    options: fn() -> String,
    /// The response type's TypeScript name.
    response: fn() -> String,
    /// The options type's doc comment, as ts-rs writes it: what the operation does.
    docs: fn() -> Option<String>,
    /// Visits the options and response types (and, through them, every type they reach).
    visit: fn(&mut Declarations),
}

impl Types {
    pub(crate) const fn of<O: schemars::JsonSchema + TS + 'static, R: schemars::JsonSchema + TS + 'static>() -> Types {
        fn visit<O: TS + 'static, R: TS + 'static>(d: &mut Declarations) {
            d.visit::<O>();
            d.visit::<R>();
        }
        Types { schema: schema::<O>, output: output_schema::<R>, options: O::name, response: R::name, docs: O::docs, visit: visit::<O, R> }
    }
}

/// An operation of the table with its types. The generated files read the table's rows a
/// second time for the types, so the table itself knows nothing of them.
struct Typed {
    op: &'static Operation,
    types: Types,
}

impl std::ops::Deref for Typed {
    type Target = Operation;
    fn deref(&self) -> &Operation {
        self.op
    }
}

/// Declares `TYPES` from the table's rows: each operation's name and types.
macro_rules! types_const {
    ($($name:ident($options:ty $(, $extra:expr)*) -> $response:ty { $($fact:ident: $value:expr),* })*) => {
        const TYPES: &[(&str, Types)] = &[$((stringify!($name), Types::of::<$options, $response>())),*];
    };
}
with_operations!(types_const);

/// Every operation with its types, in the table's order.
fn operations() -> Vec<Typed> {
    OPERATIONS
        .iter()
        .zip(TYPES)
        .map(|(op, (name, types))| {
            assert_eq!(op.name, *name, "the table read twice gives one order");
            Typed { op, types: *types }
        })
        .collect()
}

/// The tools offered to function-calling models, in their places: name and options schema.
fn tools() -> Vec<(&'static str, Value)> {
    offered().into_iter().map(|o| (o.name, (o.types.schema)())).collect()
}

/// The operations offered as tools, in their places.
fn offered() -> Vec<Typed> {
    let mut tools: Vec<Typed> = operations().into_iter().filter(|o| o.tool.is_some()).collect();
    tools.sort_by_key(|o| o.tool);
    tools
}

/// The declarations of `src/wasm/types.d.ts`: the types listed here in this order, then
/// whatever else the table's operations reach. Every declared type has its line in
/// [`listed`] (`every_declared_type_is_listed`): ts-rs's derive visits a type's
/// dependencies in an order that differs from one build to the next, so a type found only
/// by reaching could land anywhere among its siblings.
fn declarations() -> Vec<String> {
    let mut d = Declarations::default();
    listed(&mut d);
    d.reach = true;
    for op in operations() {
        (op.types.visit)(&mut d);
    }
    d.out
}

/// The types declared in the order the file declares them.
fn listed(d: &mut Declarations) {
    d.visit::<Source>();
    d.visit::<RecordSource>();
    d.visit::<EntityDeclaration>();
    d.visit::<RelationDeclaration>();
    d.visit::<Associations>();
    d.visit::<MentionRef>();
    d.visit::<Retract>();
    d.visit::<PredicateDeclaration>();
    d.visit::<Invalidation>();
    d.visit::<RelationInvalidation>();
    d.visit::<RecordInvalidation>();
    d.visit::<DeclaredBy>();
    d.visit::<Turn>();
    d.visit::<StoreOptions>();
    d.visit::<StoreItem>();
    d.visit::<StoreManyOptions>();
    d.visit::<EpisodeOptions>();
    d.visit::<DeclareOptions>();
    d.visit::<TraverseOptions>();
    d.visit::<HistoryOptions>();
    d.visit::<GetContentsOptions>();
    d.visit::<DeleteMemoryOptions>();
    d.visit::<DeleteEpisodeOptions>();
    d.visit::<DeleteEntityOptions>();
    d.visit::<PurgeExpiredOptions>();
    d.visit::<RerankScore>();
    d.visit::<RecallOptions>();
    d.visit::<ReconstructOptions>();
    d.visit::<ListEntitiesOptions>();
    d.visit::<ListMemoriesOptions>();
    d.visit::<ListAgentsOptions>();
    d.visit::<UpdateMemoryOptions>();
    d.visit::<DeleteAgentDataOptions>();
    d.visit::<ExportMemoriesOptions>();
    d.visit::<ImportMemoriesOptions>();
    d.visit::<EmbeddingBacklogOptions>();
    d.visit::<EmbeddingItem>();
    d.visit::<SetEmbeddingsOptions>();
    d.visit::<Dropped>();
    d.visit::<DeclaredEntity>();
    d.visit::<DeclareReport>();
    d.visit::<Retracted>();
    d.visit::<Conflict>();
    d.visit::<Invalidated>();
    d.visit::<StoreResponse>();
    d.visit::<StoredItem>();
    d.visit::<StoreManyResponse>();
    d.visit::<EpisodeResponse>();
    d.visit::<DeclareResponse>();
    d.visit::<TraverseEntity>();
    d.visit::<TraverseRelation>();
    d.visit::<Bounds>();
    d.visit::<TraverseReason>();
    d.visit::<TraverseResponse>();
    d.visit::<HistoryEntity>();
    d.visit::<HistoryRelation>();
    d.visit::<HistoryResponse>();
    d.visit::<ContentItem>();
    d.visit::<GetContentsResponse>();
    d.visit::<DeleteResponse>();
    d.visit::<ListedEntity>();
    d.visit::<ListEntitiesResponse>();
    d.visit::<ListedMemory>();
    d.visit::<ListMemoriesResponse>();
    d.visit::<ListedAgent>();
    d.visit::<ListAgentsResponse>();
    d.visit::<UpdateMemoryResponse>();
    d.visit::<DeleteAgentDataResponse>();
    d.visit::<PurgeExpiredResponse>();
    d.visit::<ExportMemoriesResponse>();
    d.visit::<ImportMemoriesResponse>();
    d.visit::<BacklogRecord>();
    d.visit::<EmbeddingBacklogResponse>();
    d.visit::<SetEmbeddingsResponse>();
    d.visit::<MatchReason>();
    d.visit::<Message>();
    d.visit::<RecallResponse>();
    d.visit::<Role>();
    d.visit::<Claim>();
    d.visit::<Excerpt>();
    d.visit::<QuoteBasis>();
    d.visit::<Item>();
    d.visit::<ReconstructBounds>();
    d.visit::<Cues>();
    d.visit::<Shortfall>();
    d.visit::<Trace>();
    d.visit::<ReconstructResponse>();
}

/// Collects declarations, each type's once; with `reach`, a type visited brings in the
/// declared types it depends on.
#[derive(Default)]
pub(crate) struct Declarations {
    declared: std::collections::BTreeSet<String>,
    walked: std::collections::BTreeSet<String>,
    out: Vec<String>,
    reach: bool,
}

impl TypeVisitor for Declarations {
    fn visit<T: TS + 'static + ?Sized>(&mut self) {
        if T::output_path().is_none() {
            return; // a built-in type: nothing to declare
        }
        if self.declared.insert(T::name()) {
            let docs = T::docs().unwrap_or_default();
            self.out.push(tidy(&format!("{docs}export {}", T::decl())));
        }
        if self.reach && self.walked.insert(T::name()) {
            T::visit_dependencies(self);
        }
    }
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
    stripped::<T>(SchemaSettings::draft07())
}

/// The JSON Schema of a response type as a tool's `output_schema`, which an MCP client
/// validates a result's `structuredContent` against: the type as the engine writes it
/// (serde's serializing side: a field it skips when empty is not required), self-contained
/// and stripped as `input_schema` is. No response field is ever `null` (the types say so),
/// so dropping `null` alternatives changes nothing.
fn output_schema<T: schemars::JsonSchema>() -> Value {
    stripped::<T>(SchemaSettings::draft07().for_serialize())
}

/// `T`'s schema under `settings`, self-contained (subschemas inlined, no `$schema`) and
/// stripped.
fn stripped<T: schemars::JsonSchema>(settings: SchemaSettings) -> Value {
    let generator = settings
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

/// A tool's MCP annotations, from the table: `title` its name in words, read-only when it
/// does not write, destructive when it can take away what was kept, idempotent as the table
/// says; and never open-world (it touches only this memory).
fn annotations(op: &Operation) -> Value {
    let title = op.name.replace('_', " ");
    let title = title[..1].to_uppercase() + &title[1..];
    json!({
        "title": title,
        "readOnlyHint": !op.writes,
        "destructiveHint": op.destroys,
        "idempotentHint": op.idempotent,
        "openWorldHint": false,
    })
}

/// A tool's arguments: the options schema without the embedding fields the table says the
/// package fills from its `embed` (a model cannot write a vector, and they are a tenth of
/// the tool list) nor a query's `rerank` (filled from the package's `rerank` hook), and without the sentences that repeat a `maxLength` in words (the
/// TypeScript docs keep them: a type has no `maxLength`).
fn input_schema(op: &Typed) -> Value {
    let mut schema = (op.types.schema)();
    let embedded: &[&str] = match op.embedding {
        Some(Embedding::Content) => &["embedding", "embedding_model"],
        Some(Embedding::Query) => &["query_embedding", "query_embedding_model", "rerank"],
        Some(Embedding::Items) | None => &[],
    };
    if let Some(properties) = schema["properties"].as_object_mut() {
        properties.retain(|name, _| !embedded.contains(&name.as_str()));
    }
    unsay_lengths(&mut schema);
    schema
}

/// Drops "At most N characters." (and ", at most N characters") from the description of a
/// schema whose `maxLength` is N, in it and its subschemas.
fn unsay_lengths(v: &mut Value) {
    match v {
        Value::Object(map) => {
            if let (Some(max), Some(Value::String(text))) = (map.get("maxLength").cloned(), map.get_mut("description")) {
                for said in
                    [format!(" At most {max} characters."), format!(", at most {max} characters"), format!("; at most {max} characters")]
                {
                    *text = text.replace(&said, "");
                }
            }
            map.values_mut().for_each(unsay_lengths);
        }
        Value::Array(items) => items.iter_mut().for_each(unsay_lengths),
        _ => {}
    }
}

/// A response schema as a tool's `output_schema`: its structure only. A host validates
/// results against it and seldom shows it to a model, which reads the result itself; its
/// descriptions would double the tool list (the TypeScript response types keep them). A
/// choice of string constants (a documented unit enum: `oneOf` of `{const, type}`) becomes
/// the `enum` that says the same in fewer bytes.
fn structure(v: &mut Value) {
    match v {
        Value::Object(map) => {
            if map.get("description").is_some_and(Value::is_string) {
                map.remove("description");
            }
            for (key, child) in map.iter_mut() {
                if key == "properties" {
                    child.as_object_mut().into_iter().flat_map(|p| p.values_mut()).for_each(structure);
                } else {
                    structure(child);
                }
            }
            let constants = map.get("oneOf").and_then(Value::as_array).and_then(|alternatives| {
                alternatives
                    .iter()
                    .map(|a| match a.as_object() {
                        Some(a) if a.len() == 2 && a.get("type") == Some(&json!("string")) => a.get("const").cloned(),
                        _ => None,
                    })
                    .collect::<Option<Vec<Value>>>()
            });
            if let Some(constants) = constants {
                map.remove("oneOf");
                map.insert("type".into(), json!("string"));
                map.insert("enum".into(), Value::Array(constants));
            }
        }
        Value::Array(items) => items.iter_mut().for_each(structure),
        _ => {}
    }
}

fn tool_definitions() -> Value {
    let tools: Vec<Value> = offered()
        .into_iter()
        .map(|op| {
            let mut schema = input_schema(&op);
            let description = schema.as_object_mut().and_then(|s| s.remove("description")).expect("every options type is documented");
            let mut output = (op.types.output)();
            structure(&mut output);
            json!({
                "name": op.name,
                "description": description,
                "input_schema": schema,
                "output_schema": output,
                "annotations": annotations(&op),
            })
        })
        .collect();
    Value::Array(tools)
}

fn types_file() -> String {
    let header = "// Generated from the Rust option and response types (src/api/) by `cargo test --lib generated`;\n\
                  // do not edit. `UPDATE_GENERATED=1 cargo test --lib generated` rewrites it.\n";
    format!("{header}\n{}\n", declarations().join("\n\n"))
}

/// The types of the tool definitions, declared in the generated file itself so that it imports
/// nothing: `tools.ts` imports them from it and exports them.
const TOOL_TYPES: &str = "\
/** A JSON Schema, as the tool definitions use it. */
export interface JsonSchema {
  type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';
  description?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  [keyword: string]: unknown;
}

/** What a tool does to the memory, as MCP's tool annotations say it (hints for a host). */
export interface ToolAnnotations {
  /** Its name in words. */
  title: string;
  /** It does not write. */
  readOnlyHint: boolean;
  /** It can take away what was kept (a record, its text, a declared relation): ask first. */
  destructiveHint: boolean;
  /** Calling it again with the same arguments changes nothing more. */
  idempotentHint: boolean;
  /** It touches only this memory. */
  openWorldHint: false;
}

/**
 * One tool for a function-calling model: its name, what it does, its arguments, the JSON
 * Schema of its response, and what it does to the memory.
 */
export interface ToolDefinition {
  name: ToolName;
  description: string;
  input_schema: JsonSchema & { type: 'object' };
  output_schema: JsonSchema & { type: 'object' };
  annotations: ToolAnnotations;
}
";

fn tools_file() -> String {
    let json = serde_json::to_string_pretty(&tool_definitions()).expect("schemas serialize");
    let names: Vec<String> = tools().iter().map(|(name, _)| format!("'{name}'")).collect();
    format!(
        "// Generated from the Rust option types (src/api/) by `cargo test --lib generated`; do not edit.\n\
         // `UPDATE_GENERATED=1 cargo test --lib generated` rewrites it.\n\n\
         /** The tools `tools()` describes and `callTool` runs. */\n\
         export type ToolName = {};\n\n\
         {TOOL_TYPES}\n\
         /** The tool definitions: each options type's JSON Schema, its doc comment the description. */\n\
         export const TOOL_DEFINITIONS: readonly ToolDefinition[] = {json};\n",
        names.join(" | ")
    )
}

/// `store_many` as `storeMany`.
fn camel(name: &str) -> String {
    let mut parts = name.split('_');
    let first = parts.next().unwrap_or_default().to_string();
    parts.fold(first, |out, p| out + &p[..1].to_uppercase() + &p[1..])
}

/// An operation's options doc comment as a member's, indented under an interface.
fn member_docs(op: &Typed) -> String {
    let docs = (op.types.docs)().expect("every options type is documented");
    docs.lines().map(|line| format!("  {line}\n")).collect()
}

/// Whether every field of the operation's options but the isolation axes may be omitted,
/// so that a scoped handle's method may be called without options.
/// Whether every option `op` requires is one of `axes`: with none given, whether it
/// requires nothing, so its method's options may be left out.
fn only_required(op: &Typed, axes: &[&str]) -> bool {
    let schema = (op.types.schema)();
    let required = schema["required"].as_array().cloned().unwrap_or_default();
    required.iter().all(|r| axes.contains(&r.as_str().unwrap_or_default()))
}

fn operations_file() -> String {
    let mut types: Vec<String> = operations().iter().flat_map(|o| [(o.types.options)(), (o.types.response)()]).collect();
    types.sort();
    types.dedup();
    let table: Vec<String> = operations()
        .iter()
        .map(|o| format!("  {}: {{ options: {}; response: {} }};\n", o.name, (o.types.options)(), (o.types.response)()))
        .collect();
    let rows: Vec<String> = operations()
        .iter()
        .map(|o| {
            let method = if o.method { format!("'{}'", camel(o.name)) } else { "null".into() };
            let scope = match o.scope {
                Scope::Axes => "axes",
                Scope::Agent => "agent",
                Scope::Owner => "owner",
            };
            let embedding = match o.embedding {
                None => "null",
                Some(Embedding::Content) => "{ into: 'embedding', from: 'content', items: false }",
                Some(Embedding::Query) => "{ into: 'query_embedding', from: 'query', items: false }",
                Some(Embedding::Items) => "{ into: 'embedding', from: 'content', items: true }",
            };
            format!("  {{ tool: '{}', method: {method}, writes: {}, scope: '{scope}', embedding: {embedding} }},\n", o.name, o.writes)
        })
        .collect();
    let methods: Vec<String> = operations()
        .iter()
        .filter(|o| o.method)
        .map(|o| {
            let optional = if only_required(o, &[]) { "?" } else { "" };
            format!(
                "{}  {}(options{optional}: {}): Promise<{}>;\n",
                member_docs(o),
                camel(o.name),
                (o.types.options)(),
                (o.types.response)()
            )
        })
        .collect();
    let handle_methods: Vec<String> = operations()
        .iter()
        .filter(|o| o.method && o.scope != Scope::Owner)
        .map(|o| {
            let wrap = if o.scope == Scope::Axes { "Scoped" } else { "Agented" };
            let optional = if only_required(o, &["agent_id", "project_id", "channel"]) { "?" } else { "" };
            let (options, response) = ((o.types.options)(), (o.types.response)());
            format!("{}  {}(options{optional}: {wrap}<{options}>): Promise<{response}>;\n", member_docs(o), camel(o.name))
        })
        .collect();
    format!(
        "// Generated from the table of operations (src/api/operations.rs) by `cargo test --lib generated`;\n\
         // do not edit. `UPDATE_GENERATED=1 cargo test --lib generated` rewrites it.\n\n\
         import type {{\n  {}\n}} from './types.js';\n\n\
         /** Options of an operation with the axes a scoped handle fixes left out. */\n\
         export type Scoped<T> = Omit<T, 'agent_id' | 'project_id' | 'channel'>;\n\
         /** Options of an operation with `agent_id` left out. */\n\
         export type Agented<T> = Omit<T, 'agent_id'>;\n\n\
         /** Each operation's options and response, by its tool name. */\n\
         export interface Operations {{\n{}}}\n\n\
         /** The tool names the engine's `call` takes. */\n\
         export type OperationName = keyof Operations;\n\n\
         /** What the package needs to know of an operation. */\n\
         export interface Operation {{\n\
         \x20 /** Its tool name. */\n\
         \x20 readonly tool: OperationName;\n\
         \x20 /** The memory's method for it, or null when only the package's own code calls it. */\n\
         \x20 readonly method: string | null;\n\
         \x20 /** Whether it writes (a call that does not is safe to send again). */\n\
         \x20 readonly writes: boolean;\n\
         \x20 /** The isolation axes its options carry: all three, `agent_id` only, or none. */\n\
         \x20 readonly scope: 'axes' | 'agent' | 'owner';\n\
         \x20 /** The field `embed` fills when absent, from the text in `from` (of each of `items`, with `items`). */\n\
         \x20 readonly embedding: {{ readonly into: 'embedding' | 'query_embedding'; readonly from: 'content' | 'query'; readonly items: boolean }} | null;\n\
         }}\n\n\
         /** Every operation, in the engine's order. */\n\
         export const OPERATIONS: readonly Operation[] = [\n{}];\n\n\
         /** The memory's method of each operation that has one: its options, its response. */\n\
         export interface OperationMethods {{\n{}}}\n\n\
         /** A scoped handle's method of each operation an agent makes, without what the handle fills in. */\n\
         export interface HandleMethods {{\n{}}}\n\n\
         /** The engine's bounds on one call that the package's own batching keeps within. */\n\
         export const LIMITS = {{\n\
         \x20 /** Memories one `storeMany` takes at most. */\n\
         \x20 batch: {},\n\
         \x20 /** Characters of every item's `content` together in one `storeMany`. */\n\
         \x20 batchContent: {},\n\
         }} as const;\n",
        types.join(", "),
        table.concat(),
        rows.concat(),
        methods.join("\n"),
        handle_methods.join("\n"),
        super::MAX_BATCH,
        super::MAX_BATCH_CONTENT,
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

/// Every type the operations reach is declared by its own line in [`listed`], so the
/// file's order never rests on the order ts-rs visits dependencies in.
#[test]
fn every_declared_type_is_listed() {
    let mut d = Declarations::default();
    listed(&mut d);
    let listed = d.declared.clone();
    let reached: Vec<String> = declarations().into_iter().skip(listed.len()).collect();
    assert!(reached.is_empty(), "declared but not listed in `listed`: {reached:?}");
}

#[test]
fn generated_types_and_tool_schemas_are_checked_in() {
    let tools_json = serde_json::to_string_pretty(&tool_definitions()).expect("schemas serialize") + "\n";
    let stale: Vec<String> = [
        check(TYPES_FILE, &types_file()),
        check(TOOLS_FILE, &tools_file()),
        check(TOOLS_JSON, &tools_json),
        check(OPERATIONS_FILE, &operations_file()),
    ]
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

#[test]
fn the_table_of_operations_matches_their_options() {
    for op in operations() {
        let schema = (op.types.schema)();
        let has = |field: &str| schema["properties"].get(field).is_some();
        let axes = (has("agent_id"), has("project_id"), has("channel"));
        let expected = match op.scope {
            Scope::Axes => (true, true, true),
            Scope::Agent => (true, false, false),
            Scope::Owner => (false, false, false),
        };
        assert_eq!(axes, expected, "{}: the table's scope is {:?}", op.name, op.scope);
        let fields = match op.embedding {
            None => continue,
            Some(Embedding::Content) => (&schema["properties"], "embedding", "content"),
            Some(Embedding::Query) => (&schema["properties"], "query_embedding", "query"),
            Some(Embedding::Items) => (&schema["properties"]["items"]["items"]["properties"], "embedding", "content"),
        };
        let (properties, into, from) = fields;
        for field in [into, &format!("{into}_model"), from] {
            assert!(
                properties.get(field).is_some(),
                "{}: the table embeds into `{into}` from `{from}`, and `{field}` is no option",
                op.name
            );
        }
    }
    let mut places: Vec<u8> = OPERATIONS.iter().filter_map(|o| o.tool).collect();
    places.sort_unstable();
    assert_eq!(places, (1..=places.len() as u8).collect::<Vec<_>>(), "the tools' places are 1, 2, 3…");
}

/// What the generated types say against what the engine returns.
#[cfg(test)]
mod tests {
    use super::*;

    /// The object types of `src/wasm/types.d.ts`: each one's fields, whether each is optional
    /// (`name?:`), and its type as written.
    fn declared_objects(file: &str) -> std::collections::HashMap<String, Vec<(String, bool, String)>> {
        let mut objects = std::collections::HashMap::new();
        let mut current: Option<(String, Vec<(String, bool, String)>)> = None;
        for line in file.lines() {
            if let Some(name) = line.strip_prefix("export type ").and_then(|l| l.strip_suffix(" = {")) {
                current = Some((name.to_owned(), Vec::new()));
            } else if line == "};" {
                if let Some((name, fields)) = current.take() {
                    objects.insert(name, fields);
                }
            } else if let Some((_, fields)) = current.as_mut() {
                let Some(field) = line.strip_prefix("  ").filter(|l| !l.starts_with(['/', '*', ' '])) else { continue };
                let (name, ty) = field.split_once(": ").unwrap_or_else(|| panic!("a field line: {line}"));
                let ty = ty.strip_suffix(',').unwrap_or(ty).to_owned();
                match name.strip_suffix('?') {
                    Some(name) => fields.push((name.to_owned(), true, ty)),
                    None => fields.push((name.to_owned(), false, ty)),
                }
            }
        }
        objects
    }

    /// Where `value` (at `path`) disagrees with the declared type `ty`: a required field it
    /// lacks, a field it has that is not declared, in it or in any object it holds.
    fn disagreements(
        objects: &std::collections::HashMap<String, Vec<(String, bool, String)>>,
        ty: &str,
        value: &Value,
        path: &str,
        out: &mut Vec<String>,
    ) {
        let mut ty = ty.trim();
        if let Some(inner) = ty.strip_prefix("Array<").and_then(|t| t.strip_suffix('>')) {
            for (i, item) in value.as_array().into_iter().flatten().enumerate() {
                disagreements(objects, inner, item, &format!("{path}[{i}]"), out);
            }
            return;
        }
        if let Some(inner) = ty.strip_suffix(" | null") {
            if value.is_null() {
                return;
            }
            ty = inner;
        }
        let Some(fields) = objects.get(ty) else { return };
        let Some(object) = value.as_object() else {
            out.push(format!("{path}: {ty} is an object, the engine gave {value}"));
            return;
        };
        for (name, optional, field_ty) in fields {
            match object.get(name) {
                Some(v) => disagreements(objects, field_ty, v, &format!("{path}.{name}"), out),
                None if !optional => out.push(format!("{path}.{name}: {ty} declares it always there; the engine left it out")),
                None => {}
            }
        }
        for key in object.keys().filter(|k| !fields.iter().any(|(name, ..)| name == *k)) {
            out.push(format!("{path}.{key}: the engine gave it; {ty} does not declare it"));
        }
    }

    /// A call of every operation but the imports and `delete_agent_data` (which the tests make
    /// of what these wrote), in an order that leaves each kind of record and declaration in
    /// the memory, with and without each optional part.
    fn calls() -> Vec<(&'static str, Value)> {
        let v = [0.6, 0.8];
        vec![
            (
                "store",
                json!({"agent_id": "a", "content": "Kaito Mori maintains the ledger service.", "metadata": {"k": 1}, "source": {"type": "User", "id": "u1", "name": "Ann"},
                "embedding": v, "embedding_model": "m", "project_id": "p", "channel": "c",
                "associations": {"entities": [{"name": "Kaito Mori", "aliases": ["Kaito", "森 海斗"]}, {"name": "Ledger Service"}],
                    "relations": [{"subject": "Kaito Mori", "predicate": "maintains", "object": "Ledger Service"}]}}),
            ),
            ("store", json!({"agent_id": "a", "content": "The ledger service moved to Postgres."})),
            (
                "store",
                json!({"agent_id": "a", "content": "Malformed associations are dropped.", "associations": {"entities": [{"name": ""}], "relations": [{"subject": "x"}]}}),
            ),
            (
                "store_many",
                json!({"agent_id": "a", "items": [{"content": "Kaito reviews the ledger each Friday.", "embedding": [1.0, 0.0]}, {"content": "no vector", "associations": {"entities": [{"name": "Kaito"}]}}]}),
            ),
            (
                "archive_episode",
                json!({"agent_id": "a", "summary": "Ledger sprint planning with Kaito", "keywords": "ledger sprint", "history": [{"role": "user", "content": "plan"}], "embedding": v}),
            ),
            (
                "declare_associations",
                json!({"agent_id": "a", "anchor_ref": "mem:2", "associations": {"entities": [{"name": "Postgres"}], "relations": [{"subject": "Ledger Service", "predicate": "uses", "object": "Postgres"}, {"subject": ""}]}}),
            ),
            (
                "declare_associations",
                json!({"agent_id": "a", "retract": {"relations": [2], "mentions": [{"entity": 1, "ref": "mem:1"}]}, "declared_by": "operator"}),
            ),
            ("recall", json!({"agent_id": "a", "query": "ledger Kaito", "project_id": "p"})),
            ("recall", json!({"agent_id": "a", "query": "ledger", "query_embedding": v, "query_embedding_model": "m", "deep": true})),
            ("recall", json!({"agent_id": "a", "query": "zzzz nothing"})),
            ("reconstruct", json!({"agent_id": "a", "query": "Who maintains the ledger service?", "trace": true, "max_hops": 2})),
            ("reconstruct", json!({"agent_id": "a", "query": "ledger", "query_embedding": v, "count": 3, "top_k": 1, "budget": 10})),
            ("reconstruct", json!({"agent_id": "a", "query": "zzzz nothing"})),
            ("traverse", json!({"agent_id": "a", "entity": "kaito", "max_hops": 2})),
            ("traverse", json!({"agent_id": "a", "entity": "Ledger Service", "max_hops": 5, "limit": 1})),
            ("traverse", json!({"agent_id": "a", "entity": "nobody"})),
            // facts in time: an interval, a single-valued predicate and the conflict it
            // surfaces, a relation closed and an episode invalidated; then reads at instants
            (
                "declare_associations",
                json!({"agent_id": "a", "predicates": [{"name": "maintained by", "single": true}], "associations": {"relations": [
                    {"subject": "Ledger Service", "predicate": "maintained by", "object": "Kaito Mori", "valid_from": "2025-01-01", "valid_to": "2025-06-01"},
                    {"subject": "Ledger Service", "predicate": "maintained by", "object": "Rin"},
                    {"subject": "Ledger Service", "predicate": "maintained by", "object": "Mei", "valid_from": "2025-02-01"}]}}),
            ),
            (
                "declare_associations",
                json!({"agent_id": "a", "invalidate": [{"relation_id": 4, "reason": "Rin left"}, {"ref": "ep:1", "reason": "replanned"}]}),
            ),
            ("traverse", json!({"agent_id": "a", "entity": "Ledger Service", "as_of": "all"})),
            ("traverse", json!({"agent_id": "a", "entity": "Ledger Service"})),
            ("reconstruct", json!({"agent_id": "a", "query": "Who maintains the ledger service?", "as_of": "2025-03-01"})),
            ("history", json!({"agent_id": "a", "entity": "Ledger Service", "limit": 2})),
            ("history", json!({"agent_id": "a", "entity": "nobody"})),
            ("list_entities", json!({"agent_id": "a", "as_of": "2025-03-01"})),
            ("get_contents", json!({"agent_id": "a", "refs": ["mem:1", "mem:2", "ep:1", "mem:999"]})),
            ("list_entities", json!({"agent_id": "a"})),
            ("list_entities", json!({"agent_id": "a", "query": "kai", "limit": 1})),
            ("list_agents", json!({})),
            ("list_agents", json!({"limit": 1})),
            ("list_memories", json!({"agent_id": "a"})),
            ("list_memories", json!({"agent_id": "a", "limit": 1, "project_id": "p"})),
            ("list_memories", json!({"agent_id": "a", "max_content": 5})),
            (
                "update_memory",
                json!({"agent_id": "a", "memory_id": "mem:2", "content": "The ledger service runs on Postgres 16.", "metadata": {"v": 2}}),
            ),
            ("export_memories", json!({"agent_id": "a"})),
            ("embedding_backlog", json!({"model": "m", "limit": 2})),
            ("set_embeddings", json!({"model": "m", "items": [{"ref": "mem:2", "embedding": v}, {"ref": "mem:999", "embedding": v}]})),
            ("delete_memory", json!({"agent_id": "a", "memory_id": "mem:3"})),
            ("delete_episode", json!({"agent_id": "a", "episode_id": 1})),
            ("delete_entity", json!({"agent_id": "a", "entity_id": 3})),
            ("store", json!({"agent_id": "a", "content": "Ledger freeze until the audit.", "expires_at": "2027-01-01T00:00:00Z"})),
            ("store", json!({"agent_id": "a", "content": "Ledger freeze of last spring.", "expires_at": "2025-06-01T00:00:00Z"})),
            ("recall", json!({"agent_id": "a", "query": "ledger freeze"})),
            ("recall", json!({"agent_id": "a", "query": "ledger freeze", "as_of": "all"})),
            ("list_memories", json!({"agent_id": "a", "as_of": "2026-06-01"})),
            ("get_contents", json!({"agent_id": "a", "refs": ["mem:4", "mem:5"], "as_of": "all"})),
            ("purge_expired", json!({"agent_id": "a"})),
        ]
    }

    /// A memory in memory whose clock stands still, so a call made twice writes the same rows.
    fn fixed_memory() -> crate::Memory {
        crate::Memory::open_in_memory_with_clock(Box::new(crate::base::clock::FixedClock::new(1_767_225_600_000))).unwrap()
    }

    /// Every row of every table (the index shadow tables included), in a fixed order; but
    /// `sqlite_sequence`, the high-water mark of ids handed out (an insert that a conflict
    /// ignores may still raise it: what is kept stays the same).
    fn rows(memory: &crate::Memory) -> Vec<String> {
        let conn = &memory.conn;
        let tables: Vec<String> = conn
            .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name <> 'sqlite_sequence' ORDER BY name")
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap();
        let mut out = Vec::new();
        for table in tables {
            let mut stmt = conn.prepare(&format!("SELECT * FROM \"{table}\"")).unwrap();
            let columns = stmt.column_count();
            let mut table_rows: Vec<String> = stmt
                .query_map([], |r| {
                    (0..columns)
                        .map(|i| r.get::<_, rusqlite::types::Value>(i).map(|v| format!("{v:?}")))
                        .collect::<rusqlite::Result<Vec<_>>>()
                })
                .unwrap()
                .map(|row| format!("{table}: {}", row.unwrap().join(", ")))
                .collect();
            table_rows.sort();
            out.extend(table_rows);
        }
        out
    }

    /// What the table says of each operation holds of the engine, so the annotations
    /// generated from it (`readOnlyHint`, `idempotentHint`) and the OPFS worker's resending of
    /// reads tell the truth: an operation that does not write changes no row, even one to the
    /// same value (SQLite's count of changed rows stays), and one called idempotent, called
    /// again with the same options on a clock that stands still, changes no row it left.
    #[test]
    fn each_operation_writes_as_the_table_says() {
        let mut memory = fixed_memory();
        let mut calls = calls();
        let jsonl = {
            let mut m = fixed_memory();
            for (tool, options) in &calls {
                m.call(tool, options).unwrap();
            }
            m.call("export_memories", &json!({"agent_id": "a"})).unwrap()["jsonl"].as_str().unwrap().to_owned()
        };
        calls.push(("import_memories", json!({"jsonl": jsonl, "target_agent_id": "b"})));
        calls.push(("delete_agent_data", json!({"agent_id": "b"})));
        let mut checked = std::collections::BTreeSet::new();
        for (tool, options) in &calls {
            let op = OPERATIONS.iter().find(|o| o.name == *tool).unwrap();
            let changes = memory.conn.total_changes();
            memory.call(tool, options).unwrap_or_else(|e| panic!("{tool} {options}: {e}"));
            let after = rows(&memory);
            if !op.writes {
                assert_eq!(memory.conn.total_changes(), changes, "{tool} {options} is a read, and changed rows");
            }
            if op.idempotent {
                let _ = memory.call(tool, options); // again: an error (the record is gone) or the same answer
                assert_eq!(rows(&memory), after, "{tool} {options} is idempotent, and a second call changed rows");
            } else if op.writes {
                let _ = memory.call(tool, options);
                assert_ne!(rows(&memory), after, "{tool} {options}: the table says a second call writes again; it did not");
            }
            checked.insert(*tool);
        }
        let missing: Vec<&str> = OPERATIONS.iter().map(|o| o.name).filter(|n| !checked.contains(n)).collect();
        assert!(missing.is_empty(), "operations this test never calls: {missing:?}");
    }

    /// The annotations of the checked-in tool definitions (which the native server embeds)
    /// say what the table says: read-only when it does not write, destructive as it says,
    /// never destructive for a read; and the offered tools are the table's, in its places.
    #[test]
    fn the_tool_annotations_say_what_the_table_says() {
        let file = std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(TOOLS_JSON)).unwrap();
        let tools: Vec<Value> = serde_json::from_str(&file).unwrap();
        let mut offered: Vec<&Operation> = OPERATIONS.iter().filter(|o| o.tool.is_some()).collect();
        offered.sort_by_key(|o| o.tool);
        assert_eq!(
            tools.iter().map(|t| t["name"].as_str().unwrap()).collect::<Vec<_>>(),
            offered.iter().map(|o| o.name).collect::<Vec<_>>()
        );
        for (tool, op) in tools.iter().zip(offered) {
            let a = &tool["annotations"];
            assert_eq!(a["readOnlyHint"], json!(!op.writes), "{}", op.name);
            assert_eq!(a["destructiveHint"], json!(op.destroys), "{}", op.name);
            assert_eq!(a["idempotentHint"], json!(op.idempotent), "{}", op.name);
            assert_eq!(a["openWorldHint"], json!(false), "{}", op.name);
            assert!(op.writes || !op.destroys, "{}: a read destroys nothing", op.name);
            assert_eq!(tool["output_schema"]["type"], "object", "{}", op.name);
        }
    }

    /// Every operation's declared response against what the engine answers on a memory that
    /// holds every kind of record, with and without each optional part (metadata, a source,
    /// associations, embeddings of two models, a declared graph): a field typed as always there
    /// is always there, and nothing the engine returns is left undeclared.
    #[test]
    fn every_response_type_says_what_the_engine_returns() {
        let file = types_file();
        let objects = declared_objects(&file);
        let mut memory = fixed_memory();
        let calls = calls();
        let mut out = Vec::new();
        let mut answered = std::collections::BTreeSet::new();
        let response_of = |tool: &str| operations().into_iter().find(|o| o.name == tool).map(|o| (o.types.response)()).unwrap();
        let mut run = |memory: &mut crate::Memory, tool: &str, options: &Value, out: &mut Vec<String>| -> Value {
            let response = memory.call(tool, options).unwrap_or_else(|e| panic!("{tool} {options}: {e}"));
            disagreements(
                &objects,
                &response_of(tool),
                &response,
                &format!("{tool} {}", options.to_string().chars().take(80).collect::<String>()),
                out,
            );
            answered.insert(tool.to_owned());
            response
        };
        let mut jsonl = String::new();
        for (tool, options) in &calls {
            let response = run(&mut memory, tool, options, &mut out);
            if *tool == "export_memories" {
                jsonl = response["jsonl"].as_str().unwrap().to_owned();
            }
        }
        for options in [json!({"jsonl": jsonl, "target_agent_id": "b", "dry_run": true}), json!({"jsonl": jsonl, "target_agent_id": "b"})] {
            run(&mut memory, "import_memories", &options, &mut out);
        }
        run(&mut memory, "delete_agent_data", &json!({"agent_id": "b"}), &mut out);
        let missing: Vec<&str> = operations().iter().map(|o| o.name).filter(|n| !answered.contains(*n)).collect();
        assert!(missing.is_empty(), "operations this test never calls: {missing:?}");
        assert!(out.is_empty(), "responses that disagree with their types:\n{}", out.join("\n"));
    }
}

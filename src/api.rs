//! The request and response types shared by every surface: the Rust API, [`crate::Memory::call`],
//! the wasm binding and, through it, TypeScript and tool calls.
//!
//! Field names are snake_case, as in the reference's tool contract, because responses are
//! handed to language models verbatim. Options are read from JSON by `from_json`, which
//! checks every field (type, range, unknown names) before an operation runs; responses
//! serialize in the compact form of the recorded scenarios, omitting defaults.

use crate::args::{as_int, wrong, Args};
use crate::clock::{format_iso, parse_iso};
use crate::error::{Error, Result};
use crate::records::Ref;
use crate::scope::{ReadScope, WriteScope};
use serde::Serialize;
use serde_json::{Map, Value};

/// Traverse's hop bound: default 1, at most 5 (design §4).
pub const TRAVERSE_MAX_HOPS: i64 = 5;
/// Traverse's entity and per-entity ref bound: default 20, at most 100 (design §4).
pub const TRAVERSE_MAX_LIMIT: i64 = 100;
/// Refs one `get_contents` call may name.
pub const GET_CONTENTS_MAX_REFS: usize = 20;

fn write_scope(a: &Args) -> Result<WriteScope> {
    Ok(WriteScope {
        agent_id: a.required_text("agent_id")?,
        project_id: a.string("project_id")?.unwrap_or_default(),
        channel: a.string("channel")?.unwrap_or_default(),
    })
}

fn read_scope(a: &Args) -> Result<ReadScope> {
    Ok(ReadScope { agent_id: a.required_text("agent_id")?, project_id: a.string("project_id")?, channel: a.string("channel")? })
}

/// Where a memory came from (`{type, id, name}`); defaults to the storing agent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Source {
    /// The kind of source: `Agent`, `User`, a tool name…
    #[serde(rename = "type")]
    pub kind: String,
    /// The source's id.
    pub id: String,
    /// A display name, `''` when none.
    pub name: String,
}

impl Source {
    fn from_json(v: &Value) -> Result<Source> {
        let a = Args::new(v, &["type", "id", "name"]).map_err(|e| rename_field(e, "source"))?;
        let field = |name: &str| -> Result<String> { a.string(name).map_err(|e| rename_field(e, "source")).map(Option::unwrap_or_default) };
        Ok(Source { kind: field("type")?, id: field("id")?, name: field("name")? })
    }
}

/// Prefixes an error's field with its parent, `type` → `source.type`.
fn rename_field(e: Error, parent: &str) -> Error {
    let join = |f: String| if f == "options" { parent.to_string() } else { format!("{parent}.{f}") };
    match e {
        Error::WrongType { field, expected, got } => Error::WrongType { field: join(field), expected, got },
        Error::UnknownOption { field, accepted } => Error::UnknownOption { field: join(field), accepted },
        other => other,
    }
}

/// An optional timestamp, parsed and rewritten in the one canonical UTC spelling.
fn timestamp(a: &Args, name: &str) -> Result<Option<String>> {
    match a.string(name)? {
        None => Ok(None),
        Some(s) => parse_iso(&s).map(|ms| Some(format_iso(ms))).ok_or_else(|| Error::Invalid {
            field: name.into(),
            reason: format!("must be an ISO-8601 date-time such as 2026-05-10T12:00:00Z, got {s:?}"),
        }),
    }
}

/// An optional embedding: a non-empty array of finite numbers.
fn embedding(a: &Args, name: &str) -> Result<Option<Vec<f32>>> {
    let Some(items) = a.array(name)? else { return Ok(None) };
    if items.is_empty() || items.len() > 8192 {
        return Err(Error::OutOfRange { field: name.into(), range: "1–8192 numbers".into(), got: items.len().to_string() });
    }
    items
        .iter()
        .enumerate()
        .map(|(i, v)| match v.as_f64() {
            Some(f) if f.is_finite() => Ok(f as f32),
            _ => Err(wrong(&format!("{name}[{i}]"), "a finite number", v)),
        })
        .collect::<Result<Vec<f32>>>()
        .map(Some)
}

/// Options of `store`.
#[derive(Debug, Clone, Default)]
pub struct StoreOptions {
    /// The bucket the memory is written to.
    pub scope: WriteScope,
    /// The text.
    pub content: String,
    /// When it happened (canonical UTC); `None` stamps the clock's now.
    pub timestamp: Option<String>,
    /// Where it came from; `None` is the storing agent.
    pub source: Option<Source>,
    /// Caller's JSON object, stored and returned as given.
    pub metadata: Option<Map<String, Value>>,
    /// The caller's vector for this memory.
    pub embedding: Option<Vec<f32>>,
    /// Declarations riding on the store (design §2), read leniently: a malformed item is
    /// reported in `dropped`, never a reason to lose the memory.
    pub associations: Option<Value>,
}

impl StoreOptions {
    /// Reads and checks `store` options.
    pub fn from_json(v: &Value) -> Result<Self> {
        let a = Args::new(
            v,
            &["agent_id", "project_id", "channel", "content", "timestamp", "source", "metadata", "embedding", "associations"],
        )?;
        Ok(StoreOptions {
            scope: write_scope(&a)?,
            content: a.required_text("content")?,
            timestamp: timestamp(&a, "timestamp")?,
            source: a.value("source").map(Source::from_json).transpose()?,
            metadata: a.object("metadata")?.cloned(),
            embedding: embedding(&a, "embedding")?,
            associations: a.value("associations").cloned(),
        })
    }
}

/// One turn of an episode's history.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Turn {
    /// Who spoke (`user`, `assistant`…).
    pub role: String,
    /// What was said.
    pub content: String,
    /// When (canonical UTC), if known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timestamp: Option<String>,
}

/// Options of `archive_episode`.
#[derive(Debug, Clone, Default)]
pub struct EpisodeOptions {
    /// The bucket the episode is written to.
    pub scope: WriteScope,
    /// What the episode was about.
    pub summary: String,
    /// Search keywords, space-separated.
    pub keywords: String,
    /// The conversation, oldest first; its timestamps give the episode's time span.
    pub history: Vec<Turn>,
    /// The caller's vector for this episode.
    pub embedding: Option<Vec<f32>>,
}

impl EpisodeOptions {
    /// Reads and checks `archive_episode` options.
    pub fn from_json(v: &Value) -> Result<Self> {
        let a = Args::new(v, &["agent_id", "project_id", "channel", "summary", "keywords", "history", "embedding"])?;
        let mut history = Vec::new();
        for (i, turn) in a.array("history")?.into_iter().flatten().enumerate() {
            let field = format!("history[{i}]");
            let t = Args::new(turn, &["role", "content", "timestamp"]).map_err(|e| rename_field(e, &field))?;
            history.push(Turn {
                role: t.string("role").map_err(|e| rename_field(e, &field))?.unwrap_or_default(),
                content: t.string("content").map_err(|e| rename_field(e, &field))?.unwrap_or_default(),
                timestamp: timestamp(&t, "timestamp").map_err(|e| match e {
                    Error::Invalid { reason, .. } => Error::Invalid { field: format!("{field}.timestamp"), reason },
                    other => rename_field(other, &field),
                })?,
            });
        }
        Ok(EpisodeOptions {
            scope: write_scope(&a)?,
            summary: a.required_text("summary")?,
            keywords: a.string("keywords")?.unwrap_or_default(),
            history,
            embedding: embedding(&a, "embedding")?,
        })
    }
}

/// Who made a declaration.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DeclaredBy {
    /// An agent, through its tools.
    #[default]
    Agent,
    /// A person curating the memory (the explorer).
    Operator,
}

impl DeclaredBy {
    /// The stored spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            DeclaredBy::Agent => "agent",
            DeclaredBy::Operator => "operator",
        }
    }
}

/// Options of `declare_associations`.
#[derive(Debug, Clone, Default)]
pub struct DeclareOptions {
    /// The bucket declarations are filed in.
    pub scope: WriteScope,
    /// `{entities: [{name, aliases?}], relations: [{subject, predicate, object}]}`; items
    /// are read leniently and reported in `dropped`.
    pub associations: Option<Map<String, Value>>,
    /// The record that evidences the declaration.
    pub anchor_ref: Option<Ref>,
    /// `{relations: [ids], mentions: [{entity, ref}]}` to remove.
    pub retract: Option<Map<String, Value>>,
    /// Who declares.
    pub declared_by: DeclaredBy,
}

impl DeclareOptions {
    /// Reads and checks `declare_associations` options.
    pub fn from_json(v: &Value) -> Result<Self> {
        let a = Args::new(v, &["agent_id", "project_id", "channel", "associations", "anchor_ref", "retract", "declared_by"])?;
        let associations = a.object("associations")?.cloned();
        if let Some(assoc) = &associations {
            let inner = Value::Object(assoc.clone());
            let inner = Args::new(&inner, &["entities", "relations"]).map_err(|e| rename_field(e, "associations"))?;
            inner.array("entities").map_err(|e| rename_field(e, "associations"))?;
            inner.array("relations").map_err(|e| rename_field(e, "associations"))?;
        }
        let retract = a.object("retract")?.cloned();
        if let Some(r) = &retract {
            let inner = Value::Object(r.clone());
            let inner = Args::new(&inner, &["relations", "mentions"]).map_err(|e| rename_field(e, "retract"))?;
            inner.array("relations").map_err(|e| rename_field(e, "retract"))?;
            inner.array("mentions").map_err(|e| rename_field(e, "retract"))?;
        }
        let anchor_ref = match a.string("anchor_ref")? {
            Some(s) if s.trim().is_empty() => None,
            Some(s) => Some(Ref::parse(&s).ok_or(Error::BadRef { field: "anchor_ref".into(), got: s })?),
            None => None,
        };
        let declared_by = match a.string("declared_by")?.as_deref() {
            None | Some("agent") => DeclaredBy::Agent,
            Some("operator") => DeclaredBy::Operator,
            Some(other) => {
                return Err(Error::Invalid { field: "declared_by".into(), reason: format!("must be 'agent' or 'operator', got {other:?}") })
            }
        };
        Ok(DeclareOptions { scope: write_scope(&a)?, associations, anchor_ref, retract, declared_by })
    }
}

/// Options of `traverse`.
#[derive(Debug, Clone)]
pub struct TraverseOptions {
    /// What the call may read.
    pub scope: ReadScope,
    /// An entity name or alias, as the caller wrote it.
    pub entity: String,
    /// Relations to follow, 0–5.
    pub max_hops: i64,
    /// Entities returned, and refs listed per entity, 1–100.
    pub limit: i64,
    /// Only records whose source id is this are listed (`''`: no filter).
    pub source_id: String,
}

impl TraverseOptions {
    /// Reads and checks `traverse` options.
    pub fn from_json(v: &Value) -> Result<Self> {
        let a = Args::new(v, &["agent_id", "project_id", "channel", "entity", "max_hops", "limit", "source_id"])?;
        Ok(TraverseOptions {
            scope: read_scope(&a)?,
            entity: a.string("entity")?.ok_or_else(|| Error::Missing { field: "entity".into() })?,
            max_hops: a.int("max_hops", 0, TRAVERSE_MAX_HOPS)?.unwrap_or(1),
            limit: a.int("limit", 1, TRAVERSE_MAX_LIMIT)?.unwrap_or(20),
            source_id: a.string("source_id")?.unwrap_or_default(),
        })
    }
}

/// Options of `get_contents`.
#[derive(Debug, Clone)]
pub struct GetContentsOptions {
    /// The owning agent; another agent's refs come back in `missing`.
    pub agent_id: String,
    /// The refs as given; one that is not a ref of this agent lands in `missing`.
    pub refs: Vec<String>,
}

impl GetContentsOptions {
    /// Reads and checks `get_contents` options.
    pub fn from_json(v: &Value) -> Result<Self> {
        let a = Args::new(v, &["agent_id", "refs"])?;
        let list = a.array("refs")?.ok_or_else(|| Error::Missing { field: "refs".into() })?;
        if list.is_empty() || list.len() > GET_CONTENTS_MAX_REFS {
            return Err(Error::OutOfRange {
                field: "refs".into(),
                range: format!("1–{GET_CONTENTS_MAX_REFS} refs"),
                got: list.len().to_string(),
            });
        }
        let refs = list
            .iter()
            .enumerate()
            .map(|(i, r)| r.as_str().map(str::to_owned).ok_or_else(|| wrong(&format!("refs[{i}]"), "a string", r)))
            .collect::<Result<_>>()?;
        Ok(GetContentsOptions { agent_id: a.required_text("agent_id")?, refs })
    }
}

/// Options of `delete_memory`, `delete_episode` and `delete_entity`.
#[derive(Debug, Clone)]
pub struct DeleteOptions {
    /// The owning agent.
    pub agent_id: String,
    /// The row's id.
    pub id: i64,
}

impl DeleteOptions {
    /// Reads and checks delete options; `id_field` is `memory_id`, `episode_id` or `entity_id`.
    pub fn from_json(v: &Value, id_field: &str) -> Result<Self> {
        let a = Args::new(v, &["agent_id", id_field])?;
        Ok(DeleteOptions { agent_id: a.required_text("agent_id")?, id: a.id(id_field)? })
    }
}

/// Options of `list_entities`.
#[derive(Debug, Clone)]
pub struct ListEntitiesOptions {
    /// What the call may read.
    pub scope: ReadScope,
    /// Only entities whose normalized name or an alias contains this (normalized).
    pub query: String,
    /// Entities to skip.
    pub offset: i64,
    /// Entities per page, 1–500.
    pub limit: i64,
}

impl ListEntitiesOptions {
    /// Reads and checks `list_entities` options.
    pub fn from_json(v: &Value) -> Result<Self> {
        let a = Args::new(v, &["agent_id", "project_id", "channel", "query", "offset", "limit"])?;
        Ok(ListEntitiesOptions {
            scope: read_scope(&a)?,
            query: a.string("query")?.unwrap_or_default(),
            offset: a.int("offset", 0, i64::MAX)?.unwrap_or(0),
            limit: a.int("limit", 1, 500)?.unwrap_or(100),
        })
    }
}

/// Options of `recall`.
#[derive(Debug, Clone)]
pub struct RecallOptions {
    /// What the call may read.
    pub scope: ReadScope,
    /// The query text.
    pub query: String,
    /// The caller's query vector; turns the vector arm on.
    pub query_embedding: Option<Vec<f32>>,
    /// Messages returned, 1–100.
    pub limit: i64,
    /// Halves the gate ratio: more rows, weaker evidence admitted.
    pub deep: bool,
    /// Only memories whose source id is this (`''`: no filter; episodes are then not read).
    pub source_id: String,
}

impl RecallOptions {
    /// Reads and checks `recall` options.
    pub fn from_json(v: &Value) -> Result<Self> {
        let a = Args::new(v, &["agent_id", "project_id", "channel", "query", "query_embedding", "limit", "deep", "source_id"])?;
        Ok(RecallOptions {
            scope: read_scope(&a)?,
            query: a.required_text("query")?,
            query_embedding: embedding(&a, "query_embedding")?,
            limit: a.int("limit", 1, 100)?.unwrap_or(10),
            deep: a.boolean("deep")?.unwrap_or(false),
            source_id: a.string("source_id")?.unwrap_or_default(),
        })
    }
}

/// reconstruct's defaults and caps (SPEC §3): a value past a cap is lowered and `bounds`
/// says what was applied.
pub mod reconstruct_bounds {
    /// Items returned by default, and at most.
    pub const COUNT: (i64, i64) = (10, 50);
    /// Candidate depth by default, and at most.
    pub const TOP_K: (i64, i64) = (20, 100);
    /// Walk hops by default, and at most.
    pub const MAX_HOPS: (i64, i64) = (2, 5);
    /// Claims per item by default, and at most.
    pub const MAX_EVIDENCE: (i64, i64) = (40, 100);
    /// Characters of content by default, and at most.
    pub const BUDGET: (i64, i64) = (6000, 200_000);
}

/// Options of `reconstruct`.
#[derive(Debug, Clone)]
pub struct ReconstructOptions {
    /// What the call may read.
    pub scope: ReadScope,
    /// The query text.
    pub query: String,
    /// The caller's query vector (given to the vector arm unchanged).
    pub query_embedding: Option<Vec<f32>>,
    /// Items returned.
    pub count: i64,
    /// Candidate depth of each retrieval arm.
    pub top_k: i64,
    /// Relations the walk follows.
    pub max_hops: i64,
    /// Claims kept per item.
    pub max_evidence: i64,
    /// Characters of quoted content (item heads first, then excerpts).
    pub budget: i64,
    /// Halves recall's gate ratio.
    pub deep: bool,
    /// Adds candidates, clusters and cues to the response.
    pub trace: bool,
    /// Only memories whose source id is this.
    pub source_id: String,
    /// The bounds that were lowered to their cap.
    pub lowered: Vec<&'static str>,
}

impl ReconstructOptions {
    /// Reads and checks `reconstruct` options.
    pub fn from_json(v: &Value) -> Result<Self> {
        use reconstruct_bounds::*;
        let a = Args::new(
            v,
            &[
                "agent_id",
                "project_id",
                "channel",
                "query",
                "query_embedding",
                "count",
                "top_k",
                "max_hops",
                "max_evidence",
                "budget",
                "deep",
                "trace",
                "source_id",
            ],
        )?;
        let mut lowered = Vec::new();
        let mut bound = |name: &'static str, min: i64, (default, cap): (i64, i64)| -> Result<i64> {
            let (value, was_lowered) = a.capped(name, min, cap, default)?;
            if was_lowered {
                lowered.push(name);
            }
            Ok(value)
        };
        let count = bound("count", 0, COUNT)?;
        let top_k = bound("top_k", 1, TOP_K)?;
        let max_hops = bound("max_hops", 0, MAX_HOPS)?;
        let max_evidence = bound("max_evidence", 1, MAX_EVIDENCE)?;
        let budget = bound("budget", 1, BUDGET)?;
        Ok(ReconstructOptions {
            scope: read_scope(&a)?,
            query: a.required_text("query")?,
            query_embedding: embedding(&a, "query_embedding")?,
            count,
            top_k,
            max_hops,
            max_evidence,
            budget,
            deep: a.boolean("deep")?.unwrap_or(false),
            trace: a.boolean("trace")?.unwrap_or(false),
            source_id: a.string("source_id")?.unwrap_or_default(),
            lowered,
        })
    }
}

/// An integer id from a lenient declaration item: a JSON integer, not a boolean.
pub(crate) fn item_id(v: Option<&Value>) -> Option<i64> {
    v.and_then(as_int).filter(|n| *n > 0)
}

// ---------------------------------------------------------------------------------------
// Responses
// ---------------------------------------------------------------------------------------

/// A declaration item that was not applied, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Dropped {
    /// Where in the call: `entities[0].aliases[1]`, `relations[2].subject`, `anchor_ref`…
    pub item: String,
    /// Why it was dropped.
    pub reason: String,
}

/// An entity a declaration named.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DeclaredEntity {
    /// Its id.
    pub id: i64,
    /// The name as this declaration wrote it.
    pub name: String,
    /// Whether this declaration registered it.
    pub created: bool,
}

/// What a declaration did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct DeclareReport {
    /// The entities named, in declaration order.
    pub entities: Vec<DeclaredEntity>,
    /// Mentions recorded (one per entity when there is an anchor).
    pub mentions: u32,
    /// Ids of the relations declared (existing ones included), in declaration order.
    pub relations: Vec<i64>,
    /// Items not applied.
    pub dropped: Vec<Dropped>,
}

/// The response of `store`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StoreResponse {
    /// Always true; a failed store is an error.
    pub ok: bool,
    /// `"stored"`.
    pub result: &'static str,
    /// The new memory's id (`mem:<id>`).
    pub id: i64,
    /// What the riding declaration did, when one was given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub associations: Option<DeclareReport>,
}

/// The response of `archive_episode`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EpisodeResponse {
    /// Always true.
    pub ok: bool,
    /// The new episode's id (`ep:<id>`).
    pub episode_id: i64,
}

/// Counts of what a retraction removed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Retracted {
    /// Relations removed.
    pub relations: u32,
    /// Mentions removed.
    pub mentions: u32,
}

/// The response of `declare_associations`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DeclareResponse {
    /// Always true.
    pub ok: bool,
    /// `"declared"`.
    pub result: &'static str,
    /// What was declared.
    #[serde(flatten)]
    pub report: DeclareReport,
    /// What was retracted, when `retract` was given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retracted: Option<Retracted>,
}

/// One entity of a traverse neighbourhood.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TraverseEntity {
    /// Its id.
    pub id: i64,
    /// Its canonical name.
    pub name: String,
    /// Relations between it and the nearest start.
    pub hops: i64,
    /// Its aliases as written, in normalized order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub aliases: Vec<String>,
    /// Readable records that mention it, lowest id first, at most `limit`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub mentions: Vec<String>,
    /// Readable mentioning records past `limit`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mentions_omitted: Option<i64>,
}

/// One relation of a traverse neighbourhood.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TraverseRelation {
    /// Its id (what `retract` takes).
    pub id: i64,
    /// The subject entity's id.
    pub subject: i64,
    /// The predicate, normalized.
    pub predicate: String,
    /// The object entity's id.
    pub object: i64,
    /// `agent` or `operator`.
    pub declared_by: String,
    /// When it was declared.
    pub declared_at: String,
    /// The record that evidences it, when there is one.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub anchor_ref: String,
}

/// What a bounded read cut.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Bounds {
    /// The bounds that cut something: `max_hops`, `limit`.
    pub omitted: Vec<&'static str>,
}

/// The response of `traverse`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TraverseResponse {
    /// The entity as the caller wrote it.
    pub entity: String,
    /// The hop bound applied.
    pub max_hops: i64,
    /// The limit applied.
    pub limit: i64,
    /// The neighbourhood, by hops, then most recently declared reaching relation, then id.
    pub entities: Vec<TraverseEntity>,
    /// Relations whose both ends are returned, most recently declared first.
    pub relations: Vec<TraverseRelation>,
    /// Entities within the hop bound that `limit` cut.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub entities_omitted: Option<i64>,
    /// Present when a bound cut something.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bounds: Option<Bounds>,
    /// `no_such_entity` when the name resolves to nothing the call can read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<&'static str>,
}

/// One record of `get_contents`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ContentItem {
    /// `mem:<id>` or `ep:<id>`.
    #[serde(rename = "ref")]
    pub reference: String,
    /// The full text (an episode's summary).
    pub content: String,
    /// Where it came from.
    pub source: Value,
    /// When it happened.
    pub timestamp: String,
    /// The caller's metadata, when the memory has some.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Value>,
}

/// The response of `get_contents`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GetContentsResponse {
    /// The records found, in request order.
    pub items: Vec<ContentItem>,
    /// Refs that name nothing this agent has, as given.
    pub missing: Vec<String>,
    /// `items.len()`.
    pub count: usize,
}

/// The response of the delete operations.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DeleteResponse {
    /// Always true; deleting nothing is an error.
    pub ok: bool,
    /// The id deleted.
    pub deleted_id: i64,
}

/// One entity of `list_entities`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ListedEntity {
    /// Its id.
    pub id: i64,
    /// Its canonical name.
    pub name: String,
    /// Its aliases as written, in normalized order.
    pub aliases: Vec<String>,
    /// How many records mention it (readable or not).
    pub mentions: i64,
    /// How many relations name it as subject or object.
    pub relations: i64,
    /// `agent` or `operator`.
    pub declared_by: String,
    /// When it was registered.
    pub created_at: String,
    /// Its project (`''`: global pool).
    pub project_id: String,
    /// Its channel (`''`: every channel).
    pub channel: String,
}

/// The response of `list_entities`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ListEntitiesResponse {
    /// One page, by normalized name then id.
    pub entities: Vec<ListedEntity>,
    /// Entities matching in all.
    pub total: i64,
    /// The `offset` of the next page, when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_offset: Option<i64>,
}

/// Why recall returned a row.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MatchReason {
    /// `rrf`: the fused reciprocal-rank score.
    pub signal: &'static str,
    /// The fused score.
    pub score: f64,
    /// The row's rank in each arm that ranked it (`lexical`, `episodes`, `vector`).
    pub ranks: std::collections::BTreeMap<&'static str, usize>,
}

/// One row of `recall`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Message {
    /// `mem:<id>` or `ep:<id>`.
    #[serde(rename = "ref")]
    pub reference: String,
    /// The record's text (an episode's summary).
    pub content: String,
    /// Where it came from.
    pub source: Value,
    /// When it happened.
    pub timestamp: String,
    /// Why it was returned.
    pub match_reason: MatchReason,
}

/// The response of `recall`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RecallResponse {
    /// Most relevant first.
    pub messages: Vec<Message>,
    /// Rows retrieval found that the gate left out.
    #[serde(skip_serializing_if = "is_zero")]
    pub gated: usize,
    /// Records the vector arm skipped for another dimension than the query's.
    #[serde(skip_serializing_if = "is_zero")]
    pub dimension_skipped: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// What a referenced row is to a claim (the ref is the subject).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Role {
    /// The referenced row.
    #[serde(rename = "ref")]
    pub reference: String,
    /// `supports`, `supersedes`, `corrects`, `qualifies`, `contradicts`, `temporal_predecessor`.
    pub role: String,
}

/// One record an item stands on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Claim {
    /// `mem:<id>` or `ep:<id>`.
    #[serde(rename = "ref")]
    pub reference: String,
    /// When it holds (its timestamp).
    pub as_of: String,
    /// Why it is in the item; absent means `seed` (retrieval found it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
    /// Relations the walk followed to reach it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hops: Option<i64>,
    /// Their relation ids, from the item's own entity outward (`hops` long): the exact
    /// edges a graph view highlights. Absent for a record retrieval found.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub path: Vec<i64>,
    /// The entity at the end of `path`: its mention of the record brought the record in.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub via_entity: Option<i64>,
    /// How other rows of the item relate to it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub roles: Vec<Role>,
}

/// The text of a non-head claim.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Excerpt {
    /// The claim's ref.
    #[serde(rename = "ref")]
    pub reference: String,
    /// Its text.
    pub content: String,
}

/// One reconstructed item: a head record quoted, and the claims it stands on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Item {
    /// The head record's text (cut to the budget when it had to be).
    pub content: String,
    /// The head record.
    pub head_ref: String,
    /// Every retained claim, newest first.
    pub claims: Vec<Claim>,
    /// Claims past `max_evidence`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub claims_omitted: Option<i64>,
    /// The cluster key that formed the item; absent means `singleton`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub independence_reason: Option<&'static str>,
    /// `whole`, or `truncated` when the budget cut the head (with `trace` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub quote_basis: Option<&'static str>,
    /// Character ranges of the head record that `content` quotes.
    pub ranges: Vec<[usize; 2]>,
    /// The other claims' texts, as far as the budget allowed.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub excerpts: Vec<Excerpt>,
    /// Excerpts the budget left out.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub excerpts_omitted: Option<i64>,
}

/// The bounds reconstruct applied, and what they cut.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ReconstructBounds {
    /// Candidate depth applied.
    pub top_k: i64,
    /// Hops applied.
    pub max_hops: i64,
    /// Claims per item applied.
    pub max_evidence: i64,
    /// Bounds that cut something: `max_hops`, `max_evidence`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub omitted: Vec<&'static str>,
    /// Bounds that were met where what lay beyond is not known: `max_evidence`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub reached: Vec<&'static str>,
    /// Options that were lowered to their cap.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub lowered: Vec<&'static str>,
}

/// Stage 1's cues: the entities the query named and the terms they added.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Cues {
    /// Names of the entities whose name or alias the query contains.
    pub entities: Vec<String>,
    /// Their other names, handed to the lexical arm.
    pub terms: Vec<String>,
}

/// What reconstruct did, step by step (`trace: true`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Trace {
    /// Candidates retrieval admitted, most relevant first.
    pub candidate_refs: Vec<String>,
    /// Clusters in item order.
    pub clusters: Vec<Vec<String>>,
    /// Stage 1's cues.
    pub cues: Cues,
    /// Rows the gate left out (absent when none).
    #[serde(skip_serializing_if = "is_zero")]
    pub gated: usize,
}

/// The response of `reconstruct`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReconstructResponse {
    /// The items, most relevant first.
    pub items: Vec<Item>,
    /// The item count applied.
    pub effective_count: i64,
    /// `items.len()`.
    pub returned_count: usize,
    /// Bounds applied, when one cut something, was lowered, or `trace` asked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bounds: Option<ReconstructBounds>,
    /// Why fewer items than `effective_count` came back.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shortfall_reason: Option<&'static str>,
    /// The budget applied, when it cut something or `trace` asked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub effective_budget: Option<i64>,
    /// Characters quoted, when the budget cut something or `trace` asked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub used_budget: Option<i64>,
    /// Steps of the reconstruction, with `trace: true`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trace: Option<Trace>,
}

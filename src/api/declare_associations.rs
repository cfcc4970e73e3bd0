//! `declare_associations`: entities, aliases, mentions and relations declared after the
//! fact, and retractions; and the report every declaration (a store's too) gives back.

use super::lenient::Lenient;
use super::{optional_text, scoped_options, MAX_REF};
use crate::api::error::{Error, Result};
use crate::api::refs::Ref;
use serde::{Deserialize, Serialize};

scoped_options! {
    write,
    /// Declares entities, aliases and relations (optionally as evidenced by one record), or
    /// retracts relations and mentions declared earlier. Malformed items are listed in
    /// `dropped` and skipped; the rest is applied.
    pub struct DeclareOptions {
        /// The entities and relations to declare.
        pub associations: Option<Associations>,
        /// The record the declaration rests on, `"mem:<id>"` or `"ep:<id>"`: every entity
        /// declared is marked as mentioned by it, and relations carry it as their evidence.
        /// At most 64 characters.
        #[cfg_attr(test, schemars(length(max = crate::api::MAX_REF)))]
        pub anchor_ref: Option<String>,
        /// Declarations to take back.
        pub retract: Option<Retract>,
        /// Relations that stopped holding, and records that stopped being true: each is
        /// closed at `at` (default: now) with its reason and kept as history, never deleted.
        /// At most 64; more are dropped.
        #[cfg_attr(test, ts(as = "Option<Vec<Invalidation>>"), schemars(with = "Option<Vec<Invalidation>>", length(max = crate::api::MAX_ITEMS)))]
        pub invalidate: Option<Lenient>,
        /// Predicates declared single-valued (`single: true`) or multi-valued again
        /// (`single: false`) for the call's project and channel: declaring a relation whose
        /// subject holds a current one with a single-valued predicate and another object
        /// returns `conflicts`. At most 64; more are dropped.
        #[cfg_attr(test, ts(as = "Option<Vec<PredicateDeclaration>>"), schemars(with = "Option<Vec<PredicateDeclaration>>", length(max = crate::api::MAX_ITEMS)))]
        pub predicates: Option<Lenient>,
        /// Who declares: an agent through its tools (default) or a person curating the memory.
        // Not offered to models as a tool argument: curation is a person's, in the explorer.
        #[cfg_attr(test, schemars(skip))]
        pub declared_by: Option<DeclaredBy>,
    }
}

impl DeclareOptions {
    /// Checks what the type cannot: the scope, and that the anchor is a record ref. The
    /// declarations themselves are read leniently.
    pub fn validate(&self) -> Result<()> {
        self.validate_scope()?;
        optional_text("anchor_ref", self.anchor_ref.as_deref(), MAX_REF)?;
        let (a, r) = (self.associations.as_ref(), self.retract.as_ref());
        let lists = [
            ("associations.entities", a.and_then(|a| a.entities.as_ref())),
            ("associations.relations", a.and_then(|a| a.relations.as_ref())),
            ("retract.relations", r.and_then(|r| r.relations.as_ref())),
            ("retract.mentions", r.and_then(|r| r.mentions.as_ref())),
            ("invalidate", self.invalidate.as_ref()),
            ("predicates", self.predicates.as_ref()),
        ];
        if let Some((field, got)) = lists.into_iter().find_map(|(f, l)| l.filter(|l| !l.value.is_array()).map(|l| (f, &l.value))) {
            return Err(Error::WrongType { field: field.into(), expected: "an array", got: crate::api::read::type_name(got) });
        }
        self.anchor().map(|_| ())
    }

    /// The anchor record, `None` when absent or blank.
    pub fn anchor(&self) -> Result<Option<Ref>> {
        match self.anchor_ref.as_deref().map(str::trim) {
            None | Some("") => Ok(None),
            Some(s) => Ref::parse(s).map(Some).ok_or_else(|| Error::BadRef { field: "anchor_ref".into(), got: s.into() }),
        }
    }
}

/// Declarations: the entities a record mentions and the relations it asserts. The lists
/// are the shape a call must have; their items are read leniently (a malformed item, or one
/// past a bound, is reported in `dropped`, never a reason to refuse the call).
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(test, derive(schemars::JsonSchema, ts_rs::TS), ts(optional_fields))]
pub struct Associations {
    /// Entities the text is about. Each is registered if new (names compare after Unicode
    /// normalization and case folding) and marked as mentioned by the anchor record. At most
    /// 64; more are dropped.
    #[cfg_attr(
        test,
        ts(as = "Option<Vec<EntityDeclaration>>"),
        schemars(with = "Option<Vec<EntityDeclaration>>", length(max = crate::api::MAX_ITEMS))
    )]
    pub entities: Option<Lenient>,
    /// Facts as subject–predicate–object. At most 64; more are dropped.
    #[cfg_attr(
        test,
        ts(as = "Option<Vec<RelationDeclaration>>"),
        schemars(with = "Option<Vec<RelationDeclaration>>", length(max = crate::api::MAX_ITEMS))
    )]
    pub relations: Option<Lenient>,
}

// Items are read leniently, by `crate::graph::associations`; these two types declare their shape.
/// One declared entity.
#[cfg_attr(test, derive(schemars::JsonSchema, ts_rs::TS), ts(optional_fields), serde(deny_unknown_fields))]
pub struct EntityDeclaration {
    /// Its canonical name, kept as written; at most 256 characters.
    #[cfg_attr(test, schemars(length(min = 1, max = crate::api::MAX_TEXT)))]
    pub name: String,
    /// Other names for it, in any script, each at most 256 characters. A name belongs to one
    /// entity only. At most 32; more are dropped.
    #[cfg_attr(test, schemars(length(max = crate::api::MAX_ALIASES), inner(length(min = 1, max = crate::api::MAX_TEXT))))]
    pub aliases: Option<Vec<String>>,
}

/// One declared relation.
#[cfg_attr(test, derive(schemars::JsonSchema, ts_rs::TS), ts(optional_fields), serde(deny_unknown_fields))]
pub struct RelationDeclaration {
    /// An entity name (registered if new) or a record ref `"mem:<id>"` / `"ep:<id>"`; at most
    /// 256 characters.
    #[cfg_attr(test, schemars(length(min = 1, max = crate::api::MAX_TEXT)))]
    pub subject: String,
    /// What the subject is to the object (`maintains`, `supersedes`…), stored normalized; at
    /// most 256 characters.
    #[cfg_attr(test, schemars(length(min = 1, max = crate::api::MAX_TEXT)))]
    pub predicate: String,
    /// An entity name (registered if new) or a record ref `"mem:<id>"` / `"ep:<id>"`; at most
    /// 256 characters.
    #[cfg_attr(test, schemars(length(min = 1, max = crate::api::MAX_TEXT)))]
    pub object: String,
    /// When it began to hold, ISO-8601; omitted: since always. The same fact declared again
    /// from another `valid_from` is another relation beside this one.
    #[cfg_attr(test, schemars(length(max = crate::api::MAX_TIMESTAMP)))]
    pub valid_from: Option<String>,
    /// When it stopped holding, ISO-8601, after `valid_from`; omitted: until further notice
    /// (`invalidate` ends it later, with a reason).
    #[cfg_attr(test, schemars(length(max = crate::api::MAX_TIMESTAMP)))]
    pub valid_to: Option<String>,
}

/// One relation or record to invalidate: `{ relation_id, at?, reason }` or
/// `{ ref, at?, reason }`.
#[cfg_attr(test, derive(schemars::JsonSchema, ts_rs::TS), serde(untagged))]
pub enum Invalidation {
    /// A relation that stopped holding.
    Relation(RelationInvalidation),
    /// A memory or episode that stopped being true.
    Record(RecordInvalidation),
}

/// A relation that stopped holding: its `valid_to` becomes `at`, and who closed it, when
/// and why are kept with it.
#[cfg_attr(test, derive(schemars::JsonSchema, ts_rs::TS), ts(optional_fields), serde(deny_unknown_fields))]
pub struct RelationInvalidation {
    /// The relation's id, as declarations and reads return it.
    pub relation_id: i64,
    /// When it stopped holding, ISO-8601, after its `valid_from` and before an end it
    /// already has; omitted: now.
    #[cfg_attr(test, schemars(length(max = crate::api::MAX_TIMESTAMP)))]
    pub at: Option<String>,
    /// Why, 1–256 characters.
    #[cfg_attr(test, schemars(length(min = 1, max = crate::api::MAX_TEXT)))]
    pub reason: String,
}

/// A record that stopped being true: reads at or after `at` leave it out, `"all"` shows it
/// with its reason.
#[cfg_attr(test, derive(schemars::JsonSchema, ts_rs::TS), ts(optional_fields), serde(deny_unknown_fields))]
pub struct RecordInvalidation {
    /// The record, `"mem:<id>"` or `"ep:<id>"`.
    #[cfg_attr(test, serde(rename = "ref"), schemars(length(max = crate::api::MAX_REF)))]
    pub reference: String,
    /// When it stopped being true, ISO-8601, before an invalidation it already has; omitted: now.
    #[cfg_attr(test, schemars(length(max = crate::api::MAX_TIMESTAMP)))]
    pub at: Option<String>,
    /// Why, 1–256 characters.
    #[cfg_attr(test, schemars(length(min = 1, max = crate::api::MAX_TEXT)))]
    pub reason: String,
}

/// A predicate's arity for the call's project and channel.
#[cfg_attr(test, derive(schemars::JsonSchema, ts_rs::TS), serde(deny_unknown_fields))]
pub struct PredicateDeclaration {
    /// The predicate, compared as relations store it (normalized); at most 256 characters.
    #[cfg_attr(test, schemars(length(min = 1, max = crate::api::MAX_TEXT)))]
    pub name: String,
    /// `true`: a subject holds one object at a time, and a second is a conflict;
    /// `false`: any number (the default of every predicate).
    pub single: bool,
}

/// What to retract; items are read leniently, like declarations.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(test, derive(schemars::JsonSchema, ts_rs::TS), ts(optional_fields))]
pub struct Retract {
    /// Ids of relations to remove. At most 64; more are dropped.
    #[cfg_attr(test, ts(as = "Option<Vec<i64>>"), schemars(with = "Option<Vec<i64>>", length(max = crate::api::MAX_ITEMS)))]
    pub relations: Option<Lenient>,
    /// Mentions to remove. At most 64; more are dropped.
    #[cfg_attr(test, ts(as = "Option<Vec<MentionRef>>"), schemars(with = "Option<Vec<MentionRef>>", length(max = crate::api::MAX_ITEMS)))]
    pub mentions: Option<Lenient>,
}

/// One mention to retract.
#[cfg_attr(test, derive(schemars::JsonSchema, ts_rs::TS), serde(deny_unknown_fields))]
pub struct MentionRef {
    /// The entity's id.
    pub entity: i64,
    /// The record's ref, `"mem:<id>"` or `"ep:<id>"`.
    #[cfg_attr(test, serde(rename = "ref"))]
    pub reference: String,
}

/// Who made a declaration.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(test, derive(schemars::JsonSchema, ts_rs::TS))]
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

/// A declaration item that was not applied, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema, ts_rs::TS))]
pub struct Dropped {
    /// Where in the call: `entities[0].aliases[1]`, `relations[2].subject`, `anchor_ref`…
    pub item: String,
    /// Why it was dropped.
    pub reason: String,
}

/// An entity a declaration named.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema, ts_rs::TS))]
pub struct DeclaredEntity {
    /// Its id.
    pub id: i64,
    /// The name as this declaration wrote it.
    pub name: String,
    /// Whether this declaration registered it.
    pub created: bool,
}

/// Dropped items a report lists; past it they are only counted (`dropped_omitted`). A call
/// can name millions of items past a bound, and listing each would cost more heap and time
/// than the call itself.
pub const MAX_DROPPED: usize = 100;

/// What was not applied: the first [`MAX_DROPPED`] items listed, the rest counted.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema, ts_rs::TS), ts(optional_fields))]
pub struct Drops {
    /// Items not applied, and why: the first 100.
    pub dropped: Vec<Dropped>,
    /// How many more items were not applied, past the 100 listed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dropped_omitted: Option<u32>,
}

impl Drops {
    /// Lists a dropped item, or counts it once [`MAX_DROPPED`] are listed. The item and
    /// reason are written out only when listed.
    pub fn add(&mut self, item: impl std::fmt::Display, reason: impl std::fmt::Display) {
        if self.dropped.len() < MAX_DROPPED {
            self.dropped.push(Dropped { item: item.to_string(), reason: reason.to_string() });
        } else {
            self.count(1);
        }
    }

    /// `n` items dropped for one reason, the `k`-th named `item(k)`: as many listed as there
    /// is room for, the rest counted without being named.
    pub fn add_run(&mut self, n: usize, item: impl Fn(usize) -> String, reason: &str) {
        let listed = n.min(MAX_DROPPED.saturating_sub(self.dropped.len()));
        for k in 0..listed {
            self.add(item(k), reason);
        }
        self.count(n - listed);
    }

    /// Another report's drops, each item named under `prefix` (`lines[3].`).
    pub fn extend_under(&mut self, prefix: &str, other: Drops) {
        for d in other.dropped {
            self.add(format_args!("{prefix}{}", d.item), d.reason);
        }
        self.count(other.dropped_omitted.unwrap_or(0) as usize);
    }

    /// Whether nothing was dropped.
    pub fn is_empty(&self) -> bool {
        self.dropped.is_empty() && self.dropped_omitted.is_none()
    }

    fn count(&mut self, n: usize) {
        if n > 0 {
            let omitted = self.dropped_omitted.get_or_insert(0);
            *omitted = omitted.saturating_add(u32::try_from(n).unwrap_or(u32::MAX));
        }
    }
}

/// What a declaration did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema, ts_rs::TS), ts(optional_fields))]
pub struct DeclareReport {
    /// The entities named, in declaration order.
    pub entities: Vec<DeclaredEntity>,
    /// Mentions recorded (one per entity when there is an anchor).
    pub mentions: u32,
    /// Ids of the relations declared (existing ones included), in declaration order.
    pub relations: Vec<i64>,
    /// Current relations a declared one may contradict: same subject and single-valued
    /// predicate, another object. Both are kept; the agent decides which to invalidate.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(test, ts(as = "Option<Vec<Conflict>>"))]
    pub conflicts: Vec<Conflict>,
    /// Items not applied.
    #[serde(flatten)]
    pub drops: Drops,
}

/// A declared relation beside a current one with the same subject and single-valued
/// predicate and another object.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema, ts_rs::TS))]
pub struct Conflict {
    /// The relation declared.
    pub relation_id: i64,
    /// The current relation it may contradict.
    pub conflicts_with: i64,
    /// Their subject: an entity's name, or a record's ref.
    pub subject: String,
    /// Their predicate, normalized.
    pub predicate: String,
    /// The current relation's object: an entity's name, or a record's ref.
    pub object: String,
}

/// What an invalidation closed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema, ts_rs::TS))]
pub struct Invalidated {
    /// Ids of the relations closed, in call order.
    pub relations: Vec<i64>,
    /// Refs of the records invalidated, in call order.
    pub records: Vec<String>,
}

/// Counts of what a retraction removed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema, ts_rs::TS))]
pub struct Retracted {
    /// Relations removed.
    pub relations: u32,
    /// Mentions removed.
    pub mentions: u32,
}

/// The response of `declare_associations`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema, ts_rs::TS), ts(optional_fields))]
pub struct DeclareResponse {
    /// Always true.
    #[cfg_attr(test, ts(type = "true"), schemars(extend("const" = true)))]
    pub ok: bool,
    /// `"declared"`.
    #[cfg_attr(test, ts(type = "\"declared\""), schemars(extend("const" = "declared")))]
    pub result: &'static str,
    /// What was declared.
    #[serde(flatten)]
    pub report: DeclareReport,
    /// What was retracted, when `retract` was given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retracted: Option<Retracted>,
    /// What was invalidated, when `invalidate` was given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub invalidated: Option<Invalidated>,
}

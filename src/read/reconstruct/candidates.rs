//! Stage 1 — candidates: the query is matched against the names and aliases the call can
//! read (normalized substring match, longest first, a matched span is not matched again).
//! For every entity the query names, its canonical name and its other aliases become
//! extra terms of the lexical arm only; the vector arm gets the query unchanged, and with
//! no match nothing changes at all (invariant 2).

use crate::api::error::Result;
use crate::api::MAX_CUE_TERMS;
use crate::base::normalize::normalize;
use crate::base::scope::ReadScope;
use crate::base::sorted::SortedMap;
use crate::indexes::names::{Form, NameIndex};
use rusqlite::Connection;

/// What stage 1 found in a query.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Cue {
    /// Names of the entities the query names, in match order (longest match first).
    pub entities: Vec<String>,
    /// Their other names as written, for the trace.
    pub terms: Vec<String>,
    /// The same, normalized, for the lexical arm.
    pub normalized_terms: Vec<String>,
}

/// Stage 1 for `query` in `scope`.
pub fn cue(conn: &Connection, names: &NameIndex, scope: &ReadScope, query: &str) -> Result<Cue> {
    names.readable(conn, scope, |all| matched(all, query))
}

/// The entities `query` names among `all` (in matching order), and their other forms.
fn matched(all: &[&Form], query: &str) -> Cue {
    if all.is_empty() {
        return Cue::default();
    }
    let q = normalize(query);
    let mut consumed: Vec<(usize, usize)> = Vec::new();
    // entity → the normalized forms the query matched it by, in match order
    let mut matched: Vec<(i64, String)> = Vec::new();
    let mut matched_forms: SortedMap<i64, Vec<String>> = SortedMap::new();
    for form in all {
        if form.normalized.is_empty() {
            continue;
        }
        // memchr's search, not `str::match_indices` (the same non-overlapping matches, left to
        // right, at the same byte offsets): memchr is in the wasm module anyway, and core's
        // string searcher would be there for this one use (2 KB before wasm-opt)
        for start in memchr::memmem::find_iter(q.as_bytes(), form.normalized.as_bytes()) {
            let end = start + form.normalized.len();
            if consumed.iter().any(|&(s, e)| start < e && s < end) {
                continue;
            }
            consumed.push((start, end));
            if !matched_forms.contains_key(&form.entity) {
                matched.push((form.entity, form.name.clone()));
            }
            matched_forms.entry(form.entity).or_default().push(form.normalized.clone());
        }
    }
    // each matched entity's forms, in the order of `all`
    let mut forms: SortedMap<i64, Vec<&Form>> = SortedMap::from_iter(matched.iter().map(|(entity, _)| (*entity, Vec::new())));
    for form in all {
        if let Some(own) = forms.get_mut(&form.entity) {
            own.push(form);
        }
    }
    let mut cue = Cue::default();
    let mut given = crate::base::sorted::SortedSet::new();
    for (entity, name) in matched {
        cue.entities.push(name);
        let own = &matched_forms[&entity];
        for form in &forms[&entity] {
            if cue.normalized_terms.len() == MAX_CUE_TERMS {
                break;
            }
            let n = normalize(&form.written);
            if !own.contains(&n) && given.insert(n.clone()) {
                cue.normalized_terms.push(n);
                cue.terms.push(form.written.clone());
            }
        }
    }
    // the canonical name first, then aliases, as the entity was declared
    cue
}

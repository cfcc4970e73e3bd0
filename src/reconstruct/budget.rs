//! The character budget, and the response it shapes: every item head is quoted first, in
//! item order, then the excerpts, so excerpts are cut before any item is.

use super::structure::Draft;
use crate::api::{Excerpt, Item};

/// Items as the budget quoted them.
pub struct Quoted {
    /// The items, in item order; an item whose head found no budget left is not among them.
    pub items: Vec<Item>,
    /// Characters quoted.
    pub used: usize,
    /// Whether the budget cut a head or left an excerpt out.
    pub cut: bool,
}

/// Quotes `drafts` within `budget` characters. With `trace`, defaults are spelled out:
/// `why: seed`, `independence_reason: singleton`, and each item's `quote_basis`.
pub fn quote(drafts: &[Draft], budget: usize, trace: bool) -> Quoted {
    let mut used = 0usize;
    let mut items: Vec<Item> = Vec::new();
    let mut cut = false;
    for d in drafts {
        let remaining = budget - used;
        let len = d.head.content.chars().count();
        if remaining == 0 {
            cut = true;
            break;
        }
        let quoted = len.min(remaining);
        cut |= quoted < len;
        used += quoted;
        items.push(Item {
            content: d.head.content.chars().take(quoted).collect(),
            head_ref: d.head.at.to_string(),
            claims: d.claims.clone(),
            claims_omitted: (d.omitted > 0).then_some(d.omitted),
            independence_reason: d.independence,
            quote_basis: trace.then_some(if quoted < len { "truncated" } else { "whole" }),
            ranges: vec![[0, quoted]],
            excerpts: Vec::new(),
            excerpts_omitted: None,
        });
    }
    for (item, d) in items.iter_mut().zip(drafts) {
        let mut omitted = 0;
        for other in &d.others {
            let len = other.content.chars().count();
            if used + len <= budget {
                used += len;
                item.excerpts.push(Excerpt { reference: other.at.to_string(), content: other.content.clone() });
            } else {
                omitted += 1;
            }
        }
        if omitted > 0 {
            cut = true;
            item.excerpts_omitted = Some(omitted);
        }
    }
    if trace {
        for item in &mut items {
            for claim in &mut item.claims {
                claim.why.get_or_insert_with(|| "seed".into());
            }
            item.independence_reason.get_or_insert("singleton");
        }
    }
    Quoted { items, used, cut }
}

//! The character budget, and the response it shapes: every item head is quoted first, in
//! item order, then the excerpts, so excerpts are cut before any item is.

use super::structure::Draft;
use crate::api::{Excerpt, Item, QuoteBasis};

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
            content: prefix(&d.head.content, quoted).to_string(),
            head_ref: d.head.at.to_string(),
            claims: d.claims.clone(),
            claims_omitted: (d.omitted > 0).then_some(d.omitted),
            independence_reason: d.independence,
            quote_basis: trace.then_some(if quoted < len { QuoteBasis::Truncated } else { QuoteBasis::Whole }),
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

/// The first `chars` characters of `text`. Sliced, not collected a character at a time
/// (a call per character in the size-built wasm module), since heads are mostly quoted
/// whole.
fn prefix(text: &str, chars: usize) -> &str {
    if text.len() <= chars {
        return text; // no more characters than bytes
    }
    text.char_indices().nth(chars).map_or(text, |(at, _)| &text[..at])
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn prefix_counts_characters_not_bytes() {
        for text in ["", "ledger", "über Straße", "台帳台帳 x", "e\u{301}e"] {
            for n in 0..text.len() + 2 {
                assert_eq!(prefix(text, n), text.chars().take(n).collect::<String>(), "{text:?} cut at {n}");
            }
        }
    }
}

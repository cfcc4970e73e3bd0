//! `store_many`: many memories in one transaction, for imports.

use super::{at_most, scoped_options, DeclareReport, StoreItem};
use crate::api::error::{Error, Result};
use serde::Serialize;

/// Memories one `store_many` takes at most. An import of a larger file is several batches;
/// each batch is one transaction, and the whole batch (its JSON, then its parsed items) is
/// held in memory at once, which in a wasm heap of at most 4 GiB wants a bound.
pub const MAX_BATCH: usize = 10_000;

/// Characters of every item's `content` together: 16 Mi, so a batch of the largest
/// memories cannot exhaust a wasm heap (10,000 items of 1 Mi characters each would be 10 Gi),
/// its JSON stays within [`MAX_CALL_BYTES`](super::MAX_CALL_BYTES) in any script, and the
/// largest batch is written in well under a second (BENCHMARKS.md, "One call at its largest
/// legal input").
pub const MAX_BATCH_CONTENT: usize = 16 << 20;

scoped_options! {
    write,
    /// Stores many memories at once, in one transaction: all of them or, when an item is
    /// malformed, none (the error names the item, `items[37].content`). Each item is what
    /// `store` takes but the agent and scope, which are the batch's; malformed associations
    /// never reject an item, they are dropped and listed per item, as `store` does.
    pub struct StoreManyOptions {
        /// The memories, 1–10000, stored in this order.
        #[cfg_attr(test, schemars(length(min = 1, max = MAX_BATCH)))]
        pub items: Vec<StoreItem>,
    }
}

impl StoreManyOptions {
    /// Checks the scope, the number of items, their total content and every item as
    /// `store` checks its fields.
    pub fn validate(&self) -> Result<()> {
        self.validate_scope()?;
        if self.items.is_empty() {
            return Err(Error::Invalid { field: "items".into(), reason: "must hold at least one memory".into() });
        }
        at_most("items", &self.items, MAX_BATCH, "memories")?;
        let total: usize = self.items.iter().map(|i| i.content.len()).sum();
        if total > MAX_BATCH_CONTENT {
            let chars: usize = self.items.iter().map(|i| i.content.chars().count()).sum();
            if chars > MAX_BATCH_CONTENT {
                return Err(Error::OutOfRange {
                    field: "items".into(),
                    range: format!("at most {MAX_BATCH_CONTENT} characters of content in all"),
                    got: format!("{chars} characters"),
                });
            }
        }
        for (i, item) in self.items.iter().enumerate() {
            item.validate(&format!("items[{i}]."))?;
        }
        Ok(())
    }
}

/// One stored memory of `store_many`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema, ts_rs::TS), ts(optional_fields))]
pub struct StoredItem {
    /// The new memory's id (`mem:<id>`).
    pub id: i64,
    /// What its riding declaration did, when it had one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub associations: Option<DeclareReport>,
}

/// The response of `store_many`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema, ts_rs::TS), ts(optional_fields))]
pub struct StoreManyResponse {
    /// Always true; a failed batch is an error and stored nothing.
    #[cfg_attr(test, ts(type = "true"), schemars(extend("const" = true)))]
    pub ok: bool,
    /// `"stored"`.
    #[cfg_attr(test, ts(type = "\"stored\""), schemars(extend("const" = "stored")))]
    pub result: &'static str,
    /// Each item's memory, in the order given.
    pub items: Vec<StoredItem>,
}

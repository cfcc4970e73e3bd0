//! What the in-memory indexes (`crate::indexes::vectors`, `crate::indexes::lexical`) share: the scope of each
//! row held as a small number, and which of them a call may read.
//!
//! Rows are grouped by bucket (agent, project, channel), and each call decides which buckets
//! it may read by running the one isolation clause of `crate::base::scope` over the bucket values
//! in SQL, so that clause stays the only place that says what a scope reads. Strings
//! (agents, projects, channels, source ids) are interned: a row holds a bucket number and a
//! source number, not its strings.

use crate::api::error::Result;
use crate::base::scope::ReadScope;
use rusqlite::{Connection, OptionalExtension};
use std::collections::BTreeMap;

/// No source id (episodes; a source without `id`).
pub const NO_SOURCE: u32 = u32::MAX;

/// The interned strings and buckets of an index.
#[derive(Debug, Default)]
pub struct Buckets {
    strings: Vec<String>,
    string_ids: BTreeMap<String, u32>,
    /// Distinct (agent, project, channel), as string ids.
    buckets: Vec<[u32; 3]>,
    bucket_ids: BTreeMap<[u32; 3], u32>,
}

impl Buckets {
    fn intern(&mut self, s: &str) -> u32 {
        if let Some(&i) = self.string_ids.get(s) {
            return i;
        }
        let i = self.strings.len() as u32;
        self.strings.push(s.to_owned());
        self.string_ids.insert(s.to_owned(), i);
        i
    }

    /// The number of bucket (`agent`, `project`, `channel`), given one if new.
    pub fn bucket(&mut self, agent: &str, project: &str, channel: &str) -> u32 {
        let key = [self.intern(agent), self.intern(project), self.intern(channel)];
        if let Some(&b) = self.bucket_ids.get(&key) {
            return b;
        }
        let b = self.buckets.len() as u32;
        self.buckets.push(key);
        self.bucket_ids.insert(key, b);
        b
    }

    /// The number of a source id, [`NO_SOURCE`] for none.
    pub fn source(&mut self, source: Option<&str>) -> u32 {
        source.map_or(NO_SOURCE, |s| self.intern(s))
    }

    /// `None`: any source; `Some(n)`: only rows of source number `n` (`Some(None)`: a source
    /// id no row has), for a call's `source_id` (`""`: any).
    pub fn source_filter(&self, source_id: &str) -> Option<Option<u32>> {
        (!source_id.is_empty()).then(|| self.string_ids.get(source_id).copied())
    }

    /// The number of agent `agent_id`, when a row has it.
    pub fn agent(&self, agent_id: &str) -> Option<u32> {
        self.string_ids.get(agent_id).copied()
    }

    /// Whether `readable` (as [`Buckets::readable`] makes it) admits every bucket of agent
    /// `agent`.
    pub fn every(&self, agent: u32, readable: &[bool]) -> bool {
        self.buckets.iter().zip(readable).all(|(key, &r)| r || key[0] != agent)
    }

    /// The agent number of bucket `b`.
    pub fn agent_of(&self, b: u32) -> u32 {
        self.buckets[b as usize][0]
    }

    /// Which buckets `scope` may read, by the isolation clause itself.
    pub fn readable(&self, conn: &Connection, scope: &ReadScope) -> Result<Vec<bool>> {
        let mut out = vec![false; self.buckets.len()];
        let Some(&agent) = self.string_ids.get(&scope.agent_id) else { return Ok(out) };
        let iso = scope.clause("t");
        let sql = format!("SELECT 1 FROM (SELECT ? AS agent_id, ? AS project_id, ? AS channel) t WHERE {}", iso.sql);
        let mut stmt = conn.prepare_cached(&sql)?;
        for (b, key) in self.buckets.iter().enumerate() {
            if key[0] != agent {
                continue;
            }
            let [a, p, c] = key.map(|i| rusqlite::types::Value::Text(self.strings[i as usize].clone()));
            let params = [a, p, c].into_iter().chain(iso.params.iter().cloned());
            out[b] = stmt.query_row(rusqlite::params_from_iter(params), |_| Ok(())).optional()?.is_some();
        }
        Ok(out)
    }

    /// Bucket `b` as strings (agent, project, channel), and source `s` as a string.
    #[cfg(test)]
    pub fn names(&self, b: u32, s: u32) -> ([String; 3], Option<String>) {
        let bucket = self.buckets[b as usize].map(|i| self.strings[i as usize].clone());
        (bucket, (s != NO_SOURCE).then(|| self.strings[s as usize].clone()))
    }
}

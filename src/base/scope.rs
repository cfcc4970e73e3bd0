//! Isolation: the agent / project / channel read semantics (SPEC §2), built here and
//! nowhere else. Every query that reads agent-scoped rows takes its isolation clause
//! from [`ReadScope::clause`]; no query writes its own.
//!
//! - `agent_id` is hard isolation: exact match, never a union.
//! - `project_id`: omitted → every project of the agent; `''` → the global pool only;
//!   `'X'` → X and the global pool.
//! - `channel`: omitted or `''` → every channel; `'X'` → X and channel-global rows.
//!
//! Writes go to exactly one bucket, a [`WriteScope`].

use rusqlite::types::Value;

/// What a read may see.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadScope {
    /// The agent whose rows are read; never widened.
    pub agent_id: String,
    /// `None`: every project; `Some("")`: the global pool; `Some(p)`: p and the pool.
    pub project_id: Option<String>,
    /// `None` or `Some("")`: every channel; `Some(c)`: c and channel-global rows.
    pub channel: Option<String>,
}

/// An SQL predicate and the parameters it binds, in order.
#[derive(Debug, Clone, Default)]
pub struct Clause {
    /// The predicate text, never empty (it always holds the agent).
    pub sql: String,
    /// Its parameters.
    pub params: Vec<Value>,
}

impl ReadScope {
    /// The isolation predicate over the columns of table alias `t`.
    pub fn clause(&self, t: &str) -> Clause {
        let mut sql = format!("{t}.agent_id = ?");
        let mut params = vec![Value::Text(self.agent_id.clone())];
        match self.project_id.as_deref() {
            None => {}
            Some("") => sql.push_str(&format!(" AND {t}.project_id = ''")),
            Some(p) => {
                sql.push_str(&format!(" AND {t}.project_id IN (?, '')"));
                params.push(Value::Text(p.to_owned()));
            }
        }
        if let Some(c) = self.channel.as_deref().filter(|c| !c.is_empty()) {
            sql.push_str(&format!(" AND ({t}.channel = ? OR {t}.channel = '')"));
            params.push(Value::Text(c.to_owned()));
        }
        Clause { sql, params }
    }
}

/// The one bucket a write goes to.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WriteScope {
    /// The owning agent.
    pub agent_id: String,
    /// The project, `''` for the global pool.
    pub project_id: String,
    /// The channel, `''` for every channel.
    pub channel: String,
}

impl WriteScope {
    /// The buckets whose entities a reader of this bucket sees, most specific first:
    /// per axis its own value, then the empty one. A declaration resolves names over
    /// these so it reuses an entity its reader already sees instead of registering a
    /// second one under the same name.
    pub fn visible_buckets(&self) -> Vec<(String, String)> {
        let projects: Vec<&str> = if self.project_id.is_empty() { vec![""] } else { vec![&self.project_id, ""] };
        let channels: Vec<&str> = if self.channel.is_empty() { vec![""] } else { vec![&self.channel, ""] };
        projects.iter().flat_map(|p| channels.iter().map(move |c| (p.to_string(), c.to_string()))).collect()
    }
}

impl WriteScope {
    /// The exact-bucket predicate over table alias `t` for one of [`Self::visible_buckets`].
    pub fn bucket_clause(&self, t: &str, (project, channel): &(String, String)) -> Clause {
        Clause {
            sql: format!("{t}.agent_id = ? AND {t}.project_id = ? AND {t}.channel = ?"),
            params: vec![Value::Text(self.agent_id.clone()), Value::Text(project.clone()), Value::Text(channel.clone())],
        }
    }

    /// What this bucket's owner may read of its own rows: the agent, every bucket.
    pub fn owner(&self) -> ReadScope {
        ReadScope { agent_id: self.agent_id.clone(), project_id: None, channel: None }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn scope(project: Option<&str>, channel: Option<&str>) -> ReadScope {
        ReadScope { agent_id: "a".into(), project_id: project.map(Into::into), channel: channel.map(Into::into) }
    }

    #[test]
    fn project_and_channel_semantics() {
        assert_eq!(scope(None, None).clause("m").sql, "m.agent_id = ?");
        assert_eq!(scope(Some(""), Some("")).clause("m").sql, "m.agent_id = ? AND m.project_id = ''");
        let c = scope(Some("p"), Some("c")).clause("m");
        assert_eq!(c.sql, "m.agent_id = ? AND m.project_id IN (?, '') AND (m.channel = ? OR m.channel = '')");
        assert_eq!(c.params.len(), 3);
    }

    #[test]
    fn visible_buckets_most_specific_first() {
        let w = WriteScope { agent_id: "a".into(), project_id: "p".into(), channel: "c".into() };
        let got = w.visible_buckets();
        let want: Vec<(String, String)> =
            [("p", "c"), ("p", ""), ("", "c"), ("", "")].iter().map(|(p, c)| (p.to_string(), c.to_string())).collect();
        assert_eq!(got, want);
    }
}

//! `recall` (SPEC §4): lexical and vector retrieval over records, fused by reciprocal rank
//! and admitted by a quality gate. Recall never reads the association tables
//! (invariant 1); reconstruct calls [`retrieve`] with extra lexical terms (stage 1).
//!
//! - **Lexical arms**, one over memories and one over episodes: the trigram FTS5 index
//!   finds the records matching any query term (terms OR-ed, each quoted so FTS5 syntax in
//!   user text — `"`, `NEAR(`, `*`, `col:`, `AND` — never errors and never changes
//!   meaning), and BM25 over the agent's own records ranks them (`crate::bm25`: FTS5's
//!   formula, not its table-wide statistics, so another agent's writes never reorder them). Terms shorter than three
//!   characters cannot match a trigram index; they are matched with `LIKE` only when the
//!   FTS5 expression matched no row at all.
//! - **Vector arm**, only when the caller gives `query_embedding`: exact cosine over every
//!   readable record stored with a vector of the same dimension; others are skipped and
//!   counted.
//! - **Fusion**: reciprocal rank, `1 / (RRF_K + rank)` summed over the arms that ranked a
//!   row. Ties break by newer timestamp, then memories before episodes, then lower id.
//! - **Gate** ([`GATE_RATIO`]): a row is admitted when its fused score for the caller's
//!   unchanged query is at least `GATE_RATIO` (`deep`: half of it) times the best such
//!   score of the call. A row that one arm alone ranks, far down, while the other arms
//!   agree on better rows, is left out; a row every arm ranks near the top is always in.
//!   It is relative, so it needs no calibration per embedding model, and on a lexical-only
//!   call (one vote per row) it admits every row the depth holds: each shares a query term
//!   with the query.
//!
//!   Why 0.4: with two arms, a row both rank first scores 2/61, so 0.4 admits a row only
//!   one arm found down to that arm's rank 16 and gates it below. On LoCoMo (the six shared
//!   conversations, all-MiniLM-L6-v2 vectors, NDCG@10 mean of categories) every ratio from
//!   0.0 to 0.45 scores 37.61, and 0.5 — which gates every single-arm row but the first —
//!   drops to 35.82, below the reference's 35.77. 0.4 is the strictest ratio that costs
//!   nothing there. Lexical-only runs are unaffected (40.62 at every ratio). BENCHMARKS.md
//!   has the tables.

use crate::bm25::{Folded, Phrase, Stats};
use crate::error::Result;
use crate::normalize::normalize;
use crate::refs::Kind;
use crate::scope::ReadScope;
use rusqlite::types::Value;
use rusqlite::{params_from_iter, Connection};
use std::collections::BTreeMap;

/// The reciprocal-rank constant.
pub const RRF_K: f64 = 60.0;
/// A row is admitted at this fraction of the call's best gate score (`deep` halves it);
/// the measurements behind the value are in the module documentation.
pub const GATE_RATIO: f64 = 0.4;

/// Words that carry no retrieval signal on their own; a query made only of them matches
/// nothing rather than everything.
const STOPWORDS: &[&str] = &[
    "a", "about", "an", "and", "any", "are", "as", "at", "be", "been", "but", "by", "can", "could", "did", "do", "does", "for", "from",
    "had", "has", "have", "he", "her", "him", "his", "how", "i", "if", "in", "into", "is", "it", "its", "me", "my", "of", "on", "or",
    "our", "she", "so", "than", "that", "the", "their", "them", "then", "there", "these", "they", "this", "to", "us", "was", "we", "were",
    "what", "when", "where", "which", "who", "whom", "why", "will", "with", "would", "you", "your",
];

/// The lexical terms of a query: normalized runs of letters and digits (any script),
/// stopwords and duplicates removed, in order of first appearance.
pub fn terms(query: &str) -> Vec<String> {
    let normalized = normalize(query);
    let mut out: Vec<String> = Vec::new();
    for word in normalized.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()) {
        if !STOPWORDS.contains(&word) && !out.iter().any(|t| t == word) {
            out.push(word.to_owned());
        }
    }
    out
}

/// An FTS5 string literal: the term in double quotes, inner quotes doubled. Inside a
/// literal nothing is syntax, so user text can neither break nor steer the expression.
fn quoted(term: &str) -> String {
    format!("\"{}\"", term.replace('"', "\"\""))
}

/// A retrieved record with what retrieval knows about it.
#[derive(Debug, Clone, PartialEq)]
pub struct Hit {
    /// Memory or episode.
    pub kind: Kind,
    /// Row id.
    pub id: i64,
    /// The record's text (an episode's summary).
    pub content: String,
    /// When it happened.
    pub timestamp: String,
    /// Its source object as stored (JSON text); episodes have none.
    pub source: Option<String>,
    /// Project and channel, for bundling within one context.
    pub context: (String, String),
    /// Fused score.
    pub score: f64,
    /// Rank in each arm that ranked it (1-based): `lexical`, `vector`.
    pub ranks: BTreeMap<&'static str, usize>,
}

/// What a retrieval call found, before and after the gate.
#[derive(Debug, Default)]
pub struct Retrieval {
    /// Admitted rows, most relevant first.
    pub admitted: Vec<Hit>,
    /// Rows the gate left out.
    pub gated: usize,
    /// Records skipped by the vector arm for another dimension.
    pub dimension_skipped: usize,
}

/// One retrieval request.
pub struct Request<'a> {
    /// What the call may read.
    pub scope: &'a ReadScope,
    /// `''` or the one source id whose memories are read (episodes are then not read).
    pub source_id: &'a str,
    /// Lexical terms of the caller's query.
    pub terms: Vec<String>,
    /// Extra lexical terms (stage 1 of reconstruct): phrases, each matched whole.
    pub extra_terms: Vec<String>,
    /// The caller's query vector.
    pub query_embedding: Option<&'a [f32]>,
    /// Rows each arm ranks.
    pub depth: usize,
    /// Halves the gate ratio.
    pub deep: bool,
}

impl<'a> Request<'a> {
    /// A request for the caller's query as given, with no extra terms.
    pub fn new(
        scope: &'a ReadScope,
        source_id: &'a str,
        query: &str,
        query_embedding: Option<&'a [f32]>,
        depth: usize,
        deep: bool,
    ) -> Self {
        Request { scope, source_id, terms: terms(query), extra_terms: Vec::new(), query_embedding, depth, deep }
    }
}

struct Row {
    kind: Kind,
    id: i64,
}

/// Columns every arm reads, in this order, from table alias `t`.
fn columns(kind: Kind) -> &'static str {
    match kind {
        Kind::Mem => "t.id, t.content, t.timestamp, t.source, t.project_id, t.channel",
        Kind::Ep => "t.id, t.summary, COALESCE(t.start_time, t.created_at), NULL, t.project_id, t.channel",
    }
}

fn scope_sql(req: &Request, kind: Kind) -> (String, Vec<Value>) {
    let iso = req.scope.clause("t");
    let mut sql = iso.sql;
    let mut params = iso.params;
    if kind == Kind::Mem && !req.source_id.is_empty() {
        sql.push_str(" AND CAST(json_extract(t.source, '$.id') AS TEXT) = ?");
        params.push(Value::Text(req.source_id.into()));
    }
    (sql, params)
}

fn read_hits(conn: &Connection, sql: &str, params: Vec<Value>, kind: Kind, out: &mut BTreeMap<(Kind, i64), Hit>) -> Result<Vec<Row>> {
    let mut stmt = conn.prepare_cached(sql)?;
    let mut rows = stmt.query(params_from_iter(params))?;
    let mut ranked = Vec::new();
    while let Some(r) = rows.next()? {
        let id: i64 = r.get(0)?;
        out.entry((kind, id)).or_insert_with(|| Hit {
            kind,
            id,
            content: r.get(1).unwrap_or_default(),
            timestamp: r.get(2).unwrap_or_default(),
            source: r.get(3).unwrap_or(None),
            context: (r.get(4).unwrap_or_default(), r.get(5).unwrap_or_default()),
            score: 0.0,
            ranks: BTreeMap::new(),
        });
        ranked.push(Row { kind, id });
    }
    Ok(ranked)
}

/// The lexical arm over one table: FTS5 BM25 on terms of three characters or more, or,
/// when that matched nothing, `LIKE` on every term.
fn lexical(conn: &Connection, req: &Request, all: &[&String], kind: Kind, hits: &mut BTreeMap<(Kind, i64), Hit>) -> Result<Vec<Row>> {
    if kind == Kind::Ep && !req.source_id.is_empty() {
        return Ok(Vec::new());
    }
    let (table, text) = match kind {
        Kind::Mem => ("memories", "t.content"),
        Kind::Ep => ("episodes", "(t.summary || ' ' || t.keywords)"),
    };
    let long: Vec<&String> = all.iter().copied().filter(|t| t.chars().count() >= 3).collect();
    if !long.is_empty() {
        let sql = format!("SELECT {} FROM {table} t WHERE t.id = ?", columns(kind));
        let mut rows = Vec::new();
        for (_, id) in scored_matches(conn, req, &long, kind)?.into_iter().take(req.depth) {
            rows.extend(read_hits(conn, &sql, vec![Value::Integer(id)], kind, hits)?);
        }
        if !rows.is_empty() {
            return Ok(rows);
        }
    }
    if all.is_empty() {
        return Ok(Vec::new());
    }
    let (iso, iso_params) = scope_sql(req, kind);
    // LIKE fallback: ranked by how many terms a row contains, then newer first.
    let like: Vec<String> = all.iter().map(|_| format!("(lower({text}) LIKE ? ESCAPE '\\')")).collect();
    let sql = format!(
        "SELECT {}, {} AS n FROM {table} t WHERE {} AND {iso} ORDER BY n DESC, t.id DESC LIMIT ?",
        columns(kind),
        balanced(&like, "+"),
        balanced(&like, "OR")
    );
    let patterns: Vec<Value> =
        all.iter().map(|t| Value::Text(format!("%{}%", t.replace('\\', "\\\\").replace('%', "\\%").replace('_', "\\_")))).collect();
    let mut params = patterns.clone();
    params.extend(patterns);
    params.extend(iso_params);
    params.push(Value::Integer(req.depth as i64));
    read_hits(conn, &sql, params, kind, hits)
}

/// `items` joined by a binary operator as a balanced tree, `((a op b) op (c op d))`: a
/// query of many distinct words stays far within SQLite's expression depth (1000), which
/// a flat `a op b op c …` (one level per word) would pass.
fn balanced(items: &[String], op: &str) -> String {
    match items {
        [] => unreachable!("a lexical fallback has terms"),
        [one] => one.clone(),
        _ => {
            let (left, right) = items.split_at(items.len() / 2);
            format!("({} {op} {})", balanced(left, op), balanced(right, op))
        }
    }
}

/// The readable records FTS5 matches on any of the `long` terms with their scores, best
/// first by BM25 over the agent's own records (`crate::bm25`), then lower id.
fn scored_matches(conn: &Connection, req: &Request, long: &[&String], kind: Kind) -> Result<Vec<(f64, i64)>> {
    let (table, fts, texts, tag) = match kind {
        Kind::Mem => ("memories", "memories_fts", "t.content, ''", "mem"),
        Kind::Ep => ("episodes", "episodes_fts", "t.summary, t.keywords", "ep"),
    };
    let agent = Value::Text(req.scope.agent_id.clone());
    // Every match among the agent's records, whatever project or channel, with whether the
    // call may read it: the agent's statistics count them all, only the readable are ranked.
    let (readable, iso_params) = scope_sql(req, kind);
    let sql = format!(
        "SELECT t.id, {texts}, {readable} FROM {fts} f CROSS JOIN {table} t ON t.id = f.rowid WHERE {fts} MATCH ? AND t.agent_id = ?"
    );
    let expression = long.iter().map(|t| quoted(t)).collect::<Vec<_>>().join(" OR ");
    let params = iso_params.into_iter().chain([Value::Text(expression), agent.clone()]);
    let phrases: Vec<Phrase> = long.iter().map(|t| Phrase::new(t)).collect();
    let mut hits_per_phrase = vec![0i64; phrases.len()];
    let mut candidates: Vec<(i64, Vec<usize>, usize)> = Vec::new();
    let mut folded = Folded::default();
    let mut stmt = conn.prepare_cached(&sql)?;
    let mut rows = stmt.query(params_from_iter(params))?;
    while let Some(r) = rows.next()? {
        folded.set(&[r.get_ref(1)?.as_str().unwrap_or(""), r.get_ref(2)?.as_str().unwrap_or("")]);
        let freqs: Vec<usize> = phrases.iter().map(|p| folded.occurrences(p)).collect();
        for (hits, &f) in hits_per_phrase.iter_mut().zip(&freqs) {
            *hits += i64::from(f > 0);
        }
        if r.get::<_, bool>(3)? {
            candidates.push((r.get(0)?, freqs, folded.tokens()));
        }
    }
    if candidates.is_empty() {
        return Ok(Vec::new());
    }
    let (records, tokens): (i64, i64) =
        conn.query_row("SELECT records, tokens FROM text_stats WHERE agent_id = ? AND kind = ?", [agent, Value::Text(tag.into())], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })?;
    let stats = Stats::new(records, tokens, &hits_per_phrase);
    let mut scored: Vec<(f64, i64)> = candidates.iter().map(|(id, freqs, len)| (stats.score(freqs, *len), *id)).collect();
    scored.sort_by(|x, y| y.0.total_cmp(&x.0).then(x.1.cmp(&y.1)));
    Ok(scored)
}

/// The vector arm: exact cosine of every readable record with a vector of the query's
/// dimension; returns the ranked rows and how many records had another dimension.
fn vector(conn: &Connection, req: &Request, query: &[f32], hits: &mut BTreeMap<(Kind, i64), Hit>) -> Result<(Vec<Row>, usize)> {
    let qnorm = norm(query);
    let mut scored: Vec<(f64, Kind, i64)> = Vec::new();
    let mut skipped = 0;
    for kind in [Kind::Mem, Kind::Ep] {
        if kind == Kind::Ep && !req.source_id.is_empty() {
            continue;
        }
        let (iso, params) = scope_sql(req, kind);
        let table = if kind == Kind::Mem { "memories" } else { "episodes" };
        let sql = format!("SELECT t.id, t.embedding, t.embedding_dim FROM {table} t WHERE t.embedding IS NOT NULL AND {iso}");
        let mut stmt = conn.prepare_cached(&sql)?;
        let mut rows = stmt.query(params_from_iter(params))?;
        while let Some(r) = rows.next()? {
            let dim: i64 = r.get(2)?;
            if dim as usize != query.len() {
                skipped += 1;
                continue;
            }
            let blob = r.get_ref(1)?.as_blob().unwrap_or(&[]);
            scored.push((cosine(query, qnorm, blob), kind, r.get(0)?));
        }
    }
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
    scored.truncate(req.depth);
    let mut ranked = Vec::new();
    for (_, kind, id) in scored {
        if !hits.contains_key(&(kind, id)) {
            let (iso, iso_params) = scope_sql(req, kind);
            let table = if kind == Kind::Mem { "memories" } else { "episodes" };
            let sql = format!("SELECT {} FROM {table} t WHERE t.id = ? AND {iso}", columns(kind));
            let params = std::iter::once(Value::Integer(id)).chain(iso_params).collect();
            read_hits(conn, &sql, params, kind, hits)?;
        }
        ranked.push(Row { kind, id });
    }
    Ok((ranked, skipped))
}

fn norm(v: &[f32]) -> f64 {
    v.iter().map(|x| f64::from(*x) * f64::from(*x)).sum::<f64>().sqrt()
}

/// Cosine of the query and a stored little-endian f32 vector of the same dimension.
fn cosine(query: &[f32], qnorm: f64, blob: &[u8]) -> f64 {
    let (dot, sq) = dot_and_square(query, blob);
    let denom = qnorm * f64::from(sq).sqrt();
    if denom == 0.0 {
        0.0
    } else {
        f64::from(dot) / denom
    }
}

/// Combines four lane sums in one fixed order, then adds the tail.
fn lanes(sum: [f32; 4], tail: f32) -> f32 {
    ((sum[0] + sum[1]) + (sum[2] + sum[3])) + tail
}

/// `(query · x, x · x)` for a stored vector `x`, in four lanes. The portable loop and the
/// SIMD128 one (wasm) add in the same order, so both targets give bit-identical scores and
/// the same ranking.
#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
fn dot_and_square(query: &[f32], blob: &[u8]) -> (f32, f32) {
    let (mut dot, mut sq) = ([0.0f32; 4], [0.0f32; 4]);
    let n = query.len() / 4 * 4;
    let value = |i: usize| f32::from_le_bytes([blob[4 * i], blob[4 * i + 1], blob[4 * i + 2], blob[4 * i + 3]]);
    for i in (0..n).step_by(4) {
        for lane in 0..4 {
            let x = value(i + lane);
            dot[lane] += query[i + lane] * x;
            sq[lane] += x * x;
        }
    }
    let (mut dot_tail, mut sq_tail) = (0.0f32, 0.0f32);
    for (i, q) in query.iter().enumerate().skip(n) {
        let x = value(i);
        dot_tail += q * x;
        sq_tail += x * x;
    }
    (lanes(dot, dot_tail), lanes(sq, sq_tail))
}

/// The SIMD128 form of the loop above (wasm is little-endian, so the blob loads as f32s).
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
fn dot_and_square(query: &[f32], blob: &[u8]) -> (f32, f32) {
    use core::arch::wasm32::*;
    let n = query.len() / 4 * 4;
    let (mut dot, mut sq) = (f32x4_splat(0.0), f32x4_splat(0.0));
    for i in (0..n).step_by(4) {
        // SAFETY: i + 4 <= n <= query.len(), and blob holds 4 bytes per query value;
        // v128_load has no alignment requirement.
        let (q, x) = unsafe { (v128_load(query.as_ptr().add(i).cast()), v128_load(blob.as_ptr().add(4 * i).cast())) };
        dot = f32x4_add(dot, f32x4_mul(q, x));
        sq = f32x4_add(sq, f32x4_mul(x, x));
    }
    let (mut dot_tail, mut sq_tail) = (0.0f32, 0.0f32);
    for i in n..query.len() {
        let x = f32::from_le_bytes([blob[4 * i], blob[4 * i + 1], blob[4 * i + 2], blob[4 * i + 3]]);
        dot_tail += query[i] * x;
        sq_tail += x * x;
    }
    let split = |v: v128| [f32x4_extract_lane::<0>(v), f32x4_extract_lane::<1>(v), f32x4_extract_lane::<2>(v), f32x4_extract_lane::<3>(v)];
    (lanes(split(dot), dot_tail), lanes(split(sq), sq_tail))
}

/// A fused row: its score and its rank in each arm that ranked it.
type Fused = BTreeMap<(Kind, i64), (f64, BTreeMap<&'static str, usize>)>;

/// Reciprocal-rank fusion of ranked arms.
fn fuse(arms: &[(&'static str, &Vec<Row>)]) -> Fused {
    let mut fused = Fused::new();
    for (arm, rows) in arms {
        for (i, row) in rows.iter().enumerate() {
            let entry = fused.entry((row.kind, row.id)).or_default();
            entry.0 += 1.0 / (RRF_K + (i + 1) as f64);
            entry.1.insert(arm, i + 1);
        }
    }
    fused
}

/// Runs the arms, fuses them and applies the gate.
///
/// With extra terms (reconstruct's stage 1) the lexical arms run twice: with the extra
/// terms, which rank the candidates, and without, which is what the gate scores — so an
/// extra term adds a vote but never admits a row on its own (design §9): a row only the
/// extra terms found has no score against the unchanged query and is admitted only when
/// the unchanged query found nothing at all, where the gate has nothing to compare with.
pub fn retrieve(conn: &Connection, req: &Request) -> Result<Retrieval> {
    let mut hits: BTreeMap<(Kind, i64), Hit> = BTreeMap::new();
    let plain: Vec<&String> = req.terms.iter().collect();
    let expanded: Vec<&String> = req.terms.iter().chain(&req.extra_terms).collect();
    let memories = lexical(conn, req, &expanded, Kind::Mem, &mut hits)?;
    let episodes = lexical(conn, req, &expanded, Kind::Ep, &mut hits)?;
    let (vectors, dimension_skipped) = match req.query_embedding {
        Some(q) => vector(conn, req, q, &mut hits)?,
        None => (Vec::new(), 0),
    };
    let ranked = fuse(&[("lexical", &memories), ("episodes", &episodes), ("vector", &vectors)]);
    let gate_scores = if req.extra_terms.is_empty() {
        ranked.iter().map(|(k, (score, _))| (*k, *score)).collect::<BTreeMap<_, _>>()
    } else {
        let mut unused = BTreeMap::new();
        let memories = lexical(conn, req, &plain, Kind::Mem, &mut unused)?;
        let episodes = lexical(conn, req, &plain, Kind::Ep, &mut unused)?;
        fuse(&[("lexical", &memories), ("episodes", &episodes), ("vector", &vectors)]).into_iter().map(|(k, (s, _))| (k, s)).collect()
    };
    let mut all: Vec<Hit> = ranked
        .into_iter()
        .map(|(key, (score, ranks))| Hit { score, ranks, ..hits.remove(&key).expect("every ranked row was read") })
        .collect();
    all.sort_by(|a, b| {
        b.score.total_cmp(&a.score).then_with(|| b.timestamp.cmp(&a.timestamp)).then(a.kind.cmp(&b.kind)).then(a.id.cmp(&b.id))
    });
    let gate = |h: &Hit| gate_scores.get(&(h.kind, h.id)).copied().unwrap_or(0.0);
    let best = all.iter().map(gate).fold(0.0, f64::max);
    let ratio = if req.deep { GATE_RATIO / 2.0 } else { GATE_RATIO };
    let total = all.len();
    let admitted: Vec<Hit> = all.into_iter().filter(|h| gate(h) >= ratio * best).collect();
    Ok(Retrieval { gated: total - admitted.len(), admitted, dimension_skipped })
}

/// Runs `recall`.
pub fn recall(conn: &Connection, opts: &crate::api::RecallOptions) -> Result<crate::api::RecallResponse> {
    let (scope, limit) = (opts.scope(), opts.limit() as usize);
    let depth = limit.max(20);
    let request = Request::new(&scope, opts.source_id(), &opts.query, opts.query_embedding.as_deref(), depth, opts.deep.unwrap_or(false));
    let retrieval = retrieve(conn, &request)?;
    let messages = retrieval
        .admitted
        .into_iter()
        .take(limit)
        .map(|h| crate::api::Message {
            reference: format!("{}:{}", h.kind.as_str(), h.id),
            content: h.content,
            source: crate::records::source_json(h.source, crate::refs::Ref { kind: h.kind, id: h.id }),
            timestamp: h.timestamp,
            match_reason: crate::api::MatchReason { signal: "rrf", score: h.score, ranks: h.ranks },
        })
        .collect();
    Ok(crate::api::RecallResponse { messages, gated: retrieval.gated, dimension_skipped: retrieval.dimension_skipped })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A database holding one agent: the scores are FTS5's `bm25()` (negated) bit for bit,
    /// over memories (one column) and episodes (two), with repeated, overlapping, accented
    /// and multi-word phrases, and rows of every length.
    #[test]
    fn one_agents_scores_are_fts5_bm25_exactly() {
        let mut conn = Connection::open_in_memory().unwrap();
        crate::schema::migrate(&mut conn).unwrap();
        let words = ["ledger", "Ledger", "LEDGERS", "über", "Straße", "kaito mori", "aaa", "ab", "payments", "台帳", "台帳台帳", "x"];
        let mut seed = 7u64;
        let mut next = |n: usize| {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 33) as usize % n
        };
        for i in 0..120 {
            let text: Vec<&str> = (0..1 + next(12)).map(|_| words[next(words.len())]).collect();
            let (project, channel) = (["", "p"][next(2)], ["", "c"][next(2)]);
            if i % 4 == 0 {
                conn.execute(
                    "INSERT INTO episodes (agent_id, project_id, channel, summary, keywords, created_at) VALUES ('a', ?, ?, ?, ?, '')",
                    [project, channel, &text.join(" "), words[next(words.len())]],
                )
                .unwrap();
            } else {
                conn.execute("INSERT INTO memories (agent_id, project_id, channel, content, source, timestamp, created_at) VALUES ('a', ?, ?, ?, '{}', '', '')",
                    [project, channel, &text.join(if i % 3 == 0 { "" } else { " " })]).unwrap();
            }
        }
        let scope = ReadScope { agent_id: "a".into(), project_id: None, channel: None };
        // normalized terms as a query gives them, and a cue's multi-word phrase
        for query in
            [&["ledger"][..], &["ledger", "payments"], &["über", "straße"], &["kaito mori", "aaa"], &["台帳台帳"], &["aaaa", "ledgers"]]
        {
            let long: Vec<String> = query.iter().map(|t| t.to_string()).collect();
            let long: Vec<&String> = long.iter().collect();
            let req = Request::new(&scope, "", "", None, 1000, false);
            let expression = long.iter().map(|t| quoted(t)).collect::<Vec<_>>().join(" OR ");
            for (kind, fts, table) in [(Kind::Mem, "memories_fts", "memories"), (Kind::Ep, "episodes_fts", "episodes")] {
                let sql = format!("SELECT -bm25({fts}), t.id FROM {fts} f JOIN {table} t ON t.id = f.rowid WHERE {fts} MATCH ? ORDER BY bm25({fts}), t.id");
                let want: Vec<(f64, i64)> = conn
                    .prepare(&sql)
                    .unwrap()
                    .query_map([&expression], |r| Ok((r.get(0)?, r.get(1)?)))
                    .unwrap()
                    .map(Result::unwrap)
                    .collect();
                assert!(!want.is_empty(), "{query:?} matches some {table}");
                assert_eq!(scored_matches(&conn, &req, &long, kind).unwrap(), want, "{query:?} over {table}");
            }
        }
    }

    #[test]
    fn terms_are_normalized_words_without_stopwords() {
        assert_eq!(terms("When does Atlas ship?"), vec!["atlas", "ship"]);
        assert_eq!(terms("ＫＭ and ミズアイ, km"), vec!["km", "ミズアイ"]);
        assert_eq!(terms("\"NEAR( * col: AND"), vec!["near", "col"]);
    }

    #[test]
    fn quoting_neutralizes_fts_syntax() {
        assert_eq!(quoted("a\"b"), "\"a\"\"b\"");
    }
}

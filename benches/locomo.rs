//! LoCoMo retrieval NDCG@10 for associative-memory, replaying the protocol of
//! `../shared/eval/locomo_reference.py` exactly, so its numbers sit next to the reference's.
//!
//! Protocol (one conversation file at a time, every `*.json` of `--data DIR` in name order):
//! - one fresh in-memory memory, `Memory::open_in_memory_with_clock`, with a fixed clock
//!   standing at the conversation's last turn (the reference driver's `clock.start` =
//!   last turn, `step_seconds` 0);
//! - every turn of `session_1`, `session_2`, … (in order, while present) stored as one memory:
//!   `content` = `"<speaker>: <text>"` (a shared photo appended as
//!   ` [shares a photo: <blip_caption>]`), `timestamp` = the session's
//!   `session_N_date_time` (`"1:56 pm on 8 May, 2023"`, read as UTC) plus 60 s per turn,
//!   `source` = `{"type": "User", "id": speaker, "name": speaker}`, agent `locomo`;
//! - every question with a non-empty `evidence` asked with
//!   `reconstruct {"query": question, "count": 10}`;
//! - ranked list = each item's `head_ref`, then its `claims[].ref` in order, deduplicated,
//!   first 10, each `mem:<id>` mapped back to the turn's `dia_id`;
//! - relevant = the evidence entries split on `[;,]\s*` and trimmed;
//!   NDCG@10 with binary gains, `1/log2(rank+1)`, ideal = min(10, |relevant|) hits;
//! - category means (×100, rounded to 2 places), `mean_of_categories` = the mean of those
//!   rounded category means, `mean_of_questions` = the mean over every scored question.
//!
//! With `--vectors CACHE.json` (the `{text: [f32…]}` file `../shared/eval/embed_cache.py`
//! writes, the same file the reference driver reads with
//! `CPERSONA_DRIVER_EMBED=cache:CACHE.json`), every store carries `embedding` = the vector
//! of its content and every reconstruct `query_embedding` = the vector of its question; a
//! text missing from the cache stops the run, as it does in the driver.
//!
//! Usage (from the crate root; `cargo bench` passes `--bench`, which is ignored):
//!   cargo bench --bench locomo -- --data ../shared/data/locomo
//!   cargo bench --bench locomo -- --data DIR --vectors ~/.cache/locomo-minilm.json \
//!       --json /tmp/ours-minilm.json --reference-json /tmp/ref-minilm.json
//! Flags:
//!   --data DIR              directory of LoCoMo conversation files (required; env LOCOMO_DATA)
//!   --vectors FILE          vector cache; without it the run is lexical only (env LOCOMO_VECTORS)
//!   --json FILE             write the result table (same keys as locomo_reference.py --out,
//!                           plus `setting`, `files`, `errors`, `timing`, `unrounded`)
//!   --reference-json FILE   print the table side by side with a locomo_reference.py --out file
//!   --per-question FILE     write one JSON line per question: file, category, question,
//!                           relevant, ranked (dia_ids), reached (the ranked claims the walk
//!                           added), ndcg, error, and bundled (the ranked claims a declared
//!                           record relation bundled) where there are any
//!   --engine ours|reference `reference` runs the same protocol through the reference's
//!                           conformance driver (`--python`, default $CPERSONA_VENV/bin/python
//!                           or ~/.cache/cpersona-venv/bin/python; `--driver`, default
//!                           ../shared/conformance/cpersona_driver.py; with --vectors the driver
//!                           gets CPERSONA_DRIVER_EMBED=cache:FILE) and scores it with this
//!                           file's code: it must reproduce locomo_reference.py's numbers
//!   --extra JSON            merge these options into every reconstruct call (OFF PROTOCOL:
//!                           for experiments only; the table is marked `extra` when used)
//!   --rerank-vectors FILE   rerank each question's first --rerank-depth candidates (default
//!                           20) through `Memory::reconstruct_reranked` by the cosine of the
//!                           question's and the candidate's vectors in this cache (a second
//!                           embedder as the second stage); the table is marked `rerank`
//!   --rerank-scores FILE    the same with a cross-encoder's scores: `{question: {text: score}}`
//!                           for every question and candidate text (a miss stops the run)
//!   --rerank-depth N        candidates the reranker scores (1-100, default 20)
//!   --rerank-prior W        adds W × (1 − i/n) to the score of the i-th of n candidates:
//!                           retrieval's order as a prior beside the second stage (default 0)
//!   --arm control|oracle|extractor
//!                           what the run declares (design §8; default control). control
//!                           declares nothing and checks invariant 2 in the run: every
//!                           answer equals the same database's with the association tables
//!                           dropped. oracle declares facts from the conversation's
//!                           annotations (never `qa`) after storing, and links the turns
//!                           they tie together; extractor declares what a fixed reading of
//!                           each turn finds, and links turns naming the same thing, while
//!                           storing (see `locomo/arms.rs`). The JSON gains `arm` and
//!                           `declared` (counts).
//!
//! Exits 2 with a message when the engine answers `unsupported` for reconstruct.

#[path = "locomo/arms.rs"]
mod arms;

use associative_memory::{format_iso, parse_iso, FixedClock, Memory, ReconstructOptions};
use serde_json::{json, Map, Value};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Category number -> name, as `CATS` in locomo_reference.py.
fn category_name(c: &Value) -> String {
    match c.as_i64() {
        Some(1) => "multi_hop".into(),
        Some(2) => "temporal".into(),
        Some(3) => "open_domain".into(),
        Some(4) => "single_hop".into(),
        Some(5) => "adversarial".into(),
        _ => match c {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        },
    }
}

/// Column order for printing (the shared README's table order).
const PRINT_ORDER: [&str; 5] = ["single_hop", "multi_hop", "temporal", "open_domain", "adversarial"];

// ---- time ---------------------------------------------------------------------------

const MONTHS: [&str; 12] =
    ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"];

/// Python's `datetime.strptime(s.strip(), "%I:%M %p on %d %B, %Y")` read as UTC, in epoch ms.
/// (Month names full, any case; the three-letter form is accepted too.)
fn parse_when(s: &str) -> Option<i64> {
    let s = s.trim();
    let (clock, rest) = s.split_once(" on ")?;
    let (hm, ampm) = clock.trim().split_once(' ')?;
    let (h, m) = hm.split_once(':')?;
    let (mut h, m): (i64, i64) = (h.parse().ok()?, m.parse().ok()?);
    if !(1..=12).contains(&h) || !(0..=59).contains(&m) {
        return None;
    }
    match ampm.trim().to_ascii_lowercase().as_str() {
        "am" => h %= 12,
        "pm" => h = h % 12 + 12,
        _ => return None,
    }
    let (dm, y) = rest.trim().split_once(',')?;
    let (d, month) = dm.trim().split_once(' ')?;
    let month = month.trim().to_ascii_lowercase();
    let mo = MONTHS.iter().position(|n| *n == month || (month.len() == 3 && n.starts_with(&month)))? + 1;
    let d: u32 = d.parse().ok()?;
    let y: u32 = y.trim().parse().ok()?;
    parse_iso(&format!("{y:04}-{mo:02}-{d:02}T{h:02}:{m:02}:00+00:00"))
}

// ---- the conversation ----------------------------------------------------------------

struct Turn {
    dia_id: String,
    speaker: String,
    /// The turn's own text (no speaker, no caption): what the extractor reads.
    text: String,
    content: String,
    when_ms: i64,
    /// 1-based session number.
    session: usize,
}

fn str_of(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// Python truthiness of a JSON value, for `t.get("blip_caption")` / `q.get("evidence")`.
fn truthy(v: Option<&Value>) -> bool {
    match v {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(Value::String(s)) => !s.is_empty(),
        Some(Value::Array(a)) => !a.is_empty(),
        Some(Value::Object(o)) => !o.is_empty(),
        Some(Value::Number(n)) => n.as_f64() != Some(0.0),
    }
}

fn turns(conv: &Value, file: &str) -> Result<Vec<Turn>, String> {
    let mut out = Vec::new();
    let mut n = 1;
    while let Some(session) = conv.get(format!("session_{n}")) {
        let date = conv
            .get(format!("session_{n}_date_time"))
            .and_then(Value::as_str)
            .ok_or_else(|| format!("{file}: session_{n} has no session_{n}_date_time"))?;
        let t0 = parse_when(date).ok_or_else(|| format!("{file}: cannot read session_{n}_date_time {date:?}"))?;
        let list = session.as_array().ok_or_else(|| format!("{file}: session_{n} is not a list"))?;
        for (k, t) in list.iter().enumerate() {
            let own = str_of(t.get("text").unwrap_or(&Value::Null));
            let mut text = own.clone();
            if truthy(t.get("blip_caption")) {
                text += &format!(" [shares a photo: {}]", str_of(&t["blip_caption"]));
            }
            let speaker = str_of(t.get("speaker").unwrap_or(&Value::Null));
            out.push(Turn {
                dia_id: str_of(t.get("dia_id").unwrap_or(&Value::Null)),
                content: format!("{speaker}: {text}"),
                speaker,
                text: own,
                when_ms: t0 + 60_000 * k as i64,
                session: n,
            });
        }
        n += 1;
    }
    Ok(out)
}

/// `{e.strip() for ev in q["evidence"] for e in re.split(r"[;,]\s*", ev)}` (splitting on
/// `;`/`,` and trimming is the same thing, since the whitespace after a separator is trimmed).
fn relevant_of(q: &Value) -> HashSet<String> {
    let mut rel = HashSet::new();
    for ev in q.get("evidence").and_then(Value::as_array).into_iter().flatten() {
        for e in str_of(ev).split([';', ',']) {
            rel.insert(e.trim().to_string());
        }
    }
    rel
}

/// Item heads, then each item's claims in order, deduplicated, first 10 (`ranked_refs`).
fn ranked_refs(result: &Value) -> Vec<String> {
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for it in result.get("items").and_then(Value::as_array).into_iter().flatten() {
        let head = it.get("head_ref").and_then(Value::as_str);
        let claims = it.get("claims").and_then(Value::as_array).into_iter().flatten();
        for r in head.into_iter().chain(claims.filter_map(|c| c.get("ref").and_then(Value::as_str))) {
            if !r.is_empty() && seen.insert(r.to_string()) {
                out.push(r.to_string());
            }
        }
    }
    out.truncate(10);
    out
}

/// The claims of the ranked list that the relation walk reached (they carry `hops`), or,
/// with `walked` false, that a declared record → record relation bundled into their item
/// (`why` names the relation, no `hops`).
fn related_refs(result: &Value, walked: bool) -> Vec<String> {
    let ranked = ranked_refs(result);
    let mut out = Vec::new();
    for it in result.get("items").and_then(Value::as_array).into_iter().flatten() {
        for c in it.get("claims").and_then(Value::as_array).into_iter().flatten() {
            let hops = c.get("hops").is_some();
            let bundled = !hops && c.get("why").and_then(Value::as_str).is_some_and(|w| w.starts_with("relation:"));
            if let Some(r) = c.get("ref").and_then(Value::as_str).filter(|_| if walked { hops } else { bundled }) {
                if ranked.iter().any(|x| x == r) && !out.iter().any(|x| x == r) {
                    out.push(r.to_string());
                }
            }
        }
    }
    out
}

fn ndcg10(ranked: &[String], relevant: &HashSet<String>) -> Option<f64> {
    if relevant.is_empty() {
        return None;
    }
    // fold from +0.0 (an empty f64 `sum()` is -0.0 in Rust, which would print as -0.0)
    let dcg =
        ranked.iter().take(10).enumerate().filter(|(_, r)| relevant.contains(*r)).fold(0.0, |a, (i, _)| a + 1.0 / ((i + 2) as f64).log2());
    let idcg = (0..relevant.len().min(10)).fold(0.0, |a, i| a + 1.0 / ((i + 2) as f64).log2());
    Some(dcg / idcg)
}

/// Python's `round(x, 2)` (correctly rounded; Rust's `{:.2}` rounds the exact binary value too).
fn round2(x: f64) -> f64 {
    format!("{x:.2}").parse().unwrap()
}

// ---- vectors --------------------------------------------------------------------------

struct Vectors(HashMap<String, Value>);

impl Vectors {
    fn load(path: &Path) -> Result<Self, String> {
        let t = Instant::now();
        let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let v: Value = serde_json::from_str(&text).map_err(|e| format!("{} is not JSON: {e}", path.display()))?;
        let Value::Object(map) = v else { return Err(format!("{} is not a {{text: vector}} object", path.display())) };
        let dims: HashSet<usize> = map.values().filter_map(|v| v.as_array().map(Vec::len)).collect();
        eprintln!("vectors: {} texts, dimension {:?}, loaded in {:.1} s", map.len(), dims, t.elapsed().as_secs_f64());
        Ok(Vectors(map.into_iter().collect()))
    }
    fn get(&self, text: &str) -> Result<&Value, String> {
        self.0
            .get(text)
            .ok_or_else(|| format!("the vector cache has no entry for {text:?} (a miss stops the run, as in the reference driver)"))
    }
}

// ---- the reranker --------------------------------------------------------------------

/// What scores the candidates of `--rerank-vectors` / `--rerank-scores`.
enum Rerank {
    /// The cosine of the question's and the text's vectors (unit vectors: the dot product).
    Vectors(Vectors),
    /// A cross-encoder's score per question and text.
    Scores(HashMap<String, HashMap<String, f64>>),
}

/// The run's reranker and depth, set once from the arguments.
static RERANK: std::sync::OnceLock<Option<(Rerank, usize)>> = std::sync::OnceLock::new();

/// `--rerank-prior`.
static PRIOR: std::sync::OnceLock<f64> = std::sync::OnceLock::new();

impl Rerank {
    fn score(&self, question: &str, text: &str) -> f64 {
        match self {
            Rerank::Vectors(v) => {
                let (q, t) = (v.get(question).unwrap_or_else(|e| fail(e)), v.get(text).unwrap_or_else(|e| fail(e)));
                let f =
                    |x: &Value| x.as_array().map(|a| a.iter().map(|n| n.as_f64().unwrap_or(0.0)).collect::<Vec<f64>>()).unwrap_or_default();
                f(q).iter().zip(f(t)).map(|(a, b)| a * b).sum()
            }
            Rerank::Scores(m) => *m
                .get(question)
                .and_then(|by| by.get(text))
                .unwrap_or_else(|| fail(format!("the rerank scores have no entry for {question:?} and {text:?}"))),
        }
    }
}

/// One reconstruct: through the reranker when the run has one.
fn reconstruct(mem: &mut Memory, args: &Value) -> Result<Value, associative_memory::Error> {
    match RERANK.get().and_then(Option::as_ref) {
        None => mem.call("reconstruct", args),
        Some((rerank, depth)) => {
            let opts: ReconstructOptions =
                serde_json::from_value(args.clone()).unwrap_or_else(|e| fail(format!("reconstruct options: {e}")));
            let prior = PRIOR.get().copied().unwrap_or(0.0);
            let r = mem.reconstruct_reranked(&opts, *depth, |q, candidates| {
                let n = candidates.len() as f64;
                candidates.iter().enumerate().map(|(i, (_, text))| rerank.score(q, text) + prior * (1.0 - i as f64 / n)).collect()
            })?;
            Ok(serde_json::to_value(r).expect("a response serializes"))
        }
    }
}

// ---- the two engines ------------------------------------------------------------------

enum Engine {
    /// associative-memory, in process.
    Ours,
    /// The reference through its conformance driver, one scenario per conversation, exactly
    /// as locomo_reference.py builds it; scored by this file, to check the protocol code.
    Reference { python: PathBuf, driver: PathBuf },
}

/// The answers of one conversation: `mem:<id>` -> dia_id, and one reconstruct result (or
/// error message) per question.
type Answers = (HashMap<String, String>, Vec<Result<Value, String>>);

fn merge_extra(args: &mut Value, extra: Option<&Map<String, Value>>) {
    for (k, v) in extra.into_iter().flatten() {
        args[k.as_str()] = v.clone();
    }
}

/// Which declarations a run makes (design §8).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Arm {
    /// None: the output must equal a run on a database without the association tables.
    Control,
    /// Derived from the conversation's annotations other than `qa` (`arms::oracle`).
    Oracle,
    /// A deterministic reading of each turn's text while it is stored (`arms::extract`).
    Extractor,
}

impl Arm {
    fn name(self) -> &'static str {
        match self {
            Arm::Control => "control",
            Arm::Oracle => "oracle",
            Arm::Extractor => "extractor",
        }
    }
}

/// The stored conversation: the memory and `mem:<id>` -> dia_id.
struct Stored {
    mem: Memory,
    dia_of: HashMap<String, String>,
}

/// A rejected declaration item stops the run: an arm must measure what it meant to declare.
fn check_declared(file: &str, what: &str, r: &Value) {
    let report = r.get("associations").unwrap_or(r);
    if let Some(dropped) = report.get("dropped").and_then(Value::as_array).filter(|d| !d.is_empty()) {
        fail(format!("{file}: {what}: declarations dropped: {}", Value::Array(dropped.clone())));
    }
}

/// Adds the entities and relations of `associations` to the run's counts.
fn count_declared(associations: &Value, declared: &mut BTreeMap<&'static str, usize>) {
    for key in ["entities", "relations"] {
        *declared.entry(key).or_default() += associations.get(key).and_then(Value::as_array).map_or(0, Vec::len);
    }
}

/// Declares `associations` anchored on record `anchor` (turn `dia_id`), counting what it
/// declares; fails the run on any error or dropped declaration.
fn declare(mem: &mut Memory, file: &str, dia_id: &str, anchor: &str, associations: Value, declared: &mut BTreeMap<&'static str, usize>) {
    count_declared(&associations, declared);
    let args = json!({"agent_id": "locomo", "associations": associations, "anchor_ref": anchor});
    let r = mem.call("declare_associations", &args).unwrap_or_else(|e| fail(format!("{file}: declare_associations failed: {e}")));
    check_declared(file, dia_id, &r);
}

#[allow(clippy::too_many_arguments)]
fn store_conversation(
    file: &str,
    conv: &Value,
    ts: &[Turn],
    clock_ms: i64,
    vectors: Option<&Vectors>,
    arm: Arm,
    store_ms: &mut Vec<f64>,
    declared: &mut BTreeMap<&'static str, usize>,
) -> Stored {
    let clock = FixedClock::new(clock_ms);
    let mut mem = Memory::open_in_memory_with_clock(Box::new(clock)).unwrap_or_else(|e| fail(format!("open: {e}")));
    let mut dia_of: HashMap<String, String> = HashMap::new();
    let speakers: Vec<String> =
        ["speaker_a", "speaker_b"].iter().filter_map(|k| conv.get(*k).and_then(Value::as_str)).map(String::from).collect();
    let mut refs: Vec<String> = Vec::with_capacity(ts.len());
    // The extractor: per entity, the latest turn that named it.
    let mut last: BTreeMap<String, usize> = BTreeMap::new();
    for t in ts {
        let found = if arm == Arm::Extractor { arms::extract(t, &speakers) } else { Vec::new() };
        let mut args = json!({
            "agent_id": "locomo",
            "content": t.content,
            "timestamp": format_iso(t.when_ms),
            "source": {"type": "User", "id": t.speaker, "name": t.speaker},
        });
        if let Some(v) = vectors {
            args["embedding"] = v.get(&t.content).unwrap_or_else(|e| fail(format!("{file}: {e}"))).clone();
        }
        if arm == Arm::Extractor {
            if let Some(a) = arms::extractor_associations(&found) {
                count_declared(&a, declared);
                args["associations"] = a;
            }
        }
        let t0 = Instant::now();
        let r = mem.call("store", &args);
        store_ms.push(t0.elapsed().as_secs_f64() * 1000.0);
        let r = r.unwrap_or_else(|e| fail(format!("{file}: store {} failed: {} ({e})", t.dia_id, e.code())));
        check_declared(file, &t.dia_id, &r);
        let id = r.get("id").and_then(Value::as_i64).unwrap_or_else(|| fail(format!("{file}: store answered without an id: {r}")));
        dia_of.insert(format!("mem:{id}"), t.dia_id.clone());
        refs.push(format!("mem:{id}"));
        if arm == Arm::Extractor {
            let turn = refs.len() - 1;
            let relations: Vec<Value> = arms::extractor_links(&found, &speakers, turn, &mut last)
                .into_iter()
                .map(|prev| json!({"subject": refs[turn], "predicate": "names_again", "object": refs[prev]}))
                .collect();
            if !relations.is_empty() {
                declare(&mut mem, file, &ts[turn].dia_id, &refs[turn], json!({"relations": relations}), declared);
            }
        }
    }
    if arm == Arm::Oracle {
        for (turn, associations) in arms::oracle(conv, ts, &refs) {
            declare(&mut mem, file, &ts[turn].dia_id, &refs[turn], associations, declared);
        }
    }
    Stored { mem, dia_of }
}

fn ask(
    file: &str,
    mem: &mut Memory,
    questions: &[String],
    vectors: Option<&Vectors>,
    extra: Option<&Map<String, Value>>,
    recon_ms: &mut Vec<f64>,
) -> Vec<Result<Value, String>> {
    let mut answers = Vec::with_capacity(questions.len());
    for question in questions {
        let mut args = json!({"agent_id": "locomo", "query": question, "count": 10});
        if let Some(v) = vectors {
            args["query_embedding"] = v.get(question).unwrap_or_else(|e| fail(format!("{file}: {e}"))).clone();
        }
        merge_extra(&mut args, extra);
        let t0 = Instant::now();
        let r = reconstruct(mem, &args);
        recon_ms.push(t0.elapsed().as_secs_f64() * 1000.0);
        answers.push(match r {
            Ok(v) => Ok(v),
            Err(e) if e.code() == "unsupported" || e.code() == "unknown_tool" => {
                eprintln!(
                    "locomo: this build of associative-memory does not implement `reconstruct` yet \
                     (the engine answered `{}`: {e}). Nothing to measure; the reference's numbers \
                     come from ../shared/eval/locomo_reference.py (or this harness with --engine reference).",
                    e.code()
                );
                std::process::exit(2)
            }
            Err(e) => Err(format!("{} ({e})", e.code())),
        });
    }
    answers
}

/// Invariant 2, checked in the run: the same database with the association tables dropped
/// answers every question byte for byte as the control run did.
fn check_control(
    file: &str,
    mem: &mut Memory,
    clock: i64,
    questions: &[String],
    vectors: Option<&Vectors>,
    extra: Option<&Map<String, Value>>,
    answers: &[Result<Value, String>],
) {
    let bytes = mem.export().unwrap_or_else(|e| fail(format!("{file}: export: {e}")));
    let mut conn = rusqlite::Connection::open_in_memory().unwrap_or_else(|e| fail(format!("sqlite: {e}")));
    conn.deserialize_read_exact(rusqlite::MAIN_DB, &bytes[..], bytes.len(), false)
        .unwrap_or_else(|e| fail(format!("{file}: deserialize: {e}")));
    conn.execute_batch(
        "DROP TRIGGER entities_cascade; DROP TRIGGER memories_cascade; DROP TRIGGER episodes_cascade;
         DROP TABLE entities; DROP TABLE entity_aliases; DROP TABLE entity_mentions; DROP TABLE relations;",
    )
    .unwrap_or_else(|e| fail(format!("{file}: dropping the association tables: {e}")));
    // Opened on the connection as it is: `import` refuses a schema that is not ours (it
    // rebuilds every image through our migrations), which a database without the
    // association tables is not.
    let mut bare = Memory::from_connection(conn, Box::new(FixedClock::new(clock))).unwrap_or_else(|e| fail(format!("{file}: open: {e}")));
    let again = ask(file, &mut bare, questions, vectors, extra, &mut Vec::new());
    for ((q, a), b) in questions.iter().zip(answers).zip(&again) {
        let text = |r: &Result<Value, String>| match r {
            Ok(v) => serde_json::to_string(v).unwrap(),
            Err(e) => e.clone(),
        };
        if text(a) != text(b) {
            fail(format!("{file}: invariant 2 broken: {q:?} answers differently without the association tables"));
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn run_reference(
    file: &str,
    ts: &[Turn],
    clock_ms: i64,
    questions: &[String],
    vectors: Option<&Path>,
    extra: Option<&Map<String, Value>>,
    python: &Path,
    driver: &Path,
) -> Answers {
    let mut ops = Vec::new();
    for t in ts {
        ops.push(json!({"op": "store", "content": t.content, "timestamp": format_iso(t.when_ms),
                        "source": {"type": "User", "id": t.speaker, "name": t.speaker}}));
    }
    for q in questions {
        let mut op = json!({"op": "reconstruct", "query": q, "count": 10});
        merge_extra(&mut op, extra);
        ops.push(op);
    }
    let scen = json!({"agent_id": "locomo", "clock": {"start": format_iso(clock_ms), "step_seconds": 0}, "ops": ops});
    let path = std::env::temp_dir().join(format!("locomo-scenario-{}-{file}", std::process::id()));
    std::fs::write(&path, scen.to_string()).unwrap_or_else(|e| fail(format!("cannot write {}: {e}", path.display())));
    let mut cmd = std::process::Command::new(python);
    cmd.arg(driver).arg(&path);
    match vectors {
        Some(v) => cmd.env("CPERSONA_DRIVER_EMBED", format!("cache:{}", v.display())),
        None => cmd.env_remove("CPERSONA_DRIVER_EMBED"),
    };
    let out = cmd.output().unwrap_or_else(|e| fail(format!("cannot run {} {}: {e}", python.display(), driver.display())));
    let _ = std::fs::remove_file(&path);
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        fail(format!("{file}: the reference driver failed: {}", &err[err.len().saturating_sub(2000)..]));
    }
    let lines: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| fail(format!("{file}: driver line is not JSON: {e}"))))
        .collect();
    let mut dia_of = HashMap::new();
    let mut answers = Vec::new();
    let mut k = 0;
    for l in &lines {
        match l.get("op").and_then(Value::as_str) {
            // The reference's ids are row ids in store order, as locomo_reference.py assumes.
            Some("store") => {
                let id = l.pointer("/result/id").and_then(Value::as_i64).unwrap_or(k as i64 + 1);
                dia_of.insert(format!("mem:{id}"), ts[k].dia_id.clone());
                k += 1;
            }
            Some("reconstruct") => answers.push(Ok(l.get("result").cloned().unwrap_or(Value::Null))),
            _ => {}
        }
    }
    if answers.len() != questions.len() {
        fail(format!("{file}: the driver answered {} of {} reconstructs", answers.len(), questions.len()));
    }
    (dia_of, answers)
}

// ---- the run --------------------------------------------------------------------------

struct Options {
    data: PathBuf,
    vectors: Option<PathBuf>,
    json: Option<PathBuf>,
    reference: Option<PathBuf>,
    per_question: Option<PathBuf>,
    extra: Option<Map<String, Value>>,
    rerank: Option<(Rerank, usize)>,
    engine: Engine,
    arm: Arm,
}

fn parse_args() -> Result<Options, String> {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let mut o = Options {
        data: std::env::var("LOCOMO_DATA").map(PathBuf::from).unwrap_or_default(),
        vectors: std::env::var("LOCOMO_VECTORS").ok().filter(|s| !s.is_empty()).map(PathBuf::from),
        json: None,
        reference: None,
        per_question: None,
        extra: None,
        rerank: None,
        engine: Engine::Ours,
        arm: Arm::Control,
    };
    let (mut engine, mut python, mut driver): (String, Option<PathBuf>, Option<PathBuf>) = ("ours".into(), None, None);
    let mut i = 0;
    while i < argv.len() {
        let a = argv[i].as_str();
        let mut value = || {
            i += 1;
            argv.get(i).cloned().ok_or_else(|| format!("{a} needs a value"))
        };
        match a {
            "--bench" => {}
            "--data" => o.data = value()?.into(),
            "--vectors" => o.vectors = Some(value()?.into()),
            "--json" => o.json = Some(value()?.into()),
            "--reference-json" => o.reference = Some(value()?.into()),
            "--per-question" => o.per_question = Some(value()?.into()),
            "--extra" => {
                let v: Value = serde_json::from_str(&value()?).map_err(|e| format!("--extra is not JSON: {e}"))?;
                let Value::Object(m) = v else { return Err("--extra must be a JSON object".into()) };
                o.extra = Some(m);
            }
            "--rerank-vectors" => o.rerank = Some((Rerank::Vectors(Vectors::load(Path::new(&value()?))?), o.rerank.map_or(20, |r| r.1))),
            "--rerank-scores" => {
                let path = value()?;
                let text = std::fs::read_to_string(&path).map_err(|e| format!("cannot read {path}: {e}"))?;
                let m = serde_json::from_str(&text).map_err(|e| format!("{path} is not {{question: {{text: score}}}}: {e}"))?;
                o.rerank = Some((Rerank::Scores(m), o.rerank.map_or(20, |r| r.1)));
            }
            "--rerank-prior" => {
                let w: f64 = value()?.parse().map_err(|_| "--rerank-prior is a number".to_string())?;
                let _ = PRIOR.set(w);
            }
            "--rerank-depth" => {
                let n: usize = value()?.parse().map_err(|_| "--rerank-depth is a number".to_string())?;
                match o.rerank.as_mut() {
                    Some(r) => r.1 = n,
                    None => return Err("--rerank-depth comes after --rerank-vectors or --rerank-scores".into()),
                }
            }
            "--engine" => engine = value()?,
            "--arm" => {
                o.arm = match value()?.as_str() {
                    "control" => Arm::Control,
                    "oracle" => Arm::Oracle,
                    "extractor" => Arm::Extractor,
                    other => return Err(format!("--arm is control, oracle or extractor, not {other:?}")),
                }
            }
            "--python" => python = Some(value()?.into()),
            "--driver" => driver = Some(value()?.into()),
            "-h" | "--help" => {
                return Err("usage: cargo bench --bench locomo -- --data DIR [--vectors CACHE.json] [--json OUT] [--reference-json REF.json] [--per-question OUT.jsonl] [--extra JSON] [--arm control|oracle|extractor] [--engine ours|reference [--python PY] [--driver PATH]]".into())
            }
            other => return Err(format!("unknown argument {other:?} (try --help)")),
        }
        i += 1;
    }
    o.engine = match engine.as_str() {
        "ours" => Engine::Ours,
        "reference" => {
            let venv = std::env::var("CPERSONA_VENV")
                .map(PathBuf::from)
                .unwrap_or_else(|_| PathBuf::from(std::env::var("HOME").unwrap_or_else(|_| "/root".into())).join(".cache/cpersona-venv"));
            Engine::Reference {
                python: python.unwrap_or_else(|| venv.join("bin/python")),
                driver: driver.unwrap_or_else(|| PathBuf::from("../shared/conformance/cpersona_driver.py")),
            }
        }
        other => return Err(format!("--engine is `ours` or `reference`, not {other:?}")),
    };
    if o.arm != Arm::Control && !matches!(o.engine, Engine::Ours) {
        return Err("--arm oracle|extractor declares through our API; the reference has no graph".into());
    }
    if o.data.as_os_str().is_empty() {
        return Err("--data DIR is required (a directory of LoCoMo conversation files, e.g. ../shared/data/locomo)".into());
    }
    Ok(o)
}

fn fail(msg: impl std::fmt::Display) -> ! {
    eprintln!("locomo: {msg}");
    std::process::exit(1)
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.max(1) - 1]
}

fn main() {
    let mut o = parse_args().unwrap_or_else(|e| fail(e));
    let _ = RERANK.set(o.rerank.take());
    let vectors = o.vectors.as_deref().map(|p| Vectors::load(p).unwrap_or_else(|e| fail(e)));
    let setting = if vectors.is_some() { "vectors" } else { "lexical" };

    let mut files: Vec<String> = std::fs::read_dir(&o.data)
        .unwrap_or_else(|e| fail(format!("cannot list {}: {e}", o.data.display())))
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|f| f.ends_with(".json"))
        .collect();
    files.sort();
    if files.is_empty() {
        fail(format!("no *.json files in {}", o.data.display()));
    }

    let mut per: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    let mut errors = 0usize;
    let mut first_error: Option<String> = None;
    let mut store_ms: Vec<f64> = Vec::new();
    let mut recon_ms: Vec<f64> = Vec::new();
    let mut declared: BTreeMap<&'static str, usize> = BTreeMap::new();
    let mut dump = o
        .per_question
        .as_ref()
        .map(|p| std::io::BufWriter::new(std::fs::File::create(p).unwrap_or_else(|e| fail(format!("cannot create {}: {e}", p.display())))));
    let wall = Instant::now();

    for file in &files {
        let path = o.data.join(file);
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| fail(format!("cannot read {}: {e}", path.display())));
        let d: Value = serde_json::from_str(&text).unwrap_or_else(|e| fail(format!("{file} is not JSON: {e}")));
        let conv = d.get("conversation").unwrap_or(&d);
        let ts = turns(conv, file).unwrap_or_else(|e| fail(e));
        let Some(last) = ts.last() else { fail(format!("{file}: no turns")) };

        let qs: Vec<&Value> = d.get("qa").and_then(Value::as_array).into_iter().flatten().filter(|q| truthy(q.get("evidence"))).collect();
        let questions: Vec<String> = qs.iter().map(|q| str_of(q.get("question").unwrap_or(&Value::Null))).collect();
        let (dia_of, answers) = match &o.engine {
            Engine::Ours => {
                let mut stored = store_conversation(file, conv, &ts, last.when_ms, vectors.as_ref(), o.arm, &mut store_ms, &mut declared);
                let answers = ask(file, &mut stored.mem, &questions, vectors.as_ref(), o.extra.as_ref(), &mut recon_ms);
                if o.arm == Arm::Control {
                    check_control(file, &mut stored.mem, last.when_ms, &questions, vectors.as_ref(), o.extra.as_ref(), &answers);
                }
                (stored.dia_of, answers)
            }
            Engine::Reference { python, driver } => {
                run_reference(file, &ts, last.when_ms, &questions, o.vectors.as_deref(), o.extra.as_ref(), python, driver)
            }
        };
        for ((q, question), answer) in qs.iter().zip(&questions).zip(answers) {
            let (result, err) = match answer {
                Ok(v) => (v, None),
                Err(msg) => {
                    // Scored as an empty list, as the reference scores a handler error.
                    errors += 1;
                    let msg = format!("{file}: reconstruct {question:?}: {msg}");
                    if first_error.is_none() {
                        eprintln!("locomo: {msg} (further errors are counted, not printed)");
                        first_error = Some(msg.clone());
                    }
                    (Value::Null, Some(msg))
                }
            };
            let rel = relevant_of(q);
            let got: Vec<String> = ranked_refs(&result).into_iter().map(|r| dia_of.get(&r).cloned().unwrap_or(r)).collect();
            let cat = category_name(q.get("category").unwrap_or(&Value::Null));
            let v = ndcg10(&got, &rel);
            if let Some(v) = v {
                per.entry(cat.clone()).or_default().push(v);
            }
            if let Some(w) = dump.as_mut() {
                let mut rel_sorted: Vec<&String> = rel.iter().collect();
                rel_sorted.sort();
                let dia = |refs: Vec<String>| -> Vec<String> { refs.into_iter().map(|r| dia_of.get(&r).cloned().unwrap_or(r)).collect() };
                let (reached, bundled) = (dia(related_refs(&result, true)), dia(related_refs(&result, false)));
                let mut line = json!({"file": file, "category": cat, "question": question, "relevant": rel_sorted,
                                  "ranked": got, "reached": reached, "ndcg": v, "error": err});
                // Only where a relation bundled something: a control run's lines stay as they were.
                if !bundled.is_empty() {
                    line["bundled"] = json!(bundled);
                }
                writeln!(w, "{line}").unwrap_or_else(|e| fail(format!("--per-question: {e}")));
            }
        }
        eprintln!("{file} turns {} questions {}", ts.len(), qs.len());
    }
    let wall_s = wall.elapsed().as_secs_f64();

    // ---- the table, as locomo_reference.py builds it ----
    let mut table = Map::new();
    let mut unrounded = Map::new();
    for (k, v) in &per {
        table.insert(k.clone(), json!(round2(100.0 * mean(v))));
        unrounded.insert(k.clone(), json!(100.0 * mean(v)));
    }
    let cat_vals: Vec<f64> = table.values().map(|v| v.as_f64().unwrap()).collect();
    let all: Vec<f64> = per.values().flatten().copied().collect();
    if all.is_empty() {
        fail("no question had evidence; nothing scored");
    }
    table.insert("mean_of_categories".into(), json!(round2(mean(&cat_vals))));
    table.insert("mean_of_questions".into(), json!(round2(100.0 * mean(&all))));
    table.insert("n".into(), Value::Object(per.iter().map(|(k, v)| (k.clone(), json!(v.len()))).collect()));

    let timing = |mut v: Vec<f64>| {
        if v.is_empty() {
            return Value::Null;
        }
        v.sort_by(|a, b| a.partial_cmp(b).unwrap());
        json!({"n": v.len(), "mean_ms": mean(&v), "p95_ms": percentile(&v, 95.0), "max_ms": v[v.len() - 1]})
    };
    let mut out = table.clone();
    out.insert("setting".into(), json!(setting));
    out.insert("arm".into(), json!(o.arm.name()));
    out.insert("declared".into(), json!(declared));
    out.insert(
        "engine".into(),
        json!(match o.engine {
            Engine::Ours => "associative-memory",
            Engine::Reference { .. } => "reference (cpersona_driver.py)",
        }),
    );
    out.insert("vectors".into(), json!(o.vectors.as_ref().map(|p| p.display().to_string())));
    if let Some(extra) = &o.extra {
        out.insert("extra".into(), Value::Object(extra.clone()));
    }
    if let Some((rerank, depth)) = RERANK.get().and_then(Option::as_ref) {
        let by = match rerank {
            Rerank::Vectors(_) => "vectors",
            Rerank::Scores(_) => "scores",
        };
        out.insert("rerank".into(), json!({"by": by, "depth": depth, "prior": PRIOR.get().copied().unwrap_or(0.0)}));
    }
    out.insert("data".into(), json!(o.data.display().to_string()));
    out.insert("files".into(), json!(files));
    out.insert("errors".into(), json!(errors));
    out.insert("unrounded".into(), Value::Object(unrounded));
    out.insert("timing".into(), json!({"wall_s": wall_s, "store": timing(store_ms), "reconstruct": timing(recon_ms)}));

    println!("{}", serde_json::to_string_pretty(&Value::Object(table.clone())).unwrap());

    // ---- side by side ----
    let reference: Option<Value> = o.reference.as_ref().map(|p| {
        let t = std::fs::read_to_string(p).unwrap_or_else(|e| fail(format!("cannot read {}: {e}", p.display())));
        serde_json::from_str(&t).unwrap_or_else(|e| fail(format!("{} is not JSON: {e}", p.display())))
    });
    let mut keys: Vec<String> = PRINT_ORDER.iter().map(|s| s.to_string()).filter(|k| table.contains_key(k)).collect();
    keys.extend(per.keys().filter(|k| !PRINT_ORDER.contains(&k.as_str())).cloned());
    keys.push("mean_of_categories".into());
    keys.push("mean_of_questions".into());
    println!();
    println!(
        "LoCoMo NDCG@10 ({}, {setting}, {} arm{}; {} files, {} questions, {errors} errors, {wall_s:.1} s)",
        out["engine"].as_str().unwrap(),
        o.arm.name(),
        match (o.extra.is_some(), RERANK.get().and_then(Option::as_ref).map(|r| r.1)) {
            (true, _) => ", OFF-PROTOCOL --extra".to_string(),
            (false, Some(depth)) => format!(", reranked (depth {depth})"),
            _ => String::new(),
        },
        files.len(),
        all.len()
    );
    match &reference {
        None => {
            println!("{:<20} {:>8} {:>6}", "category", "this run", "n");
            for k in &keys {
                let n = per.get(k).map(|v| v.len().to_string()).unwrap_or_default();
                println!("{:<20} {:>8.2} {:>6}", k, table[k.as_str()].as_f64().unwrap(), n);
            }
        }
        Some(r) => {
            println!("{:<20} {:>8} {:>10} {:>8} {:>6} {:>6}", "category", "this run", "reference", "diff", "n", "ref n");
            for k in &keys {
                let ours = table[k.as_str()].as_f64().unwrap();
                let theirs = r.get(k).and_then(Value::as_f64);
                let n = per.get(k).map(|v| v.len().to_string()).unwrap_or_default();
                let rn = r.get("n").and_then(|m| m.get(k)).map(|v| v.to_string()).unwrap_or_default();
                match theirs {
                    Some(t) => println!("{:<20} {:>8.2} {:>10.2} {:>+8.2} {:>6} {:>6}", k, ours, t, ours - t, n, rn),
                    None => println!("{:<20} {:>8.2} {:>10} {:>8} {:>6} {:>6}", k, ours, "-", "", n, rn),
                }
            }
            let beaten: Vec<&str> = PRINT_ORDER
                .iter()
                .copied()
                .filter(
                    |k| matches!((table.get(*k).and_then(Value::as_f64), r.get(*k).and_then(Value::as_f64)), (Some(a), Some(b)) if a > b),
                )
                .collect();
            println!(
                "categories above the reference: {}/{} {:?}",
                beaten.len(),
                PRINT_ORDER.iter().filter(|k| table.contains_key(**k)).count(),
                beaten
            );
        }
    }
    if let Engine::Ours = o.engine {
        println!(
            "store: mean {:.3} ms; reconstruct: mean {:.3} ms, p95 {:.3} ms",
            out["timing"]["store"]["mean_ms"].as_f64().unwrap_or(f64::NAN),
            out["timing"]["reconstruct"]["mean_ms"].as_f64().unwrap_or(f64::NAN),
            out["timing"]["reconstruct"]["p95_ms"].as_f64().unwrap_or(f64::NAN)
        );
    }

    if let Some(p) = &o.json {
        std::fs::write(p, serde_json::to_string_pretty(&Value::Object(out)).unwrap() + "\n")
            .unwrap_or_else(|e| fail(format!("cannot write {}: {e}", p.display())));
        eprintln!("wrote {}", p.display());
    }
    if errors > 0 {
        eprintln!("locomo: {errors} reconstruct calls failed and were scored 0 (first: {})", first_error.unwrap_or_default());
    }
}

//! The two graph arms of design §8: what the harness declares, and how.
//!
//! Both arms declare through the public API only — `store`'s `associations` and
//! `declare_associations` with an `anchor_ref` — and neither ever reads a question.
//!
//! Both declare **record → record relations**, which bundle two candidates that retrieval
//! found into one item (design §3, stage 2: `cluster:relation`), and entities that the turns
//! mention, which no entity → entity relation connects, so the walk (stage 3) reaches
//! nothing from them. The first version of both arms related entities instead, for the walk
//! to follow; a walked record is a claim of the item that reached it, placed before the next
//! item's head, and about 1 % of those records were evidence, so both arms lost in every
//! category (BENCHMARKS.md, "The graph arms"). Linking the records that belong together
//! gains in every category: it only regroups what the query found.
//!
//! **Oracle** (from the conversation's annotations other than `qa`): every session
//! observation (`session_N_observation`: a sentence about one speaker and the turns it
//! cites), every event (`events_session_N`: a sentence about one speaker, no citation) and
//! every sentence of a session summary that names a speaker becomes one *fact* entity. A
//! fact is mentioned by the turns it cites; an event or summary sentence cites the turns of
//! its session, by its speaker, that share at least [`CITE_OVERLAP`] keywords with it. The
//! turns one fact cites are linked in turn order (`same_fact`), and so are the first turns
//! cited by the facts of one speaker that share a *topic* — a pair of keywords that at least
//! two and at most [`TOPIC_MAX_FACTS`] of that speaker's facts have (`same_topic`): the turns
//! an annotator said are about the same thing, in any session. Names are built so that no
//! question can cue them (stage 1 matches names inside the query): `fact 17 (observation,
//! session 3)`.
//!
//! **Extractor** (a deterministic reading of each turn's own text, no model): capitalized
//! names not opening a sentence (places included: a capitalized word after `in`, `at`,
//! `from`, `to`… is one), this conversation's speakers as they are named in the text,
//! dates (month names, weekdays, `yesterday`, `last/next week|month|year|weekend`) resolved
//! against the session's date to a month (`date 2023-05`), and "my X" phrases as the
//! speaker's (`Melanie's kids`). The turn is stored mentioning each; then, for each name and
//! "my X" it holds (speakers and dates aside: a speaker is named in hundreds of turns, a
//! month in dozens), it is linked to the latest earlier turn that named it too
//! (`names_again`), as the harness stores it.

use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet};

use super::Turn;

/// An event or summary sentence cites a turn of its session and speaker sharing this many
/// keywords with it (observations cite their turns themselves).
pub const CITE_OVERLAP: usize = 2;
/// A topic links the facts of one speaker that share its keywords when there are at most
/// this many of them; keywords more facts share are a theme, not a topic, and would bring
/// the whole conversation into one item. Fixed before the first oracle run.
pub const TOPIC_MAX_FACTS: usize = 4;
/// At most this many items per list of one declaration (the API's bound is 64).
const CHUNK: usize = 64;

/// Words of four letters or more that carry no topic.
const STOP: &[&str] = &[
    "about",
    "after",
    "again",
    "also",
    "always",
    "another",
    "anything",
    "around",
    "back",
    "been",
    "before",
    "being",
    "both",
    "came",
    "come",
    "coming",
    "could",
    "days",
    "didn",
    "does",
    "doesn",
    "doing",
    "done",
    "down",
    "during",
    "each",
    "even",
    "ever",
    "every",
    "feel",
    "feeling",
    "feels",
    "felt",
    "find",
    "first",
    "from",
    "gets",
    "getting",
    "give",
    "going",
    "gonna",
    "good",
    "great",
    "have",
    "having",
    "here",
    "hope",
    "into",
    "just",
    "keep",
    "know",
    "last",
    "like",
    "little",
    "look",
    "looking",
    "made",
    "make",
    "makes",
    "making",
    "many",
    "mentioned",
    "more",
    "most",
    "much",
    "need",
    "never",
    "next",
    "only",
    "other",
    "over",
    "plan",
    "planning",
    "plans",
    "pretty",
    "really",
    "recently",
    "said",
    "same",
    "says",
    "shared",
    "should",
    "since",
    "some",
    "something",
    "still",
    "such",
    "sure",
    "take",
    "talk",
    "talked",
    "tell",
    "than",
    "thank",
    "thanks",
    "that",
    "their",
    "them",
    "then",
    "there",
    "these",
    "they",
    "thing",
    "things",
    "think",
    "this",
    "those",
    "through",
    "time",
    "today",
    "told",
    "very",
    "wants",
    "want",
    "wanted",
    "well",
    "went",
    "were",
    "what",
    "when",
    "where",
    "which",
    "while",
    "will",
    "with",
    "would",
    "year",
    "years",
    "your",
    "yours",
    "it's",
    "that's",
    "she's",
    "he's",
    "i'm",
    "i've",
    "you're",
    "conversation",
    "expressed",
    "shares",
    "photo",
    "glad",
    "awesome",
    "amazing",
    "cool",
    "wow",
    "yeah",
];

/// Lower-case keywords of a text, in first-appearance order: words of four letters or more,
/// not in [`STOP`] nor one of `exclude`, a plural `s` folded.
pub fn keywords(text: &str, exclude: &BTreeSet<String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for w in text.split(|c: char| !(c.is_alphanumeric() || c == '\'')) {
        let w = w.trim_matches('\'').to_lowercase();
        let w = w.strip_suffix("'s").unwrap_or(&w).to_string();
        if w.chars().count() < 4 || STOP.contains(&w.as_str()) || exclude.contains(&w) || w.chars().all(|c| c.is_ascii_digit()) {
            continue;
        }
        let w = match w.strip_suffix('s') {
            Some(stem) if !w.ends_with("ss") && stem.chars().count() >= 4 => stem.to_string(),
            _ => w,
        };
        if !out.contains(&w) {
            out.push(w);
        }
    }
    out
}

fn str_of(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        _ => String::new(),
    }
}

/// One annotation sentence and the turns (indices into the stored turns) it cites.
struct Fact {
    name: String,
    speaker: String,
    keywords: Vec<String>,
    cites: Vec<usize>,
}

/// What the oracle declares after the conversation is stored, in a fixed order: per
/// declaration, the turn it is anchored on and its associations; `refs[i]` is turn i's
/// record ref.
pub fn oracle(conv: &Value, ts: &[Turn], refs: &[String]) -> Vec<(usize, Value)> {
    let speakers: Vec<String> =
        ["speaker_a", "speaker_b"].iter().filter_map(|k| conv.get(*k).map(str_of)).filter(|s| !s.is_empty()).collect();
    let exclude: BTreeSet<String> = speakers.iter().map(|s| s.to_lowercase()).collect();
    let index: BTreeMap<&str, usize> = ts.iter().enumerate().map(|(i, t)| (t.dia_id.as_str(), i)).collect();
    let sessions = ts.iter().map(|t| t.session).max().unwrap_or(0);
    let mut facts: Vec<Fact> = Vec::new();
    let mut push = |kind: &str, session: usize, speaker: &str, text: &str, cites: Vec<usize>| {
        let kws = keywords(text, &exclude);
        if cites.is_empty() || kws.is_empty() {
            return;
        }
        let name = format!("fact {} ({kind}, session {session})", facts.len() + 1);
        facts.push(Fact { name, speaker: speaker.to_string(), keywords: kws, cites });
    };
    // The turns of a session by a speaker that share CITE_OVERLAP keywords with a text.
    let overlap = |session: usize, speaker: &str, text: &str| -> Vec<usize> {
        let kws: BTreeSet<String> = keywords(text, &exclude).into_iter().collect();
        ts.iter()
            .enumerate()
            .filter(|(_, t)| t.session == session && t.speaker == speaker)
            .filter(|(_, t)| keywords(&t.text, &exclude).iter().filter(|k| kws.contains(*k)).count() >= CITE_OVERLAP)
            .map(|(i, _)| i)
            .collect()
    };
    for n in 1..=sessions {
        if let Some(obs) = conv.get(format!("session_{n}_observation")).and_then(Value::as_object) {
            for speaker in &speakers {
                for o in obs.get(speaker).and_then(Value::as_array).into_iter().flatten() {
                    let text = o.get(0).map(str_of).unwrap_or_default();
                    let refs: Vec<String> = match o.get(1) {
                        Some(Value::Array(a)) => a.iter().map(str_of).collect(),
                        Some(v) => vec![str_of(v)],
                        None => Vec::new(),
                    };
                    let mut cites: Vec<usize> = refs
                        .iter()
                        .flat_map(|r| r.split([';', ',']).map(str::trim).collect::<Vec<_>>())
                        .filter_map(|r| index.get(r).copied())
                        .collect();
                    cites.dedup();
                    push("observation", n, speaker, &text, cites);
                }
            }
        }
        if let Some(ev) = conv.get(format!("events_session_{n}")).and_then(Value::as_object) {
            for speaker in &speakers {
                for e in ev.get(speaker).and_then(Value::as_array).into_iter().flatten() {
                    let text = str_of(e);
                    push("event", n, speaker, &text, overlap(n, speaker, &text));
                }
            }
        }
        if let Some(summary) = conv.get(format!("session_{n}_summary")).and_then(Value::as_str) {
            for sentence in summary.split(". ") {
                // the speaker the sentence names first
                let first = speakers.iter().filter_map(|s| sentence.find(s.as_str()).map(|at| (at, s))).min();
                if let Some((_, speaker)) = first {
                    push("summary", n, speaker, sentence, overlap(n, speaker, sentence));
                }
            }
        }
    }
    // topic (two keywords) -> how many facts of the speaker have both
    let pairs = |f: &Fact| -> Vec<String> {
        let mut kws = f.keywords.clone();
        kws.sort();
        let mut out = Vec::new();
        for (i, a) in kws.iter().enumerate() {
            for b in &kws[i + 1..] {
                out.push(format!("{a} + {b}"));
            }
        }
        out
    };
    let mut df: BTreeMap<(String, String), usize> = BTreeMap::new();
    for f in &facts {
        for k in pairs(f) {
            *df.entry((f.speaker.clone(), k)).or_default() += 1;
        }
    }
    let mut out: Vec<(usize, Value)> = Vec::new();
    // The mentions: each cited turn mentions the fact.
    for f in &facts {
        for &t in &f.cites {
            out.push((t, json!({"entities": [{"name": f.name}]})));
        }
    }
    // The links: the turns one fact cites, then the first turns cited by the facts of one
    // topic, each to the next.
    let mut links: Vec<(usize, usize, &str)> = Vec::new();
    let mut topics: BTreeMap<(&str, String), Vec<usize>> = BTreeMap::new();
    for f in &facts {
        links.extend(f.cites.windows(2).map(|w| (w[0], w[1], "same_fact")));
        for k in pairs(f) {
            if (2..=TOPIC_MAX_FACTS).contains(&df[&(f.speaker.clone(), k.clone())]) {
                topics.entry((&f.speaker, k)).or_default().push(f.cites[0]);
            }
        }
    }
    for cited in topics.values() {
        links.extend(cited.windows(2).map(|w| (w[0], w[1], "same_topic")));
    }
    for (a, b, predicate) in links.into_iter().filter(|(a, b, _)| a != b) {
        out.push((a, json!({"relations": [{"subject": refs[a], "predicate": predicate, "object": refs[b]}]})));
    }
    out
}

const MONTHS: [&str; 12] =
    ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"];
const WEEKDAYS: [&str; 7] = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"];
/// Capitalized words that are not names.
const NOT_NAMES: &[&str] = &[
    "i", "i'm", "i've", "i'll", "i'd", "hey", "hi", "hello", "thanks", "thank", "wow", "yeah", "yes", "no", "oh", "omg", "lol", "ok",
    "okay", "the", "a", "an", "and", "but", "so", "it", "it's", "that", "this", "my", "we", "you", "he", "she", "they", "what", "how",
    "congrats", "shares", "sounds", "awesome", "great", "good", "sure", "by", "btw", "haha", "aww", "bye", "see", "take", "love", "glad",
    "nice",
];

/// Year and month of an epoch-ms instant (UTC), by the civil-from-days algorithm.
fn year_month(ms: i64) -> (i64, i64) {
    let z = ms.div_euclid(86_400_000) + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m)
}

fn month_name(y: i64, m: i64) -> String {
    let (y, m) = if m < 1 {
        (y - 1, m + 12)
    } else if m > 12 {
        (y + 1, m - 12)
    } else {
        (y, m)
    };
    format!("date {y:04}-{m:02}")
}

/// The extractor's entities for one turn, in first-appearance order.
pub fn extract(t: &Turn, speakers: &[String]) -> Vec<String> {
    let (y, m) = year_month(t.when_ms);
    let words: Vec<&str> = t.text.split_whitespace().collect();
    let clean = |w: &str| w.trim_matches(|c: char| !c.is_alphanumeric() && c != '\'').to_string();
    let mut out: Vec<String> = Vec::new();
    let mut add = |e: String| {
        if !e.is_empty() && !out.contains(&e) {
            out.push(e);
        }
    };
    let mut sentence_start = true;
    let mut i = 0;
    while i < words.len() {
        let raw = words[i];
        let w = clean(raw);
        let lower = w.to_lowercase();
        let next = words.get(i + 1).map(|n| clean(n).to_lowercase()).unwrap_or_default();
        if let Some(mi) = MONTHS.iter().position(|n| *n == lower) {
            // "May" is a month only with a day or year next to it
            let dated = next.chars().next().is_some_and(|c| c.is_ascii_digit())
                || i > 0 && clean(words[i - 1]).chars().next().is_some_and(|c| c.is_ascii_digit());
            if lower != "may" || dated {
                let year = if next.len() == 4 && next.chars().all(|c| c.is_ascii_digit()) { next.parse().unwrap_or(y) } else { y };
                add(month_name(year, mi as i64 + 1));
            }
        } else if WEEKDAYS.contains(&lower.as_str()) || lower == "yesterday" || lower == "tonight" || lower == "today" {
            add(month_name(y, m));
        } else if (lower == "last" || lower == "next") && ["week", "weekend", "month", "year"].contains(&next.as_str()) {
            let step = if lower == "last" { -1 } else { 1 };
            add(match next.as_str() {
                "month" => month_name(y, m + step),
                "year" => format!("date {:04}", y + step),
                _ => month_name(y, m),
            });
        } else if lower == "my" && !next.is_empty() && !NOT_NAMES.contains(&next.as_str()) && next.chars().all(char::is_alphabetic) {
            add(format!("{}'s {next}", t.speaker));
        } else if w.chars().next().is_some_and(char::is_uppercase) && !sentence_start && !NOT_NAMES.contains(&lower.as_str()) {
            // a run of capitalized words is one name
            let mut name = w.trim_end_matches("'s").to_string();
            while let Some(n) = words.get(i + 1).map(|n| clean(n)) {
                if n.chars().next().is_some_and(char::is_uppercase) && !raw.ends_with(['.', '!', '?', ',']) {
                    name = format!("{name} {}", n.trim_end_matches("'s"));
                    i += 1;
                } else {
                    break;
                }
            }
            // a speaker is named as the speaker is
            let speaker = speakers.iter().find(|s| s.eq_ignore_ascii_case(&name));
            add(speaker.cloned().unwrap_or(name));
        }
        sentence_start = raw.ends_with(['.', '!', '?']);
        i += 1;
    }
    out
}

/// The associations the extractor stores with a turn: the entities it found.
pub fn extractor_associations(entities: &[String]) -> Option<Value> {
    if entities.is_empty() {
        return None;
    }
    let list: Vec<Value> = entities.iter().take(CHUNK).map(|e| json!({"name": e})).collect();
    Some(json!({"entities": list}))
}

/// The earlier turns the extractor links turn `turn` to: for each name and "my X" among its
/// `entities` (speakers and dates aside), the latest earlier turn that named it too, each
/// turn once, at most [`CHUNK`]. `last` holds, per entity, the latest turn that named it,
/// and is brought up to this turn.
pub fn extractor_links(entities: &[String], speakers: &[String], turn: usize, last: &mut BTreeMap<String, usize>) -> Vec<usize> {
    let mut out: Vec<usize> = Vec::new();
    for e in entities.iter().filter(|e| !speakers.contains(e) && !e.starts_with("date ")) {
        if let Some(prev) = last.insert(e.clone(), turn) {
            if !out.contains(&prev) && out.len() < CHUNK {
                out.push(prev);
            }
        }
    }
    out
}

//! One call of each operation at its largest legal input, on a memory of 10,000 memories:
//! its time, and the heap it needed at its peak and kept after (issue 36: no call above 1 s
//! or 64 MiB of heap growth). Natively; the heap is counted by a global allocator that
//! tracks bytes in use, reset to the call's start.
//!
//! Each case runs on a fresh copy of the same database (imported from its bytes), so no
//! case sees another's writes, after one reconstruct has built the in-memory indexes (the
//! import's last line times what a first search then costs); the inputs are built before
//! the clock starts.
//!
//!   cargo bench --bench limits                  # every case
//!   cargo bench --bench limits -- store         # the cases whose name contains `store`

use associative_memory::*;
use serde_json::{json, Value};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::time::Instant;

/// The system allocator, counting the bytes in use and their peak.
struct Counting;

static IN_USE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let now = IN_USE.fetch_add(layout.size(), Relaxed) + layout.size();
            PEAK.fetch_max(now, Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, layout: Layout) {
        unsafe { System.dealloc(p, layout) };
        IN_USE.fetch_sub(layout.size(), Relaxed);
    }
    unsafe fn realloc(&self, p: *mut u8, layout: Layout, size: usize) -> *mut u8 {
        let q = unsafe { System.realloc(p, layout, size) };
        if !q.is_null() {
            if size > layout.size() {
                let now = IN_USE.fetch_add(size - layout.size(), Relaxed) + size - layout.size();
                PEAK.fetch_max(now, Relaxed);
            } else {
                IN_USE.fetch_sub(layout.size() - size, Relaxed);
            }
        }
        q
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

const MEMORIES: usize = 10_000;
const MIB: f64 = (1 << 20) as f64;

fn words(n: usize, salt: usize) -> String {
    const W: &[&str] = &["ledger", "queue", "deploy", "incident", "budget", "latency", "海斗", "キュー", "review", "audit"];
    (0..n).map(|i| W[(i * 7 + salt) % W.len()]).collect::<Vec<_>>().join(" ")
}

/// A string of exactly `chars` characters.
fn text_of(chars: usize, salt: usize) -> String {
    let mut t = words(chars / 4 + 1, salt);
    while t.chars().count() < chars {
        t.push_str(" ledger");
    }
    t.chars().take(chars).collect()
}

fn name(i: usize, j: usize) -> String {
    let base = format!("entity {i} alias {j} ");
    let mut n = base.repeat(256 / base.len() + 1);
    n.truncate(256);
    n.trim().to_string()
}

fn largest_associations(salt: usize) -> Value {
    let entities: Vec<Value> = (0..MAX_ITEMS)
        .map(|i| json!({"name": name(salt * 1000 + i, 99), "aliases": (0..MAX_ALIASES).map(|j| name(salt * 1000 + i, j)).collect::<Vec<_>>()}))
        .collect();
    let relations: Vec<Value> = (0..MAX_ITEMS)
        .map(|i| json!({"subject": name(salt * 1000 + i, 99), "predicate": name(i, 98), "object": name(salt * 1000 + (i + 1) % MAX_ITEMS, 99)}))
        .collect();
    json!({"entities": entities, "relations": relations})
}

fn base() -> Vec<u8> {
    let mut m = Memory::open_in_memory_with_clock(Box::new(FixedClock::new(1_767_225_600_000))).unwrap();
    for chunk in 0..MEMORIES / 1000 {
        let items: Vec<Value> = (0..1000)
            .map(|i| {
                let n = chunk * 1000 + i;
                let mut item = json!({"content": words(20, n)});
                if n % 100 == 0 {
                    item["associations"] = json!({"entities": [{"name": format!("hub {}", n / 100), "aliases": [format!("h{}", n / 100)]}],
                        "relations": [{"subject": format!("hub {}", n / 100), "predicate": "near", "object": format!("hub {}", n / 100 + 1)}]});
                }
                item
            })
            .collect();
        m.call("store_many", &json!({"agent_id": "a", "items": items})).unwrap();
    }
    m.call("store", &json!({"agent_id": "a", "content": "the hub", "associations": largest_associations(9)})).unwrap();
    m.export().unwrap()
}

fn main() {
    let filter = std::env::args().skip(1).find(|a| !a.starts_with('-')).unwrap_or_default();
    let image = base();
    let open = || {
        let mut m = Memory::open_in_memory_with_clock(Box::new(FixedClock::new(1_767_300_000_000))).unwrap();
        m.import(&image).unwrap();
        m
    };
    let growing: String = std::iter::repeat_n('\u{FDFA}', 12_000_000).collect();
    let query: String = (0..MAX_QUERY / 8).map(|i| format!("w{i:05}x ")).collect::<String>().chars().take(MAX_QUERY).collect();
    let short_query: String =
        (0..MAX_QUERY as u32 / 3).map(|i| format!("{}x ", char::from_u32(0x4E00 + i).unwrap())).collect::<String>().trim_end().to_owned();
    let hub_query: String = (0..100).map(|i| format!("h{i} ")).collect::<String>();
    let export = open().call("export_memories", &json!({"agent_id": "a"})).unwrap()["jsonl"].as_str().unwrap().to_owned();
    let batch_item = MAX_BATCH_CONTENT / MAX_BATCH;
    let cases: Vec<(&str, &str, Value)> = vec![
        (
            "store: 1 Mi characters, every association at its bound",
            "store",
            json!({"agent_id": "a", "content": text_of(MAX_CONTENT, 1), "associations": largest_associations(1)}),
        ),
        (
            "store: a 12 Mi-character name of U+FDFA (dropped)",
            "store",
            json!({"agent_id": "a", "content": "x", "associations": {"entities": [{"name": growing}]}}),
        ),
        (
            "store: 2 Mi aliases (dropped past 32)",
            "store",
            json!({"agent_id": "a", "content": "x", "associations": {"entities": [{"name": "n", "aliases": (0..2_000_000).map(|i| format!("a{i}")).collect::<Vec<_>>()}]}}),
        ),
        (
            "store_many: 10,000 memories, 16 Mi characters",
            "store_many",
            json!({"agent_id": "a", "items": (0..MAX_BATCH).map(|i| json!({"content": text_of(batch_item, i)})).collect::<Vec<_>>()}),
        ),
        (
            "archive_episode: 10,000 turns, 8 Mi characters",
            "archive_episode",
            json!({"agent_id": "a", "summary": text_of(MAX_CONTENT, 2), "keywords": text_of(MAX_CONTENT, 3),
            "history": (0..MAX_TURNS).map(|i| json!({"role": "user", "content": text_of(MAX_HISTORY / MAX_TURNS - 8, i)})).collect::<Vec<_>>()}),
        ),
        (
            "declare_associations: every list at its bound",
            "declare_associations",
            json!({"agent_id": "a", "anchor_ref": "mem:1", "associations": largest_associations(2),
            "retract": {"relations": (1..=64).collect::<Vec<_>>(), "mentions": (1..=64).map(|i| json!({"entity": i, "ref": "mem:1"})).collect::<Vec<_>>()}}),
        ),
        ("recall: a 4,096-character query, limit 100", "recall", json!({"agent_id": "a", "query": query, "limit": 100, "deep": true})),
        (
            "recall: a 4,096-character query of 1,365 two-character words no record holds",
            "recall",
            json!({"agent_id": "a", "query": short_query, "limit": 100, "deep": true}),
        ),
        (
            "reconstruct: 4,096-character query, every bound at its cap",
            "reconstruct",
            json!({"agent_id": "a", "query": query, "count": 50, "top_k": 100, "max_hops": 5, "max_evidence": 100, "budget": 200_000, "deep": true, "trace": true}),
        ),
        (
            "reconstruct: naming 100 hubs, every bound at its cap",
            "reconstruct",
            json!({"agent_id": "a", "query": hub_query, "count": 50, "top_k": 100, "max_hops": 5, "max_evidence": 100, "budget": 200_000, "deep": true, "trace": true}),
        ),
        ("traverse: 5 hops, limit 100", "traverse", json!({"agent_id": "a", "entity": "hub 0", "max_hops": 5, "limit": 100})),
        ("list_memories: 500", "list_memories", json!({"agent_id": "a", "limit": 500})),
        ("list_entities: 500", "list_entities", json!({"agent_id": "a", "limit": 500})),
        ("update_memory: 1 Mi characters", "update_memory", json!({"agent_id": "a", "memory_id": 1, "content": text_of(MAX_CONTENT, 4)})),
        ("export_memories: 10,000 memories", "export_memories", json!({"agent_id": "a"})),
        ("import_memories: that export", "import_memories", json!({"jsonl": export, "target_agent_id": "b"})),
        ("delete_agent_data: 10,000 memories", "delete_agent_data", json!({"agent_id": "a"})),
    ];
    println!("| call | ms | peak heap MiB | kept MiB |");
    println!("|---|---|---|---|");
    for (what, tool, args) in cases.iter().filter(|c| c.0.contains(&filter)) {
        let mut m = open();
        // the indexes a first search builds (lexical postings, names, vectors) are built
        // here, not in the measured call: they are a memory's, not a call's
        m.call("reconstruct", &json!({"agent_id": "a", "query": "ledger hub 1"})).unwrap();
        let before = IN_USE.load(Relaxed);
        PEAK.store(before, Relaxed);
        let start = Instant::now();
        let out = m.call(tool, args);
        let ms = start.elapsed().as_secs_f64() * 1000.0;
        let peak = PEAK.load(Relaxed) - before;
        let out = out.map(|_| ()).map_err(|e| e.code().to_owned());
        let kept = IN_USE.load(Relaxed) as f64 - before as f64;
        println!(
            "| {what}{} | {ms:.1} | {:.1} | {:.1} |",
            out.err().map(|c| format!(" (`{c}`)")).unwrap_or_default(),
            peak as f64 / MIB,
            kept / MIB
        );
    }
    let mut m = open();
    let before = IN_USE.load(Relaxed);
    PEAK.store(before, Relaxed);
    let start = Instant::now();
    m.import(&image).unwrap();
    println!(
        "| import: the 10,000-memory image ({:.1} MiB) | {:.1} | {:.1} | |",
        image.len() as f64 / MIB,
        start.elapsed().as_secs_f64() * 1000.0,
        (PEAK.load(Relaxed) - before) as f64 / MIB
    );
    let before = IN_USE.load(Relaxed);
    PEAK.store(before, Relaxed);
    let start = Instant::now();
    m.call("reconstruct", &json!({"agent_id": "a", "query": "ledger hub 1"})).unwrap();
    let (ms, peak) = (start.elapsed().as_secs_f64() * 1000.0, (PEAK.load(Relaxed) - before) as f64 / MIB);
    println!(
        "| the first reconstruct after it: the indexes built | {ms:.1} | {peak:.1} | {:.1} |",
        (IN_USE.load(Relaxed) - before) as f64 / MIB
    );
}

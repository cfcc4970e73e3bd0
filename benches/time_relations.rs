//! The reads of relations at an instant (issue 39): traverse, reconstruct and list_entities
//! with `as_of` against the same reads without it (the current state), at 10k and 100k
//! memories with a tenth of the relations closed. The target: each ratio ≤ 1.1.
//!
//! Workload (deterministic, a seeded xorshift): N memories, each `"note <i>: <4 words>"`
//! from 500 words, mentioning one of N/10 entities `E<k>`; N relations `E<a> <predicate>
//! E<b>` (8 predicates), declared 64 a call; one in ten then invalidated at an instant
//! between 100 and 1 days before the clock's now. Reads, each of 200 arguments, every one
//! timed alone, the three forms of each argument taken in turn (without `as_of`, at an
//! instant 50 days back, `"all"`) after a warm-up pass: `traverse {entity, max_hops 1}`,
//! `traverse {entity, max_hops 2}`, `reconstruct {query: two words, count 10}`,
//! `list_entities {limit 100, offset}`. At two hops the forms walk different graphs (a
//! frontier the closed relations thin may fit the entity bound and be expanded, where a
//! fuller one is cut): one hop reads the same rows in each form.
//!
//!   cargo bench --bench time_relations            # 10k and 100k
//!   cargo bench --bench time_relations -- 10000   # sizes given

use associative_memory::{FixedClock, Memory};
use serde_json::{json, Value};
use std::time::Instant;

/// 2026-06-01T00:00:00Z.
const NOW_MS: i64 = 1_780_272_000_000;
const DAY_MS: i64 = 86_400_000;
const QUERIES: usize = 200;

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

fn word(i: usize) -> String {
    const SYL: [&str; 10] = ["ka", "ri", "mo", "te", "su", "na", "lo", "pe", "vi", "do"];
    format!("{}{}{}", SYL[i % 10], SYL[(i / 10) % 10], SYL[(i / 100) % 10])
}

fn build(n: usize) -> Memory {
    let clock = FixedClock::new(NOW_MS - 200 * DAY_MS);
    let mut m = Memory::open_in_memory_with_clock(Box::new(clock.clone())).unwrap();
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let entities = n / 10;
    for start in (0..n).step_by(5_000) {
        let items: Vec<Value> = (start..(start + 5_000).min(n))
            .map(|i| {
                let words: Vec<String> = (0..4).map(|_| word(rng.below(500))).collect();
                json!({"content": format!("note {i}: {}", words.join(" ")),
                       "associations": {"entities": [{"name": format!("E{}", rng.below(entities))}]}})
            })
            .collect();
        m.call("store_many", &json!({"agent_id": "a", "items": items})).unwrap();
    }
    let mut ids = Vec::with_capacity(n);
    for _ in (0..n).step_by(64) {
        let relations: Vec<Value> = (0..64)
            .map(|_| json!({"subject": format!("E{}", rng.below(entities)), "predicate": format!("p{}", rng.below(8)), "object": format!("E{}", rng.below(entities))}))
            .collect();
        let d = m.call("declare_associations", &json!({"agent_id": "a", "associations": {"relations": relations}})).unwrap();
        ids.extend(d["relations"].as_array().unwrap().iter().map(|v| v.as_i64().unwrap()));
    }
    ids.sort_unstable();
    ids.dedup();
    clock.set_ms(NOW_MS);
    let closed: Vec<i64> = ids.iter().copied().filter(|_| rng.below(10) == 0).collect();
    for chunk in closed.chunks(64) {
        let items: Vec<Value> = chunk
            .iter()
            .map(|&id| {
                let at = NOW_MS - (1 + rng.below(99) as i64) * DAY_MS;
                json!({"relation_id": id, "at": associative_memory::format_iso(at), "reason": "ended"})
            })
            .collect();
        m.call("declare_associations", &json!({"agent_id": "a", "invalidate": items})).unwrap();
    }
    eprintln!("time: {n} memories, {} relations, {} closed", ids.len(), closed.len());
    m
}

/// Mean milliseconds of each form (without, at an instant, all) over `args`.
fn measure(m: &mut Memory, tool: &str, args: &[Value]) -> [f64; 3] {
    let instant = associative_memory::format_iso(NOW_MS - 50 * DAY_MS);
    let forms = [Value::Null, json!(instant), json!("all")];
    let with = |a: &Value, f: &Value| {
        let mut a = a.clone();
        if !f.is_null() {
            a["as_of"] = f.clone();
        }
        a
    };
    for a in args {
        for f in &forms {
            m.call(tool, &with(a, f)).unwrap();
        }
    }
    let mut total = [0f64; 3];
    for (i, a) in args.iter().enumerate() {
        for k in 0..3 {
            let form = (i + k) % 3;
            let call = with(a, &forms[form]);
            let t = Instant::now();
            m.call(tool, &call).unwrap();
            total[form] += t.elapsed().as_secs_f64() * 1000.0;
        }
    }
    total.map(|t| t / args.len() as f64)
}

fn main() {
    let sizes: Vec<usize> = std::env::args().skip(1).filter_map(|a| a.parse().ok()).collect();
    let sizes = if sizes.is_empty() { vec![10_000, 100_000] } else { sizes };
    println!("| memories | read | without as_of (ms) | at an instant (ms) | all (ms) | instant ÷ without | all ÷ without |");
    println!("|---|---|---|---|---|---|---|");
    for n in sizes {
        let mut m = build(n);
        let mut rng = Rng(42);
        let entities = n / 10;
        let starts: Vec<String> = (0..QUERIES).map(|_| format!("E{}", rng.below(entities))).collect();
        let hop =
            |max_hops: i64| -> Vec<Value> { starts.iter().map(|e| json!({"agent_id": "a", "entity": e, "max_hops": max_hops})).collect() };
        let (one_hop, two_hops) = (hop(1), hop(2));
        let reconstruct: Vec<Value> = (0..QUERIES)
            .map(|_| json!({"agent_id": "a", "query": format!("{} {}", word(rng.below(500)), word(rng.below(500))), "count": 10}))
            .collect();
        let list: Vec<Value> = (0..QUERIES)
            .map(|_| json!({"agent_id": "a", "limit": 100, "offset": rng.below(entities.saturating_sub(100).max(1))}))
            .collect();
        let reads = [
            ("traverse", "traverse, 1 hop", &one_hop),
            ("traverse", "traverse, 2 hops", &two_hops),
            ("reconstruct", "reconstruct", &reconstruct),
            ("list_entities", "list_entities", &list),
        ];
        for (tool, name, args) in reads {
            let [without, at, all] = measure(&mut m, tool, args);
            println!("| {n} | {name} | {without:.3} | {at:.3} | {all:.3} | {:.2} | {:.2} |", at / without, all / without);
        }
    }
}

#!/usr/bin/env python3
"""Writes the seed corpus of each fuzz target (fuzz/corpus/<target>/seed-*) from the
recorded scenarios (../shared/conformance/scenarios, tests/scenarios) and a few inputs
taken from the tests. Run from the crate root: python3 fuzz/seed.py"""
import json, os, pathlib, struct

root = pathlib.Path(__file__).resolve().parent.parent
dirs = [root / "../shared/conformance/scenarios", root / "tests/scenarios"]
TOOL = {"store": "store", "episode": "archive_episode", "declare": "declare_associations", "retract": "declare_associations",
        "traverse": "traverse", "recall": "recall", "reconstruct": "reconstruct", "get_contents": "get_contents"}
corpus = root / "fuzz/corpus"
seeds = {t: [] for t in ["call", "normalize", "fts_query", "import", "ops"]}
for d in dirs:
    for path in sorted(d.glob("*.json")):
        scenario = json.loads(path.read_text())
        for op in scenario["ops"]:
            kind = op.get("op")
            if kind not in TOOL:
                continue
            args = {k: v for k, v in op.items() if k != "op"}
            if kind == "retract" and "retract" not in args:
                args = {"retract": {k: args.pop(k) for k in ["relations", "mentions"] if k in args}, **args}
            args.setdefault("agent_id", "a")
            seeds["call"].append(f"{TOOL[kind]}\n{json.dumps(args, ensure_ascii=False)}")
            for key in ["query", "entity"]:
                if key in op:
                    seeds["fts_query"].append("\x01" + op[key])
            for e in (op.get("associations") or {}).get("entities", []):
                seeds["normalize"] += [e.get("name", "")] + e.get("aliases", [])
# From tests/bad_input.rs and the declarations tests: shapes at the edge of validation.
seeds["call"] += [
    'store\n{"agent_id": "a", "content": "x", "embedding": [1.0, "two"]}',
    'store\n{"agent_id": "a", "content": "x", "timestamp": "last tuesday"}',
    'declare_associations\n{"agent_id": "a", "anchor_ref": "memory-1"}',
    'declare_associations\n{"agent_id": "a", "associations": {"entities": [{"name": "A", "aliases": ["b"]}, {"name": "C", "aliases": ["B"]}]}}',
    'traverse\n{"agent_id": "a", "entity": "Seed", "max_hops": 9}',
    'reconstruct\n{"agent_id": "a", "query": "x", "max_hops": 5, "max_evidence": 100, "budget": 1, "count": 0}',
    'get_contents\n{"agent_id": "a", "refs": ["mem:007", "ep:0", "mem:99999999999999999999"]}',
    'delete_entity\n{"agent_id": "a", "entity_id": 1}',
    'list_entities\n{"agent_id": "a", "limit": 0, "offset": -1}',
]
seeds["fts_query"] += ["\x00\"", "\x01NEAR(a b)", "\x00content:x", "\x03a OR b AND NOT c*", "\x00ab", "\x01%_\\", "\x02海斗 ingestion"]
seeds["normalize"] += ["ﾐｽﾞｱｲ", "STRASSE straße ẞ", "  Kaito\tMori\n", "İstanbul", "ΣΑΣ ς", "\u00e9 e\u0301", "ﬁ ﬀ ㍿"]
# import: mode 1 = patches (offset u24 big-endian, byte) onto a valid export.
def patches(*pairs):
    return b"\x01" + b"".join(struct.pack(">I", off)[1:] + bytes([v]) for off, v in pairs)
seeds["import"] += [
    patches(), patches((63, 99)), patches((63, 1)), patches((16, 2), (17, 0)), patches((28, 0), (31, 1)),
    patches((100, 0x0d)), patches((4096 + 8, 0xff)), patches((200, 0x41), (300, 0x42)),
    b"\x00SQLite format 3\x00", b"\x00not a database",
]
seeds["ops"] += [bytes(range(i, i + 64)) for i in range(0, 192, 32)] + [b"\x00" * 48, b"\xff" * 48]
for target, items in seeds.items():
    out = corpus / target
    out.mkdir(parents=True, exist_ok=True)
    for old in out.glob("seed-*"):
        old.unlink()
    unique = []
    for s in items:
        b = s if isinstance(s, bytes) else s.encode()
        if b and b not in unique:
            unique.append(b)
    for i, b in enumerate(unique):
        (out / f"seed-{i:03}").write_bytes(b)
    print(target, len(unique))

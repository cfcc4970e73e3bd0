//! The docs against the tree: what HACKING.md, the READMEs and BENCHMARKS.md quote from the
//! checkout must still be there. A count of mutations must be the number of rows in
//! `tests/MUTATIONS.md`'s table, every repository path quoted in backticks must exist, the
//! operations of the npm README's API table must be the operations the engine dispatches, and
//! the folders of `src/` must import each other as HACKING.md's map of the layers allows (and
//! the package's TypeScript modules without a cycle). Each failure names the doc and line
//! that drifted, or the source line that reaches past its layer, so the fix is to that line
//! (or to the code, if the doc was right).
//!
//! Natively only: it reads the checkout, which wasm32-unknown-unknown cannot.
#![cfg(not(target_arch = "wasm32"))]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The docs whose quotes are checked.
const DOCS: [&str; 4] = ["HACKING.md", "README.md", "www/README.md", "BENCHMARKS.md"];

/// The folders a quoted repository path starts with.
const PATH_ROOTS: [&str; 10] = ["src/", "tests/", "www/", "benches/", "scripts/", "fuzz/", "examples/", "build/", "eval/", ".cargo/"];

/// The checkout, as cargo names it when it runs the test: read at run time, not compiled in,
/// because `tests/mutations/run.sh` runs this test in scratch copies of the crate that share
/// one target directory, where a change to a doc alone does not rebuild it.
fn root() -> PathBuf {
    std::env::var_os("CARGO_MANIFEST_DIR").map(PathBuf::from).unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")))
}

fn read(path: &str) -> String {
    std::fs::read_to_string(root().join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The lines of a markdown text outside fenced code blocks, with their line numbers (from 1).
fn prose_lines(text: &str) -> Vec<(usize, &str)> {
    let mut fenced = false;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if !fenced {
            out.push((i + 1, line));
        }
    }
    out
}

/// The inline code spans of a markdown text outside fenced blocks: (line of the opening
/// backtick, the span's text with line breaks as spaces). A span that is the text of a link
/// (`` [`SPEC.md`](../shared/docs/SPEC.md) ``) is left out: where it points is what matters.
fn code_spans(text: &str) -> Vec<(usize, String)> {
    let lines = prose_lines(text);
    let mut spans = Vec::new();
    let mut open: Option<(usize, String, bool)> = None;
    for (n, line) in lines {
        let mut rest = line;
        while let Some(at) = rest.find('`') {
            let (before, after) = (&rest[..at], &rest[at + 1..]);
            match open.take() {
                None => open = Some((n, String::new(), before.ends_with('['))),
                Some((start, mut span, in_link)) => {
                    span.push_str(before);
                    if !(in_link && after.starts_with("](")) {
                        spans.push((start, span));
                    }
                }
            }
            rest = after;
        }
        if let Some((_, span, _)) = open.as_mut() {
            span.push_str(rest);
            span.push(' ');
        }
    }
    spans
}

/// The directories the build writes and git ignores (`.gitignore`'s anchored folders, such as
/// `/www/dist/`): a doc may name them though a checkout does not have them.
fn generated_dirs() -> Vec<String> {
    read(".gitignore").lines().filter(|l| l.starts_with('/') && l.ends_with('/')).map(|l| l[1..].to_string()).collect()
}

/// Whether a word of a code span names a file or folder of this repository: under one of
/// [`PATH_ROOTS`], or a top-level file (`Cargo.toml`, `Cargo.lock`, `Makefile`,
/// `BENCHMARKS-HISTORY.md`: a `.toml` or `.lock`, or a capitalized `.md`). Patterns
/// (`tests/*.rs`, `tests/mutations/<name>`, `{a,b}`) and elisions (`…`) are not paths.
fn looks_like_a_path(word: &str) -> bool {
    if word.contains(['*', '<', '{', '…', '$', '=']) {
        return false;
    }
    if PATH_ROOTS.iter().any(|r| word.starts_with(r)) {
        return true;
    }
    let top_md =
        word.strip_suffix(".md").is_some_and(|s| !s.is_empty() && s.chars().all(|c| c.is_ascii_uppercase() || c == '_' || c == '-'));
    !word.contains('/') && (top_md || word.ends_with(".toml") || word.ends_with(".lock") || word == "Makefile")
}

/// Every repository path quoted in backticks in `doc`, as (line, path).
fn quoted_paths(doc: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (line, span) in code_spans(&read(doc)) {
        for word in span.split_whitespace() {
            let word = word.trim_start_matches(['(', '"', '\'']).trim_end_matches([',', ';', ':', ')', '"', '\'', '.']);
            if looks_like_a_path(word) {
                out.push((line, word.to_string()));
            }
        }
    }
    out
}

/// Every markdown link of `doc` that points inside this repository, as (line, target):
/// not `../`, not a URL, not an anchor of the same page.
fn linked_paths(doc: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (line, text) in prose_lines(&read(doc)) {
        let mut rest = text;
        while let Some(at) = rest.find("](") {
            rest = &rest[at + 2..];
            let Some(end) = rest.find(')') else { break };
            let target = rest[..end].split('#').next().unwrap_or_default();
            if !target.is_empty() && !target.starts_with("../") && !target.contains("://") && !target.starts_with("mailto:") {
                out.push((line, target.to_string()));
            }
        }
    }
    out
}

#[test]
fn quoted_paths_exist() {
    let generated = generated_dirs();
    let mut missing = Vec::new();
    for doc in DOCS {
        for (line, path) in quoted_paths(doc).into_iter().chain(linked_paths(doc)) {
            if generated.iter().any(|g| path.starts_with(g.as_str())) {
                continue;
            }
            if !root().join(&path).exists() {
                missing.push(format!("{doc}:{line}: `{path}` is not in the checkout"));
            }
        }
    }
    assert!(missing.is_empty(), "paths the docs quote that do not exist (fix the doc, or the path):\n  {}", missing.join("\n  "));
}

/// The rows of `tests/MUTATIONS.md`'s table: lines outside fenced blocks that start with a
/// backticked name and end with a backticked test (`| `name` | … | `target::test` |`), as
/// `tests/mutations/mutations.py` reads them.
fn mutation_rows() -> usize {
    let text = read("tests/MUTATIONS.md");
    prose_lines(&text)
        .iter()
        .filter(|(_, l)| l.starts_with("| `") && l.ends_with("` |") && l.rsplit('|').nth(1).is_some_and(|c| c.contains("::")))
        .count()
}

/// The counts of mutations a doc states, as (line, count): a number followed by "mutation(s)"
/// (`52 mutations`, `52 named mutations`), or "all N" on a line about the mutations
/// (`# all 52`).
fn stated_mutation_counts(doc: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for (line, text) in prose_lines(&read(doc)) {
        let words: Vec<String> = text.split_whitespace().map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()).to_lowercase()).collect();
        let about_mutations = text.to_lowercase().contains("mutation");
        for (i, w) in words.iter().enumerate() {
            let Ok(n) = w.replace(',', "").parse::<usize>() else { continue };
            let next_is_mutation = words[i + 1..].iter().take(2).any(|x| x.starts_with("mutation"));
            let after_all = about_mutations && i > 0 && words[i - 1] == "all";
            if next_is_mutation || after_all {
                out.push((line, n));
            }
        }
    }
    out
}

#[test]
fn mutation_counts_match_the_table() {
    let rows = mutation_rows();
    assert!(rows > 0, "tests/MUTATIONS.md: no table rows found");
    let mut wrong = Vec::new();
    for doc in DOCS {
        for (line, n) in stated_mutation_counts(doc) {
            if n != rows {
                wrong.push(format!("{doc}:{line}: says {n} mutations; tests/MUTATIONS.md's table has {rows}"));
            }
        }
    }
    assert!(wrong.is_empty(), "mutation counts that drifted (better: do not write the count):\n  {}", wrong.join("\n  "));
}

/// The tool names the engine dispatches (`Memory::call`), in its order: the rows of the
/// table of operations, `src/api/operations.rs`, from which the dispatch is built.
fn engine_tool_names() -> Vec<String> {
    // the rows of `with_operations!`: `name(Options…) -> Response {`
    let text = read("src/api/operations.rs");
    let names: Vec<String> = text
        .lines()
        .map(str::trim)
        .filter(|l| l.contains(") -> ") && l.ends_with('{'))
        .filter_map(|l| l.split_once('(').map(|(name, _)| name.to_string()))
        .filter(|name| !name.is_empty() && name.chars().all(|c| c.is_ascii_lowercase() || c == '_'))
        .collect();
    assert!(!names.is_empty(), "src/api/operations.rs: no rows of the table of operations found");
    names
}

/// `storeMany` → `store_many`.
fn snake_case(name: &str) -> String {
    let mut out = String::new();
    for c in name.chars() {
        if c.is_ascii_uppercase() {
            out.push('_');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// The operations of the npm README's API table (`www/README.md`, the README the package
/// ships), headed `| operation | options | response |`, as (line, tool name): each row's
/// first cell names one or more, each the first code span of a ` / `-separated part
/// (`` `deleteMemory` / `deleteEpisode` ``), in camelCase or as the tool's own name, arguments
/// cut (`` `rekey(key)` ``).
fn readme_operations() -> Vec<(usize, String)> {
    const README: &str = "www/README.md";
    let text = read(README);
    let lines = prose_lines(&text);
    let start = lines.iter().position(|(_, l)| l.starts_with("| operation |")).expect("www/README.md: no table headed `| operation |`");
    let mut out = Vec::new();
    for (line, row) in lines[start + 2..].iter().take_while(|(_, l)| l.starts_with('|')) {
        let cell = row.trim_start_matches('|').split(" | ").next().unwrap_or_default();
        for part in cell.split(" / ") {
            let Some(span) = part.split('`').nth(1) else { continue };
            let name = span.split('(').next().unwrap_or_default().trim();
            out.push((*line, snake_case(name)));
        }
    }
    out
}

#[test]
fn readme_operations_are_the_engines() {
    let engine: BTreeSet<String> = engine_tool_names().into_iter().collect();
    assert!(!engine.is_empty(), "src/api/operations.rs: the table of operations has no rows");
    let readme = readme_operations();
    let listed: BTreeSet<&str> = readme.iter().map(|(_, n)| n.as_str()).collect();
    let mut wrong = Vec::new();
    for (line, name) in &readme {
        if !engine.contains(name) {
            wrong.push(format!("www/README.md:{line}: `{name}` is in the operation table, but the engine has no such operation"));
        }
    }
    for name in &engine {
        if !listed.contains(name.as_str()) {
            wrong.push(format!("www/README.md: the engine's `{name}` is not in the operation table"));
        }
    }
    assert!(wrong.is_empty(), "www/README.md's API table against the engine's operations:\n  {}", wrong.join("\n  "));
}

/// HACKING.md's map of the layers (the table under `## The layers`), bottom first: each row's
/// layer (`src/base/` is `base`, `src/memory.rs` is `memory`), its line, and the layers its last
/// cell names, each in backticks.
fn layer_map() -> Vec<(String, usize, Vec<String>)> {
    let text = read("HACKING.md");
    let lines = prose_lines(&text);
    let start = lines.iter().position(|(_, l)| *l == "## The layers").expect("HACKING.md: no `## The layers` section");
    let table = lines[start..].iter().skip_while(|(_, l)| !l.starts_with('|')).take_while(|(_, l)| l.starts_with('|'));
    let mut rows = Vec::new();
    for (line, row) in table.skip(2) {
        let cells: Vec<&str> = row.trim().trim_matches('|').split('|').map(str::trim).collect();
        let path = cells[0].split('`').nth(1).unwrap_or_else(|| panic!("HACKING.md:{line}: the row names no layer in backticks"));
        let layer = path.strip_prefix("src/").map(|p| p.trim_end_matches('/').trim_end_matches(".rs"));
        let layer = layer.unwrap_or_else(|| panic!("HACKING.md:{line}: `{path}` is not under src/"));
        let allowed = cells.last().unwrap_or(&"").split('`').skip(1).step_by(2).map(String::from).collect();
        rows.push((layer.to_string(), *line, allowed));
    }
    rows
}

/// The public names of the crate root and the layer each comes from: lib.rs's `pub use
/// <layer>::…;` lines (`crate::Memory` is `memory`'s).
fn root_names() -> BTreeMap<String, String> {
    let lib = read("src/lib.rs");
    let code: String = lib.lines().filter(|l| !l.trim_start().starts_with("//")).map(|l| format!("{l}\n")).collect();
    let mut names = BTreeMap::new();
    for statement in code.split(';') {
        let Some(path) = statement.trim().strip_prefix("pub use ") else { continue };
        let layer = path.split("::").next().unwrap_or_default().to_string();
        let imported = path.rsplit_once("::").map_or(path, |(_, last)| last);
        for name in imported.split(|c: char| !(c.is_alphanumeric() || c == '_')).filter(|n| !n.is_empty()) {
            names.insert(name.to_string(), layer.clone());
        }
    }
    names
}

/// The first segment of each `crate::` path in a line of Rust: `crate::api::error::Result` is
/// `api`, `crate::{FixedClock, Memory}` is `FixedClock` and `Memory`. What follows `//` (outside
/// a string) is a comment, and a comment names no dependency.
fn crate_paths(line: &str) -> Vec<String> {
    let mut code = line;
    let mut quoted = false;
    for (i, c) in line.char_indices() {
        match c {
            '"' => quoted = !quoted,
            '/' if !quoted && line[i..].starts_with("//") => {
                code = &line[..i];
                break;
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find("crate::") {
        let glued = rest[..at].chars().next_back().is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$');
        rest = &rest[at + "crate::".len()..];
        if glued {
            continue;
        }
        let ident = |s: &str| s.trim_start().split(|c: char| !(c.is_alphanumeric() || c == '_')).next().unwrap_or_default().to_string();
        match rest.strip_prefix('{') {
            Some(group) => {
                let (mut depth, mut item_start) = (0, true);
                for (i, c) in group.char_indices() {
                    match c {
                        '{' => depth += 1,
                        '}' if depth == 0 => break,
                        '}' => depth -= 1,
                        ',' if depth == 0 => item_start = true,
                        c if item_start && !c.is_whitespace() => {
                            out.push(ident(&group[i..]));
                            item_start = false;
                        }
                        _ => {}
                    }
                }
            }
            None => out.push(ident(rest)),
        }
    }
    out.retain(|p| !p.is_empty());
    out
}

/// The `.rs` files under `path`, a file or a folder, in order.
fn rust_files(path: &Path) -> Vec<PathBuf> {
    if path.is_file() {
        return vec![path.to_path_buf()];
    }
    let mut entries: Vec<PathBuf> = std::fs::read_dir(path).unwrap().map(|e| e.unwrap().path()).collect();
    entries.sort();
    entries.into_iter().filter(|p| p.is_dir() || p.extension().is_some_and(|e| e == "rs")).flat_map(|p| rust_files(&p)).collect()
}

/// What `src/` holds besides its layers: the crate root, which declares them and spells out
/// the public surface, and the native MCP server, a program on that surface.
const NOT_LAYERS: [&str; 2] = ["lib.rs", "bin"];

#[test]
fn layers_import_only_what_the_map_allows() {
    let map = layer_map();
    let mut wrong = Vec::new();
    let mut below = BTreeSet::new();
    for (layer, line, allowed) in &map {
        for a in allowed {
            if !below.contains(a.as_str()) {
                wrong.push(format!("HACKING.md:{line}: `{layer}` may import `{a}`, which is not a layer of an earlier row"));
            }
        }
        below.insert(layer.as_str());
    }
    let src = root().join("src");
    let mut entries: Vec<String> =
        std::fs::read_dir(&src).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    entries.sort();
    for entry in entries {
        let layer = entry.trim_end_matches(".rs");
        if !NOT_LAYERS.contains(&entry.as_str()) && !map.iter().any(|(l, _, _)| l == layer) {
            wrong.push(format!("src/{entry}: HACKING.md's map of the layers does not name it"));
        }
    }
    let roots = root_names();
    for (layer, _, allowed) in &map {
        let at = if src.join(layer).is_dir() { src.join(layer) } else { src.join(format!("{layer}.rs")) };
        for file in rust_files(&at) {
            let text = std::fs::read_to_string(&file).unwrap();
            let shown = file.strip_prefix(root()).unwrap_or(&file).display().to_string();
            for (n, line) in text.lines().enumerate() {
                if line.trim_start().starts_with("mod tests {") {
                    break; // a unit test's module, the last item of its file
                }
                for first in crate_paths(line) {
                    let reached = if src.join(&first).is_dir() || src.join(format!("{first}.rs")).is_file() {
                        first.clone()
                    } else if let Some(l) = roots.get(&first) {
                        l.clone()
                    } else {
                        wrong.push(format!("{shown}:{}: `crate::{first}` is in no layer this test can tell", n + 1));
                        continue;
                    };
                    if reached != *layer && !allowed.contains(&reached) {
                        wrong.push(format!(
                            "{shown}:{}: `crate::{first}…` reaches `{reached}`, which HACKING.md does not let `{layer}` import",
                            n + 1
                        ));
                    }
                }
            }
        }
    }
    assert!(wrong.is_empty(), "src/ against HACKING.md's map of the layers (fix the import, or the map):\n  {}", wrong.join("\n  "));
}

/// The package modules each of `www/src`'s modules imports: every `from './x.js'` (imports,
/// type-only imports, re-exports) and `import('./x.js')` naming a `.ts` file there.
fn package_imports() -> BTreeMap<String, BTreeSet<String>> {
    let dir = root().join("www/src");
    let mut graph = BTreeMap::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        let Some(stem) = name.strip_suffix(".ts").filter(|s| !s.ends_with(".d")) else { continue };
        let text = std::fs::read_to_string(dir.join(&name)).unwrap();
        let mut imports = BTreeSet::new();
        for line in text.lines().filter(|l| !l.trim_start().starts_with("//") && !l.trim_start().starts_with('*')) {
            for opening in ["from './", "from \"./", "import('./", "import(\"./"] {
                for (at, _) in line.match_indices(opening) {
                    let target = line[at + opening.len()..].split(['\'', '"']).next().unwrap_or_default();
                    let module = target.strip_suffix(".js").unwrap_or(target);
                    if dir.join(format!("{module}.ts")).is_file() {
                        imports.insert(module.to_string());
                    }
                }
            }
        }
        graph.insert(stem.to_string(), imports);
    }
    graph
}

/// A path of imports from `module` back to itself, if there is one.
fn import_cycle(graph: &BTreeMap<String, BTreeSet<String>>, module: &str) -> Option<Vec<String>> {
    let mut paths = vec![vec![module.to_string()]];
    let mut seen = BTreeSet::new();
    while let Some(path) = paths.pop() {
        for next in &graph[path.last().unwrap()] {
            let mut longer = path.clone();
            longer.push(next.clone());
            if next == module {
                return Some(longer);
            }
            if seen.insert(next.clone()) {
                paths.push(longer);
            }
        }
    }
    None
}

#[test]
fn package_modules_import_no_cycle() {
    let graph = package_imports();
    // each cycle once, from its first module in name order
    let cycles: Vec<String> = graph
        .keys()
        .filter_map(|m| import_cycle(&graph, m).filter(|c| c.iter().all(|o| o >= m)))
        .map(|c| c.iter().map(|m| format!("{m}.ts")).collect::<Vec<_>>().join(" → "))
        .collect();
    assert!(cycles.is_empty(), "www/src: modules that import themselves through others:\n  {}", cycles.join("\n  "));
}

/// The parsers above, on text whose answer is known, so a check cannot pass by finding nothing.
#[test]
fn the_doc_readers_find_what_they_look_for() {
    assert!(looks_like_a_path("src/memory.rs") && looks_like_a_path("Cargo.toml") && looks_like_a_path("BENCHMARKS-HISTORY.md"));
    assert!(!looks_like_a_path("tests/*.rs") && !looks_like_a_path("walk.rs") && !looks_like_a_path("memory.jsonl"));
    assert_eq!(snake_case("declareAssociations"), "declare_associations");
    assert!(quoted_paths("HACKING.md").iter().any(|(_, p)| p == "tests/MUTATIONS.md"));
    assert!(engine_tool_names().iter().any(|t| t == "store_many"));
    assert!(readme_operations().iter().any(|(_, t)| t == "store_many"));
    let map = layer_map();
    assert!(map.first().is_some_and(|(l, _, allowed)| l == "base" && allowed.is_empty()));
    assert!(map.iter().any(|(l, _, allowed)| l == "memory" && allowed.iter().any(|a| a == "read")));
    assert_eq!(root_names().get("Memory").map(String::as_str), Some("memory"));
    assert_eq!(crate_paths("use crate::api::error::{Error, Result}; // crate::read"), ["api"]);
    assert_eq!(crate_paths("    use crate::{FixedClock, base::clock::{Clock, SystemClock}};"), ["FixedClock", "base"]);
    assert_eq!(crate_paths("let s = \"//\"; f(crate::storage::x, $crate::y, my_crate::z)"), ["storage"]);
    assert!(package_imports().get("tools").is_some_and(|i| i.contains("tool-schemas")));
}

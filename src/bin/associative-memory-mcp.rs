//! `associative-memory-mcp`: a file-backed memory served to desktop agents over the Model
//! Context Protocol's stdio transport.
//!
//! ```text
//! cargo run --release --features mcp --bin associative-memory-mcp -- --db memory.sqlite
//! ```
//!
//! The protocol surface a tool server needs over stdio is small — newline-delimited
//! JSON-RPC 2.0 with `initialize`, `ping`, `tools/list` and `tools/call` — so it is served
//! here with the crate's own `serde_json`, without an async runtime: one client, one
//! request at a time, as stdio gives them. The tool list is the one generated from the
//! engine's option types (`src/api/tool-definitions.json`), the same the npm package serves,
//! and every call goes through [`Memory::call`], so arguments are checked exactly as
//! everywhere else. The database is opened in WAL mode ([`Memory::open`]).

use associative_memory::{Memory, SystemClock};
use serde_json::{json, Value};
use std::io::{BufRead, Write};

/// The generated tool definitions (`name`, `description`, `input_schema`).
const TOOL_DEFINITIONS: &str = include_str!("../api/tool-definitions.json");

/// Protocol revisions this server speaks; the newest is answered to a client asking for one
/// it does not know, which the client may then refuse.
const PROTOCOL_VERSIONS: [&str; 4] = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

/// JSON-RPC error codes of the specification.
const PARSE_ERROR: i64 = -32700;
const INVALID_REQUEST: i64 = -32600;
const METHOD_NOT_FOUND: i64 = -32601;
const INVALID_PARAMS: i64 = -32602;

fn usage() -> ! {
    eprintln!("usage: associative-memory-mcp --db <path to an SQLite file, created if absent>");
    std::process::exit(2);
}

fn main() {
    let mut args = std::env::args().skip(1);
    let mut db = None;
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--db" => db = Some(args.next().unwrap_or_else(|| usage())),
            "--help" | "-h" => usage(),
            _ => usage(),
        }
    }
    let Some(db) = db else { usage() };
    let mut memory = match Memory::open(&db, Box::new(SystemClock)) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("associative-memory-mcp: cannot open {db}: {e}");
            std::process::exit(1);
        }
    };
    let tools = mcp_tools();
    let stdin = std::io::stdin();
    let mut stdout = std::io::stdout().lock();
    for line in stdin.lock().lines() {
        let Ok(line) = line else { break };
        if line.trim().is_empty() {
            continue;
        }
        let reply = match serde_json::from_str::<Value>(&line) {
            Err(e) => Some(error(Value::Null, PARSE_ERROR, &format!("not JSON: {e}"))),
            Ok(message) => handle(&mut memory, &tools, &message),
        };
        if let Some(reply) = reply {
            // one message per line: serde_json escapes every newline inside strings
            let _ = writeln!(stdout, "{reply}");
            let _ = stdout.flush();
        }
    }
}

/// The generated definitions as MCP lists them (`inputSchema`).
fn mcp_tools() -> Value {
    let definitions: Vec<Value> = serde_json::from_str(TOOL_DEFINITIONS).expect("the generated definitions are JSON");
    definitions.into_iter().map(|t| json!({"name": t["name"], "description": t["description"], "inputSchema": t["input_schema"]})).collect()
}

fn error(id: Value, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

/// The reply to one message; `None` for notifications and responses, which get none.
fn handle(memory: &mut Memory, tools: &Value, message: &Value) -> Option<Value> {
    let Some(method) = message.get("method").and_then(Value::as_str) else {
        // a response to a request we never send, or garbage: answer garbage only when it has an id
        return message
            .get("result")
            .or(message.get("error"))
            .is_none()
            .then(|| error(Value::Null, INVALID_REQUEST, "not a JSON-RPC request"));
    };
    let id = message.get("id")?.clone();
    let params = message.get("params").cloned().unwrap_or(json!({}));
    let result = match method {
        "initialize" => {
            let asked = params["protocolVersion"].as_str().unwrap_or_default();
            let version = PROTOCOL_VERSIONS.iter().find(|v| **v == asked).unwrap_or(&PROTOCOL_VERSIONS[0]);
            json!({
                "protocolVersion": version,
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "associative-memory", "version": env!("CARGO_PKG_VERSION")},
            })
        }
        "ping" => json!({}),
        "tools/list" => json!({"tools": tools}),
        "tools/call" => {
            let Some(name) = params["name"].as_str() else { return Some(error(id, INVALID_PARAMS, "tools/call needs a tool `name`")) };
            if !tools.as_array().is_some_and(|t| t.iter().any(|t| t["name"] == name)) {
                return Some(error(id, INVALID_PARAMS, &format!("unknown tool: {name}")));
            }
            let args = params.get("arguments").cloned().unwrap_or(json!({}));
            call_tool(memory, name, &args)
        }
        other => return Some(error(id, METHOD_NOT_FOUND, &format!("method not found: {other}"))),
    };
    Some(json!({"jsonrpc": "2.0", "id": id, "result": result}))
}

/// A tool's result: its JSON response as text, or the engine's typed error as a tool
/// error (`isError`) naming the code and the argument, which a model can act on.
fn call_tool(memory: &mut Memory, name: &str, args: &Value) -> Value {
    match memory.call(name, args) {
        Ok(response) => json!({"content": [{"type": "text", "text": response.to_string()}]}),
        Err(e) => {
            let mut body = json!({"error": e.code(), "message": e.to_string()});
            if let Some(field) = e.field() {
                body["field"] = json!(field);
            }
            json!({"isError": true, "content": [{"type": "text", "text": body.to_string()}]})
        }
    }
}

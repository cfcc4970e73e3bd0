//! `associative-memory-mcp`: a file-backed memory served to desktop agents over the Model
//! Context Protocol's stdio transport.
//!
//! ```text
//! cargo run --release --features mcp --bin associative-memory-mcp -- --db memory.sqlite
//! ```
//!
//! The protocol (JSON-RPC framing, the `initialize` handshake and version negotiation,
//! `ping`, errors) is `rmcp`'s, the official Rust SDK; this file only answers `tools/list`
//! and `tools/call`. The tool list is the one generated from the engine's option types
//! (`src/api/tool-definitions.json`), the same the npm package serves, and every call goes
//! through [`Memory::call`], so arguments are checked exactly as everywhere else. The
//! database is opened in WAL mode ([`Memory::open`]) on a thread of its own: a [`Memory`]
//! stays on the thread that opened it, and its calls block on SQLite. When the client
//! closes the connection, that thread closes the database (checkpointing its log) before
//! the process exits.
//!
//! With `ASSOCIATIVE_MEMORY_KEY` in the environment the file is encrypted
//! ([`Memory::open_encrypted`]): 64 hex digits are a raw 32-byte key, anything else a
//! passphrase. A wrong key, or none for an encrypted file, ends the process with status 1
//! and the error's code (`wrong_key`, `encrypted`) on stderr; the key is never printed.

use associative_memory::{Key, Memory, SystemClock};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation, JsonObject, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::{json, Value};
use std::sync::mpsc;
use tokio::sync::oneshot;

/// The generated tool definitions (`name`, `description`, `input_schema`).
const TOOL_DEFINITIONS: &str = include_str!("../api/tool-definitions.json");

/// The environment variable an encrypted memory's key is read from.
const KEY_VARIABLE: &str = "ASSOCIATIVE_MEMORY_KEY";

fn usage() -> ! {
    eprintln!("usage: associative-memory-mcp --db <path to an SQLite file, created if absent>");
    eprintln!("       {KEY_VARIABLE}=<64 hex digits, or a passphrase> encrypts it");
    std::process::exit(2);
}

/// The key in `KEY_VARIABLE`, if set: 64 hex digits as a raw key, else a passphrase.
fn key_from_env() -> Result<Option<Key>, String> {
    let Some(value) = std::env::var_os(KEY_VARIABLE) else { return Ok(None) };
    let value = value.into_string().map_err(|_| format!("{KEY_VARIABLE} is not valid UTF-8"))?;
    let hex = |pair: &[u8]| u8::from_str_radix(std::str::from_utf8(pair).ok()?, 16).ok();
    let raw: Option<Vec<u8>> = (value.len() == 64).then(|| value.as_bytes().chunks(2).map(hex).collect()).flatten();
    let key = match raw {
        Some(bytes) => Key::raw(&bytes),
        None => Key::passphrase(value),
    };
    key.map(Some).map_err(|e| format!("{KEY_VARIABLE}: {e}"))
}

/// One tool call for the memory's thread, and where its result goes.
type Job = (String, Value, oneshot::Sender<CallToolResult>);

struct Server {
    tools: Vec<Tool>,
    memory: mpsc::Sender<Job>,
}

fn main() {
    let mut args = std::env::args().skip(1);
    let mut db = None;
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--db" => db = Some(args.next().unwrap_or_else(|| usage())),
            _ => usage(),
        }
    }
    let Some(db) = db else { usage() };
    let key = key_from_env().unwrap_or_else(|e| {
        eprintln!("associative-memory-mcp: {e}");
        std::process::exit(2);
    });
    let (memory, jobs) = mpsc::channel::<Job>();
    let (opened, open_result) = mpsc::channel();
    let memory_thread = std::thread::spawn(move || {
        let open = match key {
            Some(key) => Memory::open_encrypted(&db, key, Box::new(SystemClock)),
            None => Memory::open(&db, Box::new(SystemClock)),
        };
        let mut memory = match open {
            Ok(m) => m,
            Err(e) => return opened.send(Err(format!("cannot open {db} ({}): {e}", e.code()))).unwrap_or(()),
        };
        let _ = opened.send(Ok(()));
        for (tool, args, reply) in jobs {
            let _ = reply.send(call_tool(&mut memory, &tool, &args));
        }
    });
    if let Err(e) = open_result.recv().unwrap_or_else(|_| Err("the memory's thread ended".into())) {
        eprintln!("associative-memory-mcp: {e}");
        std::process::exit(1);
    }
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a Tokio runtime");
    let served = runtime.block_on(async {
        let server = Server { tools: tools(), memory };
        server.serve(rmcp::transport::stdio()).await?.waiting().await?;
        Ok::<_, Box<dyn std::error::Error>>(())
    });
    // The server, its tasks and their senders are gone with the runtime: the memory's
    // thread runs out of calls, and closes the database before this process ends.
    drop(runtime);
    let _ = memory_thread.join();
    if let Err(e) = served {
        eprintln!("associative-memory-mcp: {e}");
        std::process::exit(1);
    }
}

/// The generated definitions as MCP tools.
fn tools() -> Vec<Tool> {
    let definitions: Vec<Value> = serde_json::from_str(TOOL_DEFINITIONS).expect("the generated definitions are JSON");
    definitions
        .into_iter()
        .map(|t| {
            let text = |key: &str| t[key].as_str().expect("each definition has a name and a description").to_owned();
            let schema: JsonObject = serde_json::from_value(t["input_schema"].clone()).expect("each input schema is an object");
            Tool::new(text("name"), text("description"), schema)
        })
        .collect()
}

/// A tool's result: its JSON response as text, or the engine's typed error as a tool
/// error (`isError`) naming the code and the argument, which a model can act on.
fn call_tool(memory: &mut Memory, name: &str, args: &Value) -> CallToolResult {
    match memory.call_text(name, args) {
        Ok(response) => CallToolResult::success(vec![ContentBlock::text(response)]),
        Err(e) => {
            let mut body = json!({"error": e.code(), "message": e.to_string()});
            if let Some(field) = e.field() {
                body["field"] = json!(field);
            }
            CallToolResult::error(vec![ContentBlock::text(body.to_string())])
        }
    }
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("associative-memory", env!("CARGO_PKG_VERSION")))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.tools.clone()))
    }

    async fn call_tool(&self, request: CallToolRequestParams, _context: RequestContext<RoleServer>) -> Result<CallToolResponse, ErrorData> {
        if !self.tools.iter().any(|t| t.name == request.name) {
            return Err(ErrorData::invalid_params(format!("unknown tool: {}", request.name), None));
        }
        let args = Value::Object(request.arguments.unwrap_or_default());
        let (reply, result) = oneshot::channel();
        let ended = || ErrorData::internal_error("the memory's thread ended", None);
        self.memory.send((request.name.into_owned(), args, reply)).map_err(|_| ended())?;
        Ok(CallToolResponse::Complete(result.await.map_err(|_| ended())?))
    }
}

//! `associative-memory-mcp`: a file-backed memory served to desktop agents over the Model
//! Context Protocol's stdio transport.
//!
//! ```text
//! cargo run --release --features mcp --bin associative-memory-mcp -- --db memory.sqlite
//! ```
//!
//! The protocol (JSON-RPC framing, the `initialize` handshake and version negotiation,
//! `ping`, errors) is `rmcp`'s, the official Rust SDK; this file only answers `tools/list`
//! and `tools/call`. The tool list is the one generated from the engine's option and response
//! types and its table of operations (`src/api/tool-definitions.json`: each tool's annotations
//! and output schema too), the same the npm package serves, and every call goes through
//! [`Memory::call`], so arguments are checked exactly as everywhere else. A result carries the
//! response as `structuredContent` and as JSON text; a tool not listed is the protocol error
//! the MCP specification asks for, `-32602` `unknown tool: <name>; tools: …`, as the npm
//! package's server answers it. The
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
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation, ListToolsResult, PaginatedRequestParams,
    ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::{json, Value};
use std::sync::mpsc;
use tokio::sync::oneshot;

/// The generated tool definitions (`name`, `description`, `input_schema`, `output_schema`,
/// `annotations`).
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

/// Which of the tools are served, as the npm package's `ToolSelection` says it: only some,
/// all but some, only those that do not write (`annotations.readOnlyHint`); together, every
/// one applies.
#[derive(Debug, Clone, Default)]
struct ToolSelection {
    only: Option<Vec<String>>,
    exclude: Vec<String>,
    read_only: bool,
}

/// Every generated definition as an MCP tool.
fn tools() -> Vec<Tool> {
    selected_tools(&ToolSelection::default()).expect("no selection names no tool")
}

/// The generated definitions `selection` selects, as MCP tools (`tools/list` in MCP's
/// spelling: `inputSchema`, `outputSchema`, `annotations`), in their order; a name that is no
/// tool is refused, listing the tools.
fn selected_tools(selection: &ToolSelection) -> Result<Vec<Tool>, String> {
    let definitions: Vec<Value> = serde_json::from_str(TOOL_DEFINITIONS).expect("the generated definitions are JSON");
    let names: Vec<&str> = definitions.iter().map(|t| t["name"].as_str().expect("each definition has a name")).collect();
    for (field, listed) in [("only", selection.only.as_deref().unwrap_or_default()), ("exclude", &selection.exclude[..])] {
        if let Some(unknown) = listed.iter().find(|n| !names.contains(&n.as_str())) {
            return Err(format!("{field} names no tool {unknown:?}; tools: {}", names.join(", ")));
        }
    }
    let chosen = definitions.iter().filter(|t| {
        let name = t["name"].as_str().unwrap_or_default();
        selection.only.as_ref().is_none_or(|only| only.iter().any(|n| n == name))
            && !selection.exclude.iter().any(|n| n == name)
            && (!selection.read_only || t["annotations"]["readOnlyHint"] == json!(true))
    });
    Ok(chosen
        .map(|t| {
            let tool = json!({
                "name": t["name"],
                "description": t["description"],
                "inputSchema": t["input_schema"],
                "outputSchema": t["output_schema"],
                "annotations": t["annotations"],
            });
            serde_json::from_value(tool).expect("each definition is an MCP tool")
        })
        .collect())
}

/// A tool's result: its response as `structuredContent` and as JSON text, or the engine's
/// typed error as a tool error (`isError`) naming the code and the argument, which a model
/// can act on.
fn call_tool(memory: &mut Memory, name: &str, args: &Value) -> CallToolResult {
    match memory.call(name, args) {
        Ok(response) => CallToolResult::structured(response),
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
            let names: Vec<&str> = self.tools.iter().map(|t| t.name.as_ref()).collect();
            let names = if names.is_empty() { "(none)".to_owned() } else { names.join(", ") };
            return Err(ErrorData::invalid_params(format!("unknown tool: {}; tools: {names}", request.name), None));
        }
        let args = Value::Object(request.arguments.unwrap_or_default());
        let (reply, result) = oneshot::channel();
        let ended = || ErrorData::internal_error("the memory's thread ended", None);
        self.memory.send((request.name.into_owned(), args, reply)).map_err(|_| ended())?;
        Ok(CallToolResponse::Complete(result.await.map_err(|_| ended())?))
    }
}

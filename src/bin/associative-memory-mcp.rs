//! `associative-memory-mcp`: a file-backed memory served to desktop agents over the Model
//! Context Protocol's stdio transport.
//!
//! ```text
//! cargo run --release --features mcp --bin associative-memory-mcp -- --db memory.sqlite --agent assistant
//! ```
//!
//! The flags are the npm package's command's (`npx associative-memory-mcp`, www/src/mcp-bin.ts),
//! and one test suite drives both (www/test/package-mcp-bin.test.mjs): `--db`, `--agent` (the
//! tools then take no `agent_id`, and no call reaches another agent), `--project`, `--key-env`,
//! `--tools` (`all`, `read-only` or a comma list of names). `--import-mcp-memory` and `--compat`
//! are the package's alone, since they are its TypeScript (import-mcp.ts, server-memory.ts):
//! here they are usage errors that say so. A usage error exits with status 2 naming the flag,
//! before the file is touched.
//!
//! The protocol (JSON-RPC framing, the `initialize` handshake and version negotiation,
//! `ping`, errors) is `rmcp`'s, the official Rust SDK; this file only answers `tools/list`
//! and `tools/call`. The tool list is the one generated from the engine's option and response
//! types and its table of operations (`src/api/tool-definitions.json`: each tool's annotations
//! and output schema too), the same the npm package serves, and every call goes through
//! [`Memory::call`], so arguments are checked exactly as everywhere else. `--tools read-only`
//! and `--agent`'s filling in of the agent read the same table ([`OPERATIONS`]: whether a tool
//! writes, which axes its options carry). A result carries the
//! response as `structuredContent` and as JSON text; a tool not listed is the protocol error
//! the MCP specification asks for, `-32602` `unknown tool: <name>; tools: …`, as the npm
//! package's server answers it. The
//! database is opened in WAL mode ([`Memory::open`]) on a thread of its own: a [`Memory`]
//! stays on the thread that opened it, and its calls block on SQLite. When the client
//! closes the connection, that thread closes the database (checkpointing its log) before
//! the process exits.
//!
//! With a key in the environment (`ASSOCIATIVE_MEMORY_KEY`, or the variable `--key-env`
//! names) the file is encrypted ([`Memory::open_encrypted`]): 64 hex digits are a raw 32-byte
//! key, anything else a passphrase. A wrong key, or none for an encrypted file, ends the
//! process with status 1 and the error's code (`wrong_key`, `encrypted`) on stderr; the key
//! is never printed.

use associative_memory::{Key, Memory, Scope, SystemClock, OPERATIONS};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation, ListToolsResult, PaginatedRequestParams,
    ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::{json, Map, Value};
use std::sync::mpsc;
use tokio::sync::oneshot;

/// The generated tool definitions (`name`, `description`, `input_schema`, `output_schema`,
/// `annotations`).
const TOOL_DEFINITIONS: &str = include_str!("../api/tool-definitions.json");

const NAME: &str = "associative-memory-mcp";

/// The environment variable an encrypted memory's key is read from when `--key-env` names none.
const KEY_VARIABLE: &str = "ASSOCIATIVE_MEMORY_KEY";

/// The flags, as the npm package's command (www/src/mcp-bin.ts) words them, less its two own.
const USAGE: &str = "usage: associative-memory-mcp --db <path> [options]
  --db <path>                  the SQLite file of the memory, created if absent (required)
  --agent <id>                 serve one agent: the tools take no agent_id, and reach no other agent
  --project <id>               with --agent: the agent's project (the tools take no project_id)
  --key-env <VAR>              encrypt the file with the key in $VAR (64 hex digits: a raw key;
                               anything else: a passphrase); default $ASSOCIATIVE_MEMORY_KEY when set
  --tools <selection>          all (default), read-only, or a comma list of tool names
  --help                       this text
--import-mcp-memory <file> and --compat server-memory are the npm package's command's alone
(npx associative-memory-mcp), since they are the package's TypeScript.";

/// The flags that take a value.
const VALUED: &[&str] = &["--db", "--agent", "--project", "--key-env", "--tools"];

/// The npm package's command's flags that this binary does not have.
const PACKAGE_ONLY: &[&str] = &["--import-mcp-memory", "--compat"];

/// A usage error: the message and the usage on stderr, status 2, nothing opened.
fn usage_error(message: &str) -> ! {
    eprintln!("{NAME}: {message}\n{USAGE}");
    std::process::exit(2);
}

/// The command line, checked.
struct Flags {
    db: String,
    bound: Bound,
    /// The variable the key is read from, when `--key-env` named one (then it must be set).
    key_env: Option<String>,
    tools: ToolSelection,
}

/// The command line as [`Flags`]; `--help` prints the usage and ends the process (status 0),
/// anything amiss is a usage error naming the flag.
fn parse_flags(argv: impl IntoIterator<Item = String>) -> Flags {
    let mut values: Vec<(&'static str, String)> = Vec::new();
    let mut args = argv.into_iter();
    while let Some(arg) = args.next() {
        if arg == "--help" || arg == "-h" {
            println!("{USAGE}");
            std::process::exit(0);
        }
        let (flag, inline) = match arg.split_once('=') {
            Some((flag, value)) if arg.starts_with("--") => (flag.to_owned(), Some(value.to_owned())),
            _ => (arg.clone(), None),
        };
        if PACKAGE_ONLY.contains(&flag.as_str()) {
            usage_error(&format!("{flag} is the npm package's command's alone (npx associative-memory-mcp), not this binary's"));
        }
        let Some(&known) = VALUED.iter().find(|f| **f == flag) else { usage_error(&format!("unknown flag {arg}")) };
        let value = inline.or_else(|| args.next()).filter(|v| !v.is_empty());
        let value = value.unwrap_or_else(|| usage_error(&format!("{flag} needs a value")));
        if values.iter().any(|(f, _)| *f == known) {
            usage_error(&format!("{flag} is given twice"));
        }
        values.push((known, value));
    }
    let mut take = |flag: &str| values.iter().position(|(f, _)| *f == flag).map(|at| values.swap_remove(at).1);
    let db = take("--db").unwrap_or_else(|| usage_error("--db is required"));
    let bound = Bound { agent: take("--agent"), project: take("--project") };
    if bound.project.is_some() && bound.agent.is_none() {
        usage_error("--project needs --agent (a project is one agent's)");
    }
    let key_env = take("--key-env");
    if let Some(name) = &key_env {
        let valid =
            name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !valid {
            usage_error(&format!("--key-env takes an environment variable's name, got {name:?}"));
        }
    }
    let tools = parse_selection(take("--tools").as_deref());
    Flags { db, bound, key_env, tools }
}

/// A `--tools` selection: `all`, `read-only`, or a comma list of tool names (an unknown one
/// is a usage error listing them).
fn parse_selection(text: Option<&str>) -> ToolSelection {
    match text {
        None | Some("all") => ToolSelection::default(),
        Some("read-only") => ToolSelection { read_only: true, ..ToolSelection::default() },
        Some(list) => {
            let only: Vec<String> = list.split(',').map(|n| n.trim().to_owned()).collect();
            let names = definition_names();
            if let Some(unknown) = only.iter().find(|n| !names.contains(n)) {
                usage_error(&format!("--tools: {unknown:?} is no tool here (all, read-only, or a comma list of: {})", names.join(", ")));
            }
            ToolSelection { only: Some(only), ..ToolSelection::default() }
        }
    }
}

/// The key in `variable`, if set: 64 hex digits as a raw key, else a passphrase. Unset (or
/// empty) is no key, or a usage error when `--key-env` named the variable (`required`).
fn key_from_env(variable: &str, required: bool) -> Result<Option<Key>, String> {
    let value = std::env::var_os(variable).filter(|v| !v.is_empty());
    let Some(value) = value else {
        if required {
            usage_error(&format!("--key-env: the environment variable {variable} is not set"));
        }
        return Ok(None);
    };
    let value = value.into_string().map_err(|_| format!("{variable} is not valid UTF-8"))?;
    let hex = |pair: &[u8]| u8::from_str_radix(std::str::from_utf8(pair).ok()?, 16).ok();
    let raw: Option<Vec<u8>> = (value.len() == 64).then(|| value.as_bytes().chunks(2).map(hex).collect()).flatten();
    let key = match raw {
        Some(bytes) => Key::raw(&bytes),
        None => Key::passphrase(value),
    };
    key.map(Some).map_err(|e| format!("{variable}: {e}"))
}

/// The arguments `--agent` and `--project` fill in on every call, as the npm package's agent
/// handle does (`memory.agent(id, { project_id })`): the tools then do not take them.
#[derive(Debug, Clone, Default)]
struct Bound {
    agent: Option<String>,
    project: Option<String>,
}

impl Bound {
    /// The argument names filled in, which the tools' schemas leave out.
    fn names(&self) -> Vec<&'static str> {
        let mut names = Vec::new();
        if self.agent.is_some() {
            names.push("agent_id");
        }
        if self.project.is_some() {
            names.push("project_id");
        }
        names
    }

    /// `args` with the agent (and the project, for an operation whose options carry the
    /// isolation axes: [`Scope::Axes`]) filled in; an argument the flags fix is refused as the
    /// package's handle refuses it (`unknown_option`, naming it), so a call cannot reach
    /// another agent.
    fn fill(&self, tool: &str, mut args: Map<String, Value>) -> Result<Value, Box<CallToolResult>> {
        if let Some(fixed) = self.names().into_iter().find(|name| args.contains_key(*name)) {
            let flag = if fixed == "agent_id" { "--agent" } else { "--project" };
            let message = format!("{fixed} is fixed by {flag}; it is not an argument here");
            return Err(Box::new(tool_error("unknown_option", &message, Some(fixed))));
        }
        if let Some(agent) = &self.agent {
            args.insert("agent_id".into(), json!(agent));
        }
        let axes = OPERATIONS.iter().any(|o| o.name == tool && o.scope == Scope::Axes);
        if let (Some(project), true) = (&self.project, axes) {
            args.insert("project_id".into(), json!(project));
        }
        Ok(Value::Object(args))
    }
}

/// One tool call for the memory's thread, and where its result goes.
type Job = (String, Value, oneshot::Sender<CallToolResult>);

struct Server {
    tools: Vec<Tool>,
    bound: Bound,
    memory: mpsc::Sender<Job>,
}

fn main() {
    let Flags { db, bound, key_env, tools } = parse_flags(std::env::args().skip(1));
    let tools = selected_tools(&tools, &bound.names()).unwrap_or_else(|e| usage_error(&format!("--tools: {e}")));
    let key = key_from_env(key_env.as_deref().unwrap_or(KEY_VARIABLE), key_env.is_some()).unwrap_or_else(|e| {
        eprintln!("{NAME}: {e}");
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
        eprintln!("{NAME}: {e}");
        std::process::exit(1);
    }
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a Tokio runtime");
    let served = runtime.block_on(async {
        let server = Server { tools, bound, memory };
        server.serve(rmcp::transport::stdio()).await?.waiting().await?;
        Ok::<_, Box<dyn std::error::Error>>(())
    });
    // The server, its tasks and their senders are gone with the runtime: the memory's
    // thread runs out of calls, and closes the database before this process ends.
    drop(runtime);
    let _ = memory_thread.join();
    if let Err(e) = served {
        eprintln!("{NAME}: {e}");
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

/// The generated definitions, in their order.
fn definitions() -> Vec<Value> {
    serde_json::from_str(TOOL_DEFINITIONS).expect("the generated definitions are JSON")
}

/// The tools' names, in their order.
fn definition_names() -> Vec<String> {
    definitions().iter().map(|t| t["name"].as_str().expect("each definition has a name").to_owned()).collect()
}

/// The generated definitions `selection` selects, as MCP tools (`tools/list` in MCP's
/// spelling: `inputSchema`, `outputSchema`, `annotations`), in their order, without the
/// arguments in `bound` (which the server fills in); a name that is no tool is refused,
/// listing the tools.
fn selected_tools(selection: &ToolSelection, bound: &[&str]) -> Result<Vec<Tool>, String> {
    let mut definitions = definitions();
    for t in &mut definitions {
        let schema = &mut t["input_schema"];
        if let Some(properties) = schema["properties"].as_object_mut() {
            properties.retain(|name, _| !bound.contains(&name.as_str()));
        }
        if let Some(required) = schema["required"].as_array_mut() {
            required.retain(|name| !bound.iter().any(|b| name == b));
        }
    }
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
        Err(e) => tool_error(e.code(), &e.to_string(), e.field()),
    }
}

/// A refused call as a tool error (`isError`): `{"error": code, "message", "field"}` as text.
fn tool_error(code: &str, message: &str, field: Option<&str>) -> CallToolResult {
    let mut body = json!({"error": code, "message": message});
    if let Some(field) = field {
        body["field"] = json!(field);
    }
    CallToolResult::error(vec![ContentBlock::text(body.to_string())])
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
        let args = match self.bound.fill(&request.name, request.arguments.unwrap_or_default()) {
            Ok(args) => args,
            Err(refused) => return Ok(CallToolResponse::Complete(*refused)),
        };
        let (reply, result) = oneshot::channel();
        let ended = || ErrorData::internal_error("the memory's thread ended", None);
        self.memory.send((request.name.into_owned(), args, reply)).map_err(|_| ended())?;
        Ok(CallToolResponse::Complete(result.await.map_err(|_| ended())?))
    }
}

//! MCP clients: the config to paste into each, and adding the server to
//! one through its own command (Claude Code, Codex) or config file
//! (opencode).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::{json, Value};

/// The MCP clients setup knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum McpClient {
    Claude,
    Opencode,
    Codex,
}

impl McpClient {
    pub fn name(self) -> &'static str {
        match self {
            McpClient::Claude => "claude",
            McpClient::Opencode => "opencode",
            McpClient::Codex => "codex",
        }
    }

    pub fn from_name(name: &str) -> Option<McpClient> {
        [McpClient::Claude, McpClient::Opencode, McpClient::Codex]
            .into_iter()
            .find(|c| c.name() == name)
    }
}

/// The server's name in every client.
const SERVER: &str = "zellij";

/// Ready-to-paste config for each client, for the bridge at `exe`.
pub fn paste_config(exe: &Path) -> String {
    let exe = exe.display();
    let opencode = json!({"mcp": {SERVER: {"type": "local", "command": [exe.to_string()]}}});
    format!(
        "Claude Code:  claude mcp add --scope user {SERVER} -- {exe}\n\
         Codex:        codex mcp add {SERVER} -- {exe}\n\
         opencode:     in ~/.config/opencode/opencode.json: {opencode}\n"
    )
}

/// How a client gets (or loses) the server.
pub enum ClientStep {
    /// A command of the client's own.
    Run { program: String, args: Vec<String> },
    /// opencode's config file, as it will be.
    Write { path: PathBuf, text: String },
    /// opencode's config file, which held nothing else.
    Remove { path: PathBuf },
    /// Nothing to do, and why.
    Skip(String),
}

/// Adding the server at `exe` to `client`.
pub fn add(client: McpClient, exe: &Path) -> ClientStep {
    let exe = exe.display().to_string();
    match client {
        McpClient::Claude => {
            let present = ["mcp", "get", SERVER];
            let add = ["mcp", "add", "--scope", "user", SERVER, "--"];
            command_step("claude", &present, &add, &exe)
        }
        McpClient::Codex => {
            let present = ["mcp", "get", SERVER];
            let add = ["mcp", "add", SERVER, "--"];
            command_step("codex", &present, &add, &exe)
        }
        McpClient::Opencode => opencode_step(|config| {
            let servers = config.entry("mcp").or_insert_with(|| json!({}));
            let Some(servers) = servers.as_object_mut() else {
                return Err("its \"mcp\" is not an object".into());
            };
            if servers.contains_key(SERVER) {
                return Ok(false);
            }
            servers.insert(SERVER.into(), json!({"type": "local", "command": [exe]}));
            Ok(true)
        }),
    }
}

/// Removing the server from `client`.
pub fn remove(client: McpClient) -> ClientStep {
    match client {
        McpClient::Claude => run_step("claude", &["mcp", "remove", "--scope", "user", SERVER]),
        McpClient::Codex => run_step("codex", &["mcp", "remove", SERVER]),
        McpClient::Opencode => opencode_step(|config| {
            let servers = config.get_mut("mcp").and_then(Value::as_object_mut);
            Ok(servers.is_some_and(|s| s.remove(SERVER).is_some()))
        }),
    }
}

fn command_step(program: &str, present: &[&str], add: &[&str], exe: &str) -> ClientStep {
    if !installed(program) {
        return ClientStep::Skip(format!("{program} is not on PATH; paste its line below"));
    }
    let known = Command::new(program)
        .args(present)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if known {
        return ClientStep::Skip(format!("{program} already has the {SERVER} server"));
    }
    let mut args: Vec<String> = add.iter().map(|a| a.to_string()).collect();
    args.push(exe.to_owned());
    ClientStep::Run {
        program: program.to_owned(),
        args,
    }
}

fn run_step(program: &str, args: &[&str]) -> ClientStep {
    if !installed(program) {
        return ClientStep::Skip(format!("{program} is not on PATH"));
    }
    ClientStep::Run {
        program: program.to_owned(),
        args: args.iter().map(|a| a.to_string()).collect(),
    }
}

/// opencode's config with `edit` applied, when it changed something.
fn opencode_step(
    edit: impl FnOnce(&mut serde_json::Map<String, Value>) -> Result<bool, String>,
) -> ClientStep {
    let path = opencode_config();
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    let mut config = match text.trim() {
        "" => serde_json::Map::new(),
        text => match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(config)) => config,
            _ => {
                return ClientStep::Skip(format!(
                    "{} is not plain JSON; paste its line below",
                    path.display()
                ))
            }
        },
    };
    match edit(&mut config) {
        Ok(true) if config == only_empty_mcp() => ClientStep::Remove { path },
        Ok(true) => {
            let mut text = serde_json::to_string_pretty(&config).unwrap_or_default();
            text.push('\n');
            ClientStep::Write { path, text }
        }
        Ok(false) => ClientStep::Skip(format!("{} needs no change", path.display())),
        Err(why) => ClientStep::Skip(format!("{}: {why}", path.display())),
    }
}

/// A config with nothing in it but an empty `mcp`: setup made it, and
/// removing the server leaves nothing of the user's.
fn only_empty_mcp() -> serde_json::Map<String, Value> {
    let mut config = serde_json::Map::new();
    config.insert("mcp".into(), json!({}));
    config
}

/// `$XDG_CONFIG_HOME/opencode/opencode.json`, else under `~/.config`.
fn opencode_config() -> PathBuf {
    let config = std::env::var_os("XDG_CONFIG_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(std::env::var_os("HOME").unwrap_or_default()).join(".config")
        });
    config.join("opencode/opencode.json")
}

fn installed(program: &str) -> bool {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path).any(|dir| dir.join(program).is_file())
}

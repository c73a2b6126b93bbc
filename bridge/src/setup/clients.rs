//! MCP clients: the config to paste into each, and adding the server to
//! one through its own command (Claude Code, Codex) or config file
//! (opencode, Gemini CLI).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::{json, Value};

/// The MCP clients setup knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum McpClient {
    Claude,
    Opencode,
    Codex,
    Gemini,
}

impl McpClient {
    pub fn name(self) -> &'static str {
        match self {
            McpClient::Claude => "claude",
            McpClient::Opencode => "opencode",
            McpClient::Codex => "codex",
            McpClient::Gemini => "gemini",
        }
    }

    pub fn from_name(name: &str) -> Option<McpClient> {
        let all = [
            McpClient::Claude,
            McpClient::Opencode,
            McpClient::Codex,
            McpClient::Gemini,
        ];
        all.into_iter().find(|c| c.name() == name)
    }

    /// The JSON file it keeps its servers in, under which key, for the
    /// clients setup edits by file.
    fn config_file(self) -> Option<(PathBuf, &'static str)> {
        match self {
            McpClient::Opencode => Some((config_home().join("opencode/opencode.json"), "mcp")),
            McpClient::Gemini => Some((home().join(".gemini/settings.json"), "mcpServers")),
            McpClient::Claude | McpClient::Codex => None,
        }
    }

    /// Its entry for the bridge at `exe`.
    fn entry(self, exe: &str) -> Value {
        match self {
            McpClient::Opencode => json!({"type": "local", "command": [exe]}),
            _ => json!({"command": exe, "args": []}),
        }
    }
}

/// The server's name in every client.
const SERVER: &str = "zellij";

/// Ready-to-paste config for each client, for the bridge at `exe`.
pub fn paste_config(exe: &Path) -> String {
    let exe = exe.display();
    let exe = exe.to_string();
    let opencode = json!({"mcp": {SERVER: McpClient::Opencode.entry(&exe)}});
    let gemini = json!({"mcpServers": {SERVER: McpClient::Gemini.entry(&exe)}});
    format!(
        "Claude Code:  claude mcp add --scope user {SERVER} -- {exe}\n\
         Codex:        codex mcp add {SERVER} -- {exe}\n\
         opencode:     in ~/.config/opencode/opencode.json: {opencode}\n\
         Gemini CLI:   in ~/.gemini/settings.json: {gemini}\n"
    )
}

/// How a client gets (or loses) the server.
pub enum ClientStep {
    /// A command of the client's own.
    Run { program: String, args: Vec<String> },
    /// The client's config file, as it will be.
    Write { path: PathBuf, text: String },
    /// The client's config file, which held nothing else.
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
        McpClient::Opencode | McpClient::Gemini => file_step(client, |servers| {
            if servers.contains_key(SERVER) {
                return false;
            }
            servers.insert(SERVER.into(), client.entry(&exe));
            true
        }),
    }
}

/// Removing the server from `client`.
pub fn remove(client: McpClient) -> ClientStep {
    match client {
        McpClient::Claude => run_step("claude", &["mcp", "remove", "--scope", "user", SERVER]),
        McpClient::Codex => run_step("codex", &["mcp", "remove", SERVER]),
        McpClient::Opencode | McpClient::Gemini => {
            file_step(client, |servers| servers.remove(SERVER).is_some())
        }
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

/// The client's config file with `edit` applied to its servers, when it
/// changed something.
fn file_step(
    client: McpClient,
    edit: impl FnOnce(&mut serde_json::Map<String, Value>) -> bool,
) -> ClientStep {
    let Some((path, key)) = client.config_file() else {
        return ClientStep::Skip(format!("{} has no config file setup edits", client.name()));
    };
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
    let servers = config.entry(key).or_insert_with(|| json!({}));
    let Some(servers) = servers.as_object_mut() else {
        return ClientStep::Skip(format!(
            "{}: its \"{key}\" is not an object",
            path.display()
        ));
    };
    let changed = edit(servers);
    if servers.is_empty() {
        config.remove(key);
    }
    match changed {
        // Setup made the file, and removing the server leaves nothing of
        // the user's.
        true if config.is_empty() => ClientStep::Remove { path },
        true => {
            let mut text = serde_json::to_string_pretty(&config).unwrap_or_default();
            text.push('\n');
            ClientStep::Write { path, text }
        }
        false => ClientStep::Skip(format!("{} needs no change", path.display())),
    }
}

pub(super) fn home() -> PathBuf {
    PathBuf::from(std::env::var_os("HOME").unwrap_or_default())
}

/// `$XDG_CONFIG_HOME`, else `~/.config`.
pub fn config_home() -> PathBuf {
    std::env::var_os("XDG_CONFIG_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| home().join(".config"))
}

pub(super) fn installed(program: &str) -> bool {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path).any(|dir| dir.join(program).is_file())
}

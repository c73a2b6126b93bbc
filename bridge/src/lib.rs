//! `zellij-mcp`: an MCP stdio server that lets AI agents drive a live Zellij
//! session. Each tool call becomes one request to the zellij-mcp plugin
//! running inside the session, which acts on panes by id.
//!
//! - [`tools`]: the MCP tools, one small function each.
//! - [`client`]: shared request plumbing (session, transport, errors).
//! - [`transport`]: the direct socket and the `zellij pipe` CLI fallback.
//! - [`sessions`]: finding sessions and choosing one.
//! - [`own_pane`]: which pane this server runs in.
//! - [`pane_state`]: what a pane is doing, from its processes.
//! - [`notify`]: the `notify` command, a message from a shell.
//! - [`call`]: the `call` and `tools` commands, any tool from a shell.
//! - [`tables`]: pane, tab and session lists as text tables.
//! - [`setup`]: the `setup` command, from nothing to a working setup.
//! - [`doctor`]: the `doctor` command, what is wrong and how to fix it.
//! - [`http`]: `serve --http`, the server over streamable HTTP with a token.
//! - [`tmux`]: `tmux` and `claude`, Claude Code's agent teams in Zellij panes.
//! - [`replies`]: an agent's replies, from its program's own record.
//! - [`private`]: what the server writes stays the user's own.
//! - [`embedded`]: the plugin this binary carries.
//!
//! The binary (`main.rs`) only parses options and serves [`tools::ZellijMcp`]
//! on stdio (or runs `notify`); tests build the same server around a fake transport.
//! stdout carries MCP; logs go to stderr.

pub mod agent_file;
pub mod agents;
pub mod call;
pub mod client;
pub mod doctor;
pub mod embedded;
pub mod http;
pub mod notify;
pub mod own_pane;
pub mod pane_state;
pub mod private;
pub mod processes;
pub mod replies;
pub mod sessions;
pub mod setup;
pub mod tables;
pub mod tmux;
pub mod tools;
pub mod transport;

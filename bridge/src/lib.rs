//! `zellij-mcp`: an MCP stdio server that lets AI agents drive a live Zellij
//! session. Each tool call becomes one request to the zellij-mcp plugin
//! running inside the session, which acts on panes by id.
//!
//! - [`tools`]: the MCP tools, one small function each, and their results
//!   as text tables.
//! - [`server`]: the server's own concerns: HTTP, its own pane, private files.
//! - [`transport`]: picking the session and reaching its plugin: the request
//!   plumbing, the direct socket and the `zellij pipe` CLI fallback.
//! - [`processes`]: what the process table tells, and the pane states built
//!   from it.
//! - [`commands`]: the commands for people (`agents`, `call`, `doctor`,
//!   `notify`).
//! - [`setup`]: the `setup` command, the plugin this binary carries, and the
//!   person's agent descriptions.
//! - [`tmux`]: `tmux` and `claude`, Claude Code's agent teams in Zellij panes.
//! - [`replies`]: an agent's replies, from its program's own record.
//! - [`relay`]: `relay`, a program on a pty of zellij-mcp's own inside its
//!   pane.
//!
//! The binary (`main.rs`) only parses options and serves [`tools::ZellijMcp`]
//! on stdio (or runs `notify`); tests build the same server around a fake transport.
//! stdout carries MCP; logs go to stderr.

pub mod commands;
pub mod processes;
pub mod relay;
pub mod replies;
pub mod server;
pub mod setup;
pub mod tmux;
pub mod tools;
pub mod transport;

//! The operations the plugin executes: their names, arguments and results.
//!
//! With the `schema` feature every type also derives `schemars::JsonSchema`,
//! so the bridge publishes these very types as MCP input and output schemas.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

use crate::PaneRef;

#[cfg(feature = "schema")]
use schemars::JsonSchema;

/// Op names, as carried in [`crate::Request::op`].
pub mod names {
    pub const HELLO: &str = "hello";
    pub const LIST_PANES: &str = "list_panes";
    pub const READ: &str = "read";
    pub const WRITE: &str = "write";
}

/// Default pause between typed text and the lone CR of a submit.
pub const DEFAULT_SUBMIT_DELAY_MS: u64 = 150;
/// Longest pause a caller may ask for between text and CR.
pub const MAX_SUBMIT_DELAY_MS: u64 = 10_000;
/// Default cap on text returned by `read`.
pub const DEFAULT_READ_MAX_BYTES: usize = 64 * 1024;
/// Largest cap a caller may ask `read` for.
pub const MAX_READ_MAX_BYTES: usize = 4 * 1024 * 1024;
/// Largest `text` one `write` accepts; send longer input in several writes.
pub const MAX_WRITE_BYTES: usize = 256 * 1024;

/// `hello`: who answers, and whether it is the acting instance.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct HelloResult {
    pub plugin_version: String,
    pub protocol: u32,
    pub plugin_id: u32,
    pub client_id: u16,
    pub zellij_pid: u32,
    /// The plugin's own URL as Zellij loaded it, once the pane list has arrived.
    pub plugin_url: Option<String>,
    /// The plugin's configuration from the layout; pipes must repeat it to
    /// reach this instance rather than launch another.
    pub configuration: BTreeMap<String, String>,
    /// Whether the session state (panes and tabs) has arrived.
    pub ready: bool,
}

/// `list_panes` takes no arguments yet.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct ListPanesArgs {}

/// Where a pane is on screen, in cells.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct Geometry {
    pub x: usize,
    pub y: usize,
    pub rows: usize,
    pub cols: usize,
}

/// One pane as Zellij reports it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct PaneEntry {
    /// `terminal_N` or `plugin_N`.
    pub pane_id: PaneRef,
    /// Stable id of the pane's tab (survives tab moves and renames).
    pub tab_id: Option<usize>,
    /// 0-based position of the tab.
    pub tab_position: usize,
    pub tab_name: String,
    pub title: String,
    /// The command a command pane was started with (None for shells and plugins).
    pub command: Option<String>,
    /// The plugin URL, for plugin panes.
    pub plugin_url: Option<String>,
    /// The pane's command has exited.
    pub exited: bool,
    pub exit_status: Option<i32>,
    /// The exited pane is held open; writing a CR into it re-runs the command.
    pub held: bool,
    /// Focused by at least one client in its tab.
    pub focused: bool,
    pub floating: bool,
    /// Hidden (suppressed) panes exist but are not shown.
    pub suppressed: bool,
    pub selectable: bool,
    pub geometry: Geometry,
    /// This is the pane the bridge itself runs in (`ZELLIJ_PANE_ID`).
    #[serde(default)]
    pub is_self: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct ListPanesResult {
    /// The session these panes belong to.
    #[serde(default)]
    pub session: String,
    pub panes: Vec<PaneEntry>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct ReadArgs {
    /// The pane to read: `terminal_N` (or a bare N) or `plugin_N`.
    pub pane_id: PaneRef,
    /// true: the whole scrollback; false (default): only the visible screen.
    #[serde(default)]
    pub full: bool,
    /// Keep at most this many bytes, from the end. Default 65536, max 4194304.
    #[serde(default)]
    pub max_bytes: Option<usize>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct ReadResult {
    #[serde(default)]
    pub session: String,
    pub pane_id: PaneRef,
    pub tab_id: Option<usize>,
    /// Plain text, lines joined with `\n`, trailing padding removed.
    pub text: String,
    /// Lines in `text`.
    pub lines: usize,
    /// Earlier lines were dropped to respect `max_bytes`.
    pub truncated: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct WriteArgs {
    /// The terminal pane to type into: `terminal_N` or a bare N.
    pub pane_id: PaneRef,
    /// Text typed as is (no newline is added).
    #[serde(default)]
    pub text: Option<String>,
    /// Named keys sent after `text`, e.g. ["Enter"], ["Ctrl c"], ["Up", "Enter"].
    #[serde(default)]
    pub keys: Vec<String>,
    /// Submit: after the text and keys, send a lone CR from a timer, so TUIs
    /// (Ink apps such as Claude Code, Codex) take it as Return.
    #[serde(default)]
    pub submit: bool,
    /// Pause before the submit CR. Default 150, max 10000.
    #[serde(default)]
    pub submit_delay_ms: Option<u64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct WriteResult {
    #[serde(default)]
    pub session: String,
    pub pane_id: PaneRef,
    pub tab_id: Option<usize>,
    /// Bytes written, the submit CR included.
    pub bytes_written: usize,
    /// A submit CR was written (the reply comes after it).
    pub submitted: bool,
}

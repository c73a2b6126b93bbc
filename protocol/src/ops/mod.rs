//! The operations the plugin executes: their names, arguments and results.
//!
//! With the `schema` feature every type also derives `schemars::JsonSchema`,
//! so the bridge publishes these very types as MCP input and output schemas.
//! Field docs become schema descriptions, so they stay short.
//! `session` fields in results are filled in by the bridge.

mod io;
mod layout;
mod panes;
mod session;

pub use io::*;
pub use layout::*;
pub use panes::*;
pub use session::*;

/// Op names, as carried in [`crate::Request::op`].
pub mod names {
    pub const HELLO: &str = "hello";
    pub const SESSION_INFO: &str = "session_info";
    pub const LIST_TABS: &str = "list_tabs";
    pub const LIST_PANES: &str = "list_panes";
    pub const NEW_TAB: &str = "new_tab";
    pub const NEW_PANE: &str = "new_pane";
    pub const CLOSE: &str = "close";
    pub const RENAME: &str = "rename";
    pub const FOCUS: &str = "focus";
    pub const ARRANGE_PANE: &str = "arrange_pane";
    /// A pane's screen; the bridge reads scrollbacks itself.
    pub const READ: &str = "read";
    /// A pane's tab, or `pane_not_found`.
    pub const LOCATE: &str = "locate";
    /// The pane a process runs in (the bridge's own, when its environment
    /// does not say).
    pub const PANE_OF_PROCESS: &str = "pane_of_process";
    pub const WRITE: &str = "write";
    pub const WAIT_FOR: &str = "wait_for";
    pub const RUN: &str = "run";
    pub const SIGNAL: &str = "signal";
    pub const OPEN_FILE: &str = "open_file";
    pub const DUMP_LAYOUT: &str = "dump_layout";
    /// Ends a waiting `wait_for` or `run` early (the MCP call was cancelled).
    pub const CANCEL: &str = "cancel";
    /// The reply to an earlier request whose pipe client died before it came.
    pub const REPLAY: &str = "replay";
    /// Whether the plugin still has an earlier request (it forgets them
    /// when reloaded).
    pub const STATUS: &str = "status";
}

/// Default pause between typed text and the lone CR of a submit.
pub const DEFAULT_SUBMIT_DELAY_MS: u64 = 150;
/// Longest pause a caller may ask for between text and CR.
pub const MAX_SUBMIT_DELAY_MS: u64 = 10_000;
/// Default cap on text returned by `read` and `run`.
pub const DEFAULT_READ_MAX_BYTES: usize = 64 * 1024;
/// Largest cap a caller may ask `read` or `run` for.
pub const MAX_READ_MAX_BYTES: usize = 4 * 1024 * 1024;
/// Largest `text` one `write` accepts; send longer input in several writes.
pub const MAX_WRITE_BYTES: usize = 256 * 1024;
/// Default and longest time `wait_for` and `run` wait.
pub const DEFAULT_WAIT_MS: u64 = 30_000;
pub const MAX_WAIT_MS: u64 = 600_000;
/// Lines of context `wait_for` returns by default.
pub const DEFAULT_LAST_LINES: usize = 20;

#[cfg(feature = "schema")]
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The session the result belongs to, and the pane and tab acted on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct PaneResult {
    #[serde(default)]
    pub session: String,
    pub pane_id: crate::PaneRef,
    pub tab_id: Option<usize>,
}

/// No arguments.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct NoArgs {}

//! Listing, creating, closing, renaming, focusing and arranging panes and tabs.

#[cfg(feature = "schema")]
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::{PaneRef, TabRef};

/// Where a pane is on screen, in cells.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct Geometry {
    pub x: usize,
    pub y: usize,
    pub rows: usize,
    pub cols: usize,
}

/// One pane: what an agent needs to choose it, and with `details` the rest
/// of what Zellij reports. Flags are listed only when true.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct PaneEntry {
    pub pane_id: PaneRef,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tab_id: Option<usize>,
    pub title: String,
    /// Its agent name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    /// The program in the foreground (an interpreter's script), by name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub program: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<crate::ops::PaneState>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_status: Option<i32>,
    #[serde(default, skip_serializing_if = "crate::ops::is_false")]
    pub exited: bool,
    #[serde(default, skip_serializing_if = "crate::ops::is_false")]
    pub focused: bool,
    #[serde(default, skip_serializing_if = "crate::ops::is_false")]
    pub floating: bool,
    /// A background pane, shown by zellij_focus.
    #[serde(default, skip_serializing_if = "crate::ops::is_false")]
    pub hidden: bool,
    /// The pane this server runs in.
    #[serde(default, skip_serializing_if = "crate::ops::is_false")]
    pub is_self: bool,
    /// Its own process (listed with details).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pid: Option<u32>,
    #[serde(flatten, default, skip_serializing_if = "Option::is_none")]
    pub details: Option<PaneDetails>,
}

/// The rest of a pane's facts, listed with `details: true`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct PaneDetails {
    pub tab_position: usize,
    pub tab_name: String,
    /// The command a command pane was started with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    /// The foreground process's argv.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub running: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plugin_url: Option<String>,
    /// Exited but kept open; a CR typed into it re-runs the command.
    pub held: bool,
    pub fullscreen: bool,
    pub selectable: bool,
    pub geometry: Geometry,
}

/// `register_agent`: names the caller's pane.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct RegisterAgentArgs {
    /// Dotted, e.g. main.feature.auth.
    pub name: String,
    /// Agent reads lines (no composer).
    #[serde(default)]
    pub reads_lines: bool,
}

/// Filters; all optional and combined with AND.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct ListPanesArgs {
    pub tab: Option<TabRef>,
    /// Substring of the title.
    pub title: Option<String>,
    /// Substring of the start or foreground command.
    pub command: Option<String>,
    pub exited: Option<bool>,
    pub floating: Option<bool>,
    pub state: Option<crate::ops::PaneState>,
    /// Also plugin panes.
    #[serde(default)]
    pub include_plugins: bool,
    /// Also tab name, position, start command, argv, cwd, pid, geometry.
    #[serde(default)]
    pub details: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct ListPanesResult {
    pub panes: Vec<PaneEntry>,
}

/// background: hidden until zellij_focus.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Placement {
    #[default]
    Tiled,
    Floating,
    // Described on the enum: a description per variant makes a `oneOf`.
    Background,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct NewTabArgs {
    pub name: Option<String>,
    /// Absolute path; must exist.
    pub cwd: Option<String>,
    /// Layout KDL, a layout name (e.g. compact), or a .kdl path.
    pub layout: Option<String>,
    /// Switch to it (default false).
    #[serde(default)]
    pub focus: bool,
}

/// How long the plugin waits for Zellij to show a new tab before it
/// answers `new_tab` with an error (Zellij starts the tab's panes' programs
/// first). The bridge waits this much longer than for other ops.
pub const NEW_TAB_SHOWN_WITHIN: std::time::Duration = std::time::Duration::from_secs(8);

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct NewTabResult {
    pub tab_id: usize,
    pub position: usize,
    pub name: String,
    pub pane_ids: Vec<PaneRef>,
    pub focused: bool,
}

/// Where a new pane opens, shared by the ops that open one.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct Opening {
    /// Default: the caller's, else the active.
    pub tab: Option<TabRef>,
    #[serde(default)]
    pub placement: Placement,
    /// Focus it (default false).
    #[serde(default)]
    pub focus: bool,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct NewPaneArgs {
    /// argv, e.g. ["htop"]; default: a shell.
    pub command: Option<Vec<String>>,
    pub cwd: Option<String>,
    pub name: Option<String>,
    /// Agent name, e.g. main.tests.
    pub agent_name: Option<String>,
    /// Agent reads lines (no composer).
    #[serde(default)]
    pub reads_lines: bool,
    /// Under zellij-mcp's relay (default true).
    pub relay: Option<bool>,
    /// Record it (asciicast; path: recording).
    #[serde(default)]
    pub record: bool,
    /// The file the bridge records it to, for `record`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schema", schemars(skip))]
    pub record_to: Option<String>,
    #[serde(flatten)]
    pub at: Opening,
}

/// `zellij_new_pane`'s answer: the pane, and the file it is recorded to.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct NewPaneResult {
    #[serde(flatten)]
    pub pane: super::PaneResult,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recording: Option<String>,
}

/// A pane or a tab: exactly one of the two.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct Target {
    pub pane_id: Option<PaneRef>,
    pub tab: Option<TabRef>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct CloseArgs {
    #[serde(flatten)]
    pub target: Target,
    /// Allow closing the caller's own pane or tab, or the last tab.
    #[serde(default)]
    pub force: bool,
}

/// A pane that was closed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct ClosedPane {
    pub pane_id: PaneRef,
    pub title: String,
    pub command: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct CloseResult {
    /// Set when a whole tab was closed.
    pub tab_id: Option<usize>,
    pub closed: Vec<ClosedPane>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct RenameArgs {
    #[serde(flatten)]
    pub target: Target,
    pub name: String,
}

/// The pane (if one was targeted) and tab acted on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct TargetResult {
    pub pane_id: Option<PaneRef>,
    pub tab_id: Option<usize>,
    pub name: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    Left,
    Right,
    Up,
    Down,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct Resize {
    /// Edge to move; none: all edges.
    pub direction: Option<Direction>,
    /// Steps: positive grows, negative shrinks (max 20).
    pub amount: i32,
}

/// Changes applied in this order: embed/float, move, resize, fullscreen, pin.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct ArrangePaneArgs {
    pub pane_id: PaneRef,
    pub resize: Option<Resize>,
    /// true: float it; false: embed it as tiled.
    pub floating: Option<bool>,
    pub fullscreen: Option<bool>,
    /// Keep a floating pane on top.
    pub pinned: Option<bool>,
    pub move_to_tab: Option<TabRef>,
    /// Allow this server's pane.
    #[serde(default)]
    pub force: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct ArrangePaneResult {
    pub pane_id: PaneRef,
    pub tab_id: Option<usize>,
    pub floating: bool,
    pub fullscreen: bool,
    pub geometry: Geometry,
}

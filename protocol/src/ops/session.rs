//! Sessions, clients and tabs.

#[cfg(feature = "schema")]
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

use crate::PaneRef;

/// `hello`'s arguments.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct HelloArgs {
    /// The bridge's own executable: the plugin runs it to learn which
    /// conversation each agent pane holds (`zellij-mcp conversation`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bridge: Option<String>,
}

impl HelloArgs {
    /// This process's own executable, where it can tell.
    pub fn this_bridge() -> HelloArgs {
        let exe = std::env::current_exe().ok();
        HelloArgs {
            bridge: exe.map(|p| p.display().to_string()),
        }
    }
}

/// `hello`: who answers, and whether it is the acting instance.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
    /// The clients whose instance of this plugin has loaded (Zellij runs one
    /// per client that has attached).
    #[serde(default)]
    pub instances: Vec<u16>,
    /// Which build of the plugin this is (a hash of its sources); a bridge
    /// carries the plugin of one build.
    #[serde(default)]
    pub build_id: String,
    /// Screens waits read on their own (not brought by render events)
    /// since this instance loaded.
    #[serde(default)]
    pub wait_looks: u64,
    /// The digest of the person's agent descriptions this instance uses
    /// (`agent_programs::digest`); empty for none.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub programs_digest: String,
}

/// `describe_programs`: the person's file of agent descriptions (see
/// `agent_programs`), or none to use the built-in ones alone.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct DescribeProgramsArgs {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
}

/// The descriptions now in force from the file, by label, and its digest.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct DescribeProgramsResult {
    pub described: Vec<String>,
    pub digest: String,
}

/// A client attached to the session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct ClientEntry {
    pub client_id: u16,
    /// The pane this client has focused.
    pub pane_id: PaneRef,
    pub tab_id: Option<usize>,
    pub running_command: String,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct SessionInfoResult {
    pub zellij_version: String,
    pub plugin_version: String,
    #[serde(default)]
    pub bridge_version: String,
    pub protocol: u32,
    /// socket or cli.
    #[serde(default)]
    pub transport: String,
    pub clients: Vec<ClientEntry>,
    /// The pane this server runs in (ZELLIJ_PANE_ID), when inside this session.
    #[serde(default)]
    pub own_pane_id: Option<PaneRef>,
    #[serde(default)]
    pub own_tab_id: Option<usize>,
    pub tabs: usize,
    pub panes: usize,
    /// zellij_wait_for and zellij_run calls now waiting in the plugin.
    pub active_waits: usize,
    #[serde(default)]
    pub plugin_memory: PluginMemory,
}

/// What the plugin holds: its heap (Zellij stops a plugin at 16 MiB) and
/// the entries in its caches and queues.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct PluginMemory {
    /// The plugin's wasm linear memory, in bytes.
    pub heap_bytes: usize,
    pub heap_limit_bytes: usize,
    /// Replies kept for replay, and their size in bytes.
    pub kept_replies: usize,
    pub kept_reply_bytes: usize,
    /// Requests answered later (waits included).
    pub in_flight: usize,
    pub pending_replies: usize,
    pub queued_writes: usize,
    pub exit_codes: usize,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct SessionEntry {
    pub name: String,
    /// Used when a call names no session.
    #[serde(default, skip_serializing_if = "crate::ops::is_false")]
    pub default: bool,
    /// The session this server runs in.
    #[serde(default, skip_serializing_if = "crate::ops::is_false")]
    pub current: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct ListSessionsResult {
    pub sessions: Vec<SessionEntry>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct TabEntry {
    /// Stable id (survives moves and renames).
    pub tab_id: usize,
    /// 0-based.
    pub position: usize,
    pub name: String,
    /// Shown to at least one client.
    #[serde(default, skip_serializing_if = "crate::ops::is_false")]
    pub active: bool,
    /// Terminal and plugin panes, hidden ones included.
    pub panes: usize,
    #[serde(default, skip_serializing_if = "crate::ops::is_zero")]
    pub tiled_panes: usize,
    #[serde(default, skip_serializing_if = "crate::ops::is_zero")]
    pub floating_panes: usize,
    #[serde(default, skip_serializing_if = "crate::ops::is_zero")]
    pub hidden_panes: usize,
    #[serde(default, skip_serializing_if = "crate::ops::is_false")]
    pub fullscreen: bool,
    #[serde(default, skip_serializing_if = "crate::ops::is_false")]
    pub floating_visible: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct ListTabsResult {
    pub tabs: Vec<TabEntry>,
}

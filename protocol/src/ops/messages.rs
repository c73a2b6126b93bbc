//! Messages between agents in panes.

#[cfg(feature = "schema")]
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::PaneRef;

/// Largest message text, in bytes.
pub const MAX_MESSAGE_BYTES: usize = 64 * 1024;
/// How long a message is retried by default, and at most (seconds).
pub const DEFAULT_MESSAGE_TTL_S: u64 = 600;
pub const MAX_MESSAGE_TTL_S: u64 = 86_400;
/// How long `send_message` waits for delivery by default, and at most (ms).
pub const DEFAULT_DELIVERY_WAIT_MS: u64 = 2_000;
pub const MAX_DELIVERY_WAIT_MS: u64 = 600_000;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct SendMessageArgs {
    /// A pane id, an agent name, or "parent".
    pub to: String,
    pub text: String,
    /// Sender name, for a caller outside any pane.
    pub from: Option<String>,
    /// Seconds to keep retrying (default 600, max 86400).
    pub ttl_s: Option<u64>,
    /// Wait this long for delivery (default 2000, max 600000).
    pub wait_ms: Option<u64>,
}

/// `delivered`: typed into the target and submitted. Not yet: `queued`
/// (the target is missing, exited or busy; retried until the TTL) or `held`
/// (see `held_because`). `failed`: the TTL passed first. `cancelled`: its
/// sender cancelled it first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum DeliveryStatus {
    Delivered,
    Queued,
    Held,
    Failed,
    Cancelled,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct SendMessageResult {
    /// Session-wide, strictly increasing.
    pub seq: u64,
    pub status: DeliveryStatus,
    pub attempts: u32,
    /// The pane it went to, once delivered.
    pub pane_id: Option<PaneRef>,
    #[serde(default)]
    pub from: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub held_because: Option<HoldReason>,
}

/// Why a message waits for a pane that is there (docs/messages.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum HoldReason {
    Asking,
    Draft,
    NoComposer,
    // The program takes what is typed during a turn into that turn
    // (Codex), so the message waits for the turn to end.
    Working,
}

/// Most bytes of events one `read_events` returns by default, and at most.
pub const DEFAULT_EVENTS_BYTES: usize = 64 * 1024;
pub const MAX_EVENTS_BYTES: usize = 256 * 1024;

/// One line of the session's event log (JSON Lines). `seq` is shared by all
/// events of the session and strictly increasing; a message's seq is the
/// seq of its `queued` event.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LoggedEvent {
    pub seq: u64,
    /// Unix time, ms.
    pub at_ms: u64,
    #[serde(flatten)]
    pub what: Happened,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Happened {
    /// A message was accepted; it is retried until `expires_at_ms`.
    Queued {
        message: u64,
        to: String,
        from: String,
        text: String,
        expires_at_ms: u64,
        /// The client that sent it (see [`crate::envelope::client_of`]):
        /// the one that may cancel it, and whose share of the queue it takes.
        #[serde(default, skip_serializing_if = "String::is_empty")]
        client: String,
    },
    /// Typed into `pane_id` and submitted.
    Delivered {
        message: u64,
        pane_id: PaneRef,
        attempts: u32,
    },
    /// Typed into `pane_id`, but its text stayed in the composer after its
    /// CR (the program took the CR as a new line): not sent, and never
    /// typed again. A person may send or clear it.
    Unsent {
        message: u64,
        pane_id: PaneRef,
        attempts: u32,
    },
    /// The target could not take it; tried again in `next_in_ms`.
    Retry {
        message: u64,
        attempts: u32,
        why: String,
        next_in_ms: u64,
    },
    /// The target's pane shows something it must not be typed into; it is
    /// typed once that ends. Logged when a message is first held, and
    /// again when the reason changes.
    Held {
        message: u64,
        pane_id: PaneRef,
        why: HoldReason,
    },
    /// A pane's agent started asking (a dialog, question or menu): someone
    /// must answer it.
    Asking {
        pane_id: PaneRef,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
    },
    /// A pane's agent has worked with no change on its screen (but its
    /// working sign) nor in its record for longer than the plugin's
    /// `stalled_after_s`: it may hang.
    Stalled {
        pane_id: PaneRef,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
    },
    /// A pane's agent ended a turn a caller asked for (`zellij_ask`): its
    /// reply's first line, and the message that started it.
    Replied {
        pane_id: PaneRef,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        message: Option<u64>,
        first_line: String,
    },
    /// A caller answered, on purpose, the dialog a pane's agent showed.
    Answered {
        pane_id: PaneRef,
        #[serde(default, skip_serializing_if = "String::is_empty")]
        client: String,
    },
    /// Its TTL passed before delivery.
    Expired { message: u64, attempts: u32 },
    /// Its sender cancelled it before delivery.
    Cancelled { message: u64 },
    /// A pane took an agent name.
    Registered { name: String, pane_id: PaneRef },
    /// A named agent's command exited (`code` when Zellij knows it).
    Exited {
        name: String,
        pane_id: PaneRef,
        code: Option<i32>,
    },
    /// A named agent's pane closed; the name is free again.
    Closed { name: String, pane_id: PaneRef },
    /// A command line run in a shell pane ended after its run's timeout.
    RunExited { pane_id: PaneRef, code: Option<i32> },
    /// The log was rotated: the events before are in the `.1` file, and the
    /// messages still pending were logged again just above.
    Rotated,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct CancelMessagesArgs {
    /// Default: all of this caller's.
    pub seq: Option<u64>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct CancelMessagesResult {
    pub cancelled: Vec<u64>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct ReadEventsArgs {
    /// Default 0: from the oldest kept.
    pub since_seq: Option<u64>,
    /// Default 65536, max 262144.
    pub max_bytes: Option<usize>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct ReadEventsResult {
    /// Log lines, oldest first: {seq, at_ms, event, ...}.
    pub events: Vec<serde_json::Map<String, serde_json::Value>>,
    /// Pass as since_seq next time.
    pub last_seq: u64,
    /// More events wait after these.
    pub more: bool,
}

/// `agents`: every agent in the session (a pane with an agent name, or
/// running an agent program), those that need someone first: `asking`,
/// then `idle` with nothing held for it, then the others, `exited` last.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct AgentsResult {
    pub agents: Vec<AgentRow>,
    /// When the plugin looked (Unix ms): `since_ms` counts up to it.
    pub at_ms: u64,
}

/// `explain`: how the agent descriptions read one pane's screen, for a
/// person writing or fixing one (`zellij-mcp agents --explain`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct ExplainArgs {
    pub pane_id: PaneRef,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct ExplainResult {
    pub pane_id: PaneRef,
    /// The program it runs, as descriptions name it (`programs`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub program: Option<String>,
    /// Its agent name, if it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    pub title: String,
    /// The state the pane reads as (none for a pane that is no agent's),
    /// and the description that told it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<crate::ops::PaneState>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub described_by: Option<String>,
    /// Which descriptions were tried, and why those.
    pub tried: String,
    /// The screen, its trailing blanks cut; rows are numbered from 1.
    pub rows: Vec<String>,
    /// Each description tried, in order: what it made of the screen.
    pub readings: Vec<Vec<String>>,
    /// What its program's hooks told last, and when.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hooks: Option<String>,
    /// What its relay's live screen showed last, and when.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub relay: Option<String>,
}

/// One agent: its pane, what its screen shows and since when, and its
/// messages.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct AgentRow {
    pub pane_id: PaneRef,
    pub tab_id: usize,
    pub tab_name: String,
    /// Its agent name, if it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The program it runs (`claude`, `codex`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub program: Option<String>,
    /// The description its screen was told by (`codex`; with its file's
    /// line when the person wrote it: `askbot (agents.kdl:3)`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub described_by: Option<String>,
    pub state: crate::ops::PaneState,
    /// Its state is its hooks' word over a screen that does not show it:
    /// a pane a person scrolled up, one not drawn yet, or a screen its
    /// description cannot read.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub by_hooks: bool,
    /// Its state is its relay's live screen's over a view of the pane
    /// that has shown another for a while: a view a person scrolled up, or
    /// whose output Zellij holds.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub by_relay: bool,
    /// Since when (Unix ms) it has been in this state, as far as the plugin saw.
    pub since_ms: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_status: Option<i32>,
    /// Messages waiting for it.
    #[serde(default, skip_serializing_if = "super::is_zero")]
    pub held: usize,
    /// Why the first of them waits (its screen shows a dialog or a draft).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub held_because: Option<HoldReason>,
    /// The last message delivered to it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_in: Option<LastMessage>,
    /// The last message it sent that was delivered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_out: Option<LastMessage>,
    /// Its last reply a caller asked for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_reply: Option<LastReply>,
    /// The id of the conversation its program holds, as its record names it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conversation: Option<String>,
    /// The file its pane is recorded to (asciicast), while it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recording: Option<String>,
    /// How it came back after its session ended (`resumed`), or why it
    /// did not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub back: Option<String>,
}

/// `resume`: the agent to start again in its conversation; with `turn`,
/// whether it is brought back in its conversation after its session ends
/// (nothing is started then).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResumeArgs {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn: Option<bool>,
}

/// The conversation an agent pane's program holds, as `zellij-mcp
/// conversation` finds it in the program's own record (one JSON line, read
/// by the plugin).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Conversation {
    /// Its id, as the program's resume arguments take it.
    pub id: String,
    /// When its record last changed (Unix ms).
    pub changed_ms: u64,
    /// The processes of the program that holds it: those still running
    /// after its session ended are ended before it is resumed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub processes: Vec<ProcessMark>,
}

/// One process, told apart from any later one that takes its pid.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProcessMark {
    pub pid: u32,
    /// When it started, in its platform's unit.
    pub started: u64,
    /// The machine's boot it ran in, where the start is counted from boot.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub boot: String,
}

impl AgentRow {
    /// Its name, else its program, else its pane id: how people call it.
    pub fn label(&self) -> String {
        self.name
            .clone()
            .or_else(|| self.program.clone())
            .unwrap_or_else(|| self.pane_id.to_string())
    }

    /// Where it goes in the list: who needs someone first.
    pub fn urgency(&self) -> u8 {
        use crate::ops::PaneState::*;
        match self.state {
            Asking | Stalled => 0,
            Idle if self.held == 0 => 1,
            Exited => 3,
            _ => 2,
        }
    }
}

/// A reply, as an agent's row tells it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct LastReply {
    /// The reply's first line (at most [`FIRST_LINE_CHARS`] characters).
    pub first_line: String,
    pub at_ms: u64,
}

/// The most characters of a reply's first line kept and logged.
pub const FIRST_LINE_CHARS: usize = 120;

/// `replied`: the bridge read the reply to a turn (see [`Happened::Replied`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct RepliedArgs {
    pub pane_id: PaneRef,
    /// The message that started the turn.
    pub seq: Option<u64>,
    /// The reply's first line (see [`first_line`]).
    pub first_line: String,
}

/// A reply's first line with text, cut to [`FIRST_LINE_CHARS`].
pub fn first_line(reply: &str) -> String {
    let line = reply.lines().find(|l| !l.trim().is_empty());
    line.unwrap_or_default()
        .trim()
        .chars()
        .take(FIRST_LINE_CHARS)
        .collect()
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct RepliedResult {
    /// The `replied` event's seq.
    pub logged: u64,
}

/// `hook`: what the hook of the program in `pane_id` told (`zellij-mcp
/// hook`, run by the program).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HookArgs {
    pub pane_id: PaneRef,
    pub event: crate::hooks::HookEvent,
    /// The conversation the program names.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conversation: Option<String>,
    /// When the program ran the hook (Unix ms): hooks run side by side
    /// may reach the plugin out of order, and late under load.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub told_ms: Option<u64>,
    /// The program's hooks tell each tool call (see
    /// [`crate::hooks::TELLS_TOOLS`]).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub tells_tools: bool,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct HookResult {}

/// `foreground`: the program in the foreground of `pane_id`'s relay pty
/// (Zellij tells the relay itself), as the relay saw it when it changed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ForegroundArgs {
    pub pane_id: PaneRef,
    /// Its command line.
    pub running: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    /// The file the pane is recorded to, while it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recording: Option<String>,
    /// The state the relay's live screen shows, read by the description
    /// of the agent program in its foreground; none for a program none
    /// describes, or a screen it cannot read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub screen: Option<crate::agent_programs::AgentScreen>,
    /// When the relay read that screen (Unix ms).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub screen_ms: Option<u64>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ForegroundResult {}

/// A delivered message, as an agent's row tells it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct LastMessage {
    pub seq: u64,
    /// Who sent it (for `last_in`) or where it went (for `last_out`).
    pub peer: String,
    pub at_ms: u64,
}

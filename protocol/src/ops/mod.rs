//! The operations the plugin executes: their names, arguments and results.
//!
//! With the `schema` feature every type also derives `schemars::JsonSchema`,
//! so the bridge publishes these very types as MCP input and output schemas.
//! Field docs become schema descriptions, so they stay short.
//! Results do not name their session: the bridge adds it.

mod io;
mod layout;
mod messages;
mod panes;
mod session;

pub use io::*;
pub use layout::*;
pub use messages::*;
pub use panes::*;
pub use session::*;

/// One operation: its name on the wire, its arguments and its result, tied
/// together so that the bridge and the plugin cannot disagree on them.
pub trait Op {
    const NAME: &'static str;
    type Args: Serialize + DeserializeOwned;
    type Result: Serialize + DeserializeOwned;
}

macro_rules! ops {
    ($($(#[$doc:meta])* $op:ident = $name:literal, $args:ty => $result:ty;)*) => {
        /// The ops, one type each (see [`Op`]).
        pub mod op {
            #[allow(unused_imports)]
            use super::*;
            $(
                $(#[$doc])*
                #[derive(Debug, Clone, Copy)]
                pub struct $op;
                impl super::Op for $op {
                    const NAME: &'static str = $name;
                    type Args = $args;
                    type Result = $result;
                }
            )*
            /// Every op's name.
            pub const NAMES: &[&str] = &[$($name),*];
        }
    };
}

ops! {
    /// Who answers, and whether the plugin is ready.
    Hello = "hello", HelloArgs => HelloResult;
    SessionInfo = "session_info", NoArgs => SessionInfoResult;
    ListTabs = "list_tabs", NoArgs => ListTabsResult;
    ListPanes = "list_panes", ListPanesArgs => ListPanesResult;
    NewTab = "new_tab", NewTabArgs => NewTabResult;
    NewPane = "new_pane", NewPaneArgs => PaneResult;
    Close = "close", CloseArgs => CloseResult;
    Rename = "rename", RenameArgs => TargetResult;
    Focus = "focus", Target => TargetResult;
    ArrangePane = "arrange_pane", ArrangePaneArgs => ArrangePaneResult;
    /// Gives the caller's pane an agent name.
    RegisterAgent = "register_agent", RegisterAgentArgs => TargetResult;
    /// Types a message into an agent's pane, in order, retrying until its TTL.
    SendMessage = "send_message", SendMessageArgs => SendMessageResult;
    /// Cancels the caller's own messages not delivered yet.
    CancelMessages = "cancel_messages", CancelMessagesArgs => CancelMessagesResult;
    /// Every agent, who needs someone first (the board's rows).
    Agents = "agents", NoArgs => AgentsResult;
    /// How the agent descriptions read one pane's screen.
    Explain = "explain", ExplainArgs => ExplainResult;
    /// Starts a named agent's program again in its conversation.
    Resume = "resume", ResumeArgs => TargetResult;
    /// Notes a reply the bridge read (the board's last reply, an event).
    Replied = "replied", RepliedArgs => RepliedResult;
    /// Notes what an agent program's hook told.
    Hook = "hook", HookArgs => HookResult;
    /// Notes the program in the foreground of a relayed pane, as its
    /// relay saw it.
    Foreground = "foreground", ForegroundArgs => ForegroundResult;
    /// The session's event log, after a seq.
    ReadEvents = "read_events", ReadEventsArgs => ReadEventsResult;
    /// A pane's screen; the bridge reads scrollbacks itself.
    Read = "read", ReadArgs => ReadResult;
    /// A pane's tab, or `pane_not_found`.
    Locate = "locate", LocateArgs => LocateResult;
    /// The pane a process runs in (the bridge's own, when its environment
    /// does not say).
    PaneOfProcess = "pane_of_process", PaneOfProcessArgs => PaneOfProcessResult;
    Write = "write", WriteArgs => WriteResult;
    /// One round of a wait (see [`WaitReply`]).
    WaitFor = "wait_for", WaitForArgs => WaitReply;
    Run = "run", RunArgs => RunResult;
    /// Types a command line into a shell pane and answers with its exit code.
    RunInPane = "run_in_pane", RunInPaneArgs => RunInPaneResult;
    /// Lets a shell that reported its exit go on (see [`RunInPaneArgs`]).
    Release = "release", ReleaseArgs => ReleaseResult;
    Signal = "signal", SignalArgs => PaneResult;
    OpenFile = "open_file", OpenFileArgs => PaneResult;
    DumpLayout = "dump_layout", DumpLayoutArgs => DumpLayoutResult;
    /// Ends a waiting `wait_for` or `run` early (the MCP call was cancelled).
    Cancel = "cancel", CancelArgs => CancelResult;
    /// A pane the bridge subscribed to changed: waits on it look now.
    PaneChanged = "pane_changed", PaneChangedArgs => PaneChangedResult;
    /// The reply to an earlier request whose pipe client died before it
    /// came; `null` when the plugin never saw that request.
    Replay = "replay", ReplayArgs => Option<crate::Reply>;
    /// The person's agent descriptions, which the bridge reads from their
    /// configuration folder and sends when the plugin's differ.
    DescribePrograms = "describe_programs", DescribeProgramsArgs => DescribeProgramsResult;
    /// Whether the plugin still has an earlier request (it forgets them
    /// when reloaded).
    Status = "status", ReplayArgs => StatusResult;
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
/// Patterns one wait takes, `pattern` and `stop` together.
pub const MAX_WAIT_PATTERNS: usize = 16;
/// Lines of context `wait_for` returns by default.
pub const DEFAULT_LAST_LINES: usize = 20;

#[cfg(feature = "schema")]
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

/// The pane and tab acted on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct PaneResult {
    pub pane_id: crate::PaneRef,
    pub tab_id: Option<usize>,
}

/// No arguments.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct NoArgs {}

/// Flags and counts are left out of answers when false or zero: an agent
/// pays for every byte.
pub(crate) fn is_false(flag: &bool) -> bool {
    !flag
}

pub(crate) fn is_zero(count: &usize) -> bool {
    *count == 0
}

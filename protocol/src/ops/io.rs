//! Reading, writing, waiting on, running in and signalling panes.

#[cfg(feature = "schema")]
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::fresh::Baseline;
use crate::text::Shaped;
use crate::{Cursor, Error, ErrorBody, PaneRef, TabRef};

use super::{Placement, DEFAULT_READ_MAX_BYTES, MAX_READ_MAX_BYTES};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct ReadArgs {
    pub pane_id: PaneRef,
    /// Whole scrollback instead of the visible screen.
    #[serde(default)]
    pub full: bool,
    /// Keep only the last N lines.
    pub tail_lines: Option<usize>,
    /// A cursor from an earlier read: only lines after it (implies full).
    pub since: Option<String>,
    /// At most this many bytes, from the end. Default 65536, max 4194304.
    pub max_bytes: Option<usize>,
    /// An agent's last reply, from its record.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub reply: bool,
}

impl ReadArgs {
    /// A read of the pane's screen.
    pub fn screen(pane_id: PaneRef) -> Self {
        ReadArgs {
            pane_id,
            full: false,
            tail_lines: None,
            since: None,
            max_bytes: None,
            reply: false,
        }
    }

    /// A read of the scrollback, which the bridge does outside the plugin;
    /// the plugin reads only the screen.
    pub fn needs_scrollback(&self) -> bool {
        self.full || self.since.is_some()
    }

    /// `max_bytes` and `since`, checked; bad values are `bad_request` with a fix.
    pub fn checked(&self) -> Result<(usize, Option<Cursor>), ErrorBody> {
        let max_bytes = check_max_bytes(self.max_bytes)?;
        let since = match &self.since {
            Some(token) => Some(Cursor::decode(token).ok_or_else(|| {
                ErrorBody::from(Error::BadRequest {
                    problem: format!("'{token}' is not a read cursor"),
                    fix: "pass the `cursor` of an earlier zellij_read, or omit `since`".into(),
                })
            })?),
            None => None,
        };
        Ok((max_bytes, since))
    }
}

/// A `max_bytes` argument, or the default; `bad_request` when out of range.
pub fn check_max_bytes(max_bytes: Option<usize>) -> Result<usize, ErrorBody> {
    let max_bytes = max_bytes.unwrap_or(DEFAULT_READ_MAX_BYTES);
    if max_bytes == 0 || max_bytes > MAX_READ_MAX_BYTES {
        return Err(ErrorBody::from(Error::BadRequest {
            problem: format!("max_bytes {max_bytes} is out of range"),
            fix: format!("pass max_bytes between 1 and {MAX_READ_MAX_BYTES}"),
        }));
    }
    Ok(max_bytes)
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct ReadResult {
    pub pane_id: PaneRef,
    pub tab_id: Option<usize>,
    /// Plain text (no ANSI), lines joined with \n.
    pub text: String,
    pub lines: usize,
    /// Earlier lines were dropped (max_bytes or tail_lines).
    pub truncated: bool,
    /// Pass as `since` to get only what comes after this read.
    pub cursor: String,
    /// `since` no longer matched the scrollback (cleared or scrolled away); text starts over.
    pub cursor_reset: bool,
    /// The pane's own process.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pid: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<PaneState>,
    /// From the plugin to the bridge: the cursor's row holds text after a
    /// shell's prompt (`draft` when the processes say `prompt`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    #[cfg_attr(feature = "schema", schemars(skip))]
    pub line_draft: bool,
    /// With reply: the prompt that started the turn.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
}

impl ReadResult {
    pub fn new(pane_id: PaneRef, tab_id: Option<usize>, shaped: Shaped) -> Self {
        ReadResult {
            pane_id,
            tab_id,
            text: shaped.text,
            lines: shaped.lines,
            truncated: shaped.truncated,
            cursor: shaped.cursor.encode(),
            cursor_reset: shaped.cursor_reset,
            pid: None,
            state: None,
            line_draft: false,
            prompt: None,
        }
    }
}

/// What a pane is doing (docs/shell-runs.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum PaneState {
    Running,
    Prompt,
    WaitingInput,
    Exited,
    Working,
    Idle,
    Draft,
    Asking,
    Stalled,
    Unknown,
}

impl PaneState {
    /// The states told from what a pane's screen shows.
    pub fn is_shown(self) -> bool {
        use PaneState::*;
        matches!(self, Working | Idle | Draft | Asking | Stalled | Unknown)
    }
}

impl From<crate::agent_programs::AgentScreen> for PaneState {
    fn from(screen: crate::agent_programs::AgentScreen) -> Self {
        use crate::agent_programs::AgentScreen;
        match screen {
            AgentScreen::Working | AgentScreen::Busy => PaneState::Working,
            AgentScreen::Idle => PaneState::Idle,
            AgentScreen::Draft => PaneState::Draft,
            AgentScreen::Asking => PaneState::Asking,
        }
    }
}

/// `locate`: a pane's tab and its own process; with `screen`, also what
/// its screen shows (one read of it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LocateArgs {
    pub pane_id: PaneRef,
    #[serde(default)]
    pub screen: bool,
}

/// `locate`: the pane's tab and its own process.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LocateResult {
    pub pane_id: PaneRef,
    pub tab_id: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pid: Option<u32>,
    /// What an agent's screen shows (see [`PaneState`]); else the
    /// processes tell.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<PaneState>,
    /// See [`ReadResult::line_draft`].
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub line_draft: bool,
    /// With `screen`: the program in the foreground, by name (`codex`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub program: Option<String>,
    /// With `screen`: the folder its process works in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    /// With `screen`: the last turn's end its program's hooks told.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn_ended: Option<TurnEnded>,
    /// With `screen`: the record of its conversation its program's hooks
    /// named.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub record: Option<String>,
    /// With `screen`: the conversation its program's hooks named, by id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conversation: Option<String>,
}

/// A turn's end an agent program's hooks told: when (Unix ms), its prompt
/// and its last message where the program gives them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TurnEnded {
    pub at_ms: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_message: Option<String>,
    /// How many tool events its hooks told in the turn, where they told
    /// each (see [`crate::hooks::TELLS_TOOLS`]) from the turn's start.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_calls: Option<u32>,
}

impl PaneState {
    /// A pane's state: what an agent's screen shows (`shown`), else what
    /// its processes tell (`processes`), a shell at its prompt being
    /// `draft` when its line holds text (`line_draft`).
    pub fn of(
        shown: Option<PaneState>,
        line_draft: bool,
        processes: Option<PaneState>,
    ) -> Option<PaneState> {
        match (shown, processes) {
            (Some(shown), _) => Some(shown),
            (None, Some(PaneState::Prompt)) if line_draft => Some(PaneState::Draft),
            (None, processes) => processes,
        }
    }
}

/// One pane, by id (`locate`: its tab, or `pane_not_found`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PaneArgs {
    pub pane_id: PaneRef,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct WriteArgs {
    pub pane_id: PaneRef,
    /// Typed as is (no newline added).
    pub text: Option<String>,
    /// Named keys sent after text, e.g. ["Enter"], ["Ctrl c"].
    #[serde(default)]
    pub keys: Vec<String>,
    /// Send text as a bracketed paste (multi-line).
    #[serde(default)]
    pub paste: bool,
    /// Then a lone CR after submit_delay_ms (Ink-safe).
    #[serde(default)]
    pub submit: bool,
    /// Default 150, max 10000.
    pub submit_delay_ms: Option<u64>,
    /// Type into an exited or held pane (a CR re-runs it).
    #[serde(default)]
    pub allow_exited: bool,
    /// Answer the dialog it shows (state asking); logged.
    #[serde(default)]
    pub answer: bool,
    /// Allow this server's pane.
    #[serde(default)]
    pub force: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct WriteResult {
    pub pane_id: PaneRef,
    pub tab_id: Option<usize>,
    /// Including the submit CR.
    pub bytes_written: usize,
    pub submitted: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct WaitForArgs {
    pub pane_id: PaneRef,
    /// Regex to wait for (\w, \d, (?i) are ASCII unless (?u)).
    pub pattern: Option<String>,
    /// Treat pattern and stop as literal text.
    #[serde(default)]
    pub literal: bool,
    /// Patterns that end the wait as `stopped` (16 at most).
    #[serde(default)]
    pub stop: Vec<String>,
    /// Done after this long with no new output.
    pub idle_ms: Option<u64>,
    /// Done when the pane's command exits.
    #[serde(default)]
    pub exit: bool,
    /// Done when the pane is in this state (alone).
    pub until_state: Option<PaneState>,
    /// Default 30000, max 600000.
    pub timeout_ms: Option<u64>,
    /// Also match text already shown.
    #[serde(default)]
    pub include_existing: bool,
    /// Lines returned in last_lines (default 20).
    pub last_lines: Option<usize>,
    /// Set by the bridge when it goes on with a wait after checking rows
    /// that went by unseen.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schema", schemars(skip))]
    pub resume: Option<Resume>,
    /// Set by the bridge when it tells the plugin of the pane's changes
    /// (`pane_changed`) for as long as the wait lasts.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    #[cfg_attr(feature = "schema", schemars(skip))]
    pub changes_told: bool,
}

/// Where a resumed wait goes on from, and how long it has waited so far.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Resume {
    pub after: Baseline,
    pub elapsed_ms: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum WaitOutcome {
    Matched,
    Stopped,
    Idle,
    /// The pane reached `until_state`.
    State,
    Exited,
    Timeout,
    PaneClosed,
    Cancelled,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct WaitForResult {
    pub pane_id: PaneRef,
    pub tab_id: Option<usize>,
    pub outcome: WaitOutcome,
    /// The text the pattern (or stop pattern) matched.
    pub matched: Option<String>,
    /// The whole line it matched in.
    pub line: Option<String>,
    pub exit_status: Option<i32>,
    pub elapsed_ms: u64,
    pub last_lines: String,
}

/// The plugin's answer to `wait_for`: the tool's result, and what the bridge
/// still has to look at in the scrollback.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WaitReply {
    #[serde(flatten)]
    pub result: WaitForResult,
    /// Rows went by unseen after this baseline: look for the patterns there.
    #[serde(default)]
    pub unseen: Option<Baseline>,
    /// The wait is not over: it stopped only to have `unseen` checked, and
    /// goes on (`resume`) unless something is found there.
    #[serde(default)]
    pub goes_on: bool,
    /// `last_lines` holds fewer lines than asked and the screen was full:
    /// the rest is in the scrollback.
    #[serde(default)]
    pub short: bool,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct RunArgs {
    /// argv for a new pane; with pane_id, one shell command line (verbatim).
    pub command: RunCommand,
    /// Run in this pane's shell (at its prompt).
    pub pane_id: Option<PaneRef>,
    pub cwd: Option<String>,
    pub tab: Option<TabRef>,
    pub name: Option<String>,
    /// Agent name for the pane.
    pub agent_name: Option<String>,
    /// Agent reads lines (no composer).
    #[serde(default)]
    pub reads_lines: bool,

    /// Default background (hidden).
    pub placement: Option<Placement>,
    /// Wait for the exit (default true).
    pub wait: Option<bool>,
    /// Default 30000, max 600000.
    pub timeout_ms: Option<u64>,
    /// Kill it on timeout (default: left running).
    #[serde(default)]
    pub kill_on_timeout: bool,
    /// Close the pane after the exit.
    #[serde(default)]
    pub close_on_exit: bool,
    /// Output cap in bytes, tail kept. Default 65536.
    pub max_bytes: Option<usize>,
    /// Under zellij-mcp's relay (default true).
    pub relay: Option<bool>,
    /// Record it (asciicast; path: recording).
    #[serde(default)]
    pub record: bool,
    /// The file the bridge records it to, for `record`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schema", schemars(skip))]
    pub record_to: Option<String>,
}

// What `run` runs: argv in a new pane, or a command line in a shell.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(untagged)]
pub enum RunCommand {
    Argv(Vec<String>),
    Line(String),
}

impl Default for RunCommand {
    fn default() -> Self {
        RunCommand::Argv(Vec::new())
    }
}

/// `run_in_pane`: types `text` into a shell pane and answers when the
/// shell sends the exit report `text` leads to: `<status> <token>` on the
/// pipe [`EXIT_PIPE_NAME`]. The report's pipe is held until `release` (the
/// bridge has read the output), then ends with [`RUN_READ`]; so does the
/// pane's next run wait. Typed only at an empty line (else the error
/// `draft`).
///
/// Runs in one pane go one at a time. A run queued behind others is
/// answered `turn` once they are over, not typed: its shell may not be at
/// its prompt yet. The bridge waits for the prompt and sends the same
/// token again (within [`RUN_TURN_WAIT_MS`]), and then it is typed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunInPaneArgs {
    pub pane_id: PaneRef,
    pub text: String,
    pub token: String,
    /// The bridge saw the shell at its prompt (else a run of ours must be
    /// under way there, or the pane is busy).
    pub at_prompt: bool,
    pub timeout_ms: Option<u64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunInPaneResult {
    pub pane_id: PaneRef,
    pub tab_id: Option<usize>,
    pub exit_code: Option<i32>,
    pub timed_out: bool,
    /// Not typed yet: the runs before it are over; send it again once the
    /// shell is at its prompt.
    #[serde(default)]
    pub turn: bool,
    /// The pane's screen as the exit was reported, without its empty rows
    /// at the end: a run whose echo and end marker are both on it is read
    /// from it, without a read of the scrollback.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub screen: Vec<String>,
}

/// How long a run answered `turn` waits to be sent again before the next
/// run has its turn.
pub const RUN_TURN_WAIT_MS: u64 = 10_000;

/// `release`: the output of run `token` is read; its shell and the pane's
/// next run may go on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReleaseArgs {
    pub token: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReleaseResult {
    pub released: bool,
}

/// The pipe a shell's exit report comes on: `<status> <token>`.
pub const EXIT_PIPE_NAME: &str = "zellij-mcp-exit";

/// What the plugin says on a report's pipe when the run's output is read.
pub const RUN_READ: &str = "read";

/// Said first on an exit report's pipe by the instance that takes the
/// report. A report no instance took is sent again for a moment: while a
/// client attaches, Zellij holds pipes back from the instances of clients
/// gone, and the one that typed the run may be one of them.
pub const RUN_TAKEN: &str = "taken";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct RunResult {
    pub pane_id: PaneRef,
    pub tab_id: Option<usize>,
    pub exited: bool,
    pub exit_code: Option<i32>,
    pub output: String,
    pub truncated: bool,
    pub elapsed_ms: u64,
    pub timed_out: bool,
    pub killed: bool,
    /// The pane was closed (close_on_exit).
    pub closed: bool,
    /// A run in a shell pane that timed out: pass as zellij_read's `since`
    /// for the output after what `output` holds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
    /// The file the run is recorded to (record).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recording: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Signal {
    /// Types Ctrl-C (0x03), as a user would.
    Interrupt,
    Sigint,
    Sigkill,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct SignalArgs {
    pub pane_id: PaneRef,
    pub signal: Signal,
    /// Allow this server's pane.
    #[serde(default)]
    pub force: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CancelArgs {
    /// The id of the request to end.
    pub request_id: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CancelResult {
    pub cancelled: bool,
}

/// `pane_changed`: Zellij told the bridge's subscription that this pane
/// changed (or, the first time, that the subscription began).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PaneChangedArgs {
    pub pane_id: PaneRef,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PaneChangedResult {
    /// Waits on the pane that looked at it because of this.
    pub looked: usize,
    /// The pane renders (render events bring its screen to the plugin).
    #[serde(default)]
    pub renders: bool,
}

/// `pane_of_process`: the terminal pane whose process is one of `pids`
/// (the bridge's own process and its ancestors).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PaneOfProcessArgs {
    pub pids: Vec<u32>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PaneOfProcessResult {
    pub pane_id: Option<PaneRef>,
}

/// `status`: what the plugin knows of an earlier request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StatusResult {
    pub state: RequestState,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RequestState {
    /// Not answered yet.
    InFlight,
    /// Answered; `replay` returns the reply.
    Answered,
    /// Answered, but the reply is no longer kept.
    Lost,
    /// Never seen (or forgotten: the plugin was reloaded).
    Unknown,
}

/// `replay`: the result is the earlier request's whole reply, or `null` when
/// the plugin never saw that request. Also the arguments of `status`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReplayArgs {
    pub request_id: String,
}

#[cfg(test)]
mod tests {
    use super::PaneState::*;
    use super::*;

    #[test]
    fn an_agents_screen_tells_first_and_a_shells_draft_only_at_its_prompt() {
        assert_eq!(
            PaneState::of(Some(Asking), false, Some(WaitingInput)),
            Some(Asking)
        );
        assert_eq!(PaneState::of(None, true, Some(Prompt)), Some(Draft));
        assert_eq!(PaneState::of(None, false, Some(Prompt)), Some(Prompt));
        // A `read` builtin or a command: the row after it is no draft.
        assert_eq!(
            PaneState::of(None, true, Some(WaitingInput)),
            Some(WaitingInput)
        );
        assert_eq!(PaneState::of(None, true, Some(Running)), Some(Running));
        assert_eq!(PaneState::of(None, true, None), None);
    }
}

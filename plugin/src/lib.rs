//! The zellij-mcp plugin: runs inside a Zellij session and carries out the
//! bridge's requests on panes **by id**, through the plugin API, without ever
//! moving focus. The plugin's binary (`main.rs`) only registers [`entry`]'s
//! functions with Zellij; everything else is this library, tested natively
//! on a fake host (`fake.rs`, also for other crates with the `fake-host`
//! feature).
//!
//! Its folders are its layers, each importing only from itself and the
//! layers below (`tests/layers.rs` checks it), highest first:
//! - [`entry`]: Zellij's calls in: load, each event, each pipe message
//!   (read piece by piece and refused by size before it is decoded), render;
//! - [`work`]: what the plugin does on its own: a request's life after its
//!   handler, typing queued messages, watching waited-on panes;
//! - [`handlers`]: one handler per op, on the parts of the plugin the
//!   dispatch table hands it;
//! - this root: [`McpPlugin`], the state's parts held together;
//! - [`state`]: plain types that know nothing of [`McpPlugin`];
//! - [`host`]: the Zellij calls the plugin makes, its file reads and its log.
//!
//! [`board`] stands apart: the person's board of agents, the plugin loaded
//! again with `board "true"`, with its own state, drawing and events.

pub mod board;
pub mod entry;
mod handlers;
mod host;
mod state;
mod work;

#[cfg(any(test, feature = "fake-host"))]
pub mod fake;

use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

use zellij_mcp_protocol::agent_programs::Programs;
use zellij_mcp_protocol::ops::{PluginMemory, DEFAULT_SUBMIT_DELAY_MS, MAX_SUBMIT_DELAY_MS};
use zellij_mcp_protocol::PERMISSIONS;
use zellij_tile::prelude::*;

use host::Host;
use state::agents::Agents;
use state::attention::Attention;
use state::event_log::EventLog;
use state::handled::HandlerResult;
use state::hooks::HookReports;
use state::kept::Keeping;
use state::later::Later;
use state::lease::{Acting, Instance, Lease};
use state::messages::Outbox;
use state::pane_facts::PaneFacts;
use state::programs_file::ProgramsFile;
use state::replay::Replies;
use state::session::SessionView;
use state::shell_runs::ShellRuns;
use state::waits::{Purpose, Waits};
use state::writes::WriteQueue;

/// The build id (see `build.rs`) behind a marker, so that the bridge's
/// build can find it in the wasm.
const BUILD_MARK: &str = concat!("zellij-mcp-build-id:", env!("ZELLIJ_MCP_BUILD_ID"));

/// Which build of the plugin this is: a hash of its sources.
pub fn build_id() -> &'static str {
    BUILD_MARK.trim_start_matches("zellij-mcp-build-id:")
}

/// Zellij stops a plugin whose memory grows past this (wasmi's limit in
/// zellij-server 0.45.1).
const HEAP_LIMIT: usize = 16 * 1024 * 1024;

/// How long a working agent's screen and record may stay unchanged before
/// it reads `stalled`, unless `stalled_after_s` says otherwise.
const DEFAULT_STALLED_AFTER_S: u64 = 300;

/// How often each instance renews or checks the lease.
const HEARTBEAT: Duration = Duration::from_secs(1);
/// The plugin's shared folder (across instances of this plugin URL).
const SHARED_DIR: &str = "/cache";

/// The plugin: its state in parts, each touched by the handlers that need it.
#[derive(Default)]
pub struct McpPlugin<H: Host + 'static> {
    host: H,
    settings: Settings,
    /// Whether this instance is the one that acts.
    acting: Acting,
    /// The session as the last events described it.
    view: SessionView,
    /// Requests under way: replies kept for replay, and replies that come later.
    requests: Requests<H>,
    /// Writes waiting for their turn, per pane.
    input: WriteQueue,
    waits: Waits<Purpose>,
    /// Terminal panes' cwd and running command, as Zellij's events tell them.
    pane_facts: PaneFacts,
    agents: Agents,
    /// What brings each agent back after the session ends.
    keeping: Keeping,
    /// Messages waiting for delivery.
    outbox: Outbox,
    /// The session's event log: messages and agents.
    log: EventLog,
    /// Command lines typed into shell panes, waiting for their exit reports.
    shell_runs: ShellRuns,
    /// What each agent's screen last showed.
    attention: Attention,
    /// What each agent program's hooks told last.
    hooks: HookReports,
    /// How each agent program shows its state and takes a message.
    programs: Programs,
    /// The person's descriptions among them, kept for every instance.
    programs_file: ProgramsFile,
    /// Whether render events come (while waits are under way).
    renders_followed: bool,
}

/// The request and reply bookkeeping.
#[derive(Default)]
pub struct Requests<H: Host + 'static> {
    /// Requests under way and recent replies.
    pub replies: Replies,
    /// Requests whose reply comes later.
    pub later: Later<Task<H>>,
    /// Requests answered since the plugin loaded.
    pub served: u64,
    /// The count the pane's status line shows, and when it was drawn.
    pub shown: (u64, Option<Instant>),
}

/// Work for the next timer, outside `pipe()`.
pub type Task<H> = Box<dyn FnOnce(&mut McpPlugin<H>) -> HandlerResult>;

/// The plugin's configuration from the layout, and what it sets.
#[derive(Debug, Default)]
pub struct Settings {
    configuration: BTreeMap<String, String>,
    submit_delay_ms: u64,
    /// Tell an agent's parent when it exits or closes (`child_events false`
    /// in the layout turns it off).
    child_events: bool,
    /// Mark tabs where an agent asks (`tab_marks false` turns it off, as
    /// the board's `m` does with a file in the shared folder).
    tab_marks: bool,
    /// That file.
    marks_off: std::path::PathBuf,
    /// Start agents again in their conversations after the session ends
    /// (`resume_agents false` turns it off).
    resume_agents: bool,
    /// How long a working agent's screen and record may stay unchanged
    /// before it reads `stalled` (`stalled_after_s`).
    stalled_after_ms: u64,
    /// Commands zellij-mcp starts run under its relay (off: `relay false`).
    relay: bool,
}

impl Settings {
    fn new(configuration: BTreeMap<String, String>) -> Self {
        let submit_delay_ms = configuration
            .get("submit_delay_ms")
            .and_then(|v| v.parse::<u64>().ok())
            .map_or(DEFAULT_SUBMIT_DELAY_MS, |ms| ms.min(MAX_SUBMIT_DELAY_MS));
        let off = |key: &str| configuration.get(key).map(String::as_str) == Some("false");
        let (child_events, tab_marks) = (!off("child_events"), !off("tab_marks"));
        let resume_agents = !off("resume_agents");
        let relay = !off("relay");
        let stalled_after_s = configuration
            .get("stalled_after_s")
            .and_then(|v| v.parse::<u64>().ok());
        let stalled_after_ms = stalled_after_s.unwrap_or(DEFAULT_STALLED_AFTER_S).max(1) * 1_000;
        Settings {
            configuration,
            submit_delay_ms,
            child_events,
            tab_marks,
            marks_off: Default::default(),
            resume_agents,
            stalled_after_ms,
            relay,
        }
    }
}

impl<H: Host> McpPlugin<H> {
    fn start(&mut self, shared_dir: &Path, configuration: BTreeMap<String, String>) {
        self.settings = Settings::new(configuration);
        self.settings.marks_off = shared_dir.join(board::MARKS_OFF_FILE);
        let ids = self.host.ids();
        let me = Instance {
            plugin_id: ids.plugin_id,
            client_id: ids.client_id,
        };
        Lease::sweep(shared_dir, self.host.unix_ms());
        EventLog::sweep(shared_dir);
        let lease = Lease::new(shared_dir, ids.zellij_pid, me);
        lease.announce();
        self.agents = Agents::new(lease.file_beside("agents"));
        self.programs_file = ProgramsFile::new(lease.file_beside("programs.kdl"));
        self.programs = self
            .programs_file
            .changed()
            .unwrap_or_else(Programs::built_in);
        let session = session_key(ids.zellij_pid);
        self.log = EventLog::open(shared_dir.join(format!("events-{session}.jsonl")));
        self.keeping = Keeping::new(
            shared_dir.join(format!("kept-{session}.json")),
            shared_dir.join("bridge"),
            self.settings.resume_agents,
        );
        self.keeping.relay_on = self.settings.relay;
        self.input = WriteQueue::shared(Box::new(lease.pane_claims()));
        self.acting.lease = Some(lease);
        self.heartbeat(self.host.now());
    }

    /// What this instance holds now.
    fn memory(&self) -> PluginMemory {
        let (kept_replies, kept_reply_bytes, in_flight) = self.requests.replies.sizes();
        PluginMemory {
            heap_bytes: self.host.heap_bytes(),
            heap_limit_bytes: HEAP_LIMIT,
            kept_replies,
            kept_reply_bytes,
            in_flight,
            pending_replies: self.requests.later.len(),
            queued_writes: self.input.pending(),
            exit_codes: self.view.exit_codes.len(),
        }
    }

    /// Whether this instance acts now (renewing or claiming the lease).
    fn is_acting(&mut self) -> bool {
        self.acting.check(self.host.unix_ms(), self.view.fed_ms)
    }

    /// Whether this instance, and no other, carries out the message or
    /// event `key` (see [`state::lease`]).
    fn takes(&mut self, key: &[&[u8]], request: Option<&str>) -> bool {
        let (now_ms, fed_ms) = (self.host.unix_ms(), self.view.fed_ms);
        self.acting.takes(key, request, now_ms, fed_ms)
    }
}

/// What the session's files are named for: the session (which a
/// resurrected session keeps), else the Zellij server.
fn session_key(zellij_pid: u32) -> String {
    let session = std::env::var("ZELLIJ_SESSION_NAME")
        .ok()
        .filter(|name| !name.is_empty())
        .unwrap_or_else(|| format!("pid-{zellij_pid}"));
    session
        .chars()
        .map(|c| match c.is_ascii_alphanumeric() || "-_.".contains(c) {
            true => c,
            false => '_',
        })
        .collect()
}

/// The permissions the plugin asks for, as the protocol lists them.
fn permissions() -> Vec<PermissionType> {
    PERMISSIONS
        .iter()
        .filter_map(|name| name.parse().ok())
        .collect()
}

#[cfg(test)]
mod tests;

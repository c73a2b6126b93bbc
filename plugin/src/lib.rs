//! The zellij-mcp plugin: runs inside a Zellij session and carries out the
//! bridge's requests on panes **by id**, through the plugin API, without ever
//! moving focus. The plugin's binary (`main.rs`) only registers [`entry`]'s
//! functions with Zellij; everything else is this library, tested natively.
//!
//! - [`entry`]: Zellij's calls into the plugin; a pipe message is read piece
//!   by piece and refused by size before it is decoded.
//! - [`pipe`]: requests in (parsing, the typed op dispatch table), replies out.
//! - [`handlers`]: one handler per op; each says what its answer waits for
//!   ([`handled`]).
//! - [`lifecycle`]: the life of a request answered later, to its one answer.
//! - [`delivery`]: typing queued messages into their targets' panes, only
//!   into an agent's empty composer; noting agents that start asking.
//! - [`watching`]: looking at waited-on panes, and answering finished waits;
//!   and shell runs' exit reports and timeouts.
//! - [`events`]: one function per Zellij event.
//! - [`logging`]: the plugin's lines in Zellij's log (`log_level`).
//! - [`status`]: the one line its pane shows, when shown.
//! - [`board`]: the person's board of agents, the plugin loaded again with
//!   `board "true"` (its own state, drawing and events, in `board/`).
//!
//! The state, in plain types tested natively on a fake [`host`] (and with
//! the `fake-host` feature, by other crates too: [`fake`]):
//! - [`later`]: requests held for the next timer or for a change to show;
//! - [`lease`]: which of the per-client instances acts (exactly once);
//! - [`agents`]: the agent names of panes;
//! - [`messages`]: messages waiting for delivery, in order;
//! - [`session`]: tabs, panes and clients as the last events described them;
//! - [`replay`]: requests under way and recent replies, for pipes that died;
//! - [`writes`]: per-pane FIFO of writes and timed submit CRs;
//! - [`shares`]: what the plugin caps, and each client's share of it;
//! - [`pane_facts`]: panes' cwd and running command, from Zellij's events;
//! - [`waits`]: event-driven waits on output, idleness and exit;
//! - [`shell_runs`]: command lines run in shell panes, one at a time;
//! - [`attention`]: what each agent's screen last showed (who is asking);
//! - [`tab_marks`]: the tab bar's mark on tabs where an agent asks.
//!
//! Modules depend one way (`layers.rs` checks it): the state above
//! knows nothing of [`McpPlugin`]; the plugin holds the state; handlers
//! work on the parts of it the dispatch table hands them; the lifecycle,
//! delivery, watching, the events and the pipe act on the plugin.

mod agents;
mod attention;
pub mod board;
mod commands;
mod delivery;
pub mod entry;
mod event_log;
mod events;
#[cfg(any(test, feature = "fake-host"))]
pub mod fake;
mod files;
mod handled;
mod handlers;
mod host;
mod later;
mod lease;
mod lifecycle;
mod logging;
mod messages;
mod pane_facts;
mod pipe;
mod programs_file;
mod replay;
mod session;
mod shares;
mod shell_runs;
mod status;
mod tab_marks;
mod waits;
mod watching;
mod writes;

use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

use programs_file::ProgramsFile;
use zellij_mcp_protocol::agent_programs::Programs;
use zellij_mcp_protocol::ops::{PluginMemory, DEFAULT_SUBMIT_DELAY_MS, MAX_SUBMIT_DELAY_MS};
use zellij_mcp_protocol::PERMISSIONS;
use zellij_tile::prelude::*;

use agents::Agents;
use attention::Attention;
use event_log::EventLog;
use handled::HandlerResult;
use host::{Host, ZellijHost};
use later::Later;
use lease::{Acting, Instance, Lease};
use messages::Outbox;
use pane_facts::PaneFacts;
use replay::Replies;
use session::SessionView;
use shell_runs::ShellRuns;
use waits::{Purpose, Waits};
use writes::WriteQueue;

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
    /// Messages waiting for delivery.
    outbox: Outbox,
    /// The session's event log: messages and agents.
    log: EventLog,
    /// Command lines typed into shell panes, waiting for their exit reports.
    shell_runs: ShellRuns,
    /// What each agent's screen last showed.
    attention: Attention,
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

/// The least time between two drawings of the status line.
const STATUS_EVERY: Duration = Duration::from_secs(1);

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
}

impl Settings {
    fn new(configuration: BTreeMap<String, String>) -> Self {
        let submit_delay_ms = configuration
            .get("submit_delay_ms")
            .and_then(|v| v.parse::<u64>().ok())
            .map_or(DEFAULT_SUBMIT_DELAY_MS, |ms| ms.min(MAX_SUBMIT_DELAY_MS));
        let off = |key: &str| configuration.get(key).map(String::as_str) == Some("false");
        let (child_events, tab_marks) = (!off("child_events"), !off("tab_marks"));
        Settings {
            configuration,
            submit_delay_ms,
            child_events,
            tab_marks,
            marks_off: Default::default(),
        }
    }
}

impl ZellijPlugin for McpPlugin<ZellijHost> {
    fn load(&mut self, configuration: BTreeMap<String, String>) {
        // Grants are pre-seeded or answered by the user; never wait for the
        // PermissionRequestResult event (it does not come when pre-seeded).
        request_permission(&permissions());
        subscribe(&[
            EventType::PaneUpdate,
            EventType::TabUpdate,
            EventType::Timer,
            EventType::ListClients,
            EventType::CommandPaneExited,
            EventType::CommandPaneReRun,
            EventType::CwdChanged,
            EventType::CommandChanged,
        ]);
        // Not hide_self(): it does not hide a tiled pane in 0.45.1, and it
        // stops the pane and tab events this plugin lives on.
        set_selectable(false);
        logging::start(configuration.get("log_level").map(String::as_str));
        self.start(Path::new(SHARED_DIR), configuration);
    }

    fn update(&mut self, event: Event) -> bool {
        self.handle(event);
        self.follow_renders_while_waiting();
        self.status_changed()
    }

    fn pipe(&mut self, message: PipeMessage) -> bool {
        self.take_pipe(message);
        self.status_changed()
    }

    fn render(&mut self, _rows: usize, cols: usize) {
        print!("{}", status::line(&self.pane_status(), cols));
    }
}

impl<H: Host> McpPlugin<H> {
    fn handle(&mut self, event: Event) {
        match event {
            Event::PaneUpdate(manifest) => self.on_pane_update(manifest),
            Event::TabUpdate(tabs) => self.on_tab_update(tabs),
            Event::ListClients(clients) => self.on_clients(clients),
            Event::PaneRenderReport(rendered) => self.on_render(rendered),
            Event::CommandPaneExited(pane, code, _) => self.on_command_exited(pane, code),
            Event::CommandPaneReRun(pane, _) => self.view.exit_codes.rerun(pane),
            Event::CwdChanged(pane, cwd, _) => self.on_cwd_changed(pane, cwd),
            Event::CommandChanged(pane, argv, _, _) => self.on_command_changed(pane, argv),
            Event::Timer(_) => self.on_timer(),
            _ => {}
        }
    }

    /// Render events come only while waits are under way: they are the
    /// waits' news, and each costs a copy of every changed pane's screen
    /// (a session with a client attached renders on every change). A new
    /// wait looks at its pane at once and then on its timer until the
    /// first render event comes, so none is missed in between.
    /// A pipe message, and the render events its waits need.
    pub fn take_pipe(&mut self, message: PipeMessage) {
        self.on_pipe(message);
        self.follow_renders_while_waiting();
    }

    pub fn follow_renders_while_waiting(&mut self) {
        let waiting = !self.waits.is_empty();
        if waiting != self.renders_followed {
            self.host.render_events(waiting);
            self.renders_followed = waiting;
        }
    }

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
        self.log = EventLog::open(shared_dir.join(log_file_name(ids.zellij_pid)));
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

    /// What the plugin's pane shows.
    /// Whether to draw the status line again: its count changed, and it
    /// was drawn more than a second ago. Each drawing costs Zellij a render
    /// of the session, which a request each time would pay; the heartbeat's
    /// timer brings the count up to date within a second.
    fn status_changed(&mut self) -> bool {
        let now = self.host.now();
        let (shown, at) = self.requests.shown;
        let due = at.is_none_or(|at| now.duration_since(at) >= STATUS_EVERY);
        if self.requests.served == shown || !due {
            return false;
        }
        self.requests.shown = (self.requests.served, Some(now));
        true
    }

    fn pane_status(&self) -> status::Status<'static> {
        status::Status {
            version: env!("CARGO_PKG_VERSION"),
            build_id: build_id(),
            acting: self.acting.holding(),
            served: self.requests.served,
            waits: self.waits.len(),
            queued_messages: self.outbox.len(),
        }
    }

    /// Whether this instance acts now (renewing or claiming the lease).
    fn is_acting(&mut self) -> bool {
        self.acting.check(self.host.unix_ms(), self.view.fed_ms)
    }

    /// Whether this instance, and no other, carries out the message or
    /// event `key` (see [`lease`]).
    fn takes(&mut self, key: &[&[u8]], request: Option<&str>) -> bool {
        let (now_ms, fed_ms) = (self.host.unix_ms(), self.view.fed_ms);
        self.acting.takes(key, request, now_ms, fed_ms)
    }
}

/// `events-<session>.jsonl`: named for the session (which a resurrected
/// session keeps), else for the Zellij server.
fn log_file_name(zellij_pid: u32) -> String {
    let session = std::env::var("ZELLIJ_SESSION_NAME")
        .ok()
        .filter(|name| !name.is_empty())
        .unwrap_or_else(|| format!("pid-{zellij_pid}"));
    let safe: String = session
        .chars()
        .map(|c| match c.is_ascii_alphanumeric() || "-_.".contains(c) {
            true => c,
            false => '_',
        })
        .collect();
    format!("events-{safe}.jsonl")
}

/// The permissions the plugin asks for, as the protocol lists them.
fn permissions() -> Vec<PermissionType> {
    PERMISSIONS
        .iter()
        .filter_map(|name| name.parse().ok())
        .collect()
}

#[cfg(test)]
mod layers;
#[cfg(test)]
mod op_tests;
#[cfg(test)]
mod properties;
#[cfg(test)]
mod tests;
